/* GPU detector. Every pyramid level lives in one device buffer (the same
 * shelf layout and feature offsets as the CPU), built by three launches for
 * all levels: row scans that resize on the fly, tilted sums where the
 * cascade needs them, and column scans. Detection is then four launches for
 * all levels:
 *
 *  1. the first stage at every window position, one thread per window; a
 *     ballot per 32 positions gives two bit words, "passed" and "failed the
 *     first stage", from which OpenCV's rule (a window that fails the first
 *     stage makes the scan skip the next one) is replayed exactly;
 *  2. the uber-kernel: persistent warps (4 to a block, each on its own: the
 *     block only shares the weak classifiers) take 32 positions at a time
 *     from a global atomic counter, replay the skip rule with bit arithmetic
 *     and queue the survivors in shared memory; once 32 are queued, each
 *     thread runs one window through the next stages (weak classifiers in
 *     shared memory) and the survivors go to a global queue;
 *  3. (when tuned so; off by default) full warps again: 32 windows a grab
 *     from that queue, one a thread, through more stages, to a second queue;
 *  4. the windows left run the remaining stages with the whole warp, a
 *     stage's weak classifiers spread over the lanes, the window's sums
 *     copied to shared memory first, one window a grab, so that windows near
 *     a face (which run many stages) spread over every warp instead of making
 *     one warp's long tail.
 *
 * Tuned on the H100 (docs/benchmarks.md): stages 0 | 1-3 | 4.. per pass,
 * 16 blocks of 4 warps per multiprocessor. FV_VJ_STAGES=a,b,
 * FV_VJ_BLOCKS_PER_SM, FV_VJ_WARPS_PER_BLOCK, FV_VJ_DEEP_SHARED=0 override
 * them for tuning; FV_VJ_PROFILE prints the phases' times.
 *
 * Windows that pass every stage come back as keys (level, y, x); the host
 * sorts them and groups them as the CPU path does, so the boxes are equal.
 * Stage sums are exact in double for OpenCV's cascades (checked at plan
 * time), so the warp may add them in any order; for a cascade where they are
 * not, lane 0 adds them in the CPU's order. */
#include <cstdlib>
#include <cstring>
#include <cmath>
#include <cstdio>
#include "fv_vj_plan.h"
#include "../common/fv_cuda_check.cuh"

