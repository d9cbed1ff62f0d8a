/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Benchmark frames for autofill: one-pixel outlines of random circles and
 * polygons, a dense grid of rings, lines of letter-like glyphs (closed
 * bowls, open hooks, strokes: many small holes), and salt noise (many tiny
 * components on every tile edge). */
#ifndef FILL_FRAMES_H
#define FILL_FRAMES_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static inline void
ff_put (uint8_t *im, int w, int h, int x, int y)
{
  if (x >= 0 && y >= 0 && x < w && y < h)
    im[(size_t) y * w + x] = 255;
}

static inline void
ff_line (uint8_t *im, int w, int h, int x0, int y0, int x1, int y1)
{
  int dx = abs (x1 - x0), sx = x0 < x1 ? 1 : -1, dy = -abs (y1 - y0), sy = y0 < y1 ? 1 : -1;
  int e = dx + dy;
  for (;;) {
    ff_put (im, w, h, x0, y0);
    if (x0 == x1 && y0 == y1)
      break;
    int e2 = 2 * e;
    if (e2 >= dy) { e += dy; x0 += sx; }
    if (e2 <= dx) { e += dx; y0 += sy; }
  }
}

static inline void
ff_circle (uint8_t *im, int w, int h, int cx, int cy, int r)
{
  int x = r, y = 0, e = 1 - r;
  while (x >= y) {
    int p[8][2] = { {x, y}, {y, x}, {-y, x}, {-x, y}, {-x, -y}, {-y, -x}, {y, -x}, {x, -y} };
    for (int i = 0; i < 8; i++)
      ff_put (im, w, h, cx + p[i][0], cy + p[i][1]);
    y++;
    if (e < 0) e += 2 * y + 1; else { x--; e += 2 * (y - x) + 1; }
  }
}

#define FF_KINDS 4
static const char *const ff_kind_names[FF_KINDS] = { "shapes", "rings", "text", "noise" };

/* kind 0: random circles and polygons; 1: a grid of rings; 2: text; 3: noise */
static inline void
ff_make (uint8_t *im, int w, int h, int kind)
{
  memset (im, 0, (size_t) w * h);
  uint64_t s = 0x9e3779b97f4a7c15ull;
#define RND(n) (s ^= s << 13, s ^= s >> 7, s ^= s << 17, (int) (s % (uint64_t) (n)))
  if (kind == 0) {
    int n = w * h / 20000;
    for (int i = 0; i < n; i++) {
      int cx = RND (w), cy = RND (h), r = 5 + RND (w / 20);
      if (i & 1) {
        ff_circle (im, w, h, cx, cy, r);
      } else {
        int k = 3 + RND (5), px[8], py[8];
        for (int j = 0; j < k; j++) {
          px[j] = cx + RND (2 * r + 1) - r;
          py[j] = cy + RND (2 * r + 1) - r;
        }
        for (int j = 0; j < k; j++)
          ff_line (im, w, h, px[j], py[j], px[(j + 1) % k], py[(j + 1) % k]);
      }
    }
  } else if (kind == 2) {
    /* 10x14 glyph cells: 'o' (closed), 'c' (open), 'l', 'e' (closed and open) */
    for (int cy = 2; cy + 12 < h; cy += 16)
      for (int cx = 1, g = RND (4); cx + 8 < w; cx += 10, g = RND (4)) {
        if (g == 0 || g == 3) {
          ff_line (im, w, h, cx, cy + 3, cx + 7, cy + 3);
          ff_line (im, w, h, cx, cy + 3, cx, cy + 11);
          ff_line (im, w, h, cx, cy + 11, cx + 7, cy + 11);
          ff_line (im, w, h, cx + 7, cy + 3, cx + 7, g == 0 ? cy + 11 : cy + 7);
          if (g == 3)
            ff_line (im, w, h, cx, cy + 7, cx + 7, cy + 7);
        } else if (g == 1) {
          ff_line (im, w, h, cx + 7, cy + 3, cx, cy + 3);
          ff_line (im, w, h, cx, cy + 3, cx, cy + 11);
          ff_line (im, w, h, cx, cy + 11, cx + 7, cy + 11);
        } else {
          ff_line (im, w, h, cx + 3, cy, cx + 3, cy + 11);
        }
      }
  } else if (kind == 3) {
    for (size_t i = 0; i < (size_t) w * h; i++)
      im[i] = RND (100) < 40 ? 255 : 0;
  } else {
    for (int cy = 12; cy < h; cy += 24)
      for (int cx = 12; cx < w; cx += 24) {
        ff_circle (im, w, h, cx, cy, 10);
        ff_circle (im, w, h, cx, cy, 5);
      }
  }
#undef RND
}

#endif
