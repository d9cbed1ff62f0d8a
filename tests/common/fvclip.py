# SPDX-License-Identifier: LGPL-2.1-or-later
"""Synthetic privacy clips with ground truth, for the exposure benchmark
(tests/bench/bench_privacy.py) and the privacy pipeline's test
(tests/elements/test_privacy_clip.py).

make_clip(W, H, FRAMES, SEED) yields (GRAY8 frame, truth) pairs: the two
photos' faces in tests/data (the astronaut and Grace Hopper) cut out with a
margin and pasted on the landscape photo (no face), each twice, entering
from an edge, moving along a wobbling path, growing and shrinking (scale
0.6 to 1.5), turning in the image plane (a peak turn drawn from `turn`,
degrees), crossing a grey occluder bar (`occluder` of the frame's width,
0 for none), under lighting that changes (x0.6 to x1.2), blurred on some
frames (`blur`), then leaving. A frame's truth is a list of (face key,
(x, y, w, h)): the photo's OpenCV box, turned and scaled as pasted.

measure(truth, boxes, W, H) scores the boxes a `satfilter roi-type=face`
would blur (per frame, a list of ((x, y, w, h), track id or None)): a
face-frame is exposed when less than 90% of the face's inner box (the
middle 80% of its width and height) lies inside them.
"""
import os

import numpy as np
from scipy import ndimage

from fvpnm import read_pgm

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "faces")
# OpenCV 4.6's boxes on the photos (tests/data/faces/expected-frontalface-default.txt)
FACES = [("astronaut.pgm", (177, 66, 95, 95)), ("grace_hopper_matplotlib.pgm", (155, 105, 222, 222))]


def sprites():
    out = []
    for name, box in FACES:
        img = read_pgm(os.path.join(DATA, name)).astype(np.float32)
        x, y, w, h = box
        m = int(0.35 * w)   # hair, chin and background around the face
        x0, y0 = max(0, x - m), max(0, y - m)
        x1, y1 = min(img.shape[1], x + w + m), min(img.shape[0], y + h + m)
        out.append((img[y0:y1, x0:x1], (x - x0, y - y0, w, h)))
    return out


