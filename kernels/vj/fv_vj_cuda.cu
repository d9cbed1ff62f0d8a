/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GPU detector. Every pyramid level lives in one device buffer (the same
 * shelf layout and feature offsets as the CPU), built by three launches for
 * all levels: row scans that resize on the fly, tilted sums where the
 * cascade needs them, and column scans (fv_vj_cuda_pyramid.cuh). Detection
 * is then four launches for all levels:
 *
 *  1. the first stage at every window position, one thread per window
 *     (its stumps from the kernel's parameters, every field an operand); a
 *     ballot per 32 positions gives two bit words, "passed" and "failed the
 *     first stage", from which OpenCV's rule (a window that fails the first
 *     stage makes the scan skip the next one) is replayed exactly;
 *  2. the uber-kernel: persistent warps (4 to a block, each on its own: the
 *     block only shares the weak classifiers) take 4 x 32 positions at a
 *     time from a global atomic counter, replay the skip rule with bit arithmetic
 *     and queue the survivors in shared memory; once 32 are queued, each
 *     thread runs one window through the next stages (weak classifiers in
 *     shared memory) and the survivors go to a global queue;
 *  3. full warps again: 32 windows a grab from that queue, one a thread,
 *     through more stages, to a second queue;
 *  4. the windows left run the remaining stages with the whole warp, a
 *     stage's weak classifiers spread over the lanes, the window's sums
 *     copied to shared memory first, one window a grab, so that windows near
 *     a face (which run many stages) spread over every warp instead of making
 *     one warp's long tail.
 *
 * Tuned (docs/benchmarks.md): stages 0 | 1 | 2-3 | 4.. per pass (H200,
 * after the first stage was made cheaper; 0 | 1-3 | 4.. on the H100 before),
 * 16 blocks of 4 warps per multiprocessor for a detection alone on its
 * device. Detections of one process running at once on a device (many
 * cameras) share those 16: each persistent grid gets 16 / (detections in
 * flight there) blocks per multiprocessor, at least one, so that one
 * frame's grid does not hold every SM while its last warps finish and the
 * other streams' frames wait. FASTVISION_VJ_STAGES=a,b, FASTVISION_VJ_BLOCKS_PER_SM (then
 * fixed), FASTVISION_VJ_WARPS_PER_BLOCK, FASTVISION_VJ_DEEP_SHARED=0 override them for
 * tuning; FASTVISION_VJ_PROFILE prints the phases' times.
 *
 * Windows are addressed by their 32-bit element index in the planes (a
 * plan's planes stay below 2^31 elements), so a corner is one add and one
 * address; a word's level comes from a table by groups of words.
 *
 * The key count comes back with the first KEY_PREFETCH keys in the same
 * round trip; a second copy only when more windows passed.
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
#include <atomic>
#include "fv_vj_plan.h"
#include "../common/fv_env.h"
#include "../common/fv_cuda.h"
#include "../common/fv_cuda_check.cuh"

#include "fv_vj_cuda_detect.cuh"

using namespace fv_vj;

namespace {

/* Where each array sits in the blob of tables and model. */
struct BlobLayout {
  size_t lv, rowp, cblk, tdia, ofs, xtab, coef, wlv, stages, stump, tree, node, leaf, subset, haar,
      lbpf;
  size_t fst, sst, fail;   /* fst, sst: the fast stumps, global and window offsets */
};

/* Where each device buffer sits in the plan's one workspace: the tables
 * and the model (uploaded from the host image), the fail and pass words
 * and counters, the window queues, the sums, the frame rows and the keys. */
struct Workspace {
  size_t queues, planes, src, keys, bytes;   /* the tables and model at 0 */
  size_t plane_bytes, pitch;
};

/* Blocks per multiprocessor of a detection alone on its device. */
constexpr int BLOCKS_PER_SM = 16;
/* Keys read back with their count: a frame's raw detections are rarely more. */
constexpr size_t KEY_PREFETCH = 1024;
constexpr int MAX_DEVICES = 64;

/* Detections of this process in flight per device, while one runs. */
std::atomic<int> in_flight[MAX_DEVICES];

struct InFlight {
  int dev, n;
  explicit InFlight (int d) : dev (d < 0 || d >= MAX_DEVICES ? 0 : d), n (++in_flight[dev]) {}
  ~InFlight () { --in_flight[dev]; }
};

struct fv_vj_cuda {
  fv::PlanStream ps;
  int sms;
  unsigned char *d_src;
  size_t d_pitch;
  uint32_t *planes;
  void *own;                /* the workspace when the plan allocated it */
  unsigned char *shared;    /* or the one it shares (fv_vj_cuda_set_workspace) */
  unsigned char *host_blob; /* the tables and model, for a shared workspace */
  size_t host_blob_size;
  Workspace ws;
  BlobLayout lay;
  Geometry g;
  Detect d;
  Stage0 s0;
  long long total_rows, col_blocks, diags, nwords;
  int has_tilted;
  int blocks_per_sm, warps_per_block;   /* blocks_per_sm 0: shared (in_flight) */
  /* page-locked: a copy to pageable memory goes through the driver's
   * staging, which the streams of a process take in turn (many
   * detectors in one process then wait for each other) */
  unsigned long long *h_keys;
  unsigned int *h_nkeys;
  size_t key_cap;
  bool own_keys;            /* keys grew past the workspace's room */
  int profile;              /* FASTVISION_VJ_PROFILE: phase times on stderr */
  bool deep_shared;         /* deep windows copied to shared memory */
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

/* Lowers *unit to the exponent of v's last mantissa bit (zero has none). */
void
note_unit (float v, int *unit)
{
  int e;
  if (v != 0.f) {
    frexpf (v, &e);
    *unit = e - 24 < *unit ? e - 24 : *unit;
  }
}

/* Stage sums are exact in double, whatever the order, when every leaf is a
 * multiple of the smallest leaf's unit and no sum can outgrow 53 bits. */
int
sums_are_exact (const fv_vj_model_host *mh)
{
  const fv_vj_model *m = &mh->m;
  int unit = 1000;
  double worst = 0.;
  for (int s = 0; s < m->nstages; s++) {
    double total = 0.;   /* the largest leaf of each weak classifier */
    for (int i = m->stages[s].first; i < m->stages[s].first + m->stages[s].count; i++) {
      float top = 0.f;
      if (m->stumps) {
        note_unit (m->stump[i].left, &unit);
        note_unit (m->stump[i].right, &unit);
        top = fmaxf (fabsf (m->stump[i].left), fabsf (m->stump[i].right));
      } else {
        for (int k = 0; k <= m->tree[i].nnodes; k++) {
          const float v = m->leaf[m->tree[i].first_leaf + k];
          note_unit (v, &unit);
          top = fmaxf (top, fabsf (v));
        }
      }
      total += top;
    }
    worst = total > worst ? total : worst;
  }
  return worst < ldexp (1.0, 52 + (unit < 1000 ? unit : 0));
}

/* Stages 1 .. a-1 run in the uber-kernel, a .. b-1 in pass 3, the rest
 * in the deep pass: tuned with haarcascade_frontalface_default on an H200
 * (2026-11-29: 2,4 against 4,4, 3,4, 3,5, 2,5, 3,6, 4,6, the 1080p clip
 * and faces frames, 1 and 32 streams: 2,4 was the fastest or within 1%
 * everywhere; docs/benchmark-log.md). FASTVISION_VJ_STAGES=a,b overrides
 * it for tuning. */
void
pass_stages (int nstages, int *a, int *b)
{
  *a = 2;
  *b = 4;
  const char *env = fv_env_get (FV_ENV_VJ_STAGES);
  if (env)
    sscanf (env, "%d,%d", a, b);
  *a = *a < 1 ? 1 : *a > nstages ? nstages : *a;
  *b = *b < *a ? *a : *b > nstages ? nstages : *b;
}

/* HAAR stumps with their feature inline (with the model's offsets); NULL
 * when memory runs out. */
FStump
fast_stump (const fv_vj_model *m, int i)
{
  FStump f;
  memset (&f, 0, sizeof f);   /* padding zeroed */
  f.f = m->haar[m->stump[i].feature];
  f.threshold = m->stump[i].threshold;
  f.left = m->stump[i].left;
  f.right = m->stump[i].right;
  return f;
}

FStump *
fast_stumps (const fv_vj_model_host *mh)
{
  FStump *fs = (FStump *) calloc (mh->nweak + 1, sizeof (FStump));
  for (int i = 0; fs && i < mh->nweak; i++)
    fs[i] = fast_stump (&mh->m, i);
  return fs;
}

/* The levels and the model into the blob; FALSE when memory ran out. */
bool
model_to_blob (Blob &b, const fv_vj_plan *pl, const LevelTables *t, BlobLayout *o)
{
  const fv_vj_model_host *mh = &pl->mh;
  const fv_vj_model *m = &mh->m;
  const int n = pl->py.nlevels > 0 ? pl->py.nlevels : 1;
  const size_t nw = mh->nweak, nn = mh->nnodes;
  memset (o, 0, sizeof *o);
  o->lv = b.add (t->lv, sizeof (DevLevel) * n);
  o->rowp = b.add (t->rowp, sizeof (long long) * n);
  o->cblk = b.add (t->cblk, sizeof (long long) * n);
  o->tdia = b.add (t->tdia, sizeof (long long) * n);
  o->ofs = b.add (t->ofs, sizeof (int32_t) * (t->ylen + 1));
  o->coef = b.add (t->coef, sizeof (uint16_t) * 2 * (t->ylen + 1));
  o->xtab = b.add (t->xtab, sizeof (uint2) * (t->xlen + 1));
  o->wlv = b.add (t->wlv, sizeof (int32_t) * t->nwlv);
  o->stages = b.add (m->stages, sizeof (fv_vj_stage) * m->nstages);
  o->stump = m->stumps ? b.add (m->stump, sizeof (fv_vj_stump) * nw) : 0;
  o->tree = m->stumps ? 0 : b.add (m->tree, sizeof (fv_vj_tree) * nw);
  o->node = m->stumps ? 0 : b.add (m->node, sizeof (fv_vj_node) * nn);
  o->leaf = m->stumps ? 0 : b.add (m->leaf, sizeof (float) * mh->nleaves);
  o->subset = m->lbp ? b.add (m->subset, sizeof (int32_t) * 8 * nn) : 0;
  o->haar = m->lbp ? 0 : b.add (m->haar, sizeof (fv_vj_haar) * mh->nfeatures);
  o->lbpf = m->lbp ? b.add (m->lbpf, sizeof (fv_vj_lbp) * mh->nfeatures) : 0;
  if (!m->lbp && m->stumps) {
    FStump *fs = fast_stumps (mh);
    if (!fs)
      return false;
    o->fst = b.add (fs, sizeof (FStump) * nw);
    free (fs);
    /* the stumps again, with offsets into a window copied to shared
     * memory: planes [sums][unused][tilted] of (w + 1) x (h + 1) */
    fv_vj_model_host local;
    const int wwh = (m->win_w + 1) * (m->win_h + 1);
    if (fv_vj_model_init (&local, pl->cascade, m->win_w + 1, wwh) != FV_OK)
      return false;
    fs = fast_stumps (&local);
    fv_vj_model_clear (&local);
    if (!fs)
      return false;
    o->sst = b.add (fs, sizeof (FStump) * nw);
    free (fs);
  }
  o->fail = b.add (NULL, 0);
  const size_t *all = (const size_t *) o;
  for (size_t i = 0; i < sizeof *o / sizeof (size_t); i++)
    if (all[i] == (size_t) -1)   /* Blob::add ran out of memory */
      return false;
  return b.host != NULL;
}

/* The geometry's and the model's pointers into the workspace at base,
 * whose layout ws and blob o give. */
void
point_into_blob (fv_vj_cuda *c, const fv_vj_plan *pl, const BlobLayout *o, unsigned char *base)
{
  const fv_vj_model *m = &pl->mh.m;
  const bool fast = !m->lbp && m->stumps;
  Geometry &g = c->g;
  g.lv = (const DevLevel *) (base + o->lv);
  g.row_prefix = (const long long *) (base + o->rowp);
  g.cblk_prefix = (const long long *) (base + o->cblk);
  g.tdiag_prefix = (const long long *) (base + o->tdia);
  g.yofs = (const int32_t *) (base + o->ofs);
  g.ycoef = (const uint16_t *) (base + o->coef);
  g.xtab = (const uint2 *) (base + o->xtab);
  g.wlv = (const int32_t *) (base + o->wlv);
  Detect &d = c->d;
  d.m = *m;
  d.m.stages = (const fv_vj_stage *) (base + o->stages);
  d.m.stump = m->stumps ? (const fv_vj_stump *) (base + o->stump) : NULL;
  d.m.tree = m->stumps ? NULL : (const fv_vj_tree *) (base + o->tree);
  d.m.node = m->stumps ? NULL : (const fv_vj_node *) (base + o->node);
  d.m.leaf = m->stumps ? NULL : (const float *) (base + o->leaf);
  d.m.subset = m->lbp ? (const int32_t *) (base + o->subset) : NULL;
  d.m.haar = m->lbp ? NULL : (const fv_vj_haar *) (base + o->haar);
  d.m.lbpf = m->lbp ? (const fv_vj_lbp *) (base + o->lbpf) : NULL;
  d.fstump = fast ? (const FStump *) (base + o->fst) : NULL;
  d.sstump = fast && c->deep_shared ? (const FStump *) (base + o->sst) : NULL;
  d.fail0 = (uint32_t *) (base + o->fail);
  d.pass0 = d.fail0 + c->nwords;
  d.nkeys = (unsigned int *) (d.pass0 + c->nwords);
  d.qn = d.nkeys + 1;
  d.taken = d.nkeys + 3;
  const bool more = d.stage_a < d.stage_b;
  d.q[0] = (uint32_t *) (base + c->ws.queues);
  d.q[1] = more ? d.q[0] + pl->py.windows : NULL;
  c->planes = (uint32_t *) (base + c->ws.planes);
  c->d_src = base + c->ws.src;
  c->d_pitch = c->ws.pitch;
  if (!c->own_keys)
    d.keys = (unsigned long long *) (base + c->ws.keys);
}

/* The tuning knobs (docs/tuning.md): blocks per SM, warps per block,
 * whether deep windows are copied to shared memory, phase timing, the
 * raw-detection buffer's first size. */
void
tuning_from_env (fv_vj_cuda *c)
{
  c->blocks_per_sm = (int) fv_env_int (FV_ENV_VJ_BLOCKS_PER_SM, 0);
  c->blocks_per_sm = c->blocks_per_sm < 0 ? 0 : c->blocks_per_sm;
  c->warps_per_block = (int) fv_env_int (FV_ENV_VJ_WARPS_PER_BLOCK, 4);
  c->warps_per_block = c->warps_per_block < 1 ? 1 : c->warps_per_block > WARPS_MAX ? WARPS_MAX
      : c->warps_per_block;
  c->deep_shared = fv_env_int (FV_ENV_VJ_DEEP_SHARED, 1) != 0;   /* or read global memory */
  c->profile = fv_env_set (FV_ENV_VJ_PROFILE);
  /* raw detections are few: room for 4096, more on demand (FASTVISION_VJ_KEY_CAP
   * makes it smaller, so that tests reach the regrowth) */
  const long long cap = fv_env_int (FV_ENV_VJ_KEY_CAP, 4096);
  c->d.key_cap = cap > 0 && cap < (1 << 30) ? (unsigned) cap : 4096;
}


/* Offsets of everything in the workspace, after the blob's o.fail bytes. */
void
layout_workspace (fv_vj_cuda *c, const fv_vj_plan *pl, const BlobLayout &o)
{
  const fv_vj_pyramid *py = &pl->py;
  Workspace &w = c->ws;
  auto at = [] (size_t v) { return (v + 255) & ~(size_t) 255; };
  /* fail and pass words, six counters */
  w.queues = at (o.fail + sizeof (uint32_t) * 2 * c->nwords + sizeof (unsigned int) * 6);
  const size_t queues = (size_t) py->windows * (c->d.stage_a < c->d.stage_b ? 2 : 1);
  w.planes = at (w.queues + queues * sizeof (uint32_t));
  w.plane_bytes = ((size_t) py->plane * (c->has_tilted ? 3 : 2) + 64) * sizeof (uint32_t);
  w.src = at (w.planes + w.plane_bytes);
  w.pitch = at (pl->p.frame.width);
  w.keys = at (w.src + w.pitch * py->src_h);
  w.bytes = w.keys + sizeof (unsigned long long) * c->d.key_cap;
}

/* Puts the tables and model into the workspace at base and clears the sums
 * (their first row and column, and the gaps between levels, stay zero). */
cudaError_t
fill_workspace (fv_vj_cuda *c, const fv_vj_plan *pl, unsigned char *base, cudaStream_t st)
{
  point_into_blob (c, pl, &c->lay, base);
  cudaError_t e = cudaMemcpyAsync (base, c->host_blob, c->host_blob_size, cudaMemcpyHostToDevice, st);
  if (e == cudaSuccess)
    e = cudaMemsetAsync (c->planes, 0, c->ws.plane_bytes, st);
  return e;
}

}  // namespace

extern "C" fv_status
fv_vj_cuda_init (fv_vj_plan *pl, int device, void *stream)
{
  fv_vj_cuda *c = (fv_vj_cuda *) calloc (1, sizeof (fv_vj_cuda));
  if (!c)
    return FV_ERR_NOMEM;
  pl->state = c;
  const fv_vj_pyramid *py = &pl->py;
  const fv_vj_model_host *mh = &pl->mh;
  const fv_vj_model *m = &mh->m;
  FV_CUDA_TRY (c->ps.open (device, stream));
  FV_CUDA_TRY (cudaDeviceGetAttribute (&c->sms, cudaDevAttrMultiProcessorCount, device));
  c->has_tilted = mh->has_tilted;

  LevelTables t;
  Blob b = { NULL, 0, 0 };
  fv_status st = level_tables_make (py, &t);
  bool ok = st == FV_OK && model_to_blob (b, pl, &t, &c->lay);
  level_tables_free (&t);
  c->host_blob = b.host;
  c->host_blob_size = b.size;
  if (!ok)
    return st != FV_OK ? st : FV_ERR_NOMEM;
  c->total_rows = t.rows;
  c->col_blocks = t.blocks;
  c->diags = t.diags;
  c->nwords = t.words > 0 ? t.words : 1;
  Geometry &g = c->g;
  g.nlevels = py->nlevels;
  g.stride = py->stride;
  g.plane = py->plane;
  g.nwords = t.words;
  Detect &d = c->d;
  pass_stages (m->nstages, &d.stage_a, &d.stage_b);
  tuning_from_env (c);
  layout_workspace (c, pl, c->lay);
  if (!pl->part.shared_workspace) {   /* its own workspace, filled once */
    if (!(c->own = fv_cuda_malloc (c->ws.bytes))) {   /* counted (fv_cuda_allocated) */
      fv_set_last_error ("cannot allocate %zu bytes of device memory for the detector",
          c->ws.bytes);
      return FV_ERR_NOMEM;
    }
    FV_CUDA_TRY (fill_workspace (c, pl, (unsigned char *) c->own, c->ps.stream));
    FV_CUDA_TRY (fv_cuda_sync (c->ps.stream));
  }   /* else filled at each execute (fill_workspace) */
  const int wwh = (m->win_w + 1) * (m->win_h + 1);
  d.win_elems = c->deep_shared && !m->lbp && m->stumps ? (mh->has_tilted ? 3 * wwh : wwh) : 0;
  d.nshared = 0;
  if (!m->lbp && m->stumps) {   /* the weak classifiers the thread passes use, in shared memory */
    const fv_vj_stage *stg = &m->stages[d.stage_b - 1];
    d.nshared = stg->first + stg->count;
    if (d.nshared * sizeof (FStump) > 24 * 1024)
      d.nshared = 24 * 1024 / sizeof (FStump);
  }
  d.exact_sums = sums_are_exact (mh);
  c->s0.n = 0;   /* stage 0 from the parameters when it fits them */
  if (!m->lbp && m->stumps && m->nstages > 0 && m->stages[0].count <= STAGE0_MAX) {
    for (int i = 0; i < m->stages[0].count; i++)
      c->s0.s[i] = fast_stump (m, m->stages[0].first + i);
    c->s0.n = m->stages[0].count;
    c->s0.threshold = m->stages[0].threshold;
  }
  for (int i = 0; c->profile && i < 7; i++)
    FV_CUDA_TRY (cudaEventCreate (&c->ev[i]));
  FV_CUDA_TRY (cudaHostAlloc (&c->h_nkeys, sizeof *c->h_nkeys, cudaHostAllocDefault));
  FV_CUDA_TRY (cudaHostAlloc (&c->h_keys, sizeof (unsigned long long) * KEY_PREFETCH,
      cudaHostAllocDefault));
  c->key_cap = KEY_PREFETCH;
  return FV_OK;
}

/* Device bytes a CUDA plan of pyramid py takes, an upper estimate of what
 * fv_vj_cuda_init above allocates: the frame rows it reads, three planes of
 * sums, two window queues, the word-level table (a word holds a window at
 * least), the cascade and the keys. */
static size_t
pyramid_bytes (const fv_vj_plan *pl, const fv_vj_pyramid *py)
{
  return (size_t) pl->p.frame.width * py->src_h + (size_t) py->plane * 12 + (size_t) py->windows * 8
      + (size_t) py->windows / 2 + ((size_t) 2 << 20);   /* windows / 2: the word-level table */
}

/* A plan of `part` of pl's frame: its bytes, and whether its sums fit
 * 32-bit offsets. */
extern "C" fv_status
fv_vj_cuda_part_bytes (const fv_vj_plan *pl, const fv_vj_part *part, size_t *bytes,
    int *offsets_fit)
{
  fv_vj_pyramid py;
  fv_status st = fv_vj_pyramid_init (&py, pl->cascade, &pl->p, part, 0);
  *bytes = pyramid_bytes (pl, &py);
  *offsets_fit = py.plane * 3 < INT32_MAX;
  fv_vj_pyramid_clear (&py);
  return st;
}

/* The plan's own: its pyramid is made (for the device) before init. */
extern "C" size_t
fv_vj_cuda_bytes (const fv_vj_plan *pl)
{
  return pyramid_bytes (pl, &pl->py);
}

extern "C" size_t
fv_vj_cuda_workspace_bytes (const fv_vj_plan *pl)
{
  const fv_vj_cuda *c = (const fv_vj_cuda *) pl->state;
  return c ? c->ws.bytes : 0;
}

extern "C" fv_status
fv_vj_cuda_read_sums (fv_vj_plan *pl, uint32_t *host, size_t count)
{
  const fv_vj_cuda *c = (const fv_vj_cuda *) pl->state;
  const size_t planes = (size_t) pl->py.plane * (c->has_tilted ? 3 : 2);
  if (count > planes)
    count = planes;
  FV_CUDA_TRY (fv_cuda_use_device (c->ps.device));
  FV_CUDA_TRY (fv_cuda_sync (c->ps.stream));
  FV_CUDA_TRY (cudaMemcpy (host, c->planes, sizeof (uint32_t) * count, cudaMemcpyDeviceToHost));
  return FV_OK;
}

extern "C" void
fv_vj_cuda_set_workspace (fv_vj_plan *pl, void *workspace)
{
  ((fv_vj_cuda *) pl->state)->shared = (unsigned char *) workspace;
}

extern "C" fv_status
fv_vj_cuda_execute (fv_vj_plan *pl, const fv_image *gray, const fv_image *unused)
{
  (void) unused;
  fv_vj_cuda *c = (fv_vj_cuda *) pl->state;
  cudaStream_t st = c->ps.stream;
  pl->nraw = 0;
  if (!pl->py.nlevels)
    return FV_OK;
  FV_CUDA_TRY (fv_cuda_use_device (c->ps.device));
  const InFlight busy (c->ps.device);
  const int bps = c->blocks_per_sm > 0 ? c->blocks_per_sm
      : busy.n >= BLOCKS_PER_SM ? 1 : BLOCKS_PER_SM / busy.n;
  if (pl->part.shared_workspace) {   /* other plans used it since: tables, model, zeros again */
    if (!c->shared) {
      fv_set_last_error ("detection plan run without its shared workspace");
      return FV_ERR_INVALID;
    }
    FV_CUDA_TRY (fill_workspace (c, pl, c->shared, st));
  }
  /* the frame rows the levels read: all, or those of the plan's band */
  const unsigned char *rows = (const unsigned char *) gray->data + (size_t) pl->py.src_y0 * gray->stride;
#define MARK(i) if (c->profile) cudaEventRecord (c->ev[i], st)
  MARK (0);
  fv::DevView in;
  FV_CUDA_TRY (fv::stage_in (gray, rows, pl->py.src_h, pl->p.frame.width, c->d_src, c->d_pitch, st,
      &in));
  Frame f = { (const unsigned char *) in.data, in.stride, pl->p.frame.width, pl->py.src_h };
  MARK (1);
  row_scan<<<(unsigned) ((c->total_rows + 7) / 8), 256, 0, st>>> (c->g, f, c->planes, c->total_rows);
  if (c->has_tilted) {
    const unsigned nb = (unsigned) ((c->diags + 127) / 128);
    tilted_diag<<<nb, 128, 0, st>>> (c->g, c->planes, c->diags, 1);
    tilted_diag<<<nb, 128, 0, st>>> (c->g, c->planes, c->diags, -1);
  }
  col_scan<<<(unsigned) c->col_blocks, dim3 (32, 32), 0, st>>> (c->g, c->planes);
  MARK (2);
  unsigned int nkeys = 0;
  size_t prefetched = 0;
  for (;;) {
    FV_CUDA_TRY (cudaMemsetAsync (c->d.nkeys, 0, 6 * sizeof (unsigned int), st));
    const size_t shb = sizeof (FStump) * c->d.nshared;
    if (c->g.nwords > 0) {
      first_stage<<<(unsigned) ((c->g.nwords * 32 + 255) / 256), 256, c->s0.n ? 0 : shb, st>>> (
          c->g, c->d, c->planes, c->s0);
      MARK (3);
      const unsigned blocks = c->sms * bps, tpb = 32 * c->warps_per_block;
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
    FV_CUDA_TRY (cudaMemcpyAsync (c->h_nkeys, c->d.nkeys, sizeof nkeys, cudaMemcpyDeviceToHost,
        st));
    /* the first keys in the same round trip (those past the count are not read) */
    prefetched = KEY_PREFETCH < c->d.key_cap ? KEY_PREFETCH : c->d.key_cap;
    FV_CUDA_TRY (cudaMemcpyAsync (c->h_keys, c->d.keys, sizeof (unsigned long long) * prefetched,
        cudaMemcpyDeviceToHost, st));
    FV_CUDA_TRY (fv_cuda_sync (st));
    nkeys = *c->h_nkeys;
    if (nkeys <= c->d.key_cap)
      break;
    /* more windows passed than there was room for: room for all, again */
    if (c->own_keys)
      fv_cuda_free (c->d.keys);
    c->d.key_cap = nkeys + nkeys / 2;
    c->d.keys = (unsigned long long *) fv_cuda_malloc (sizeof (unsigned long long)
        * c->d.key_cap);
    c->own_keys = c->d.keys != NULL;
    if (!c->d.keys) {
      fv_set_last_error ("cannot allocate room for %d windows on the device", nkeys);
      return FV_ERR_NOMEM;
    }
  }
  if (nkeys > c->key_cap) {
    cudaFreeHost (c->h_keys);
    c->h_keys = NULL;
    c->key_cap = 0;
    FV_CUDA_TRY (cudaHostAlloc (&c->h_keys, sizeof (unsigned long long) * nkeys * 2,
        cudaHostAllocDefault));
    c->key_cap = nkeys * 2;
  }
  if (nkeys > prefetched) {
    FV_CUDA_TRY (cudaMemcpyAsync (c->h_keys, c->d.keys, sizeof (unsigned long long) * nkeys,
        cudaMemcpyDeviceToHost, st));
    FV_CUDA_TRY (fv_cuda_sync (st));
  }
  MARK (6);
  if (c->profile) {
    float t[6];
    unsigned counts[3];
    fv_cuda_sync (st);
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
  fv_vj_cuda *c = (fv_vj_cuda *) pl->state;
  if (!c)
    return;
  fv_cuda_use_device (c->ps.device);
  if (c->ps.stream)
    fv_cuda_sync (c->ps.stream);
  fv_cuda_free (c->own);
  if (c->own_keys)
    fv_cuda_free (c->d.keys);
  free (c->host_blob);
  c->ps.close ();
  cudaFreeHost (c->h_keys);
  cudaFreeHost (c->h_nkeys);
  free (c);
  pl->state = NULL;
}
