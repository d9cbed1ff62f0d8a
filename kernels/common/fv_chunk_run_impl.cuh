/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The chunk runner's state, shared by its files (private): fv_chunk_run.cu
 * (planning, entries, one-pass chunks, the choice of one device) and
 * fv_chunk_run_two.cu (kernels of two passes, bands sized to speeds). */
#ifndef FV_CHUNK_RUN_IMPL_CUH
#define FV_CHUNK_RUN_IMPL_CUH

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include "fv_chunk_run.h"
#include "fv_clock.h"
#include "fv_cuda_check.cuh"
#include "fv_cuda.h"
#include "fv_env.h"
#include "fv_window.h"
#include "fv_workers.h"

enum Op { OP_BUDGET, OP_CREATE, OP_EXECUTE, OP_FIRST, OP_SECOND, OP_DESTROY };

struct Entry {
  fv_chunk_run *run;
  int index, device;
  cudaStream_t stream;
  void *plan;
  char *d_in, *d_out;
  size_t pitch_in, pitch_out;
  size_t budget;
  /* this call */
  Op op;
  const fv_image *src, *dst;
  fv_status status;
  int chunks;                /* chunks it ran */
  double pixels;             /* their output pixels (two passes: the first's) */
  int held;                  /* two passes: the chunk whose first pass its plan holds, or -1 */
  int own;                   /* spread: the chunk (index in todo) it starts with, or -1 */
  bool src_direct, dst_direct;   /* two passes: this frame's src (dst) read (written) in
                                  * place, found in the first pass */
  double busy;               /* two passes: ms its passes took this call, waits left out */
  double done_ms;            /* when it finished, from the call's start */
  char error[512];
};

/* How a spread runner runs its frames: timing both ways first, then one. */
enum Way { WAY_SPREAD, WAY_HOME };
#define TIMED_CALLS 5   /* the first spread untimed, then spread, home, spread, home */
/* Bands sized to speeds are resized after each of the first RESIZES spread
 * frames. Three: the frame's GPU packs the other GPUs' bands for them (the
 * fill, fv_fill_chunk_cuda.cu), so its speed depends on their share, and
 * the first frame's times include setting up; on two H200 a third round
 * brought the fill at 16384^2 from 0.90-1.03 ms to 0.85-0.87 */
#define RESIZES 3

struct fv_chunk_run {
  fv_chunk_run_params p;
  fv_chunk_kernel k;
  void *user;
  fv_chunk_plan plan;
  int sw, sh;                /* staged input: the uniform chunk input (two passes: the largest) */
  int *sx, *sy;              /* each chunk's input origin in the frame (wrap: may lie outside) */
  bool two;                  /* a kernel of two passes: chunks staged alone, exactly */
  /* two passes in bands, one an entry, over several GPUs: the bands are
   * sized to the entries' speeds over the first spread frames, up to
   * cap_h rows each (what the sub-plans and staging are made for) */
  bool sized;
  int cap_h, resized;
  fv_cuda_place caller;      /* the creating thread's context and device */
  int nent;                  /* entries: each listed device times the lanes */
  Entry e[FV_MAX_DEVICE_ENTRIES];
  fv_workers *workers;       /* a thread an entry (not the caller's own) */
  /* this call's chunks, taken in order (two passes: the second's, those
   * whose first pass no entry holds) */
  int *todo, ntodo, next;
  double t0;
  /* spread over several GPUs: which way, and the first calls' times */
  bool choose;               /* several GPUs, the caller's among them, not keep_spread */
  Way way;
  int calls;
  double best[2];
};

/* Chunk c counted as run by e. */
static inline void
ran_chunk (Entry *e, int c)
{
  const fv_chunk_rect *o = &e->run->plan.chunk[c].out;
  e->chunks++;
  e->pixels += (double) o->w * o->h;
}

/* Bytes of a frame's pixel. */
static inline size_t
pixel_bytes (const fv_chunk_run_params *p)
{
  return (size_t) p->channels * p->sample;
}

/* The address of pixel (x, y) of im. */
static inline char *
pixel_at (const fv_image *im, int x, int y, size_t px)
{
  return (char *) im->data + (size_t) y * im->stride + (size_t) x * px;
}

/* The chunk (index in todo) an entry runs next: its own first (used up by
 * taking it), then the next no entry has taken; -1 when none is left. */
static inline int
take_chunk (Entry *e)
{
  const int own = e->own;
  if (own >= 0) {
    e->own = -1;
    return own;
  }
  const int k = __atomic_fetch_add (&e->run->next, 1, __ATOMIC_RELAXED);
  return k < e->run->ntodo ? k : -1;
}

/* Device memory of this entry's GPU, which its kernels may use directly. */
static inline bool
on_entry_gpu (const Entry *e, const fv_image *im)
{
  return fv_cuda_image_on_device (im, e->device);
}

/* Whether this entry's kernels read (write) im in place: on its GPU, or,
 * with peer_direct, on another it has peer access to. */
static inline bool
in_reach (const Entry *e, const fv_image *im)
{
  return on_entry_gpu (e, im) || (e->run->p.peer_direct && fv_cuda_image_peer (im, e->device));
}

namespace fv_run {
extern thread_local fv_chunk_run_stats last_stats;
/* a chunk's input into the entry's staging; its output from there into dst */
fv_status stage (Entry *e, int c, const fv_image *src);
fv_status unstage (Entry *e, int c, const fv_image *dst);
/* every entry (the caller's device's alone when home_only) does op, at once */
fv_status run_entries (fv_chunk_run *r, Op op, const fv_image *src, const fv_image *dst,
    bool home_only);
bool several_gpus (const fv_chunk_run *r);
/* fv_chunk_run_two.cu: an entry's first (or second) passes; a frame of two
 * passes; the bands resized to the entries' speeds */
fv_status entry_pass (Entry *e, bool second);
fv_status run_two (fv_chunk_run *r, const fv_image *src, const fv_image *dst, bool home_only);
void resize_bands (fv_chunk_run *r);
}  // namespace fv_run

#endif