def make_clip(W, H, frames, seed, turn=(10, 30), occluder=0.06, blur=True):
    rng = np.random.default_rng(seed)
    bg = read_pgm(os.path.join(DATA, "640px-IceBlockNearJoekullsarlon.pgm")).astype(np.float32)
    bg = ndimage.zoom(bg, (H / bg.shape[0], W / bg.shape[1]), order=1)[:H, :W]
    faces = sprites()
    plans = []
    for k in range(len(faces) * 2):   # each face twice, at different times
        spr, box = faces[k % len(faces)]
        start = int(rng.integers(0, frames // 3)) + (k // len(faces)) * frames // 3
        life = int(rng.integers(frames // 4, frames // 2))
        side = int(rng.integers(0, 2))
        plans.append(dict(spr=spr, box=box, start=start, end=min(frames, start + life),
                          x0=-0.2 * W if side == 0 else 1.2 * W, x1=rng.uniform(0.2, 0.8) * W,
                          y=rng.uniform(0.25, 0.6) * H, wob=rng.uniform(10, 40),
                          s0=rng.uniform(0.6, 1.0), s1=rng.uniform(1.0, 1.5),
                          turn=rng.uniform(*turn), ph=rng.uniform(0, 6.28)))
    bar_speed = W / (frames * 0.5)
    for f in range(frames):
        img = bg.copy()
        truth = []
        for p in plans:
            if not (p["start"] <= f < p["end"]):
                continue
            t = (f - p["start"]) / max(1, p["end"] - p["start"] - 1)
            cx = p["x0"] + (p["x1"] - p["x0"]) * min(1.0, 2 * t) + p["wob"] * np.sin(6 * t + p["ph"])
            if t > 0.7:   # leaving by the other edge
                cx += (t - 0.7) / 0.3 * W * 0.8 * (1 if p["x0"] < 0 else -1)
            cy = p["y"] + p["wob"] * np.cos(5 * t + p["ph"])
            scale = p["s0"] + (p["s1"] - p["s0"]) * (0.5 - 0.5 * np.cos(3 * t + p["ph"]))
            angle = p["turn"] * np.sin(4 * t + p["ph"])
            spr = ndimage.zoom(p["spr"], scale * H / 720.0 * 1.3, order=1)
            mask = np.ones_like(spr)
            spr = ndimage.rotate(spr, angle, reshape=True, order=1)
            mask = ndimage.rotate(mask, angle, reshape=True, order=1) > 0.5
            sh, sw = spr.shape
            ox, oy = int(round(cx - sw / 2)), int(round(cy - sh / 2))
            # the face box, scaled and turned about the sprite's centre
            fx, fy, fw, fh = p["box"]
            k = scale * H / 720.0 * 1.3
            src_h, src_w = p["spr"].shape
            corners = []
            a = np.deg2rad(angle)
            for (px, py) in ((fx, fy), (fx + fw, fy), (fx, fy + fh), (fx + fw, fy + fh)):
                dx, dy = (px - src_w / 2) * k, (py - src_h / 2) * k
                # ndimage.rotate turns counter-clockwise as displayed
                rx = dx * np.cos(a) + dy * np.sin(a)
                ry = -dx * np.sin(a) + dy * np.cos(a)
                corners.append((ox + sw / 2 + rx, oy + sh / 2 + ry))
            xs, ys = [c[0] for c in corners], [c[1] for c in corners]
            gt = (min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys))
            # paste where it falls inside the frame
            x0, y0 = max(0, ox), max(0, oy)
            x1, y1 = min(W, ox + sw), min(H, oy + sh)
            if x1 <= x0 or y1 <= y0:
                continue
            sub = spr[y0 - oy:y1 - oy, x0 - ox:x1 - ox]
            msub = mask[y0 - oy:y1 - oy, x0 - ox:x1 - ox]
            region = img[y0:y1, x0:x1]
            region[msub] = sub[msub]
            # a face counts while its inner box is at least half in the frame
            ix0, iy0 = gt[0] + 0.1 * gt[2], gt[1] + 0.1 * gt[3]
            ix1, iy1 = gt[0] + 0.9 * gt[2], gt[1] + 0.9 * gt[3]
            inside = max(0, min(W, ix1) - max(0, ix0)) * max(0, min(H, iy1) - max(0, iy0))
            if inside >= 0.5 * (ix1 - ix0) * (iy1 - iy0):
                truth.append((id(p), gt))
        # the occluder: a grey bar sweeping across, 40% of a face wide
        bx = int((f * bar_speed) % (W + 200)) - 100
        if occluder > 0:
            img[:, max(0, bx):max(0, bx + int(occluder * W))] = 128
        light = 0.9 + 0.3 * np.sin(f / frames * 12.0)
        img = img * light
        if blur and f % 17 in (5, 6):   # motion blur now and then
            img = ndimage.uniform_filter1d(img, 7, axis=1)
        yield np.clip(img, 0, 255).astype(np.uint8), truth


def measure(clip_truth, got, W, H):
    exposed = total = 0
    runs, run_len, longest, switches, last_id = {}, {}, 0, 0, {}
    over = 0.0
    for truth, boxes in zip(clip_truth, got):
        mask = np.zeros((H, W), bool)
        for (x, y, w, h), _ in boxes:
            mask[max(0, y):y + h, max(0, x):x + w] = True
        faces = np.zeros((H, W), bool)
        for key, (x, y, w, h) in truth:
            total += 1
            x0, y0 = int(max(0, x + 0.1 * w)), int(max(0, y + 0.1 * h))
            x1, y1 = int(min(W, x + 0.9 * w)), int(min(H, y + 0.9 * h))
            inner = mask[y0:y1, x0:x1]
            hit = inner.mean() if inner.size else 1.0
            faces[int(max(0, y)):int(min(H, y + h)), int(max(0, x)):int(min(W, x + w))] = True
            if hit < 0.9:
                exposed += 1
                run_len[key] = run_len.get(key, 0) + 1
                longest = max(longest, run_len[key])
            else:
                run_len[key] = 0
            # the id of the tracked box holding the face's centre
            cx, cy = x + w / 2, y + h / 2
            ids = [t for (bx, by, bw, bh), t in boxes
                   if t is not None and bx <= cx <= bx + bw and by <= cy <= by + bh]
            if ids:
                if key in last_id and last_id[key] not in ids:
                    switches += 1
                last_id[key] = ids[0]
        over += (mask & ~faces).sum() / (W * H)
    return dict(exposed=100.0 * exposed / max(1, total), longest=longest,
                over=100.0 * over / max(1, len(got)), switches=switches, faces=total)
