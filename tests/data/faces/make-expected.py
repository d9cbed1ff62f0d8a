#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Writes the expected detections of vjdetect's tests with python3-opencv
(Debian 12: OpenCV 4.6) so that the tests themselves need no OpenCV.

  expected-frontalface-default.txt  grouped boxes on the photos
  expected-raw.txt                  raw windows (minNeighbors=0) on crops
                                    of the photos, several cascades and
                                    parameters: the exact-semantics test
  expected-clip.txt                 grouped boxes on every frame of
                                    ../sample-face.webm, decoded to GRAY8
                                    by GStreamer (needs gst-launch-1.0)

Run from this folder: ./make-expected.py"""
import cv2, glob, os, subprocess, tempfile

HAAR = '/usr/share/opencv4/haarcascades/'
LBP = '/usr/share/opencv4/lbpcascades/'
DEFAULT = HAAR + 'haarcascade_frontalface_default.xml'
PHOTOS = ['640px-IceBlockNearJoekullsarlon.jpg', 'astronaut.png',
          'grace_hopper_matplotlib.jpg', 'vladmandic_sample3.jpg']

def grey(path):
    return cv2.cvtColor(cv2.imread(path), cv2.COLOR_BGR2GRAY)

def photos():
    cc = cv2.CascadeClassifier(DEFAULT)
    with open('expected-frontalface-default.txt', 'w') as f:
        f.write('# Expected detections for vjdetect\'s agreement tests, made with python3-opencv\n'
                '# %s: CascadeClassifier(haarcascade_frontalface_default.xml)\n'
                '# .detectMultiScale(grey, scaleFactor=1.1, minNeighbors=3, minSize=(24, 24));\n'
                '# grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY). One line per box: file x y w h\n'
                % cv2.__version__)
        for p in PHOTOS:
            g = grey(p)
            boxes = cc.detectMultiScale(g, scaleFactor=1.1, minNeighbors=3, minSize=(24, 24))
            f.write('# %s: %dx%d, %d boxes\n' % (p, g.shape[1], g.shape[0], len(boxes)))
            for b in boxes:
                f.write('%s %d %d %d %d\n' % (p, *b))

# case: cascade, photo, crop (x y w h), scale factor, min size, max size
RAW = [
    (DEFAULT, 'astronaut.pgm', (0, 0, 512, 512), 1.1, 0, 0),
    (DEFAULT, 'astronaut.pgm', (101, 33, 301, 257), 1.1, 0, 0),
    (DEFAULT, 'grace_hopper_matplotlib.pgm', (7, 3, 497, 591), 1.25, 30, 300),
    (DEFAULT, 'astronaut.pgm', (150, 40, 25, 31), 1.1, 0, 0),
    (DEFAULT, 'astronaut.pgm', (150, 40, 24, 24), 1.05, 0, 0),
    (HAAR + 'haarcascade_frontalface_alt2.xml', 'grace_hopper_matplotlib.pgm', (0, 0, 512, 600), 1.1, 0, 0),
    (HAAR + 'haarcascade_eye_tree_eyeglasses.xml', 'astronaut.pgm', (120, 40, 203, 177), 1.1, 0, 0),
    (HAAR + 'haarcascade_upperbody.xml', 'astronaut.pgm', (0, 0, 511, 509), 1.1, 0, 0),
    (HAAR + 'haarcascade_smile.xml', 'grace_hopper_matplotlib.pgm', (150, 250, 211, 201), 1.2, 0, 0),
    (LBP + 'lbpcascade_frontalface.xml', 'astronaut.pgm', (3, 5, 509, 507), 1.1, 0, 0),
    (LBP + 'lbpcascade_frontalface_improved.xml', 'grace_hopper_matplotlib.pgm', (0, 0, 512, 600), 1.15, 0, 0),
    (DEFAULT, 'vladmandic_sample3.pgm', (0, 0, 1920, 1350), 1.1, 24, 0),
]

def raw():
    with open('expected-raw.txt', 'w') as f:
        f.write('# Raw windows (minNeighbors=0) of OpenCV %s detectMultiScale on crops of the\n'
                '# photos\' grey PGMs. "case CASCADE PGM X Y W H SCALE MINSIZE MAXSIZE N" then N\n'
                '# lines "x y w h"; a size of 0 means none (OpenCV: Size()).\n' % cv2.__version__)
        for casc, pgm, (x, y, w, h), sf, mn, mx in RAW:
            g = cv2.imread(pgm, cv2.IMREAD_GRAYSCALE)[y:y + h, x:x + w].copy()
            r = cv2.CascadeClassifier(casc).detectMultiScale(
                g, scaleFactor=sf, minNeighbors=0, minSize=(mn, mn), maxSize=(mx, mx))
            r = sorted(tuple(int(v) for v in b) for b in r)
            f.write('case %s %s %d %d %d %d %g %d %d %d\n' % (os.path.basename(casc), pgm, x, y, w, h,
                                                          sf, mn, mx, len(r)))
            for b in r:
                f.write('%d %d %d %d\n' % b)

def clip():
    W, H = 400, 300
    with tempfile.NamedTemporaryFile(suffix='.gray') as t:
        subprocess.run(['gst-launch-1.0', '-q', 'filesrc', 'location=../sample-face.webm', '!',
                        'decodebin', '!', 'videoconvert', '!', 'video/x-raw,format=GRAY8', '!',
                        'filesink', 'location=' + t.name], check=True)
        data = open(t.name, 'rb').read()
    import numpy as np
    frames = np.frombuffer(data, np.uint8).reshape(-1, H, W)
    cc = cv2.CascadeClassifier(DEFAULT)
    with open('expected-clip.txt', 'w') as f:
        f.write('# OpenCV %s detectMultiScale(scaleFactor=1.1, minNeighbors=3, minSize=(24, 24))\n'
                '# with haarcascade_frontalface_default.xml on every frame of sample-face.webm\n'
                '# (400x300, decoded by GStreamer to GRAY8). "frame N x y w h" per box.\n' % cv2.__version__)
        for i, g in enumerate(frames):
            for b in cc.detectMultiScale(g, scaleFactor=1.1, minNeighbors=3, minSize=(24, 24)):
                f.write('frame %d %d %d %d %d\n' % (i, *b))
        f.write('# frames %d\n' % len(frames))

if __name__ == '__main__':
    photos()
    raw()
    clip()
