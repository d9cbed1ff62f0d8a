/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The detector's pyramid on the GPU (private to fv_vj_cuda.cu): every level
 * of OpenCV's pyramid in one buffer per plane, built for all levels at once
 * by a row scan that resizes on the fly, diagonal scans for tilted sums
 * (where the cascade has them) and a column scan in segments; and on the
 * host, the level tables those kernels read (LevelTables).
 *
 * Measured on an H200 (docs/benchmark-log.md, 2026-11-28): these kernels
 * wait on loads (the resize's tables, the sums), not on DRAM bandwidth, so
 * what counts is how few instructions and how short a chain each thread
 * has. A column scan walking a level down in steps of 16 rows (a chain of
 * 68 steps at 1080p) took 162-167 us of a frame's 1080p pyramid; segments
 * scanned at once take 116-119. Building the rows and columns in one pass
 * (bands of rows in shared memory, column totals carried by a decoupled
 * look-back) wrote the sums once, but was slower with many streams (its
 * waiting blocks hold the multiprocessors) and was not kept. */
#ifndef FV_VJ_CUDA_PYRAMID_CUH
#define FV_VJ_CUDA_PYRAMID_CUH

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include "fv_vj_plan.h"

namespace fv_vj {

struct DevLevel {
  long long origin, word_base;
  int w, h, step, work_w, cols, wpr, rows, identity;
  int ax_lo, ax_hi, ay_lo, ay_hi, axis_x, axis_y;   /* axis_*: offsets into the tables */
};

/* Words (of 32 window positions) a group of the word-to-level table. */
constexpr int WORD_GROUP = 8;

struct Geometry {
  const DevLevel *lv;
  int nlevels;
  const int32_t *wlv;            /* the level of each group's first word */
  const long long *row_prefix;   /* level rows (image rows) before each level */
  const long long *cblk_prefix;  /* column blocks before each level */
  const long long *tdiag_prefix; /* tilted diagonals before each level */
  const uint2 *xtab;             /* x axes: (source column, both coefficients packed) */
  const int32_t *yofs;           /* y axes: source row */
  const uint16_t *ycoef;         /* y axes: two coefficients */
  int stride;
  long long plane;
  long long nwords;
};

struct Frame {
  const unsigned char *src;
  size_t sstride;
  int W, H;
};

__device__ __forceinline__ int
find_level (const long long *prefix, int n, long long i)
{
  int lo = 0, hi = n - 1;   /* the last level whose prefix is <= i */
  while (lo < hi) {
    int mid = (lo + hi + 1) >> 1;
    if (prefix[mid] <= i)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

/* One pixel of OpenCV's bit-exact linear resize (see fv_vj_pyramid.c);
 * one load gives a column's source offset and both its coefficients. */
__device__ __forceinline__ unsigned
hpix (const Geometry &g, const DevLevel &L, const unsigned char *row, int x)
{
  if (x < L.ax_lo)
    return (unsigned) row[0] << 8;
  if (x >= L.ax_hi)
    return (unsigned) row[g.xtab[L.axis_x + L.w - 1].x] << 8;
  const uint2 t = g.xtab[L.axis_x + x];
  const unsigned char *q = row + t.x;
  return q[0] * (t.y & 0xffffu) + q[1] * (t.y >> 16);
}

__device__ __forceinline__ unsigned
level_pixel (const Geometry &g, const Frame &f, const DevLevel &L, int x, int y)
{
  if (L.identity)
    return f.src[(size_t) y * f.sstride + x];
  if (y < L.ay_lo || y >= L.ay_hi) {
    int r = y < L.ay_lo ? 0 : f.H - 1;
    return (hpix (g, L, f.src + (size_t) r * f.sstride, x) + 128) >> 8;
  }
  int r = g.yofs[L.axis_y + y];
  unsigned c0 = g.ycoef[2 * (L.axis_y + y)], c1 = g.ycoef[2 * (L.axis_y + y) + 1];
  const unsigned char *s = f.src + (size_t) r * f.sstride;
  return (hpix (g, L, s, x) * c0 + hpix (g, L, s + f.sstride, x) * c1 + 32768) >> 16;
}

/* One warp per level row: resized pixels, their row prefix sums and those
 * of their squares, into row y + 1 of the level (column 0 stays zero). */
__global__ void
row_scan (Geometry g, Frame f, uint32_t *planes, long long total_rows)
{
  const int lane = threadIdx.x & 31;
  const long long r = (long long) blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
  if (r >= total_rows)
    return;
  const int l = find_level (g.row_prefix, g.nlevels, r);
  const DevLevel L = g.lv[l];
  const int y = (int) (r - g.row_prefix[l]);
  uint32_t *s = planes + L.origin + (long long) (y + 1) * g.stride + 1, *q = s + g.plane;
  uint32_t cs = 0, cq = 0;
  for (int x0 = 0; x0 < L.w; x0 += 32) {
    int x = x0 + lane;
    uint32_t v = x < L.w ? level_pixel (g, f, L, x, y) : 0, v2 = v * v;
    for (int d = 1; d < 32; d <<= 1) {
      uint32_t a = __shfl_up_sync (0xffffffffu, v, d), b = __shfl_up_sync (0xffffffffu, v2, d);
      if (lane >= d) {
        v += a;
        v2 += b;
      }
    }
    if (x < L.w) {
      s[x] = cs + v;
      q[x] = cq + v2;
    }
    cs += __shfl_sync (0xffffffffu, v, 31);
    cq += __shfl_sync (0xffffffffu, v2, 31);
  }
}

/* Tilted sums from the row prefixes R (see fv_vj_pyramid.c): one thread per
 * diagonal of a level; sign +1 adds A along anti-diagonals, -1 subtracts B
 * along diagonals. Must run between row_scan and col_scan. */
__global__ void
tilted_diag (Geometry g, uint32_t *planes, long long total, int sign)
{
  long long i = (long long) blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= total)
    return;
  const int l = find_level (g.tdiag_prefix, g.nlevels, i);
  const DevLevel L = g.lv[l];
  const int d = (int) (i - g.tdiag_prefix[l]);   /* 0 .. w + h */
  const uint32_t *R = planes + L.origin;          /* R(y, c) = R[(y + 1) * stride + c + 1] */
  uint32_t *T = planes + 2 * g.plane + L.origin;
  uint32_t acc = 0;
  const int k = sign > 0 ? d - 2 : d - L.h - 1;  /* A: k = X + Y - 2; B: m = X - Y - 1 */
  for (int Y = 1; Y <= L.h; Y++) {
    int c = sign > 0 ? k - (Y - 1) : k + (Y - 1);
    if (c >= 0)
      acc += R[(long long) Y * g.stride + (c < L.w ? c : L.w - 1) + 1];
    int X = sign > 0 ? k - Y + 2 : k + Y + 1;
    if (X >= 0 && X <= L.w) {
      uint32_t *t = T + (long long) Y * g.stride + X;
      *t = sign > 0 ? acc : *t - acc;
    }
  }
}

/* Column prefix sums of both planes, in place, without a chain down the
 * level: a block of 32 x 32 threads takes 32 columns, each row of threads
 * a segment of the rows; a thread adds its segment (independent loads),
 * the segments' totals are scanned in shared memory, and the thread walks
 * its segment again writing the sums. Reads each sum twice (the second
 * time partly from L2) and writes it once. (Keeping the segment's first
 * rows in registers made it faster alone but slower beside other streams:
 * twice the registers.) Must run after row_scan and tilted_diag. */
__global__ void __launch_bounds__ (1024)
col_scan (Geometry g, uint32_t *planes)
{
  __shared__ uint32_t ts[32][33], tq[32][33];
  const int l = find_level (g.cblk_prefix, g.nlevels, blockIdx.x);
  const DevLevel L = g.lv[l];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int x = (int) (blockIdx.x - g.cblk_prefix[l]) * 32 + tx + 1;
  const int seg = (L.h + 31) / 32, y0 = 1 + ty * seg;
  const int y1 = y0 + seg - 1 < L.h ? y0 + seg - 1 : L.h;   /* rows y0 .. y1 */
  const bool in = x <= L.w;
  uint32_t *s = planes + L.origin + x, *q = s + g.plane;
  uint32_t as = 0, aq = 0;
  if (in) {
#pragma unroll 8
    for (int y = y0; y <= y1; y++) {
      as += s[(long long) y * g.stride];
      aq += q[(long long) y * g.stride];
    }
  }
  ts[ty][tx] = as;
  tq[ty][tx] = aq;
  __syncthreads ();
  uint32_t cs = 0, cq = 0;   /* the segments above */
  for (int j = 0; j < ty; j++) {
    cs += ts[j][tx];
    cq += tq[j][tx];
  }
  if (in) {
#pragma unroll 8
    for (int y = y0; y <= y1; y++) {
      const long long o = (long long) y * g.stride;
      cs += s[o];
      cq += q[o];
      s[o] = cs;
      q[o] = cq;
    }
  }
}

/* Host side: the tables above, made from the plan's pyramid. */

/* The pyramid's levels as the device reads them, their prefix tables and
 * the resize axes of every level end to end. */
struct LevelTables {
  DevLevel *lv;
  long long *rowp, *cblk, *tdia;
  int32_t *ofs;
  uint16_t *coef;
  uint2 *xtab;        /* the x axes end to end */
  size_t xlen, ylen;  /* ofs, coef: the y axes end to end */
  int32_t *wlv;       /* the level of every WORD_GROUP-th word */
  size_t nwlv;
  long long words, rows, blocks, diags;
};

inline void
level_tables_free (LevelTables *t)
{
  void *all[] = { t->lv, t->rowp, t->cblk, t->tdia, t->ofs, t->xtab, t->coef, t->wlv };
  for (void *a : all)
    free (a);
}

inline fv_status
level_tables_make (const fv_vj_pyramid *py, LevelTables *t)
{
  const int n = py->nlevels > 0 ? py->nlevels : 1;
  memset (t, 0, sizeof *t);
  for (int l = 0; l < py->nlevels; l++) {
    t->xlen += py->lv[l].w;
    t->ylen += py->lv[l].h;
  }
  t->lv = (DevLevel *) calloc (n, sizeof (DevLevel));
  t->rowp = (long long *) calloc (n, sizeof (long long));
  t->cblk = (long long *) calloc (n, sizeof (long long));
  t->tdia = (long long *) calloc (n, sizeof (long long));
  t->ofs = (int32_t *) malloc (sizeof (int32_t) * (t->ylen + 1));
  t->coef = (uint16_t *) malloc (sizeof (uint16_t) * 2 * (t->ylen + 1));
  t->xtab = (uint2 *) calloc (t->xlen + 1, sizeof (uint2));
  if (!t->lv || !t->rowp || !t->cblk || !t->tdia || !t->ofs || !t->coef || !t->xtab)
    return FV_ERR_NOMEM;
  size_t ax = 0, ay = 0;
  for (int l = 0; l < py->nlevels; l++) {
    const fv_vj_level *s = &py->lv[l];
    DevLevel *L = &t->lv[l];
    L->origin = s->origin;
    L->w = s->w;
    L->h = s->h;
    L->step = s->step;
    L->work_w = s->work_w;
    L->cols = (s->work_w + s->step - 1) / s->step;
    L->wpr = (L->cols + 31) / 32;
    L->rows = s->rows;
    L->identity = s->identity;
    L->word_base = t->words;
    t->words += (long long) L->wpr * L->rows;
    t->rowp[l] = t->rows;
    t->rows += s->h;
    t->cblk[l] = t->blocks;
    t->blocks += (s->w + 1 + 31) / 32;
    t->tdia[l] = t->diags;
    t->diags += s->w + s->h + 1;
    L->ax_lo = s->ax.lo;
    L->ax_hi = s->ax.hi;
    L->ay_lo = s->ay.lo;
    L->ay_hi = s->ay.hi;
    L->axis_x = (int) ax;
    for (int x = 0; x < s->w; x++)
      t->xtab[ax + x] = make_uint2 ((unsigned) s->ax.ofs[x],
          s->ax.coef[2 * x] | (unsigned) s->ax.coef[2 * x + 1] << 16);
    ax += s->w;
    L->axis_y = (int) ay;
    memcpy (t->ofs + ay, s->ay.ofs, sizeof (int32_t) * s->h);
    memcpy (t->coef + 2 * ay, s->ay.coef, sizeof (uint16_t) * 2 * s->h);
    ay += s->h;
  }
  /* window positions are numbered in 32 bits (word * 32 + lane) */
  if (t->words > (long long) (UINT32_MAX / 32)) {
    fv_set_last_error ("%lld window words: more than the detector numbers in one plan",
        t->words);
    return FV_ERR_INVALID;
  }
  t->nwlv = (size_t) (t->words / WORD_GROUP) + 1;
  if (!(t->wlv = (int32_t *) malloc (sizeof (int32_t) * t->nwlv)))
    return FV_ERR_NOMEM;
  for (size_t i = 0, l = 0; i < t->nwlv; i++) {   /* the last level beginning at or before */
    const long long word = (long long) i * WORD_GROUP;
    while ((int) l + 1 < py->nlevels && t->lv[l + 1].word_base <= word)
      l++;
    t->wlv[i] = (int32_t) l;
  }
  return FV_OK;
}

}  // namespace fv_vj
#endif
