/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The shapes every box-filter backend is tested on: awkward sizes, radii 0,
 * 1, a few, asymmetric, and larger than the frame; all modes and borders;
 * 8 and 16 bit; one to four interleaved channels with and without a
 * pass-through channel; padded strides. */
#ifndef BOX_CASES_H
#define BOX_CASES_H

#include "fvtest.h"

typedef void (*box_case_fn) (const fv_box_params *p, int src_pad, int dst_pad, void *user);

static const int box_sizes[][2] = {
  {1, 1}, {3, 7}, {7, 3}, {17, 1}, {1, 17}, {1000, 3}, {31, 19}, {64, 64},
  {129, 67}, {250, 131},
};

static inline void
box_for_each_case (box_case_fn fn, void *user)
{
  static const struct { int channels; unsigned mask; } chans[] = {
    {1, 0x1}, {3, 0x7}, {4, 0x7}, {2, 0x3},
  };
  const int nsizes = sizeof box_sizes / sizeof box_sizes[0];
  for (int si = 0; si < nsizes; si++) {
    const int w = box_sizes[si][0], h = box_sizes[si][1];
    const int small = w * h <= 1000;
    int radii[][2] = { {0, 0}, {1, 1}, {2, 2}, {5, 5}, {3, 1}, {0, 4},
        {(w > h ? w : h) + 3, (w > h ? w : h) + 3} };
    const int nradii = small ? 7 : 6;
    for (int ri = 0; ri < nradii; ri++)
      for (int mode = 0; mode <= FV_BOX_THRESHOLD; mode++)
        for (int border = 0; border <= FV_BORDER_ZERO; border++)
          for (int s = 1; s <= 2; s++) {
            /* every channel layout on small frames, one or two elsewhere */
            int nch = small ? 4 : (s == 1 ? 2 : 1);
            for (int ci = 0; ci < nch; ci++) {
              fv_box_params p = { 0 };
              p.width = w; p.height = h;
              p.channels = chans[ci].channels;
              p.channel_mask = chans[ci].mask;
              p.sample = (fv_sample) s;
              p.radius_x = radii[ri][0]; p.radius_y = radii[ri][1];
              p.mode = (fv_box_mode) mode;
              p.border = (fv_border) border;
              p.sensitivity = (ri % 3) * 0.1;
              fn (&p, (si + ri) % 3 * 5, (si + ci) % 2 * 7, user);
            }
          }
  }
  /* windows whose sums need 64 bits: every mode and border */
  for (int mode = 0; mode <= FV_BOX_THRESHOLD; mode++)
    for (int border = 0; border <= FV_BORDER_ZERO; border++) {
      fv_box_params p = { 0 };
      p.width = 20; p.height = 13; p.channels = 1; p.channel_mask = 1;
      p.sample = FV_U16; p.radius_x = 300; p.radius_y = 290;
      p.mode = (fv_box_mode) mode; p.border = (fv_border) border;
      p.sensitivity = 0.05;
      fn (&p, 3, 0, user);
      p.width = 10; p.height = 9; p.sample = FV_U8; p.radius_x = 131; p.radius_y = 140;
      fn (&p, 0, 1, user);
    }
}

#endif
