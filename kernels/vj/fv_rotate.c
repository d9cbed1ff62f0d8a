/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Turned frames on the CPU, rows split over cores (fv_rotate.h). */
#include "fv_config.h"   /* FV_HAVE_CUDA */
#include <math.h>
#include "fv_rotate.h"
#include "../common/fv_parallel.h"
#include "../common/fv_plan.h"

fv_rotation
fv_rotation_of (double degrees)
{
  const double a = degrees * M_PI / 180.0;
  return (fv_rotation) { llround (cos (a) * 65536.0), llround (sin (a) * 65536.0) };
}

void
fv_rotation_to_frame (fv_rotation r, int width, int height, double x, double y, double *fx,
    double *fy)
{
  const double c = r.c / 65536.0, s = r.s / 65536.0;
  const double dx = x - width / 2.0, dy = y - height / 2.0;
  *fx = c * dx - s * dy + width / 2.0;
  *fy = s * dx + c * dy + height / 2.0;
}

static fv_status
check (const fv_image *src, const fv_image *dst, fv_mem mem)
{
  if (!src || !dst || !src->data || !dst->data || src->width != dst->width
      || src->height != dst->height || src->channels != 1 || dst->channels != 1
      || src->sample != FV_U8 || dst->sample != FV_U8 || src->mem != mem || dst->mem != mem
      || src->stride < (size_t) src->width || dst->stride < (size_t) dst->width) {
    fv_set_last_error ("rotate: two GRAY8 images of one size, both in %s memory",
        mem == FV_MEM_HOST ? "host" : "device");
    return FV_ERR_INVALID;
  }
  return FV_OK;
}

fv_status
fv_rotate_u8 (const fv_image *src, const fv_image *dst, fv_rotation r, int threads,
    void *stream)
{
  if (src && src->mem == FV_MEM_DEVICE)
#if FV_HAVE_CUDA
    return fv_rotate_u8_cuda (src, dst, r, stream);
#else
    return fv_plan_backend_check (FV_BACKEND_CUDA, NULL);
#endif
  return fv_rotate_u8_rows (src, dst, r, threads, 0, src ? src->height : 0);
}

typedef struct {
  const fv_image *src, *dst;
  fv_rotation r;
  int y0;
} rotate_job;

static void
rotate_row (void *ctx, long i, int me)
{
  (void) me;
  const rotate_job *j = ctx;
  const fv_image *src = j->src;
  const int w = src->width, h = src->height, y = j->y0 + (int) i;
  uint8_t *d = (uint8_t *) j->dst->data + (size_t) y * j->dst->stride;
  for (int x = 0; x < w; x++)
    d[x] = fv_rotate_px (src->data, src->stride, w, h, j->r.c, j->r.s, x, y);
}

fv_status
fv_rotate_u8_rows (const fv_image *src, const fv_image *dst, fv_rotation r, int threads, int y0,
    int y1)
{
  fv_status st = check (src, dst, FV_MEM_HOST);
  if (st != FV_OK)
    return st;
  const int h = src->height;
  y0 = y0 < 0 ? 0 : y0;
  y1 = y1 > h ? h : y1;
  rotate_job j = { src, dst, r, y0 };
  fv_team team = fv_team_begin (fv_threads_resolve (threads));
  fv_team_for (team, y1 - y0, 0, rotate_row, &j);
  fv_team_end (team);
  return FV_OK;
}

fv_status
fv_rotate_check (const fv_image *src, const fv_image *dst, fv_mem mem)
{
  return check (src, dst, mem);
}
