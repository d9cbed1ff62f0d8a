#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Generates the element reference (what hotdoc and gst_plugins_cache.json
give GStreamer's modules; hotdoc is not in Debian): for every element of the
built plugin, its SECTION documentation comment from gst/elements/gst*.c (the
description and launch lines) and what gst-inspect-1.0 says of it (pads,
capabilities, every property with its type, range, default and flags,
signals), as one Markdown page.

    gen-element-reference.py PLUGIN_DIR SOURCE_DIR OUTPUT.md"""
import glob
import os
import re
import subprocess
import sys
import tempfile


def section_comments(src):
    """element name -> its SECTION comment as Markdown"""
    out = {}
    for path in sorted(glob.glob(os.path.join(src, "gst", "elements", "gst*.c"))):
        text = open(path, encoding="utf-8").read()
        m = re.search(r"/\*\*\s*\n\s*\* SECTION:element-([\w-]+)\n(.*?)\*/", text, re.S)
        if not m:
            continue
        body = []
        for line in m.group(2).splitlines():
            line = re.sub(r"^\s*\*\s?", "", line)
            if line.startswith("@title:"):
                continue
            if line.strip() == "|[":
                line = "```sh"
            elif line.strip().startswith("]|"):
                rest = line.strip()[2:].strip()
                line = "```" + ("\n\n" + rest if rest else "")
            body.append(line)
        out[m.group(1)] = "\n".join(body).strip()
    return out


def main():
    plugin_dir, src, output = sys.argv[1:4]
    env = dict(os.environ, GST_PLUGIN_PATH=plugin_dir,
               GST_REGISTRY_1_0=os.path.join(tempfile.mkdtemp(), "registry.bin"))
    listing = subprocess.run(["gst-inspect-1.0", os.path.join(plugin_dir,
                                                              "libgstfastvision.so")],
                             env=env, capture_output=True, text=True, check=True).stdout
    elements = re.findall(r"^\s+([a-z0-9]+): ", listing, re.M)
    if not elements:
        sys.exit("no elements found in the plugin")
    docs = section_comments(src)
    page = ["# fastvision element reference", "",
            "Generated at build time from the plugin and its sources "
            "(`scripts/gen-element-reference.py`): each element's documentation "
            "comment, then what `gst-inspect-1.0` says of it. The guides in this folder "
            "(satfilter.md, fftconvolve.md, …) explain more.", "",
            "```", listing.strip(), "```", ""]
    for e in elements:
        inspect = subprocess.run(["gst-inspect-1.0", e], env=env, capture_output=True,
                                 text=True, check=True).stdout
        page += [f"## {e}", "", docs.get(e, "(no documentation comment)"), "",
                 "### gst-inspect-1.0", "", "```", inspect.strip(), "```", ""]
    text = "\n".join(page)
    # the same file from any build folder: the plugin's path is where it is
    # installed, not where it was built
    for d in {os.path.abspath(plugin_dir), os.path.realpath(plugin_dir)}:
        text = text.replace(d + os.sep, "")
    with open(output, "w", encoding="utf-8") as f:
        f.write(text)


if __name__ == "__main__":
    main()
