/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Box filter on the GPU: a tiled SAT per filtered channel (and one of
 * squares for stddev), then one pass that reads four table entries per
 * pixel (more at the borders, through fv_border_terms) and writes the
 * rounded result with the same integer arithmetic as the CPU path. The
 * mean and the threshold take two passes of window sums instead where
 * their sums fit 32 bits (fv_box_sep_cuda.cuh): less memory traffic, every
 * channel at once, the same output. */
#include <cstdlib>
#include <cstring>
#include "fv_box_plan.h"
#include "fv_box_math.h"
#include "fv_sat_tiles.cuh"
#include "../common/fv_cuda_check.cuh"
#include "../common/fv_env.h"
#include "../common/fv_cuda.h"
#include "../common/fv_window.h"

/* Host frames are filtered in bands of whole rows, each band on one of
 * LANES streams: the upload of one band, the filter of another and the
 * download of a third overlap, where a whole frame would pay for them one
 * after the other. A band reads its rows and ry more on each side (kept
 * inside the frame), filters them as an image of its own and keeps only its
 * rows, whose windows then lie inside the band or meet the frame's own edge:
 * the whole-frame result exactly (satfilter's roi-type regions work the same
 * way). */
#define LANES 3

struct fv_box_cuda {
  fv::PlanStream ps;
  fv::SatWork work;
  void *sat, *satsq;        /* tables, width entries per row */
  void *d_src, *d_dst;      /* staging for host images */
  size_t d_pitch;
  bool chunked;             /* the frame's buffers exceed the budget: always bands */
  int bands;                /* bands (0: the whole frame at once) */
  int band_rows, band_in;   /* output rows of a band; rows it reads */
  fv_box_plan *lane[LANES]; /* plans for band_in rows, each on its own stream */
  void *vbuf;               /* column sums of the two-pass path */
  size_t vpitch;            /* their elements a row */
  int vbytes;               /* 2 or 4 bytes a column sum; 0: the table path */
};

static void choose_bands (fv_box_cuda *c, const fv_box_params *p);
static fv_status make_lanes (fv_box_plan *plan);

namespace {

struct BoxArgs {
  const char *src;
  size_t src_stride;
  char *dst;
  size_t dst_stride;
  int width, height, channels, channel;
  int rx, ry, border;
  double k_thr;
  int row0, rows;   /* the output rows written: row y goes to dst + (y - row0) rows */
  double inv_full;  /* 1 / the whole window's samples: every pixel's divisor but the
                     * renormalized ones near the edges (no division a pixel) */
};

/* F(kx, ky) of the border-extended image, from the table. */
template <typename TACC>
__device__ TACC
ext_sat (const TACC *S, int W, int H, long kx, long ky, int border)
{
  int ix[8], iy[8];
  int64_t cx[8], cy[8];
  int nx = fv_border_terms (kx, W, border, ix, cx);
  int ny = fv_border_terms (ky, H, border, iy, cy);
  TACC s = 0;
  for (int j = 0; j < ny; j++) {
    if (iy[j] < 0)
      continue;
    TACC row = 0;
    for (int i = 0; i < nx; i++)
      if (ix[i] >= 0)
        row += (TACC) cx[i] * S[(size_t) iy[j] * W + ix[i]];
    s += (TACC) cy[j] * row;
  }
  return s;
}

template <typename TACC>
__device__ __forceinline__ TACC
window_sum (const TACC *S, const BoxArgs &a, int x, int y)
{
  const int W = a.width, H = a.height;
  const int xa = x + a.rx, xb = x - a.rx - 1, ya = y + a.ry, yb = y - a.ry - 1;
  if (xb >= -1 && xa < W && yb >= -1 && ya < H) {
    TACC s = S[(size_t) ya * W + xa];
    if (xb >= 0)
      s -= S[(size_t) ya * W + xb];
    if (yb >= 0) {
      s -= S[(size_t) yb * W + xa];
      if (xb >= 0)
        s += S[(size_t) yb * W + xb];
    }
    return s;
  }
  return ext_sat (S, W, H, xa, ya, a.border) - ext_sat (S, W, H, xb, ya, a.border)
      - ext_sat (S, W, H, xa, yb, a.border) + ext_sat (S, W, H, xb, yb, a.border);
}

template <typename TIN, typename TACC, int MODE>
__global__ void
box_from_sat (const TACC *S, const TACC *Q, BoxArgs a)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = a.row0 + blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= a.width || y >= a.row0 + a.rows)
    return;
  const uint64_t n = (uint64_t) fv_window_count (x, a.rx, a.width, a.border)
      * fv_window_count (y, a.ry, a.height, a.border);
  const TACC s = window_sum (S, a, x, y);
  const size_t off = (size_t) x * a.channels + a.channel;
  TIN *out = (TIN *) (a.dst + (size_t) (y - a.row0) * a.dst_stride) + off;
  if (MODE == FV_BOX_MEAN) {
    double inv = a.inv_full;
    if (a.border == FV_BORDER_RENORMALIZE
        && (x < a.rx || x + a.rx >= a.width || y < a.ry || y + a.ry >= a.height))
      inv = 1.0 / (double) n;
    *out = (TIN) fv_round_mean (s, inv);
  } else if (MODE == FV_BOX_STDDEV) {
    *out = (TIN) fv_round_stddev (s, window_sum (Q, a, x, y), n);
  } else {
    const TIN p = *((const TIN *) (a.src + (size_t) y * a.src_stride) + off);
    *out = fv_threshold_above (p, s, n, a.k_thr) ? (TIN) (sizeof (TIN) == 1 ? 255 : 65535) : 0;
  }
}

}  // namespace

