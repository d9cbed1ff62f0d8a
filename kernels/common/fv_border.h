/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* How every kernel extends a frame past its edges: one enum and one map
 * from an extended position to the sample it reads, for the CPU and the
 * GPU alike. The box filter takes the first four; convolution all five. */
#ifndef FV_BORDER_H
#define FV_BORDER_H

#ifdef __CUDACC__
#define FV_HD __host__ __device__ __forceinline__
#else
#define FV_HD static inline
#endif

typedef enum {
  FV_BORDER_RENORMALIZE = 0, /* outside counts as absent: results rescaled to what is inside */
  FV_BORDER_REPLICATE,       /* aaa|abcd|ddd */
  FV_BORDER_MIRROR,          /* dcb|abcd|cba (edge pixel not repeated) */
  FV_BORDER_ZERO,            /* outside counts as 0 */
  FV_BORDER_WRAP             /* bcd|abcd|abc: the frame repeats (convolution only) */
} fv_border;

/* The sample extended position j of an axis of n samples reads, or -1
 * where the border is zero (renormalize and zero). */
FV_HD int
fv_border_map (long j, int n, int border)
{
  if (j >= 0 && j < n)
    return (int) j;
  if (border == FV_BORDER_REPLICATE || (border == FV_BORDER_MIRROR && n == 1))
    return j < 0 ? 0 : n - 1;
  if (border == FV_BORDER_MIRROR) {
    long t = 2L * n - 2, m = j % t;
    if (m < 0)
      m += t;
    return (int) (m < n ? m : t - m);
  }
  if (border == FV_BORDER_WRAP) {
    long m = j % n;
    return (int) (m < 0 ? m + n : m);
  }
  return -1;
}

#endif