namespace {

constexpr int WARPS_MAX = 8;   /* warps of a block in the persistent passes */

/* A HAAR stump with its feature, for the fast path. */
struct FStump {
  fv_vj_haar f;
  float threshold, left, right;
};

struct DevLevel {
  long long origin, word_base;
  int w, h, step, work_w, cols, wpr, rows;
  int ax_lo, ax_hi, ay_lo, ay_hi, axis_x, axis_y;   /* axis_*: offsets into the tables */
};

struct Geometry {
  const DevLevel *lv;
  int nlevels;
  const long long *row_prefix;   /* level rows (image rows) before each level */
  const long long *cblk_prefix;  /* column blocks before each level */
  const long long *tdiag_prefix; /* tilted diagonals before each level */
  const int32_t *xofs, *yofs;
  const uint16_t *xcoef, *ycoef;
  int stride;
  long long plane;
  long long nwords;
};

struct Frame {
  const unsigned char *src;
  size_t sstride;
  int W, H;
};

struct Detect {
  fv_vj_model m;        /* pointers into device memory */
  const FStump *fstump; /* HAAR stumps: fused copies, else NULL */
  const FStump *sstump; /* the same with offsets into a window copied to shared memory */
  int win_elems;        /* that copy: (w + 1) x (h + 1) per plane */
  int nshared;          /* weak classifiers of the per-thread stages */
  int stage_a, stage_b; /* passes 2, 3 and 4 run stages [1, a), [a, b), [b, end) */
  int exact_sums;
  uint32_t *fail0, *pass0;
  unsigned long long *keys;   /* windows that pass every stage, key_cap at most */
  unsigned int key_cap;
  unsigned int *nkeys;        /* counts past key_cap: the host then grows keys and reruns */
  uint32_t *q[2];             /* survivors of stage_a - 1 and stage_b - 1, by position */
  unsigned int *qn, *taken;   /* queue lengths; positions/entries taken per pass */
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

/* One pixel of OpenCV's bit-exact linear resize (see fv_vj_pyramid.c). */
__device__ __forceinline__ unsigned
hpix (const Geometry &g, const DevLevel &L, const unsigned char *row, int x)
{
  if (x < L.ax_lo)
    return (unsigned) row[0] << 8;
  if (x >= L.ax_hi)
    return (unsigned) row[g.xofs[L.axis_x + L.w - 1]] << 8;
  const unsigned char *q = row + g.xofs[L.axis_x + x];
  return q[0] * (unsigned) g.xcoef[2 * (L.axis_x + x)] + q[1] * (unsigned) g.xcoef[2 * (L.axis_x + x) + 1];
}

__device__ __forceinline__ unsigned
level_pixel (const Geometry &g, const Frame &f, const DevLevel &L, int x, int y)
{
  if (L.w == f.W && L.h == f.H)
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

/* Column prefix sums of both planes, read and written once: a block of
 * 32 x 16 threads walks 32 columns of a level down in steps of 16 rows,
 * scanning each step in shared memory and carrying the column totals. */
__global__ void __launch_bounds__ (512)
col_scan (Geometry g, uint32_t *planes)
{
  __shared__ uint32_t ts[16][33], tq[16][33];
  const int l = find_level (g.cblk_prefix, g.nlevels, blockIdx.x);
  const DevLevel L = g.lv[l];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int x = (int) (blockIdx.x - g.cblk_prefix[l]) * 32 + tx + 1;
  uint32_t *s = planes + L.origin + x, *q = s + g.plane;
  uint32_t cs = 0, cq = 0;   /* totals of the rows above this step */
  for (int y0 = 1; y0 <= L.h; y0 += 16) {
    const int y = y0 + ty;
    const bool in = x <= L.w && y <= L.h;
    const long long o = (long long) y * g.stride;
    ts[ty][tx] = in ? s[o] : 0;
    tq[ty][tx] = in ? q[o] : 0;
    __syncthreads ();
    uint32_t as = cs, aq = cq;
    for (int j = 0; j <= ty; j++) {
      as += ts[j][tx];
      aq += tq[j][tx];
    }
    if (in) {
      s[o] = as;
      q[o] = aq;
    }
    for (int j = ty + 1; j < 16; j++) {
      as += ts[j][tx];
      aq += tq[j][tx];
    }
    cs = as;
    cq = aq;
    __syncthreads ();
  }
}

__device__ __forceinline__ float
fstump_value (const FStump &s, const uint32_t *p, float nf)
{
  return fv_vj_haar_value (&s.f, p, nf) < s.threshold ? s.left : s.right;
}

/* Weak classifier i: from shared memory when it is there. */
__device__ __forceinline__ float
weak_value (const Detect &d, const FStump *sh, int i, const uint32_t *p, float nf)
{
  if (d.fstump)
    return fstump_value (i < d.nshared ? sh[i] : d.fstump[i], p, nf);
  return fv_vj_weak (&d.m, i, p, nf);
}

__device__ __forceinline__ bool
stage_passes (const Detect &d, const FStump *sh, int s, const uint32_t *p, float nf)
{
  const fv_vj_stage st = d.m.stages[s];
  double sum = 0.;
  const int end = st.first + st.count;
  int i = st.first;
  for (; i + 1 < end; i += 2) {   /* two at a time: their loads overlap; added in order */
    const float a = weak_value (d, sh, i, p, nf), b = weak_value (d, sh, i + 1, p, nf);
    sum += (double) a;
    sum += (double) b;
  }
  if (i < end)
    sum += (double) weak_value (d, sh, i, p, nf);
  return !(sum < (double) st.threshold);
}

__device__ void
load_shared (const Detect &d, FStump *sh)
{
  if (!d.fstump)
    return;
  const int n = d.nshared * (int) (sizeof (FStump) / 4);
  for (int i = threadIdx.x + threadIdx.y * blockDim.x; i < n; i += blockDim.x * blockDim.y)
    ((uint32_t *) sh)[i] = ((const uint32_t *) d.fstump)[i];
  __syncthreads ();
}

__device__ __forceinline__ int
word_level (const Geometry &g, long long word)
{
  int lo = 0, hi = g.nlevels - 1;
  while (lo < hi) {
    int mid = (lo + hi + 1) >> 1;
    if (g.lv[mid].word_base <= word)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

/* Pass 1: the variance test and the first stage at every position. */
__global__ void
first_stage (Geometry g, Detect d, const uint32_t *planes)
{
  extern __shared__ FStump sh[];
  load_shared (d, sh);
  const long long t = (long long) blockIdx.x * blockDim.x + threadIdx.x;
  const long long word = t >> 5;
  const int lane = threadIdx.x & 31;
  if (word >= g.nwords)
    return;
  const int lo = word_level (g, word);
  const DevLevel &L = g.lv[lo];
  const long long wi = word - L.word_base;
  const int row = (int) (wi / L.wpr), col = (int) (wi % L.wpr) * 32 + lane;
  bool fail = false, pass = false;
  if (col < L.cols) {
    const uint32_t *p = planes + L.origin + (long long) row * L.step * g.stride + col * L.step;
    float nf;
    if (fv_vj_window_norm (&d.m, p, &nf)) {
      pass = stage_passes (d, sh, 0, p, nf);
      fail = !pass;
    }
  }
  uint32_t fb = __ballot_sync (0xffffffffu, fail), pb = __ballot_sync (0xffffffffu, pass);
  if (lane == 0) {
    d.fail0[word] = fb;
    d.pass0[word] = pb;
  }
}

/* The next k entries of a work counter, for the whole warp. */
__device__ __forceinline__ unsigned
warp_grab (unsigned int *counter, unsigned k)
{
  unsigned i = 0;
  if ((threadIdx.x & 31) == 0)
    i = atomicAdd (counter, k);
  return __shfl_sync (0xffffffffu, i, 0);
}

/* A window by its position number (word * 32 + lane): its level, x, y. */
struct Window {
  int l, x, y;
  const uint32_t *p;
};

__device__ __forceinline__ Window
window_at (const Geometry &g, const uint32_t *planes, uint32_t pos)
{
  const long long word = pos >> 5;
  Window w;
  w.l = word_level (g, word);
  const DevLevel &L = g.lv[w.l];
  const long long wi = word - L.word_base;
  w.y = (int) (wi / L.wpr) * L.step;
  w.x = ((int) (wi % L.wpr) * 32 + (int) (pos & 31)) * L.step;
  w.p = planes + L.origin + (long long) w.y * g.stride + w.x;
  return w;
}

__device__ __forceinline__ void
found (const Detect &d, const Window &w)
{
  const unsigned i = atomicAdd (d.nkeys, 1u);
  if (i < d.key_cap)
    d.keys[i] = ((unsigned long long) w.l << 42) | ((unsigned long long) w.y << 21)
        | (unsigned long long) w.x;
}

/* Appends the lanes' windows that are alive to queue q (one atomic a warp). */
__device__ __forceinline__ void
push (const Detect &d, int q, bool alive, uint32_t pos)
{
  const unsigned live = __ballot_sync (0xffffffffu, alive);
  if (!live)
    return;
  unsigned base = 0;
  if ((threadIdx.x & 31) == 0)
    base = atomicAdd (&d.qn[q], (unsigned) __popc (live));
  base = __shfl_sync (0xffffffffu, base, 0);
  if (alive)
    d.q[q][base + __popc (live & ((1u << (threadIdx.x & 31)) - 1u))] = pos;
}

/* Each thread one window through stages [from, to); the survivors go to
 * queue q, or are detections when no stage is left. */
__device__ __forceinline__ void
thread_stages (const Geometry &g, const Detect &d, const FStump *sh, const uint32_t *planes,
    bool alive, uint32_t pos, int from, int to, int q)
{
  Window w;
  if (alive) {
    w = window_at (g, planes, pos);
    float nf;
    fv_vj_window_norm (&d.m, w.p, &nf);
    for (int s = from; alive && s < to; s++)
      alive = stage_passes (d, sh, s, w.p, nf);
  }
  if (to >= d.m.nstages) {
    if (alive)
      found (d, w);
  } else {
    push (d, q, alive, pos);
  }
}

/* Pass 2: the persistent uber-kernel over every position of every level. */
__global__ void __launch_bounds__ (WARPS_MAX * 32)
uber (Geometry g, Detect d, const uint32_t *planes)
{
  extern __shared__ FStump sh[];
  __shared__ uint32_t queues[WARPS_MAX][64];
  load_shared (d, sh);
  /* the warps of a block share the weak classifiers and nothing else */
  const int lane = threadIdx.x & 31;
  uint32_t *queue = queues[threadIdx.x >> 5];
  const int to = min (d.stage_a, d.m.nstages);
  int queued = 0;
  for (;;) {
    const long long word = warp_grab (&d.taken[0], 1u);
    if (word >= g.nwords)
      break;
    const int l = word_level (g, word);
    const DevLevel &L = g.lv[l];
    const int j = (int) ((word - L.word_base) % L.wpr);
    const uint32_t F = d.fail0[word], P = d.pass0[word];
    /* windows failing the first stage just before this one, back to the
     * row's start: an odd count means OpenCV skips this one */
    int run;
    const uint32_t below = ~F & ((1u << lane) - 1u);
    if (below) {
      run = lane - 1 - (31 - __clz (below));
    } else {
      run = lane;
      for (long long k = word - 1; k >= word - j; k--) {
        uint32_t f = d.fail0[k];
        if (f == 0xffffffffu) {
          run += 32;
          continue;
        }
        run += __clz (~f);
        break;
      }
    }
    const bool alive = !(run & 1) && ((P >> lane) & 1);
    const unsigned ballot = __ballot_sync (0xffffffffu, alive);
    if (alive)
      queue[queued + __popc (ballot & ((1u << lane) - 1u))] = (uint32_t) (word * 32 + lane);
    queued += __popc (ballot);
    __syncwarp ();
    if (queued >= 32) {
      thread_stages (g, d, sh, planes, true, queue[lane], 1, to, 0);
      __syncwarp ();
      if (lane < queued - 32)
        queue[lane] = queue[32 + lane];
      queued -= 32;
      __syncwarp ();
    }
  }
  thread_stages (g, d, sh, planes, lane < queued, lane < queued ? queue[lane] : 0, 1, to, 0);
}

/* Pass 3: full warps again: 32 queued windows a grab, one a thread,
 * through stages [stage_a, stage_b). */
__global__ void __launch_bounds__ (WARPS_MAX * 32)
more_stages (Geometry g, Detect d, const uint32_t *planes)
{
  extern __shared__ FStump sh[];
  load_shared (d, sh);
  const unsigned n = d.qn[0];
  const int to = min (d.stage_b, d.m.nstages), lane = threadIdx.x & 31;
  for (;;) {
    const unsigned i = warp_grab (&d.taken[1], 32u);
    if (i >= n)
      break;
    const bool alive = i + lane < n;
    thread_stages (g, d, sh, planes, alive, alive ? d.q[0][i + lane] : 0, d.stage_a, to, 1);
  }
}

/* Pass 4: the windows left run the remaining stages with the whole warp, a
 * stage's weak classifiers spread over the lanes; one window a grab, so
 * windows near a face (many stages) spread over every warp. The window's
 * sums (and tilted sums) are first copied to shared memory: the lanes read
 * scattered corners, which shared memory serves several times faster. */
__global__ void __launch_bounds__ (WARPS_MAX * 32)
deep_stages (Geometry g, Detect d, const uint32_t *planes, int qi)
{
  extern __shared__ uint32_t wins[];
  const unsigned n = d.qn[qi];
  const int lane = threadIdx.x & 31;
  uint32_t *win = wins + (threadIdx.x >> 5) * d.win_elems;
  const int ww = d.m.win_w + 1, wh = d.m.win_h + 1;
  for (;;) {
    const unsigned i = warp_grab (&d.taken[2], 1u);
    if (i >= n)
      break;
    const Window w = window_at (g, planes, d.q[qi][i]);
    const uint32_t *src = w.p;
    if (d.sstump) {
      __syncwarp ();
      for (int pl = 0; pl < d.win_elems; pl += 2 * ww * wh)   /* sums, tilted sums */
        for (int r = 0; r < wh; r++)
          for (int c = lane; c < ww; c += 32)
            win[pl + r * ww + c] = w.p[(pl ? 2 * g.plane : 0) + (long long) r * g.stride + c];
      __syncwarp ();
    }
    float nf;
    fv_vj_window_norm (&d.m, src, &nf);
    bool pass = true;
    for (int s = d.stage_b; pass && s < d.m.nstages; s++) {
      const fv_vj_stage st = d.m.stages[s];
      double sum = 0.;
      if (d.exact_sums) {
        for (int k = st.first + lane; k < st.first + st.count; k += 32)
          sum += d.sstump ? (double) fstump_value (d.sstump[k], win, nf)
              : (double) fv_vj_weak (&d.m, k, src, nf);
        for (int o = 16; o; o >>= 1)
          sum += __shfl_xor_sync (0xffffffffu, sum, o);
      } else {
        if (lane == 0)
          for (int k = st.first; k < st.first + st.count; k++)
            sum += d.sstump ? (double) fstump_value (d.sstump[k], win, nf)
                : (double) fv_vj_weak (&d.m, k, src, nf);
        sum = __shfl_sync (0xffffffffu, sum, 0);
      }
      pass = !(sum < (double) st.threshold);
    }
    if (pass && lane == 0)
      found (d, w);
  }
}

struct fv_vj_cuda {
  fv::PlanStream ps;
  int sms;
  unsigned char *d_src;
  size_t d_pitch;
  uint32_t *planes;
  void *blob;               /* tables and the model, one allocation */
  Geometry g;
  Detect d;
  long long total_rows, col_blocks, diags;
  int has_tilted;
  int blocks_per_sm, warps_per_block;
  unsigned long long *h_keys;
  size_t key_cap;
  int profile;              /* FV_VJ_PROFILE: phase times on stderr */
  cudaEvent_t ev[7];
};

/* Bytes are appended to a host image of the blob; pointers fixed later. */
struct Blob {
  unsigned char *host;
  size_t size, cap;
  size_t add (const void *src, size_t n)
  {
    size_t at = (size + 15) & ~(size_t) 15;
    if (at + n > cap) {
      size_t c = cap ? cap : 4096;
      while (c < at + n)
        c *= 2;
      unsigned char *h = (unsigned char *) realloc (host, c);
      if (!h)
        return (size_t) -1;
      host = h;
      cap = c;
    }
    if (n)
      memcpy (host + at, src, n);
    size = at + n;
    return at;
  }
};

/* Stage sums are exact in double, whatever the order, when every leaf is a
 * multiple of the smallest leaf's unit and no sum can outgrow 53 bits. */
int
sums_are_exact (const fv_vj_model_host *mh)
{
  const fv_vj_model *m = &mh->m;
  int emin = 1000;
  double worst = 0.;
  for (int s = 0; s < m->nstages; s++) {
    double total = 0.;
    for (int i = m->stages[s].first; i < m->stages[s].first + m->stages[s].count; i++) {
      float a, b;
      if (m->stumps) {
        a = fabsf (m->stump[i].left);
        b = fabsf (m->stump[i].right);
      } else {   /* any leaf of the tree */
        a = b = 0.f;
        int nl = m->tree[i].nnodes + 1;
        for (int k = 0; k < nl; k++) {
          float v = fabsf (m->leaf[m->tree[i].first_leaf + k]);
          a = v > a ? v : a;
          int e;
          if (v != 0.f) {
            frexpf (v, &e);
            emin = e - 24 < emin ? e - 24 : emin;
          }
        }
      }
      int e;
      if (a != 0.f) {
        frexpf (a, &e);
        emin = e - 24 < emin ? e - 24 : emin;
      }
      if (b != 0.f) {
        frexpf (b, &e);
        emin = e - 24 < emin ? e - 24 : emin;
      }
      total += a > b ? a : b;
    }
    worst = total > worst ? total : worst;
  }
  return worst < ldexp (1.0, 52 + (emin < 1000 ? emin : 0));
}

/* Stages 1 .. a-1 run in the uber-kernel, a .. b-1 in pass 3, the rest
 * in the deep pass: tuned on the H100 with haarcascade_frontalface_default
 * (FV_VJ_STAGES=a,b overrides it for tuning). */
void
pass_stages (int nstages, int *a, int *b)
{
  *a = 4;
  *b = 4;
  const char *env = getenv ("FV_VJ_STAGES");
  if (env)
    sscanf (env, "%d,%d", a, b);
  *a = *a < 1 ? 1 : *a > nstages ? nstages : *a;
  *b = *b < *a ? *a : *b > nstages ? nstages : *b;
}

}  // namespace

extern "C" fv_status
fv_vj_cuda_init (fv_vj_plan *pl, int device, void *stream)
{
  fv_vj_cuda *c = (fv_vj_cuda *) calloc (1, sizeof (fv_vj_cuda));
  if (!c)
    return FV_ERR_NOMEM;
  pl->impl = c;
  const fv_vj_pyramid *py = &pl->py;
  const fv_vj_model_host *mh = &pl->mh;
  FV_CUDA_TRY (c->ps.open (device, stream));
  FV_CUDA_TRY (cudaDeviceGetAttribute (&c->sms, cudaDevAttrMultiProcessorCount, device));
  FV_CUDA_TRY (cudaMallocPitch (&c->d_src, &c->d_pitch, pl->p.width, pl->p.height));
  c->has_tilted = mh->has_tilted;
  const size_t plane_elems = (size_t) py->plane * (c->has_tilted ? 3 : 2) + 64;
  FV_CUDA_TRY (cudaMalloc (&c->planes, plane_elems * sizeof (uint32_t)));
  FV_CUDA_TRY (cudaMemset (c->planes, 0, plane_elems * sizeof (uint32_t)));

  /* levels and their prefix tables */
  const int n = py->nlevels > 0 ? py->nlevels : 1;
  DevLevel *lv = (DevLevel *) calloc (n, sizeof (DevLevel));
  long long *rowp = (long long *) calloc (n, sizeof (long long));
  long long *cblk = (long long *) calloc (n, sizeof (long long));
  long long *tdia = (long long *) calloc (n, sizeof (long long));
  Blob b = { NULL, 0, 0 };
  if (!lv || !rowp || !cblk || !tdia) {
    free (lv);
    free (rowp);
    free (cblk);
    free (tdia);
    return FV_ERR_NOMEM;
  }
  size_t axes_len = 0;
  for (int l = 0; l < py->nlevels; l++)
    axes_len += py->lv[l].w + py->lv[l].h;
  int32_t *ofs = (int32_t *) malloc (sizeof (int32_t) * (axes_len + 1));
  uint16_t *coef = (uint16_t *) malloc (sizeof (uint16_t) * 2 * (axes_len + 1));
  long long words = 0, rows = 0, blocks = 0, diags = 0;
  size_t at = 0;
  for (int l = 0; l < py->nlevels && ofs && coef; l++) {
    const fv_vj_level *s = &py->lv[l];
    DevLevel *L = &lv[l];
    L->origin = s->origin;
    L->w = s->w;
    L->h = s->h;
    L->step = s->step;
    L->work_w = s->work_w;
    L->cols = (s->work_w + s->step - 1) / s->step;
    L->wpr = (L->cols + 31) / 32;
    L->rows = s->rows;
    L->word_base = words;
    words += (long long) L->wpr * L->rows;
    rowp[l] = rows;
    rows += s->h;
    cblk[l] = blocks;
    blocks += (s->w + 1 + 31) / 32;
    tdia[l] = diags;
    diags += s->w + s->h + 1;
    L->ax_lo = s->ax.lo;
    L->ax_hi = s->ax.hi;
    L->ay_lo = s->ay.lo;
    L->ay_hi = s->ay.hi;
    L->axis_x = (int) at;
    memcpy (ofs + at, s->ax.ofs, sizeof (int32_t) * s->w);
    memcpy (coef + 2 * at, s->ax.coef, sizeof (uint16_t) * 2 * s->w);
    at += s->w;
    L->axis_y = (int) at;
    memcpy (ofs + at, s->ay.ofs, sizeof (int32_t) * s->h);
    memcpy (coef + 2 * at, s->ay.coef, sizeof (uint16_t) * 2 * s->h);
    at += s->h;
  }
  c->total_rows = rows;
  c->col_blocks = blocks;
  c->diags = diags;

  /* the model: arrays into the blob, then the pointers fixed */
  const fv_vj_model *m = &mh->m;
  const size_t nw = mh->nweak, nn = mh->nnodes;
  size_t o_lv = b.add (lv, sizeof (DevLevel) * n), o_rowp = b.add (rowp, sizeof (long long) * n),
      o_cblk = b.add (cblk, sizeof (long long) * n), o_tdia = b.add (tdia, sizeof (long long) * n),
      o_ofs = b.add (ofs, sizeof (int32_t) * (axes_len + 1)),
      o_coef = b.add (coef, sizeof (uint16_t) * 2 * (axes_len + 1)),
      o_stages = b.add (m->stages, sizeof (fv_vj_stage) * m->nstages),
      o_stump = m->stumps ? b.add (m->stump, sizeof (fv_vj_stump) * nw) : 0,
      o_tree = m->stumps ? 0 : b.add (m->tree, sizeof (fv_vj_tree) * nw),
      o_node = m->stumps ? 0 : b.add (m->node, sizeof (fv_vj_node) * nn),
      o_leaf = m->stumps ? 0 : b.add (m->leaf, sizeof (float) * mh->nleaves),
      o_subset = m->lbp ? b.add (m->subset, sizeof (int32_t) * 8 * nn) : 0,
      o_haar = m->lbp ? 0 : b.add (m->haar, sizeof (fv_vj_haar) * mh->nfeatures),
      o_lbpf = m->lbp ? b.add (m->lbpf, sizeof (fv_vj_lbp) * mh->nfeatures) : 0, o_fst = 0;
  const bool fast = !m->lbp && m->stumps;
  if (fast) {
    FStump *fs = (FStump *) malloc (sizeof (FStump) * (nw + 1));
    if (fs) {
      for (size_t i = 0; i < nw; i++) {
        fs[i].f = m->haar[m->stump[i].feature];
        fs[i].threshold = m->stump[i].threshold;
        fs[i].left = m->stump[i].left;
        fs[i].right = m->stump[i].right;
      }
      o_fst = b.add (fs, sizeof (FStump) * nw);
      free (fs);
    } else {
      o_fst = (size_t) -1;
    }
  }
  /* the stumps again, with offsets into a window copied to shared memory:
   * planes [sums][unused][tilted] of (w + 1) x (h + 1) */
  size_t o_sst = 0;
  const int wwh = (m->win_w + 1) * (m->win_h + 1);
  if (fast && o_fst != (size_t) -1) {
    fv_vj_model_host local;
    FStump *fs = (FStump *) malloc (sizeof (FStump) * (nw + 1));
    if (fs && fv_vj_model_init (&local, pl->cascade, m->win_w + 1, wwh) == FV_OK) {
      for (size_t i = 0; i < nw; i++) {
        fs[i].f = local.haar[local.stump[i].feature];
        fs[i].threshold = local.stump[i].threshold;
        fs[i].left = local.stump[i].left;
        fs[i].right = local.stump[i].right;
      }
      o_sst = b.add (fs, sizeof (FStump) * nw);
      fv_vj_model_clear (&local);
    } else {
      o_fst = (size_t) -1;
    }
    free (fs);
  }
  free (lv);
  free (rowp);
  free (cblk);
  free (tdia);
  free (ofs);
  free (coef);
  if (!b.host || o_fst == (size_t) -1 || o_sst == (size_t) -1 || !ofs || !coef) {
    free (b.host);
    return FV_ERR_NOMEM;
  }
  const long long nwords = words > 0 ? words : 1;
  const size_t o_fail = b.add (NULL, 0);
  const size_t bytes = o_fail + sizeof (uint32_t) * 2 * nwords + 16 + sizeof (unsigned int) * 6;
  /* then the queues: the first as long as every window, the second only
   * when pass 3 runs */
  int stage_a, stage_b;
  pass_stages (m->nstages, &stage_a, &stage_b);
  const bool more = stage_a < stage_b;
  const size_t queues = (size_t) py->windows * (more ? 2 : 1);
  cudaError_t e = cudaMalloc (&c->blob, bytes + queues * sizeof (uint32_t) + 64);
  if (e == cudaSuccess)
    e = cudaMemcpy (c->blob, b.host, b.size, cudaMemcpyHostToDevice);
  free (b.host);
  FV_CUDA_TRY (e);
  unsigned char *base = (unsigned char *) c->blob;
  Geometry &g = c->g;
  g.lv = (const DevLevel *) (base + o_lv);
  g.nlevels = py->nlevels;
  g.row_prefix = (const long long *) (base + o_rowp);
  g.cblk_prefix = (const long long *) (base + o_cblk);
  g.tdiag_prefix = (const long long *) (base + o_tdia);
  g.xofs = g.yofs = (const int32_t *) (base + o_ofs);
  g.xcoef = g.ycoef = (const uint16_t *) (base + o_coef);
  g.stride = py->stride;
  g.plane = py->plane;
  g.nwords = words;
  Detect &d = c->d;
  d.m = *m;
  d.m.stages = (const fv_vj_stage *) (base + o_stages);
  d.m.stump = m->stumps ? (const fv_vj_stump *) (base + o_stump) : NULL;
  d.m.tree = m->stumps ? NULL : (const fv_vj_tree *) (base + o_tree);
  d.m.node = m->stumps ? NULL : (const fv_vj_node *) (base + o_node);
  d.m.leaf = m->stumps ? NULL : (const float *) (base + o_leaf);
  d.m.subset = m->lbp ? (const int32_t *) (base + o_subset) : NULL;
  d.m.haar = m->lbp ? NULL : (const fv_vj_haar *) (base + o_haar);
  d.m.lbpf = m->lbp ? (const fv_vj_lbp *) (base + o_lbpf) : NULL;
  d.fstump = fast ? (const FStump *) (base + o_fst) : NULL;
  d.sstump = fast ? (const FStump *) (base + o_sst) : NULL;
  pass_stages (m->nstages, &d.stage_a, &d.stage_b);
  const char *env = getenv ("FV_VJ_BLOCKS_PER_SM");
  c->blocks_per_sm = env ? atoi (env) : 16;
  env = getenv ("FV_VJ_WARPS_PER_BLOCK");
  c->warps_per_block = env ? atoi (env) : 4;
  c->warps_per_block = c->warps_per_block < 1 ? 1 : c->warps_per_block > WARPS_MAX ? WARPS_MAX
      : c->warps_per_block;
  env = getenv ("FV_VJ_DEEP_SHARED");   /* 0: deep windows read global memory */
  if (env && !atoi (env))
    d.sstump = NULL;
  d.win_elems = d.sstump ? (mh->has_tilted ? 3 * wwh : wwh) : 0;
  d.nshared = 0;
  if (fast) {   /* the weak classifiers the thread passes use, in shared memory */
    const fv_vj_stage *st = &m->stages[d.stage_b - 1];
    d.nshared = st->first + st->count;
    if (d.nshared * sizeof (FStump) > 24 * 1024)
      d.nshared = 24 * 1024 / sizeof (FStump);
  }
  d.exact_sums = sums_are_exact (mh);
  c->profile = getenv ("FV_VJ_PROFILE") != NULL;
  for (int i = 0; c->profile && i < 7; i++)
    FV_CUDA_TRY (cudaEventCreate (&c->ev[i]));
  d.fail0 = (uint32_t *) (base + o_fail);
  d.pass0 = d.fail0 + nwords;
  d.nkeys = (unsigned int *) (d.pass0 + nwords);
  d.qn = d.nkeys + 1;
  d.taken = d.nkeys + 3;
  d.q[0] = (uint32_t *) (base + ((bytes + 15) & ~(size_t) 15));
  d.q[1] = more ? d.q[0] + py->windows : NULL;
  /* raw detections are few: room for 4096, more on demand (FV_VJ_KEY_CAP
   * makes it smaller, so that tests reach the regrowth) */
  env = getenv ("FV_VJ_KEY_CAP");
  d.key_cap = env && atoi (env) > 0 ? (unsigned) atoi (env) : 4096;
  FV_CUDA_TRY (cudaMalloc (&d.keys, sizeof (unsigned long long) * d.key_cap));
  return FV_OK;
}

extern "C" fv_status
fv_vj_cuda_execute (fv_vj_plan *pl, const fv_image *gray)
{
  fv_vj_cuda *c = (fv_vj_cuda *) pl->impl;
  cudaStream_t st = c->ps.stream;
  pl->nraw = 0;
  if (!pl->py.nlevels)
    return FV_OK;
  FV_CUDA_TRY (cudaSetDevice (c->ps.device));
  Frame f = { (const unsigned char *) gray->data, gray->stride, pl->p.width, pl->p.height };
#define MARK(i) if (c->profile) cudaEventRecord (c->ev[i], st)
  MARK (0);
  if (gray->mem == FV_MEM_HOST) {
    FV_CUDA_TRY (cudaMemcpy2DAsync (c->d_src, c->d_pitch, gray->data, gray->stride, pl->p.width,
        pl->p.height, cudaMemcpyHostToDevice, st));
    f.src = c->d_src;
    f.sstride = c->d_pitch;
  }
  MARK (1);
  row_scan<<<(unsigned) ((c->total_rows + 7) / 8), 256, 0, st>>> (c->g, f, c->planes, c->total_rows);
  if (c->has_tilted) {
    const unsigned nb = (unsigned) ((c->diags + 127) / 128);
    tilted_diag<<<nb, 128, 0, st>>> (c->g, c->planes, c->diags, 1);
    tilted_diag<<<nb, 128, 0, st>>> (c->g, c->planes, c->diags, -1);
  }
  col_scan<<<(unsigned) c->col_blocks, dim3 (32, 16), 0, st>>> (c->g, c->planes);
  MARK (2);
  unsigned int nkeys = 0;
  for (;;) {
    FV_CUDA_TRY (cudaMemsetAsync (c->d.nkeys, 0, 6 * sizeof (unsigned int), st));
    const size_t shb = sizeof (FStump) * c->d.nshared;
    if (c->g.nwords > 0) {
      first_stage<<<(unsigned) ((c->g.nwords * 32 + 255) / 256), 256, shb, st>>> (c->g, c->d,
          c->planes);
      MARK (3);
      const unsigned blocks = c->sms * c->blocks_per_sm, tpb = 32 * c->warps_per_block;
      uber<<<blocks, tpb, shb, st>>> (c->g, c->d, c->planes);
      MARK (4);
      const bool more = c->d.stage_a < c->d.stage_b;
      if (more)
        more_stages<<<blocks, tpb, shb, st>>> (c->g, c->d, c->planes);
      if (c->d.stage_b < c->d.m.nstages)
        deep_stages<<<blocks, tpb, sizeof (uint32_t) * c->d.win_elems * c->warps_per_block, st>>> (
            c->g, c->d, c->planes, more ? 1 : 0);
    }
    MARK (5);
    FV_CUDA_TRY (cudaGetLastError ());
    FV_CUDA_TRY (cudaMemcpyAsync (&nkeys, c->d.nkeys, sizeof nkeys, cudaMemcpyDeviceToHost, st));
    FV_CUDA_TRY (cudaStreamSynchronize (st));
    if (nkeys <= c->d.key_cap)
      break;
    /* more windows passed than there was room for: room for all, again */
    FV_CUDA_TRY (cudaFree (c->d.keys));
    c->d.keys = NULL;
    c->d.key_cap = nkeys + nkeys / 2;
    FV_CUDA_TRY (cudaMalloc (&c->d.keys, sizeof (unsigned long long) * c->d.key_cap));
  }
  if (nkeys > c->key_cap) {
    free (c->h_keys);
    c->key_cap = nkeys * 2;
    c->h_keys = (unsigned long long *) malloc (sizeof (unsigned long long) * c->key_cap);
    if (!c->h_keys) {
      c->key_cap = 0;
      return FV_ERR_NOMEM;
    }
  }
  if (nkeys) {
    FV_CUDA_TRY (cudaMemcpyAsync (c->h_keys, c->d.keys, sizeof (unsigned long long) * nkeys,
        cudaMemcpyDeviceToHost, st));
    FV_CUDA_TRY (cudaStreamSynchronize (st));
  }
  MARK (6);
  if (c->profile) {
    float t[6];
    unsigned counts[3];
    cudaStreamSynchronize (st);
    for (int i = 0; i < 6; i++)
      cudaEventElapsedTime (&t[i], c->ev[i], c->ev[i + 1]);
    cudaMemcpy (counts, c->d.nkeys, sizeof counts, cudaMemcpyDeviceToHost);
    fprintf (stderr, "vj cuda ms: upload %.3f pyramid %.3f first %.3f uber %.3f more+deep %.3f "
        "keys %.3f; %lld words, queues %u %u, %u found\n", t[0], t[1], t[2], t[3], t[4], t[5],
        (long long) c->g.nwords, counts[1], counts[2], counts[0]);
  }
#undef MARK
  if (fv_vj_raw_reserve (pl, (int) nkeys) != FV_OK)
    return FV_ERR_NOMEM;
  fv_vj_keys_to_raw (pl, (uint64_t *) c->h_keys, (int) nkeys);
  return FV_OK;
}

extern "C" void
fv_vj_cuda_destroy (fv_vj_plan *pl)
{
  fv_vj_cuda *c = (fv_vj_cuda *) pl->impl;
  if (!c)
    return;
  cudaSetDevice (c->ps.device);
  if (c->ps.stream)
    cudaStreamSynchronize (c->ps.stream);
  cudaFree (c->d_src);
  cudaFree (c->planes);
  cudaFree (c->blob);
  cudaFree (c->d.keys);
  c->ps.close ();
  free (c->h_keys);
  free (c);
  pl->impl = NULL;
}