#include "fv_box_sep_cuda.cuh"

namespace {

/* The two passes for every channel of rows [a.row0, + a.rows). */
template <typename TIN, typename TV>
cudaError_t
run_sep (fv_box_cuda *c, const fv_box_params *p, const BoxArgs &a)
{
  using namespace fv_sep;
  const int samples = p->frame.width * p->frame.channels, strip = strip_rows (a.ry);
  const bool four = sizeof (TIN) == 1 && !((uintptr_t) a.src & 3) && !(a.src_stride & 3)
      && !(samples & 3);
  const int per = four ? 4 : 1;
  dim3 g1 ((samples + COL_THREADS * per - 1) / (COL_THREADS * per), (a.rows + strip - 1) / strip);
  if (four)
    box_cols4<TV><<<g1, COL_THREADS, 0, c->ps.stream>>> (a.src, a.src_stride, p->frame.height,
        samples, a.ry, a.border, a.row0, a.rows, strip, (TV *) c->vbuf, c->vpitch);
  else
    box_cols<TIN, TV><<<g1, COL_THREADS, 0, c->ps.stream>>> (a.src, a.src_stride, p->frame.height,
        samples, a.ry, a.border, a.row0, a.rows, strip, (TV *) c->vbuf, c->vpitch);
  dim3 g2 ((p->frame.width + seg_pixels (p->frame.channels) - 1) / seg_pixels (p->frame.channels),
      a.rows);
  const size_t shb = seg_shared (p->frame.channels, a.rx);
  const TV *V = (const TV *) c->vbuf;
  const bool mean = p->mode == FV_BOX_MEAN;
#define ROWS(C) (mean \
    ? box_rows<TIN, TV, FV_BOX_MEAN, C><<<g2, ROW_THREADS, shb, c->ps.stream>>> (V, c->vpitch, a, p->channel_mask) \
    : box_rows<TIN, TV, FV_BOX_THRESHOLD, C><<<g2, ROW_THREADS, shb, c->ps.stream>>> (V, c->vpitch, a, p->channel_mask))
  switch (p->frame.channels) {
    case 1: ROWS (1); break;
    case 2: ROWS (2); break;
    case 3: ROWS (3); break;
    default: ROWS (4); break;
  }
#undef ROWS
  return cudaGetLastError ();
}

