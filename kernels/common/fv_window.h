/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Windows with a halo along one axis: the samples a kernel reads to write
 * [lo, hi), which are [lo - r, hi + r) clipped to the frame [0, size), and
 * where a window of a set length (a band, a chunk, a kept plan's size) that
 * holds them starts. One rule for the box filter's window plans (fv_box_roi.c), the
 * box filter's bands (fv_box_cuda.cu) and the chunk runner's inputs
 * (fv_chunk_run.cu). Host code, C and CUDA. */
#ifndef FV_WINDOW_H
#define FV_WINDOW_H

#ifdef __cplusplus
extern "C" {
#endif

/* The samples of [lo, hi) grown by r on both sides, inside [0, size). */
static inline int
fv_window_length (int lo, int hi, int r, int size)
{
  const int s = lo - r > 0 ? lo - r : 0, e = hi + r < size ? hi + r : size;
  return e - s;
}

/* Where a window of len samples (len <= size) holding [lo, ...) grown by r
 * starts: at lo - r, slid back inside [0, size) where it would pass either
 * end (a window as long as the axis starts at 0). */
static inline int
fv_window_start (int lo, int r, int len, int size)
{
  int s = lo - r;
  if (s > size - len)
    s = size - len;
  return s > 0 ? s : 0;
}

#ifdef __cplusplus
}
#endif
#endif
