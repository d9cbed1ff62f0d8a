#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Everything `meson install` would write lies under the configured prefix
(the plugin under LIBDIR/gstreamer-1.0, the docs under DATADIR/doc), and
the plugin reports the version meson.build gives. Every page of docs/ (and
what they link to), the example kernels, the apps' sources and the
generated element reference are installed. Arguments: the build dir, the
source dir."""
import json
import os
import subprocess
import sys

build = sys.argv[1]
source = sys.argv[2] if len(sys.argv) > 2 else None


def introspect(what):
    out = subprocess.run(["meson", "introspect", build, what], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)


opts = {o["name"]: o["value"] for o in introspect("--buildoptions")}
prefix = os.path.normpath(opts["prefix"])
installed = introspect("--installed")
bad = [dest for dest in installed.values()
       if os.path.commonpath([prefix, os.path.normpath(dest)]) != prefix]
plugin = [d for d in installed.values() if d.endswith("libgstfastvision.so")]
# one file: nothing else of ours in GStreamer's plugin folder
others = [d for d in installed.values() if os.path.basename(d).startswith("lib")
          and ".so" in d and not d.endswith("libgstfastvision.so")]
want_dir = os.path.join(prefix, opts["libdir"], "gstreamer-1.0")
docs = [d for d in installed.values() if d.endswith("fftconvolve.md")]
fails = 0
if bad:
    print("installed outside the prefix %s: %s" % (prefix, ", ".join(bad)))
    fails += 1
if len(plugin) != 1 or os.path.dirname(plugin[0]) != want_dir:
    print("the plugin goes to %s, not %s" % (plugin, want_dir))
    fails += 1
if others:
    print("more than the plugin is installed as a library: %s" % ", ".join(others))
    fails += 1
if not docs:
    print("the element reference is not installed")
    fails += 1
if source:
    want = [os.path.join("docs", f) for f in os.listdir(os.path.join(source, "docs"))
            if f.endswith((".md", ".svg"))]
    want += [os.path.join("docs", "data", f)
             for f in os.listdir(os.path.join(source, "docs", "data"))]
    want += [os.path.join("pipelines", "kernels", f)
             for f in os.listdir(os.path.join(source, "pipelines", "kernels"))]
    want += ["pipelines/apps/privacy_app.c", "pipelines/apps/privacy_app.py",
             "tests/data/sample-face.webm", "tests/data/parts.webm"]
    srcs = {os.path.relpath(os.path.realpath(k), os.path.realpath(source))
            for k in installed}
    left = sorted(f for f in want if f not in srcs)
    if left:
        print("not installed: %s" % ", ".join(left))
        fails += 1
    # generated where gst-inspect-1.0 can load the plugin: not in sanitizer or fuzzing builds
    generated = opts.get("b_sanitize", "none") == "none" and not opts.get("fuzzing", False)
    if generated and not any(d.endswith("fastvision-elements.md") for d in installed.values()):
        print("the generated element reference is not installed")
        fails += 1
# the installed README names only what is installed beside it, and the
# element reference holds no build folder (two builds install the same file)
docdir = os.path.join(prefix, opts["datadir"], "doc", "fastvision")
readme = [k for k, d in installed.items() if d == os.path.join(docdir, "README.md")]
if len(readme) != 1:
    print("no README.md installed in %s" % docdir)
    fails += 1
else:
    import re
    text = open(readme[0], encoding="utf-8").read()
    dests = {os.path.relpath(d, docdir) for d in installed.values()}
    named = set(re.findall(r"\b(examples/[\w./-]+\.(?:webm|txt|c|py))", text))
    missing = sorted(n for n in named if n not in dests)
    stale = sorted(set(re.findall(r"\b(tests/data/[\w./-]+|pipelines/kernels/[\w./-]+)", text)))
    if missing or stale or not named:
        print("the installed README names what is not installed: %s %s" % (missing, stale))
        fails += 1
for k, d in installed.items():
    if d.endswith("fastvision-elements.md") and os.path.exists(k):
        ref = open(k, encoding="utf-8").read()
        if os.path.abspath(build) in ref or os.path.realpath(build) in ref:
            print("the element reference holds the build folder %s" % build)
            fails += 1
version = introspect("--projectinfo")["version"]
config = open(os.path.join(build, "fv_config.h")).read()
if '#define FV_VERSION "%s"' % version not in config:
    print("fv_config.h does not carry version %s" % version)
    fails += 1
print("%d files install under %s; plugin in %s; version %s" % (
    len(installed), prefix, want_dir, version))
sys.exit(1 if fails else 0)
