/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The CPU methods' rows in and out: samples to floats extended at the
 * frame's borders, and floats back to samples, scaled, biased, rounded and
 * clamped. */
#include <string.h>
#include "fv_conv_plan.h"
#include "../common/fv_parallel.h"

/* The row helpers below run once per frame row and channel: two forms,
 * the default and AVX2 with FMA (where the loops vectorize wider). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define ROW_CLONES __attribute__ ((target_clones ("arch=x86-64-v3", "default")))
#else
#define ROW_CLONES
#endif

static inline float
sample_at (const fv_conv_params *p, const char *row, int sx, int c)
{
  size_t i = (size_t) sx * p->frame.channels + c;
  return sx < 0 ? 0.0f : p->frame.sample == FV_U8 ? ((const uint8_t *) row)[i]
      : fv_load_u16 (row + 2 * i);
}

/* The columns inside the frame by a straight loop, the others through
 * the border map. */
ROW_CLONES void
fv_conv_extend_row (const fv_conv_params *p, const char *row, long x, int n, int c, float *restrict o)
{
  const int W = p->frame.width, C = p->frame.channels;
  const long lo = x >= 0 ? 0 : -x < n ? -x : n;
  long hi = W - x < n ? W - x : n;
  hi = hi > lo ? hi : lo;
  for (long u = 0; u < lo; u++)
    o[u] = sample_at (p, row, fv_border_map (x + u, W, p->border), c);
  if (p->frame.sample == FV_U8) {
    const uint8_t *restrict in = (const uint8_t *) row + (size_t) (x + lo) * C + c;
    if (C == 1)   /* grey and planar: contiguous, vectorized */
      for (long u = lo; u < hi; u++)
        o[u] = in[u - lo];
    else
      for (long u = lo; u < hi; u++)
        o[u] = in[(size_t) (u - lo) * C];
  } else {
    const char *in = row + 2 * ((size_t) (x + lo) * C + c);
    for (long u = lo; u < hi; u++)
      o[u] = fv_load_u16 (in + 2 * (size_t) (u - lo) * C);
  }
  for (long u = hi; u < n; u++)
    o[u] = sample_at (p, row, fv_border_map (x + u, W, p->border), c);
}

typedef struct {
  const fv_conv_plan *pl;
  const fv_image *src;
  int c, x0, y0, n, bstride;
  float *buf;
} extend_job;

static void
extend_one (void *ctx, long v, int me)
{
  (void) me;
  const extend_job *j = ctx;
  const fv_conv_params *p = &j->pl->p;
  const int cx = p->kernel_width / 2, cy = p->kernel_height / 2;
  int sy = fv_border_map ((long) j->y0 + v - cy, p->frame.height, p->border);
  float *o = j->buf + (size_t) v * j->bstride;
  if (sy < 0)
    memset (o, 0, sizeof (float) * j->n);
  else
    fv_conv_extend_row (p, (const char *) j->src->data + (size_t) sy * j->src->stride,
        (long) j->x0 - cx, j->n, j->c, o);
}

void
fv_conv_extend (const fv_conv_plan *pl, const fv_image *src, int c, int x0, int y0, int n, int m,
    float *buf, int bstride, int threads)
{
  extend_job j = { pl, src, c, x0, y0, n, bstride, buf };
  fv_team team = fv_team_begin (threads);
  fv_team_for (team, m, 0, extend_one, &j);
  fv_team_end (team);
}

/* fv_conv_round, in a form that vectorizes (the same results: NaN and
 * everything below 0 give 0, everything above maxv gives maxv). */
static inline int
quantize (float v, float maxv)
{
  v = v > 0.0f ? v : 0.0f;
  v = v < maxv ? v : maxv;
  return (int) (v + 0.5f);
}

ROW_CLONES void
fv_conv_store_row (const fv_conv_params *p, const float *restrict r, const float *restrict sc, float s,
    int n, int c, char *d)
{
  const float bias = (float) p->bias;
  const int C = p->frame.channels;
  if (p->frame.sample == FV_U8) {
    uint8_t *restrict o = (uint8_t *) d + c;
    const float maxv = 255.0f;
    if (sc)
      for (int x = 0; x < n; x++)
        o[(size_t) x * C] = (uint8_t) quantize (r[x] * sc[x] + bias, maxv);
    else if (C == 1)   /* grey and planar: contiguous, vectorized */
      for (int x = 0; x < n; x++)
        o[x] = (uint8_t) quantize (r[x] * s + bias, maxv);
    else
      for (int x = 0; x < n; x++)
        o[(size_t) x * C] = (uint8_t) quantize (r[x] * s + bias, maxv);
  } else {
    const float maxv = 65535.0f;
    for (int x = 0; x < n; x++)
      fv_store_u16 (d + 2 * ((size_t) x * C + c),
          (uint16_t) quantize (r[x] * (sc ? sc[x] : s) + bias, maxv));
  }
}