template <typename TIN, typename TACC>
cudaError_t
run_channel (fv_box_cuda *c, const fv_box_params *p, const BoxArgs &a)
{
  fv::SatSrc s = { a.src, a.src_stride, p->frame.width, p->frame.height, p->frame.channels,
      a.channel, false,
    false };
  TACC *S = (TACC *) c->sat, *Q = (TACC *) c->satsq;
  cudaError_t e = fv::sat_launch<TIN, TACC> (c->work, s, false, S, p->frame.width, c->ps.stream);
  if (e == cudaSuccess && p->mode == FV_BOX_STDDEV)
    e = fv::sat_launch<TIN, TACC> (c->work, s, true, Q, p->frame.width, c->ps.stream);
  if (e != cudaSuccess)
    return e;
  dim3 block (32, 8), grid ((p->frame.width + 31) / 32, (a.rows + 7) / 8);
  switch (p->mode) {
    case FV_BOX_MEAN:
      box_from_sat<TIN, TACC, FV_BOX_MEAN><<<grid, block, 0, c->ps.stream>>> (S, Q, a);
      break;
    case FV_BOX_STDDEV:
      box_from_sat<TIN, TACC, FV_BOX_STDDEV><<<grid, block, 0, c->ps.stream>>> (S, Q, a);
      break;
    default:
      box_from_sat<TIN, TACC, FV_BOX_THRESHOLD><<<grid, block, 0, c->ps.stream>>> (S, Q, a);
      break;
  }
  return cudaGetLastError ();
}

}  // namespace

/* Bytes a column sum of the two-pass path takes for these parameters: 2
 * or 4; 0 where the table path runs. The two passes cannot take the
 * standard deviation, sums past 32 bits or a halo past shared memory. Where
 * they can, they run for interleaved channels (one read of the frame for
 * all: 2.1x the table at 8K RGBA r=15 on the H100) and for one channel of
 * 16 Mpx and more with radii up to 32 (1.7x at 8K GRAY8 r=15); the table
 * was faster for one channel below that (4K GRAY8 r=15: 0.115 ms against
 * 0.134) and for large radii (8K GRAY8 r=100: 0.40 against 0.44).
 * FASTVISION_BOX_PATH=table or two-pass forces either where both can run. */
static int
sep_vbytes (const fv_box_params *p, bool acc64)
{
  if (acc64 || p->mode == FV_BOX_STDDEV || p->frame.channels > 4
      || fv_sep::seg_shared (p->frame.channels, p->radius_x) > fv_sep::SHARED_MAX)
    return 0;
  const char *path = fv_env_get (FV_ENV_BOX_PATH);
  const bool forced = path && !strcmp (path, "two-pass");
  if (path && !strcmp (path, "table"))
    return 0;
  /* a chunk or band of a larger frame takes the frame's path (over four
   * H200 a 16384² frame's chunks of 683 rows, under 16 Mpx, took the
   * table: 0.91 ms a frame, 0.63-0.70 with the frame's two passes) */
  const long long px = p->frame.spread.part_of_width
      ? (long long) p->frame.spread.part_of_width * p->frame.spread.part_of_height
      : (long long) p->frame.width * p->frame.height;
  const bool big = px >= (16LL << 20) && p->radius_x <= 32;
  if (!forced && p->frame.channels == 1 && !big)
    return 0;
  /* 16-bit column sums for 8-bit samples and radii up to 128 */
  return p->frame.sample == FV_U8 && (2ULL * p->radius_y + 1) * 255 <= 65535 ? 2 : 4;
}

/* Elements a row of the two-pass path's column sums takes. */
static size_t
sep_pitch (const fv_box_params *p)
{
  return ((size_t) p->frame.width * p->frame.channels + 63) & ~(size_t) 63;
}

/* Device bytes a plan for `rows` rows of the frame takes: the column sums,
 * or the tables and the tiled SAT's work space; and the staging of a host
 * frame in and out. */
static size_t
plan_bytes (const fv_box_params *p, long long rows, size_t acc)
{
  const size_t w = (size_t) p->frame.width, cells = w * (size_t) rows;
  const size_t pitch = ((w * p->frame.channels * p->frame.sample) + 511) & ~(size_t) 511;
  const size_t staging = 2 * pitch * (size_t) rows + ((size_t) 1 << 20);
  const int vb = sep_vbytes (p, acc == 8);
  if (vb)
    return (size_t) vb * sep_pitch (p) * (size_t) rows + staging;
  const size_t tables = acc * cells * (p->mode == FV_BOX_STDDEV ? 2 : 1);
  const size_t work = acc * (cells / fv::TILE + (size_t) fv::WARPS * w * (rows / fv::TILE + 1)
      + w) + 4096;
  return tables + work + staging;
}

