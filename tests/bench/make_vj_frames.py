#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Benchmark frames for vjdetect from a real photo (tests/data/faces/
vladmandic_sample3.jpg, five faces): grey PGMs at 640x480, 1080p and 4K,
resized with cv2.INTER_AREA. Usage: make_vj_frames.py OUTDIR"""
import cv2, os, sys
here = os.path.dirname(os.path.abspath(__file__))
src = cv2.cvtColor(cv2.imread(os.path.join(here, '../data/faces/vladmandic_sample3.jpg')),
                   cv2.COLOR_BGR2GRAY)
out = sys.argv[1] if len(sys.argv) > 1 else '.'
for name, size in (('vga', (640, 480)), ('1080p', (1920, 1080)), ('4k', (3840, 2160))):
    interp = cv2.INTER_AREA if size[0] <= src.shape[1] else cv2.INTER_CUBIC
    cv2.imwrite(os.path.join(out, 'faces-%s.pgm' % name), cv2.resize(src, size, interpolation=interp))
