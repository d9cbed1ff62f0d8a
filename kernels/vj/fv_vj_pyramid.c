/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The detector's image pyramid, level by level as OpenCV 4.6 builds it:
 * which scales, how each level is resized (bit-exact linear, 8-bit
 * fixed-point weights) and its integral images. */
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include "fv_vj_plan.h"
#include "../common/fv_file.h"
#include "../common/fv_memory.h"

#define PAD 8   /* CPU layouts: the spare columns after each level */

/* The coefficients of OpenCV's resize_bitExact for one axis. */
static fv_status
axis_init (fv_vj_axis *a, int src, int dst)
{
  a->ofs = malloc (sizeof (int32_t) * dst);
  a->coef = malloc (sizeof (uint16_t) * 2 * dst);
  if (!a->ofs || !a->coef)
    return FV_ERR_NOMEM;
  const double scale = 1.0 / ((double) dst / src);
  a->lo = 0;
  a->hi = dst;
  for (int i = 0; i < dst; i++) {
    double f = scale * ((double) i + 0.5) - 0.5;
    int fi = (int) floor (f);
    a->ofs[i] = 0;
    a->coef[2 * i] = 256;
    a->coef[2 * i + 1] = 0;
    if (fi >= 0 && src > 1) {
      if (fi < src - 1) {
        uint16_t c1 = (uint16_t) rint ((f - fi) * 256.0);   /* ties to even, as cvRound */
        a->ofs[i] = fi;
        a->coef[2 * i] = (uint16_t) (256 - c1);
        a->coef[2 * i + 1] = c1;
      } else {
        a->ofs[i] = src - 1;
        if (i < a->hi)
          a->hi = i;
      }
    } else if (i + 1 > a->lo) {
      a->lo = i + 1;
    }
  }
  return FV_OK;
}

static void
axis_clear (fv_vj_axis *a)
{
  fv_vj_hblocks_clear (a);
  free (a->ofs);
  free (a->coef);
  a->ofs = NULL;
  a->coef = NULL;
}

/* Cuts the plan's one level to window rows [band_first, + band_rows): the
 * level rows those windows cover, and the frame rows that resizing them
 * reads, with the vertical axis moved to start at both. Each level pixel is
 * computed as in the whole level; sums start at the band's first row, and
 * a window's sums are differences within the band (exact modulo 2^32, the
 * tilted ones too: their corner identity holds for any image, so for one
 * whose rows above the band are zero). */
static fv_status
band_init (fv_vj_pyramid *py, const fv_cascade *c, const fv_vj_part *p)
{
  if (p->levels != 1 || p->band_first < 0 || py->nlevels != 1)
    return FV_ERR_INVALID;
  fv_vj_level *lv = &py->lv[0];
  const int first = p->band_first < lv->rows ? p->band_first : lv->rows;
  const int rows = lv->rows - first < p->band_rows ? lv->rows - first : p->band_rows;
  const int y0 = rows > 0 ? first * lv->step : 0;
  int h = rows > 0 ? (rows - 1) * lv->step + c->height : 1;
  if (y0 + h > lv->h)
    h = lv->h - y0;
  if (h < 1)   /* no windows: a row for the sums, none scanned */
    h = 1;
  const fv_vj_axis *a = &lv->ay;
  int s0, s1;
  fv_vj_level_source_rows (py, 0, y0, y0 + h, &s0, &s1);
  /* the band's rows of the axis, counted from the band and the frame rows */
  for (int y = 0; y < h; y++) {
    a->ofs[y] = a->ofs[y0 + y] - s0;
    a->coef[2 * y] = a->coef[2 * (y0 + y)];
    a->coef[2 * y + 1] = a->coef[2 * (y0 + y) + 1];
  }
  lv->ay.lo = a->lo - y0 > 0 ? a->lo - y0 : 0;
  lv->ay.hi = a->hi - y0 > 0 ? a->hi - y0 : 0;
  lv->work_h = lv->work_h - y0 < rows * lv->step ? lv->work_h - y0 : rows * lv->step;
  lv->work_h = lv->work_h > 0 ? lv->work_h : 0;
  lv->rows = rows;
  lv->h = h;
  lv->y0 = y0;
  py->rows = rows;
  py->windows = (int64_t) rows * ((lv->work_w + lv->step - 1) / lv->step);
  py->src_y0 = s0;
  py->src_h = s1 - s0;
  return FV_OK;
}