extern "C" size_t
fv_box_cuda_bytes (const fv_box_params *p, int width, int height)
{
  fv_box_params q = *p;
  q.frame.width = width;
  q.frame.height = height;
  return plan_bytes (&q, height, fv_box_needs_acc64 (&q) ? 8 : 4);
}

extern "C" size_t
fv_box_cuda_plan_bytes (const fv_box_plan *plan)
{
  return fv_box_cuda_bytes (&plan->p, plan->p.frame.width, plan->p.frame.height);
}

/* Bands of band_rows output rows, each reading band_rows + 2 ry rows kept
 * inside the frame. */
static void
set_bands (fv_box_cuda *c, const fv_box_params *p, long long band_rows)
{
  const long long in = band_rows + 2LL * p->radius_y;
  c->band_rows = (int) band_rows;
  c->band_in = in < p->frame.height ? (int) in : p->frame.height;
  c->bands = (int) ((p->frame.height + band_rows - 1) / band_rows);
}

/* The frame does not fit the budget: bands as tall as LANES plans for them
 * allow (each reads its halo of radius_y rows on both sides), made now so
 * that a budget too small for even one row fails here, not mid-stream. */
static fv_status
choose_chunks (fv_box_plan *plan, size_t budget, size_t acc)
{
  fv_box_cuda *c = (fv_box_cuda *) plan->state;
  const fv_box_params *p = &plan->p;
  long long lo = 1, hi = p->frame.height;   /* largest band_rows that fits */
  const size_t least = LANES * plan_bytes (p, 1 + 2LL * p->radius_y, acc);
  if (least > budget) {
    fv_set_last_error ("%dx%d frames need %zu bytes of device memory even in bands of one "
        "row (radius %d), over the budget of %zu", p->frame.width, p->frame.height, least,
            p->radius_y,
        budget);
    return FV_ERR_NOMEM;
  }
  while (lo < hi) {
    const long long mid = (lo + hi + 1) / 2;
    if (LANES * plan_bytes (p, mid + 2LL * p->radius_y, acc) <= budget)
      lo = mid;
    else
      hi = mid - 1;
  }
  c->chunked = true;
  set_bands (c, p, lo);
  return make_lanes (plan);
}

extern "C" fv_status
fv_box_cuda_init (fv_box_plan *plan, int device, void *stream)
{
  const fv_box_params *p = &plan->p;
  fv_box_cuda *c = (fv_box_cuda *) calloc (1, sizeof (fv_box_cuda));
  if (!c)
    return FV_ERR_NOMEM;
  plan->state = c;
  FV_CUDA_TRY (c->ps.open (device, stream));
  const size_t acc = plan->acc64 ? 8 : 4, cells = (size_t) p->frame.width * p->frame.height;
  size_t budget = p->frame.spread.max_device_bytes;
  if (!budget) {   /* what the device has free, less a margin for others */
    fv_status st = fv_cuda_free_budget (&budget);
    if (st != FV_OK)
      return st;
  }
  if (plan_bytes (p, p->frame.height, acc) > budget)
    return choose_chunks (plan, budget, acc);
  c->vbytes = sep_vbytes (p, plan->acc64);
  if (c->vbytes) {
    c->vpitch = sep_pitch (p);
    FV_CUDA_TRY (cudaMalloc (&c->vbuf, c->vbytes * c->vpitch * p->frame.height));
  } else {
    FV_CUDA_TRY (fv::sat_work_alloc (&c->work, p->frame.width, p->frame.height, acc));
    FV_CUDA_TRY (cudaMalloc (&c->sat, acc * cells));
    if (p->mode == FV_BOX_STDDEV)
      FV_CUDA_TRY (cudaMalloc (&c->satsq, acc * cells));
  }
  const size_t row = (size_t) p->frame.width * p->frame.channels * p->frame.sample;
  FV_CUDA_TRY (cudaMallocPitch (&c->d_src, &c->d_pitch, row, p->frame.height));
  size_t pitch2;
  FV_CUDA_TRY (cudaMallocPitch (&c->d_dst, &pitch2, row, p->frame.height));
  choose_bands (c, p);
  return FV_OK;
}

