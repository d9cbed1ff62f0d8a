#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# What `meson install` puts under the prefix works as its README and the
# app's comment say: privacy_app.c builds with the one cc line it gives and
# runs against the installed plugin on the installed sample clip; the
# installed README's launch line runs as written from the doc folder; the
# element reference is the same file whichever folder the build is in.
# Arguments: the build folder, the source folder.
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
meson install -C "$build" --destdir "$tmp/root" --no-rebuild --quiet >/dev/null
prefix=$(meson introspect "$build" --buildoptions | python3 -c \
  'import json,sys; o={x["name"]:x["value"] for x in json.load(sys.stdin)}; print(o["prefix"], o["libdir"], o["datadir"])')
read -r pre libdir datadir <<<"$prefix"
plugins=$tmp/root$pre/$libdir/gstreamer-1.0
doc=$tmp/root$pre/$datadir/doc/fastvision
fail=0
# the app, built as its comment says
line=$(sed -n 's/^ \*   cc privacy_app.c -o privacy_app \\$/cc privacy_app.c -o privacy_app/p' "$doc/examples/privacy_app.c")
[ -n "$line" ] || { echo "FAIL: privacy_app.c gives no cc line"; fail=1; }
(cd "$tmp" && cp "$doc/examples/privacy_app.c" . && cc privacy_app.c -o privacy_app \
  $(pkg-config --cflags --libs gstreamer-1.0 gstreamer-app-1.0 gstreamer-video-1.0)) \
  || { echo "FAIL: privacy_app.c does not build as its comment says"; fail=1; }
if [ -x "$tmp/privacy_app" ]; then
  GST_PLUGIN_PATH=$plugins GST_REGISTRY_1_0=$tmp/registry.bin timeout 120 \
    "$tmp/privacy_app" "$doc/examples/data/sample-face.webm" 4 >"$tmp/app.log" 2>&1 \
    || { echo "FAIL: privacy_app against the installed plugin: $(tail -3 "$tmp/app.log")"; fail=1; }
fi
# the installed README's inspection line, from its folder, as written
cmd=$(python3 - "$doc/README.md" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
m = re.search(r"^gst-launch-1.0 -q filesrc location=examples/data/parts.webm .*?fakesink$",
              text, re.S | re.M)
print(m.group(0).replace("\\\n", " ") if m else "")
PY
)
if [ -z "$cmd" ]; then
  echo "FAIL: the installed README has no inspection line on examples/data/parts.webm"; fail=1
else
  (cd "$doc" && GST_PLUGIN_PATH=$plugins GST_REGISTRY_1_0=$tmp/registry.bin \
    timeout 120 bash -c "$cmd" >"$tmp/docs.jsonl") \
    && [ "$(wc -l <"$tmp/docs.jsonl")" -ge 100 ] \
    || { echo "FAIL: the installed README's inspection line: $(tail -c 300 "$tmp/docs.jsonl")"; fail=1; }
fi
# the element reference from another folder: the same bytes
if [ -f "$doc/docs/fastvision-elements.md" ]; then
  ln -s "$build/gst" "$tmp/elsewhere"
  python3 "$src/scripts/gen-element-reference.py" "$tmp/elsewhere" "$src" "$tmp/ref.md"
  cmp -s "$tmp/ref.md" "$doc/docs/fastvision-elements.md" \
    || { echo "FAIL: the element reference differs by build folder: $(diff "$tmp/ref.md" "$doc/docs/fastvision-elements.md" | head -4)"; fail=1; }
  grep -q "$build" "$doc/docs/fastvision-elements.md" && { echo "FAIL: the reference names $build"; fail=1; }
fi
[ $fail -eq 0 ] && echo "installed files: ok"
exit $fail