fv_status
fv_vj_pyramid_init (fv_vj_pyramid *py, const fv_cascade *c, const fv_vj_params *p,
    const fv_vj_part *part, int cpu)
{
  static const fv_vj_part whole;
  part = part ? part : &whole;
  memset (py, 0, sizeof *py);
  const int W = p->frame.width, H = p->frame.height;
  int max_w = p->max_width > 0 ? p->max_width : W, max_h = p->max_height > 0 ? p->max_height : H;
  /* OpenCV stops at max size only; levels with windows larger than the
   * frame have no window positions, so stopping there changes nothing. */
  if (max_w > W)
    max_w = W;
  if (max_h > H)
    max_h = H;
  int cap = 64;
  py->lv = calloc (cap, sizeof *py->lv);
  if (!py->lv)
    return FV_ERR_NOMEM;
  int index = 0;   /* of the levels the sizes allow */
  for (double factor = 1;; factor *= p->scale_factor) {
    int ww = (int) lrint (c->width * factor), wh = (int) lrint (c->height * factor);
    if (ww > max_w || wh > max_h)
      break;
    if (ww < p->min_width || wh < p->min_height)
      continue;
    const int k = index++;
    if (k < part->first_level || (part->levels > 0 && k >= part->first_level + part->levels))
      continue;
    if (py->nlevels == cap) {
      fv_vj_level *n = realloc (py->lv, sizeof *n * cap * 2);
      if (!n)
        return FV_ERR_NOMEM;
      memset (n + cap, 0, sizeof *n * cap);
      py->lv = n;
      cap *= 2;
    }
    fv_vj_level *lv = &py->lv[py->nlevels++];
    lv->scale = (float) factor;
    lv->w = (int) lrintf ((float) W / lv->scale);
    lv->h = (int) lrintf ((float) H / lv->scale);
    lv->step = lv->scale >= 2 ? 1 : 2;
    lv->work_w = lv->w + 1 - c->width > 0 ? lv->w + 1 - c->width : 0;
    lv->work_h = lv->h + 1 - c->height > 0 ? lv->h + 1 - c->height : 0;
    lv->win_w = (int) lrintf ((float) c->width * lv->scale);
    lv->win_h = (int) lrintf ((float) c->height * lv->scale);
    lv->rows = (lv->work_h + lv->step - 1) / lv->step;
    py->rows += lv->rows;
    py->windows += (int64_t) lv->rows * ((lv->work_w + lv->step - 1) / lv->step);
    if (lv->w < 1 || lv->h < 1)
      return FV_ERR_INVALID;
    lv->identity = lv->w == W && lv->h == H;
    /* a scale factor near 1 makes thousands of levels: their tables are
     * counted against the memory limit before each is allocated */
    py->table_bytes += sizeof *lv * 2 + (size_t) (lv->w + lv->h) * (sizeof (int32_t)
        + 2 * sizeof (uint16_t));
    if (!fv_memory_check ((double) py->table_bytes, "the detector's pyramid tables"))
      return FV_ERR_INVALID;
    fv_status st;
    if ((st = axis_init (&lv->ax, W, lv->w)) != FV_OK || (st = axis_init (&lv->ay, H, lv->h)) != FV_OK)
      return st;
    if (cpu)
      fv_vj_hblocks_init (&lv->ax, W);
  }
  py->src_h = H;
  py->cpu = cpu;
  if (part->band_rows > 0) {
    fv_status st = band_init (py, c, part);
    if (st != FV_OK)
      return st;
  }
  /* Levels side by side on shelves as wide as the first level, one row
   * stride for all, so feature offsets are the same at every level. On the
   * CPU a level of step 2 has its rows to itself, so that it can be built
   * split, and every level gets PAD spare columns and a spare row: the
   * SIMD scan's lanes past a row's end read there, never a level that
   * another thread may be building meanwhile. */
  if (py->nlevels) {
    const int pad = cpu ? PAD : 0;
    py->stride = ((py->lv[0].w + 1 + pad) + 31) & ~31;
    int64_t x = 0, y = 0, shelf = py->lv[0].h + 1 + !!pad;
    for (int l = 0; l < py->nlevels; l++) {
      fv_vj_level *lv = &py->lv[l];
      const int own = cpu && lv->step == 2;
      if (x + lv->w + 1 + pad > py->stride || (own && x > 0)) {
        x = 0;
        y += shelf;
        shelf = lv->h + 1 + !!pad;
      }
      lv->origin = y * py->stride + x;
      x = own ? py->stride : x + lv->w + 1 + pad;
    }
    py->plane = (y + shelf) * py->stride;
  }
  return FV_OK;
}

void
fv_vj_pyramid_clear (fv_vj_pyramid *py)
{
  for (int l = 0; l < py->nlevels; l++) {
    axis_clear (&py->lv[l].ax);
    axis_clear (&py->lv[l].ay);
  }
  free (py->lv);
  memset (py, 0, sizeof *py);
}

/* Two horizontally resized rows blended vertically. The pointers do not
 * alias, which lets the compiler vectorize (a byte store could alias them). */
