/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A GRAY8 frame turned about its centre, for detecting turned faces
 * (vjdetect angles): the same size as the frame, bilinear, in fixed point
 * so that the CPU and the GPU give the same bytes. Canvas pixel (x, y)
 * samples the frame at the centre plus R (x - centre) with R = [c -s; s c]
 * (c, s: the angle's cosine and sine in Q16): on screen (y down) the canvas
 * is the frame turned counter-clockwise, so a face turned clockwise by the
 * angle stands upright in it. Samples outside the frame take the nearest
 * edge pixel's value. */
#ifndef FV_ROTATE_H
#define FV_ROTATE_H

#include <stdint.h>
#include "../common/fv_image.h"

#ifdef __CUDACC__
#define FV_ROT_HD __host__ __device__ __forceinline__
#else
#define FV_ROT_HD static inline
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  int64_t c, s;   /* cosine and sine, Q16 */
} fv_rotation;

fv_rotation fv_rotation_of (double degrees);

/* Where canvas point (x, y) (pixel coordinates, any real) lies in the
 * frame: boxes found on the canvas map back through this. */
void fv_rotation_to_frame (fv_rotation r, int width, int height, double x, double y,
    double *fx, double *fy);

/* dst = src turned: both GRAY8 of one size, on the host (rows split over
 * `threads`, 0 = all cores) or both on the device (queued on `stream`). */
fv_status fv_rotate_u8 (const fv_image *src, const fv_image *dst, fv_rotation r, int threads,
    void *stream);
fv_status fv_rotate_u8_cuda (const fv_image *src, const fv_image *dst, fv_rotation r,
    void *stream);
/* Only rows [y0, y1) of dst (host images), the others left as they are. */
fv_status fv_rotate_u8_rows (const fv_image *src, const fv_image *dst, fv_rotation r,
    int threads, int y0, int y1);
/* FV_OK when src and dst fit together, both in `mem`. */
fv_status fv_rotate_check (const fv_image *src, const fv_image *dst, fv_mem mem);

#ifdef __cplusplus
}
#endif

/* Outside the frame, its nearest edge pixel: black corners would draw a
 * hard diagonal edge across the turned frame, where the cascade's edge
 * features fire. */
FV_ROT_HD int
fv_rotate_tap (const uint8_t *s, size_t stride, int w, int h, int64_t x, int64_t y)
{
  x = x < 0 ? 0 : x >= w ? w - 1 : x;
  y = y < 0 ? 0 : y >= h ? h - 1 : y;
  return s[(size_t) y * stride + (size_t) x];
}

/* One canvas pixel: integer arithmetic only. */
FV_ROT_HD uint8_t
fv_rotate_px (const uint8_t *s, size_t stride, int w, int h, int64_t c, int64_t sn, int x, int y)
{
  const int64_t dx = 2 * (int64_t) x - (w - 1), dy = 2 * (int64_t) y - (h - 1);
  const int64_t u = ((c * dx - sn * dy) >> 1) + ((int64_t) (w - 1) << 15);
  const int64_t v = ((sn * dx + c * dy) >> 1) + ((int64_t) (h - 1) << 15);
  const int64_t ix = u >> 16, iy = v >> 16;
  const int fx = (int) ((u >> 8) & 255), fy = (int) ((v >> 8) & 255);
  const int top = fv_rotate_tap (s, stride, w, h, ix, iy) * (256 - fx)
      + fv_rotate_tap (s, stride, w, h, ix + 1, iy) * fx;
  const int bot = fv_rotate_tap (s, stride, w, h, ix, iy + 1) * (256 - fx)
      + fv_rotate_tap (s, stride, w, h, ix + 1, iy + 1) * fx;
  return (uint8_t) ((top * (256 - fy) + bot * fy + 32768) >> 16);
}

#endif