/* Queues the filter of src on the plan's stream; dst receives rows
 * [row0, row0 + rows) of the result (dst->data is where row0 goes): a
 * device dst directly, a host dst through staging. Not waited for. */
static fv_status
enqueue (fv_box_plan *plan, const fv_image *src, const fv_image *dst, int row0, int rows)
{
  fv_box_cuda *c = (fv_box_cuda *) plan->state;
  const fv_box_params *p = &plan->p;
  const size_t row = fv_image_row_bytes (src);
  FV_CUDA_TRY (fv_cuda_use_device (c->ps.device));
  BoxArgs a;
  fv::DevView in, out = fv::stage_target (dst, dst->data, c->d_dst, c->d_pitch);
  FV_CUDA_TRY (fv::stage_in (src, src->data, p->frame.height, row, c->d_src, c->d_pitch,
      c->ps.stream, &in));
  a.src = in.data;
  a.src_stride = in.stride;
  a.dst = out.data;
  a.dst_stride = out.stride;
  a.width = p->frame.width; a.height = p->frame.height; a.channels = p->frame.channels;
  a.rx = p->radius_x; a.ry = p->radius_y; a.border = p->border;
  a.k_thr = 1.0 - p->sensitivity;
  a.inv_full = 1.0 / ((double) (2LL * p->radius_x + 1) * (double) (2LL * p->radius_y + 1));
  a.row0 = row0;
  a.rows = rows;
  if (c->vbytes) {   /* every channel at once, unfiltered ones copied on the way */
    cudaError_t e;
    if (p->frame.sample == FV_U8)
      e = c->vbytes == 2 ? run_sep<uint8_t, uint16_t> (c, p, a) : run_sep<uint8_t, uint32_t> (c, p, a);
    else
      e = run_sep<uint16_t, uint32_t> (c, p, a);
    FV_CUDA_TRY (e);
  } else if (p->channel_mask != (1u << p->frame.channels) - 1)   /* unfiltered: copied */
    FV_CUDA_TRY (cudaMemcpy2DAsync (a.dst, a.dst_stride, a.src + (size_t) row0 * a.src_stride,
        a.src_stride, row, rows, cudaMemcpyDeviceToDevice, c->ps.stream));
  for (int ch = 0; ch < p->frame.channels && !c->vbytes; ch++) {
    if (!(p->channel_mask & (1u << ch)))
      continue;
    a.channel = ch;
    cudaError_t e;
    if (p->frame.sample == FV_U8)
      e = plan->acc64 ? run_channel<uint8_t, uint64_t> (c, p, a) : run_channel<uint8_t, uint32_t> (c, p, a);
    else
      e = plan->acc64 ? run_channel<uint16_t, uint64_t> (c, p, a) : run_channel<uint16_t, uint32_t> (c, p, a);
    FV_CUDA_TRY (e);
  }
  FV_CUDA_TRY (fv::stage_out (dst, dst->data, rows, row, c->d_dst, c->d_pitch, c->ps.stream));
  return FV_OK;
}

/* The lanes' plans, for band_in rows each, made once. */
static fv_status
make_lanes (fv_box_plan *plan)
{
  fv_box_cuda *c = (fv_box_cuda *) plan->state;
  for (int i = 0; i < LANES; i++) {
    if (c->lane[i])
      continue;
    fv_box_params bp = plan->p;
    bp.frame.height = c->band_in;
    fv_spread_part (&bp.frame.spread, plan->p.frame.width,
        plan->p.frame.height);   /* sized to fit already */
    fv_status st = fv_box_plan_create (&c->lane[i], &bp, FV_BACKEND_CUDA, c->ps.device, NULL);
    if (st != FV_OK)
      return st;
  }
  return FV_OK;
}