static void
blend_lines (const uint16_t *restrict l0, const uint16_t *restrict l1, uint32_t c0, uint32_t c1,
    uint8_t *restrict d, int w)
{
  for (int x = 0; x < w; x++)
    d[x] = (uint8_t) ((l0[x] * c0 + l1[x] * c1 + 32768) >> 16);
}

/* Level rows [ya, yb) into dst from its first row on. */
static void
resize_level (const fv_vj_level *lv, const uint8_t *src, size_t sstride, int sh,
    uint8_t *dst, uint16_t *line0, uint16_t *line1, int ya, int yb)
{
  if (lv->identity) {
    for (int y = ya; y < yb; y++)
      memcpy (dst + (size_t) (y - ya) * lv->w, src + y * sstride, lv->w);
    return;
  }
  const fv_vj_axis *ay = &lv->ay;
  int have0 = -1, have1 = -1;
  for (int y = ya; y < yb; y++) {
    uint8_t *d = dst + (size_t) (y - ya) * lv->w;
    if (y < ay->lo || y >= ay->hi) {
      int r = y < ay->lo ? 0 : sh - 1;
      fv_vj_hline (&lv->ax, src + r * sstride, lv->w, line0);
      have0 = -1;
      for (int x = 0; x < lv->w; x++)
        d[x] = (uint8_t) ((line0[x] + 128) >> 8);
      continue;
    }
    int r = ay->ofs[y];
    if (have0 != r) {
      if (have1 == r) {
        uint16_t *t = line0;
        line0 = line1;
        line1 = t;
      } else {
        fv_vj_hline (&lv->ax, src + r * sstride, lv->w, line0);
      }
      have0 = r;
      fv_vj_hline (&lv->ax, src + (r + 1) * sstride, lv->w, line1);
      have1 = r + 1;
    }
    blend_lines (line0, line1, ay->coef[2 * y], ay->coef[2 * y + 1], d, lv->w);
  }
}

/* dst[i] = above[i] + add[i]: the vectorizable half of a row of sums. */
static void
add_rows (const uint32_t *restrict above, const uint32_t *restrict add, uint32_t *restrict dst,
    int n)
{
  for (int i = 0; i < n; i++)
    dst[i] = above[i] + add[i];
}

/* Sums and squared sums (modulo 2^32, as OpenCV's 32-bit integrals; window
 * sums come out exact), with a zero first row and column. Each row's
 * running sums go to rs and rq in the row's own column order, then are
 * added to the row above in one vectorized sweep. */
static void
integrals (const uint8_t *img, int w, int h, uint32_t *sum, uint32_t *sq, int stride, int half,
    uint32_t *rs, uint32_t *rq)
{
  /* the columns' span in the row: [0, w], or the evens and the gap up to
   * the odds (zero in rs and rq, so the gap keeps the first row's zeros) */
  const int span = half ? half + (w + 1) / 2 : w + 1;
  memset (sum, 0, sizeof *sum * span);
  memset (sq, 0, sizeof *sq * span);
  memset (rs, 0, sizeof *rs * span);
  memset (rq, 0, sizeof *rq * span);
  for (int y = 0; y < h; y++) {
    const uint8_t *r = img + (size_t) y * w;
    uint32_t *s = sum + (size_t) (y + 1) * stride, *q = sq + (size_t) (y + 1) * stride;
    uint32_t a = 0, b = 0;
    if (half) {   /* pixel x ends column x + 1: fv_vj_col (x + 1, half) */
      for (int x = 0; x < w; x++) {
        const int c = x & 1 ? (x + 1) >> 1 : half + (x >> 1);
        a += r[x];
        b += (uint32_t) r[x] * r[x];
        rs[c] = a;
        rq[c] = b;
      }
    } else {
      for (int x = 0; x < w; x++) {
        a += r[x];
        b += (uint32_t) r[x] * r[x];
        rs[x + 1] = a;
        rq[x + 1] = b;
      }
    }
    add_rows (s - stride, rs, s, span);
    add_rows (q - stride, rq, q, span);
  }
}

/* OpenCV's tilted integral T(X, Y) = sum of I(x, y) over y < Y and
 * |x - X + 1| <= Y - y - 1: the triangle above (X - 1, Y - 1). With R(y, c)
 * the prefix sum of row y up to column c, T(X, Y) = A(X + Y - 2) - B(X - Y - 1)
 * where A(k) sums R(y, k - y) and B(m) sums R(y, m + y) over y < Y. */
