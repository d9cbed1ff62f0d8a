/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* RGB to luma with OpenCV's fixed-point weights, rows split over cores. */
#include "fv_luma.h"
#include "../common/fv_parallel.h"

fv_status
fv_luma_check (const fv_image *rgb, int r, int g, int b, const fv_image *gray, fv_mem mem)
{
  if (!rgb || !gray || rgb->sample != FV_U8 || gray->sample != FV_U8 || gray->channels != 1
      || (rgb->channels != 3 && rgb->channels != 4) || rgb->width != gray->width
      || rgb->height != gray->height || rgb->mem != mem || gray->mem != mem
      || r < 0 || g < 0 || b < 0 || r >= rgb->channels || g >= rgb->channels || b >= rgb->channels) {
    fv_set_last_error ("luma: images do not match");
    return FV_ERR_INVALID;
  }
  return FV_OK;
}

typedef struct {
  const fv_image *rgb, *gray;
  int r, g, b;
} luma_job;

static void
luma_row (void *ctx, long y, int me)
{
  (void) me;
  const luma_job *j = ctx;
  const int cn = j->rgb->channels, w = j->rgb->width, r = j->r, g = j->g, b = j->b;
  const uint8_t *s = (const uint8_t *) j->rgb->data + y * j->rgb->stride;
  uint8_t *d = (uint8_t *) j->gray->data + y * j->gray->stride;
  for (int x = 0; x < w; x++, s += cn)
    d[x] = (uint8_t) ((9798u * s[r] + 19235u * s[g] + 3735u * s[b] + (1u << 14)) >> 15);
}

fv_status
fv_luma_from_rgb (const fv_image *rgb, int r, int g, int b, const fv_image *gray, int threads)
{
  fv_status st = fv_luma_check (rgb, r, g, b, gray, FV_MEM_HOST);
  if (st != FV_OK)
    return st;
  luma_job j = { rgb, gray, r, g, b };
  fv_team team = fv_team_begin (fv_threads_resolve (threads));
  fv_team_for (team, rgb->height, 0, luma_row, &j);
  fv_team_end (team);
  return FV_OK;
}