/* The bands, over the lanes' streams, then a wait for all. */
static fv_status
execute_bands (fv_box_plan *plan, const fv_image *src, const fv_image *dst)
{
  fv_box_cuda *c = (fv_box_cuda *) plan->state;
  const fv_box_params *p = &plan->p;
  fv_status st = make_lanes (plan);
  if (st != FV_OK)
    return st;
  for (int b = 0; b < c->bands && st == FV_OK; b++) {
    const int y0 = b * c->band_rows;
    const int y1 = y0 + c->band_rows < p->frame.height ? y0 + c->band_rows : p->frame.height;
    /* first row read, the band kept inside the frame */
    const int s0 = fv_window_start (y0, p->radius_y, c->band_in, p->frame.height);
    fv_image bs = *src, bd = *dst;
    bs.data = (char *) src->data + (size_t) s0 * src->stride;
    bs.height = c->band_in;
    bd.data = (char *) dst->data + (size_t) y0 * dst->stride;
    bd.height = y1 - y0;
    st = enqueue (c->lane[b % LANES], &bs, &bd, y0 - s0, y1 - y0);
  }
  for (int i = 0; i < LANES; i++) {   /* every lane, even after a failure */
    cudaError_t e = fv_cuda_sync (((fv_box_cuda *) c->lane[i]->state)->ps.stream);
    if (e != cudaSuccess && st == FV_OK) {
      fv_set_last_error ("band filter: %s", cudaGetErrorString (e));
      st = FV_ERR_CUDA;
    }
  }
  return st;
}

extern "C" fv_status
fv_box_cuda_execute_rows (fv_box_plan *plan, const fv_image *src, const fv_image *dst,
    int row0, int rows)
{
  fv_box_cuda *c = (fv_box_cuda *) plan->state;
  if (c->chunked) {
    fv_set_last_error ("row windows of a plan that bands itself");
    return FV_ERR_INVALID;
  }
  fv_status st = enqueue (plan, src, dst, row0, rows);
  if (st != FV_OK)
    return st;
  FV_CUDA_TRY (fv_cuda_sync (c->ps.stream));
  return FV_OK;
}

extern "C" fv_status
fv_box_cuda_execute (fv_box_plan *plan, const fv_image *src, const fv_image *dst)
{
  fv_box_cuda *c = (fv_box_cuda *) plan->state;
  if (c->chunked || (c->bands && dst->mem == FV_MEM_HOST))
    return execute_bands (plan, src, dst);
  fv_status st = enqueue (plan, src, dst, 0, plan->p.frame.height);
  if (st != FV_OK)
    return st;
  return fv_cuda_finish (c->ps.stream, dst->mem != FV_MEM_HOST);
}

/* How many bands host frames are cut into: FASTVISION_BOX_BANDS when set (0: none;
 * for tests); else 8 for frames of 4 MB and more whose halo (2 ry rows) is
 * at most a quarter of a band, none otherwise. */
static void
choose_bands (fv_box_cuda *c, const fv_box_params *p)
{
  long long n = fv_env_int (FV_ENV_BOX_BANDS, -1);
  if (n < 0) {
    const size_t bytes = (size_t) p->frame.width * p->frame.height * p->frame.channels
        * p->frame.sample;
    const int rows = (p->frame.height + 7) / 8;
    n = bytes >= ((size_t) 4 << 20) && 8 * p->radius_y <= rows ? 8 : 0;
  }
  if (n > p->frame.height)
    n = p->frame.height;
  c->bands = 0;
  if (n < 2)
    return;
  set_bands (c, p, (p->frame.height + n - 1) / n);
  if (c->band_in == p->frame.height)   /* a band would read the whole frame: no overlap to gain */
    c->bands = 0;
}

extern "C" void
fv_box_cuda_free (fv_box_plan *plan)
{
  fv_box_cuda *c = (fv_box_cuda *) plan->state;
  if (!c)
    return;
  fv_cuda_use_device (c->ps.device);
  for (int i = 0; i < LANES; i++)
    fv_box_plan_destroy (c->lane[i]);
  fv::sat_work_free (&c->work);
  cudaFree (c->sat);
  cudaFree (c->satsq);
  cudaFree (c->vbuf);
  cudaFree (c->d_src);
  cudaFree (c->d_dst);
  c->ps.close ();
  free (c);
  plan->state = nullptr;
}