static void
tilted (const uint8_t *img, int w, int h, uint32_t *t, int stride, int half, uint32_t *scratch)
{
  const int n = w + h + 2;
  uint32_t *A = scratch, *B = A + n, *R = B + n;
  memset (A, 0, sizeof *A * 2 * n);
  /* A is indexed by k + 2, B by m + h + 1 */
  for (int X = 0; X <= w; X++)
    t[fv_vj_col (X, half)] = 0;
  for (int Y = 1; Y <= h; Y++) {
    const uint8_t *r = img + (size_t) (Y - 1) * w;
    uint32_t acc = 0;
    for (int x = 0; x < w; x++)
      R[x] = acc += r[x];
    const int y = Y - 1;
    for (int k = y - 2 < -2 ? -2 : y - 2; k <= w + h - 2; k++) {
      int c = k - y;
      if (c >= 0)
        A[k + 2] += R[c < w ? c : w - 1];
    }
    for (int m = -h - 1; m <= w - 1; m++) {
      int c = m + y;
      if (c >= 0)
        B[m + h + 1] += R[c < w ? c : w - 1];
    }
    uint32_t *row = t + (size_t) Y * stride;
    for (int X = 0; X <= w; X++)
      row[fv_vj_col (X, half)] = A[X + Y - 2 + 2] - B[X - Y - 1 + h + 1];
  }
}

/* Level 0 is the largest. */
size_t
fv_vj_scratch_bytes (const fv_vj_pyramid *py)
{
  if (!py->nlevels)
    return 0;
  const fv_vj_level *lv = &py->lv[0];
  /* the level's image, then the larger of the resize's two lines, the
   * tilted sums' three arrays and the rows of running sums */
  return (((size_t) lv->w * lv->h + 15) & ~(size_t) 15)
      + 4 * (3 * (size_t) lv->w + 2 * lv->h + 8 + 2 * (size_t) py->stride);
}

void
fv_vj_level_build (const fv_vj_pyramid *py, int l, const uint8_t *src, size_t src_stride,
    uint8_t *tmp, uint32_t *base, int has_tilted, int split)
{
  fv_vj_level_build_rows (py, l, src, src_stride, tmp, base, has_tilted, split, 0,
      py->lv[l].h);
}

void
fv_vj_level_build_rows (const fv_vj_pyramid *py, int l, const uint8_t *src, size_t src_stride,
    uint8_t *tmp, uint32_t *base, int has_tilted, int split, int ya, int yb)
{
  src += (size_t) py->src_y0 * src_stride;
  const fv_vj_level *lv = &py->lv[l];
  const int h = yb - ya;
  uint32_t *scratch = (uint32_t *) (tmp + (((size_t) lv->w * lv->h + 15) & ~(size_t) 15));
  uint16_t *lines = (uint16_t *) scratch;
  resize_level (lv, src, src_stride, py->src_h, tmp, lines, lines + lv->w, ya, yb);
  uint32_t *sum = base + lv->origin;
  const int half = split && py->cpu && lv->step == 2 ? py->stride / 2 : 0;
  integrals (tmp, lv->w, h, sum, sum + py->plane, py->stride, half, scratch,
      scratch + py->stride);
  if (has_tilted)
    tilted (tmp, lv->w, h, sum + 2 * py->plane, py->stride, half, scratch);
}

/* Source rows that level l's rows [ya, yb) read (the frame's, before
 * py->src_y0). */
void
fv_vj_level_source_rows (const fv_vj_pyramid *py, int l, int ya, int yb, int *s0, int *s1)
{
  const fv_vj_level *lv = &py->lv[l];
  if (lv->identity) {
    *s0 = ya;
    *s1 = yb;
    return;
  }
  const fv_vj_axis *a = &lv->ay;
  int lo = py->src_h, hi = 0;
  for (int y = ya; y < yb; y++) {
    int r0, r1;
    if (y < a->lo || y >= a->hi) {
      r0 = y < a->lo ? 0 : py->src_h - 1;
      r1 = r0 + 1;
    } else {
      r0 = a->ofs[y];
      r1 = r0 + 2;
    }
    lo = r0 < lo ? r0 : lo;
    hi = r1 > hi ? r1 : hi;
  }
  *s0 = lo;
  *s1 = hi > py->src_h ? py->src_h : hi;
}

void
fv_vj_rows_of_level (const fv_vj_pyramid *py, const fv_cascade *c, int l,
    const fv_vj_rows *rows, int nrows, unsigned char *keep, int *ya, int *yb)
{
  const fv_vj_level *lv = &py->lv[l];
  int first = -1, last = -1;
  for (int r = 0; r < lv->rows; r++) {
    const fv_rect q = fv_vj_window_rect (lv, 0, r * lv->step);
    int k = 0;
    for (int b = 0; !k && b < nrows; b++)
      k = q.width >= rows[b].min_w && q.width <= rows[b].max_w && q.y >= rows[b].y0
          && q.y + q.height <= rows[b].y1;
    keep[r] = (unsigned char) k;
    if (k) {
      first = first < 0 ? r : first;
      last = r;
    }
  }
  if (first < 0) {
    *ya = *yb = 0;
    return;
  }
  *ya = first * lv->step;
  *yb = last * lv->step + c->height;
  *yb = *yb > lv->h ? lv->h : *yb;
}
