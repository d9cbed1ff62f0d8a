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

fv_status
fv_luma_from_rgb (const fv_image *rgb, int r, int g, int b, const fv_image *gray, int threads)
{
  fv_status st = fv_luma_check (rgb, r, g, b, gray, FV_MEM_HOST);
  if (st != FV_OK)
    return st;
  const int cn = rgb->channels, w = rgb->width;
  fv_team team = fv_team_begin (fv_threads_resolve (threads));
#pragma omp parallel for num_threads(team.threads) schedule(static)
  for (int y = 0; y < rgb->height; y++) {
    const uint8_t *s = (const uint8_t *) rgb->data + y * rgb->stride;
    uint8_t *d = (uint8_t *) gray->data + y * gray->stride;
    for (int x = 0; x < w; x++, s += cn)
      d[x] = (uint8_t) ((9798u * s[r] + 19235u * s[g] + 3735u * s[b] + (1u << 14)) >> 15);
  }
  fv_team_end (team);
  return FV_OK;
}
