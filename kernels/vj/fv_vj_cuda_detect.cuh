/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The detector's window passes on the GPU (private to fv_vj_cuda.cu): the
 * first stage everywhere, the persistent uber-kernel, the optional pass 3
 * and the deep stages; see fv_vj_cuda.cu for the whole scheme. */
#ifndef FV_VJ_CUDA_DETECT_CUH
#define FV_VJ_CUDA_DETECT_CUH

#include "fv_vj_model.h"
#include "fv_vj_cuda_pyramid.cuh"

namespace fv_vj {

constexpr int WARPS_MAX = 8;   /* warps of a block in the persistent passes */

/* A HAAR stump with its feature, for the fast path; 16-byte aligned, so
 * that a thread reads one in five vector loads. */
struct __align__ (16) FStump {
  fv_vj_haar f;
  float threshold, left, right;
};

/* The first stage's stumps as a kernel parameter (n 0: the stage is not
 * made of at most STAGE0_MAX stumps, and the kernel reads them as the
 * other stages): every window reads them, and from the parameters'
 * constant bank each field is an operand, not a load (H200, 1080p: the
 * loads of each stump from shared memory and their addresses were half
 * the first stage's instructions). */
constexpr int STAGE0_MAX = 16;
struct Stage0 {
  int n;
  float threshold;
  FStump s[STAGE0_MAX];
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

/* A stump's value for the window at element i of the planes P. */
__device__ __forceinline__ float
fstump_value (const FStump &s, const uint32_t *P, int32_t i, float nf)
{
  return fv_vj_haar_value_at (&s.f, P, i, nf) < s.threshold ? s.left : s.right;
}

/* Weak classifier i: from shared memory when it is there (two branches,
 * so that each load knows its memory: a pointer chosen between them would
 * be read by generic loads). */
__device__ __forceinline__ float
weak_value (const Detect &d, const FStump *sh, int i, const uint32_t *P, int32_t wi, float nf)
{
  if (d.fstump) {
    if (i < d.nshared)
      return fstump_value (sh[i], P, wi, nf);
    return fstump_value (d.fstump[i], P, wi, nf);
  }
  return fv_vj_weak (&d.m, i, P + wi, nf);
}

__device__ __forceinline__ bool
stage_passes (const Detect &d, const FStump *sh, int s, const uint32_t *P, int32_t wi, float nf)
{
  const fv_vj_stage st = d.m.stages[s];
  double sum = 0.;
  const int end = st.first + st.count;
  int i = st.first;
  for (; i + 1 < end; i += 2) {   /* two at a time: their loads overlap; added in order */
    const float a = weak_value (d, sh, i, P, wi, nf), b = weak_value (d, sh, i + 1, P, wi, nf);
    sum += (double) a;
    sum += (double) b;
  }
  if (i < end)
    sum += (double) weak_value (d, sh, i, P, wi, nf);
  return !(sum < (double) st.threshold);
}

/* Stage 0 from the parameters: the same sums in the same order. */
__device__ __forceinline__ bool
stage0_passes (const Stage0 &s0, const uint32_t *P, int32_t wi, float nf)
{
  double sum = 0.;
#pragma unroll
  for (int i = 0; i < STAGE0_MAX; i++) {
    if (i >= s0.n)
      break;
    sum += (double) fstump_value (s0.s[i], P, wi, nf);
  }
  return !(sum < (double) s0.threshold);
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

/* The level of a word: the table's for its group of WORD_GROUP words,
 * then the levels that begin inside the group (few; a binary search over
 * the levels was 12% of the first stage's instructions). */
__device__ __forceinline__ int
word_level (const Geometry &g, long long word)
{
  int lo = g.wlv[word / WORD_GROUP];
  while (lo + 1 < g.nlevels && g.lv[lo + 1].word_base <= word)
    lo++;
  return lo;
}

/* Pass 1: the variance test and the first stage at every position. */
__global__ void
first_stage (Geometry g, Detect d, const uint32_t *planes, const Stage0 s0)
{
  extern __shared__ FStump sh[];
  if (!s0.n)
    load_shared (d, sh);
  const long long t = (long long) blockIdx.x * blockDim.x + threadIdx.x;
  const long long word = t >> 5;
  const int lane = threadIdx.x & 31;
  if (word >= g.nwords)
    return;
  const int lo = word_level (g, word);
  const DevLevel &L = g.lv[lo];
  const unsigned k = (unsigned) (word - L.word_base), wpr = (unsigned) L.wpr;
  const int row = (int) (k / wpr), col = (int) (k % wpr) * 32 + lane;
  bool fail = false, pass = false;
  if (col < L.cols) {
    const int32_t wi = (int32_t) L.origin + row * L.step * g.stride + col * L.step;
    float nf;
    if (fv_vj_window_norm_at (&d.m, planes, wi, &nf)) {
      pass = s0.n ? stage0_passes (s0, planes, wi, nf) : stage_passes (d, sh, 0, planes, wi, nf);
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
  int32_t i;            /* its element in the planes */
  const uint32_t *p;    /* and its address */
};

__device__ __forceinline__ Window
window_at (const Geometry &g, const uint32_t *planes, uint32_t pos)
{
  const long long word = pos >> 5;
  Window w;
  w.l = word_level (g, word);
  const DevLevel &L = g.lv[w.l];
  const unsigned k = (unsigned) (word - L.word_base), wpr = (unsigned) L.wpr;
  w.y = (int) (k / wpr) * L.step;
  w.x = ((int) (k % wpr) * 32 + (int) (pos & 31)) * L.step;
  w.i = (int32_t) L.origin + w.y * g.stride + w.x;
  w.p = planes + w.i;
  return w;
}

__device__ __forceinline__ void
found (const Detect &d, const Window &w)
{
  const unsigned i = atomicAdd (d.nkeys, 1u);
  if (i < d.key_cap)
    d.keys[i] = fv_vj_key (w.l, w.y, w.x);
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
    fv_vj_window_norm_at (&d.m, planes, w.i, &nf);
    for (int s = from; alive && s < to; s++)
      alive = stage_passes (d, sh, s, planes, w.i, nf);
  }
  if (to >= d.m.nstages) {
    if (alive)
      found (d, w);
  } else {
    push (d, q, alive, pos);
  }
}

/* Words (of 32 positions) a warp of the uber-kernel takes a grab: one
 * atomic on the shared counter for every 32 positions made it a queue
 * (H200, 1080p: 276 us; 4 words 232 us; 8 and 16 longer again, the last
 * grabs leaving warps idle; the benchmark log, 2026-11-28). */
constexpr int WORDS_PER_GRAB = 4;

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
    const long long first = warp_grab (&d.taken[0], (unsigned) WORDS_PER_GRAB);
    if (first >= g.nwords)
      break;
    const long long last = first + WORDS_PER_GRAB < g.nwords ? first + WORDS_PER_GRAB : g.nwords;
    for (long long word = first; word < last; word++) {
      const int l = word_level (g, word);
      const DevLevel &L = g.lv[l];
      const int j = (int) ((unsigned) (word - L.word_base) % (unsigned) L.wpr);
      const uint32_t F = d.fail0[word], P = d.pass0[word];
      /* windows failing the first stage just before this one, back to the
       * row's start: an odd count means OpenCV skips this one (walking
       * back here costs no more than a pass of its own computing the runs
       * first: 230 + 10 us against 232 on an H200) */
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
          sum += d.sstump ? (double) fstump_value (d.sstump[k], win, 0, nf)
              : (double) fv_vj_weak (&d.m, k, src, nf);
        for (int o = 16; o; o >>= 1)
          sum += __shfl_xor_sync (0xffffffffu, sum, o);
      } else {
        if (lane == 0)
          for (int k = st.first; k < st.first + st.count; k++)
            sum += d.sstump ? (double) fstump_value (d.sstump[k], win, 0, nf)
                : (double) fv_vj_weak (&d.m, k, src, nf);
        sum = __shfl_sync (0xffffffffu, sum, 0);
      }
      pass = !(sum < (double) st.threshold);
    }
    if (pass && lane == 0)
      found (d, w);
  }
}

}  // namespace fv_vj
#endif
