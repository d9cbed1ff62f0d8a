/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The shapes every box-filter backend is tested on: awkward sizes, radii 0,
 * 1, a few, asymmetric, and larger than the frame; all modes and borders;
 * 8 and 16 bit; one to four interleaved channels with and without a
 * pass-through channel; padded strides. */
#ifndef BOX_CASES_H
#define BOX_CASES_H

#include <string.h>
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
              p.frame.width = w; p.frame.height = h;
              p.frame.channels = chans[ci].channels;
              p.channel_mask = chans[ci].mask;
              p.frame.sample = (fv_sample) s;
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
      p.frame.width = 20; p.frame.height = 13; p.frame.channels = 1; p.channel_mask = 1;
      p.frame.sample = FV_U16; p.radius_x = 300; p.radius_y = 290;
      p.mode = (fv_box_mode) mode; p.border = (fv_border) border;
      p.sensitivity = 0.05;
      fn (&p, 3, 0, user);
      p.frame.width = 10; p.frame.height = 9; p.frame.sample = FV_U8; p.radius_x = 131;
      p.radius_y = 140;
      fn (&p, 0, 1, user);
    }
}

/* Window plans (roi_*): a plan for windows of about half by a third of the
 * frame computes its own window and others of up to that size anywhere
 * (corners, middle, one pixel) exactly as the reference does, and writes
 * nothing outside them (dst starts as a sentinel). Host images, on
 * `backend`. The number of wrong samples. */
static inline long
box_check_windows (const fv_box_params *pp, fv_backend backend, const fv_image *src,
    int dst_pad, const char *label)
{
  fv_box_params p = *pp;
  const int w = p.frame.width, h = p.frame.height;
  p.frame.roi_width = (w + 1) / 2;
  p.frame.roi_height = (h + 2) / 3;
  p.frame.roi_x = w - p.frame.roi_width;
  p.frame.roi_y = h / 2;
  const int rw = p.frame.roi_width, rh = p.frame.roi_height;
  const int wins[][4] = { { p.frame.roi_x, p.frame.roi_y, rw, rh }, { 0, 0, rw, rh },
    { w - rw, h - rh, rw, rh }, { w / 2, h / 2, 1, 1 },
    { (w - 1) / 3, (h - 1) / 4, rw > 1 ? rw - 1 : 1, rh } };
  fv_box_plan *plan;
  if (fv_box_plan_create (&plan, &p, backend, 0, NULL) != FV_OK) {
    FVT_CHECK (0, "%s: window plan: %s", label, fv_last_error ());
    return 1;
  }
  fv_image dst = fvt_image_new (w, h, p.frame.channels, p.frame.sample, dst_pad, NULL);
  const uint32_t sentinel = p.frame.sample == FV_U8 ? 0xA5 : 0xA5A5;
  long bad = 0;
  for (int k = 0; k < (int) (sizeof wins / sizeof wins[0]); k++) {
    const int x0 = wins[k][0], y0 = wins[k][1], x1 = x0 + wins[k][2], y1 = y0 + wins[k][3];
    memset (dst.data, 0xA5, dst.stride * h);
    fv_status st = k == 0 ? fv_box_execute (plan, src, &dst)
        : fv_box_execute_roi (plan, src, &dst, x0, y0, x1 - x0, y1 - y0);
    FVT_CHECK (st == FV_OK, "%s: window %d: %s", label, k, fv_last_error ());
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++)
        for (int c = 0; c < p.frame.channels; c++) {
          const int inside = x >= x0 && x < x1 && y >= y0 && y < y1;
          const uint32_t want = !inside ? sentinel : (p.channel_mask >> c) & 1
              ? fvt_ref_box (&p, src, x, y, c) : fvt_get (src, x, y, c);
          bad += fvt_get (&dst, x, y, c) != want;
        }
  }
  /* what a window plan refuses: windows past its size or the frame */
  FVT_CHECK (fv_box_execute_roi (plan, src, &dst, 0, 0, rw + 1, rh) == FV_ERR_INVALID
      && fv_box_execute_roi (plan, src, &dst, w - rw + 1, 0, rw, rh) == FV_ERR_INVALID
      && fv_box_execute_roi (plan, src, &dst, 0, 0, 0, rh) == FV_ERR_INVALID,
      "%s: a window past the plan or the frame accepted", label);
  fv_box_plan_destroy (plan);
  fvt_image_free (&dst);
  return bad;
}

#endif
