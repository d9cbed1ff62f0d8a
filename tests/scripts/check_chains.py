#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The privacy chain is written once: docs/privacy.md's line
`Recommended: `CHAIN`` (the elements and properties after the decoder and
before satfilter). Every ready pipeline runs exactly it (what stands
between vjdetect's start and `! satfilter`, with element names, cascade
and backend settings left out), and the docs that describe those pipelines
name it.   check_chains.py SOURCE_ROOT"""
import re
import sys

root = sys.argv[1]
SCRIPTS = ["pipelines/demo.sh", "pipelines/gpu.sh", "pipelines/serve.py",
           "pipelines/apps/privacy_app.c", "pipelines/apps/privacy_app.py"]
DOCS = ["docs/embedding.md", "docs/deployment.md"]
# what a script may add that is not the chain: element names, the cascade a
# host needs, the backend it forces
NOISE = re.compile(r"\bname=\S+|\$cascade|\bbackend=\S+")


def norm(text):
    return " ".join(NOISE.sub(" ", text).split())


def chains(text):
    """each 'vjdetect ... ! satfilter' in text, its lines joined and the
    quoting of code and shell taken out"""
    flat = re.sub(r'"\s*\n\s*"|\\\n|"\s*\+?\s*\n\s*"', " ", text)   # joined literals
    flat = re.sub(r"\s+", " ", flat)
    return [norm(m.group(1)) for m in re.finditer(r"(vjdetect\b[^\"`]*?)\s*!\s*satfilter", flat)]


def main():
    privacy = open(f"{root}/docs/privacy.md").read()
    m = re.search(r"^Recommended: `([^`]+)`", privacy, re.M)
    if not m:
        print("FAIL: docs/privacy.md has no line 'Recommended: `CHAIN`'")
        return 1
    want = norm(m.group(1))
    fail = 0
    for path in SCRIPTS:
        found = chains(open(f"{root}/{path}").read())
        bad = [c for c in found if c != want]
        if not found or bad:
            print(f"FAIL: {path} runs {bad or 'no privacy chain'}, not the recommended '{want}'")
            fail = 1
    for path in DOCS:
        found = [c for c in chains(open(f"{root}/{path}").read().replace("`", ""))
                 if "roitrack" in c or c == "vjdetect"]
        if want not in found:
            print(f"FAIL: {path} does not name the recommended chain '{want}' (it names {found})")
            fail = 1
    if not fail:
        print(f"chains: every ready pipeline and its docs run '{want}'")
    return fail


if __name__ == "__main__":
    sys.exit(main())
