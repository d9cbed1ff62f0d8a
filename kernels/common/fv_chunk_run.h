/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Runs a CUDA kernel of local reach over a frame in chunks (fv_chunk.h's
 * plan), on one or several devices: what a plan becomes when the frame does
 * not fit the device's memory budget, or when it is spread over devices.
 *
 * Every chunk has the same input size, so one sub-plan per device entry
 * serves them all: a chunk's input is its output grown by the halo and
 * slid inside the frame at the frame's edges (so the sub-plan's border rule
 * meets the frame's own edges there and only there), or, for a wrapping
 * border, gathered around the frame's edges. The sub-plan filters the whole
 * input; the chunk's output rectangle is copied out. Results therefore
 * equal the whole-frame plan's wherever the kernel reads no farther than
 * the halo.
 *
 * Device entries (each listed device times `lanes`; a device listed twice
 * has twice the lanes) each have a persistent worker thread, a stream, a
 * sub-plan and staging for one chunk, and share the device's budget. Each
 * entry takes the next chunk not yet taken when it has finished its last,
 * so the frame's own GPU, which copies nothing, takes more of them. Over
 * several GPUs, the first frames are timed spread and on the caller's
 * device alone (its entries taking every chunk) and the faster way is
 * kept (`note` is told when that is one device); source and
 * destination may be host memory or device memory of any listed GPU, in any
 * context (copies go through unified addressing, peer to peer where the
 * GPUs allow). The entry on the caller's device works in the caller's
 * current CUDA context, so that a pipeline's shared context is honoured. */
#ifndef FV_CHUNK_RUN_H
#define FV_CHUNK_RUN_H

#include "fv_chunk.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FV_MAX_DEVICE_ENTRIES 16

/* How a CUDA plan may spread: part of each kernel's parameters. Zeroed:
 * the plan's own device, chunked only when the frame exceeds what the
 * device has free (less a margin). */
typedef struct {
  size_t max_device_bytes;  /* per entry; 0: free memory less 1/16 and 64 MB; SIZE_MAX: never chunk */
  int devices[FV_MAX_DEVICE_ENTRIES];
  int ndevices;             /* 0: the plan's device alone */
  int min_chunks;           /* at least this many chunks (tests) */
  /* Over several GPUs the runner times its first frames spread and on the
   * plan's own device alone and keeps the faster (fv_chunk_run.h); 1:
   * always spread (tests, benchmarks). */
  int keep_spread;
  /* optional: told (in words) when the runner keeps to one device */
  void (*note) (void *user, const char *message);
  void *note_user;
} fv_spread;

/* The kernel as the runner sees it: plans for a chunk size, runs them on
 * device images of that size. `user` is the caller's. */
typedef struct {
  fv_status (*create) (void **plan, int width, int height, int device, void *stream,
      void *user);
  fv_status (*execute) (void *plan, const fv_image *src, const fv_image *dst, void *user);
  void (*destroy) (void *plan, void *user);
  /* device bytes a plan for width x height takes, its own buffers included */
  size_t (*bytes) (int width, int height, void *user);
  /* optional: after a chunk's input is staged (ring pixels still unset) and
   * before the sub-plan runs; and after it ran, before the output is
   * copied out. Both on the entry's thread, with its stream. */
  fv_status (*before) (int chunk, const fv_image *in, void *stream, void *user);
  fv_status (*after) (int chunk, const fv_image *in, const fv_image *out, void *stream,
      void *user);
  /* optional: only rows [row0, row0 + rows) of the result, into dst (rows
   * high): bands then write a device frame on their own GPU in place */
  fv_status (*execute_rows) (void *plan, const fv_image *src, const fv_image *dst, int row0,
      int rows, void *user);
} fv_chunk_kernel;

typedef struct {
  int width, height, channels;
  fv_sample sample;
  int halo_x, halo_y;      /* how far the kernel reads past an output pixel */
  int wrap;                /* the border wraps: halos at the edges come from the far side */
  int ring;                /* > 0: each chunk's own input is staged at this offset, unslid,
                            * and the margin around it (to the uniform size) is `before`'s */
  size_t budget;           /* device bytes per entry; 0: free memory less a margin, shared
                            * between the entries of one device */
  int devices[FV_MAX_DEVICE_ENTRIES];
  int ndevices;            /* >= 1 */
  int min_chunks;          /* at least this many chunks (tests; 0 or 1: as the budget says) */
  int lanes;               /* entries per listed device (0 or 1: one): while one lane's
                            * sub-plan runs, another's chunk is copied in or out */
  int per_entry;           /* over several GPUs, chunks per entry (0 or 1: one): entries
                            * take the next chunk as they finish one, so a GPU that
                            * copies nothing takes more */
  int keep_spread;         /* as fv_spread's */
  void (*note) (void *user, const char *message);
  void *note_user;
} fv_chunk_run_params;

/* What the last fv_chunk_run_execute on this thread did: per entry its
 * device, the chunks it ran and when it finished (ms from the call's
 * start); and whether all entries took part or the plan's own device's
 * alone (after the runner found one device faster). */
typedef struct {
  int entries;
  int device[FV_MAX_DEVICE_ENTRIES];
  int chunks[FV_MAX_DEVICE_ENTRIES];
  double done_ms[FV_MAX_DEVICE_ENTRIES];
  double total_ms;
  int todo;                /* the chunks it was to run */
  int home_only;
} fv_chunk_run_stats;

const fv_chunk_run_stats *fv_chunk_run_last (void);
void fv_chunk_run_last_clear (void);

typedef struct fv_chunk_run fv_chunk_run;

/* Plans the chunks and makes each entry's stream, sub-plan and staging.
 * FV_ERR_NOMEM with the figures when not even a one-pixel chunk fits. */
fv_status fv_chunk_run_create (fv_chunk_run **run, const fv_chunk_run_params *p,
    const fv_chunk_kernel *kernel, void *user);

/* Filters src into dst (the frame's size; host or device memory): every
 * chunk, or those with a non-zero byte in `which` when it is not NULL.
 * Returns when dst is written. */
fv_status fv_chunk_run_execute (fv_chunk_run *run, const fv_image *src, const fv_image *dst,
    const unsigned char *which);

void fv_chunk_run_destroy (fv_chunk_run *run);

/* The chunks (output and input rectangles). Which entry runs each is
 * decided per frame (fv_chunk_run_last says how many each ran). */
const fv_chunk_plan *fv_chunk_run_plan (const fv_chunk_run *run);

/* The device bytes the whole frame's plan would take on one device, over
 * the budget: > 1 means chunks are needed. Budget 0 resolves as above. */
fv_status fv_chunk_run_budget (const fv_chunk_run_params *p, int entry, size_t *budget);

/* Runner parameters for a plan's spread on `device`, for frames of
 * width x height x channels samples and a kernel reaching halo_x, halo_y
 * (wrap and ring left to the caller). */
void fv_spread_run_params (const fv_spread *s, int device, int width, int height, int channels,
    fv_sample sample, int halo_x, int halo_y, fv_chunk_run_params *rp);

/* A chunk's sub-plan: the whole frame on one device, never chunked again. */
static inline void
fv_spread_whole (fv_spread *s)
{
  s->max_device_bytes = (size_t) -1;
  s->ndevices = 0;
  s->min_chunks = 0;
}

/* Whether a CUDA plan on `device` whose whole frame needs whole_bytes runs
 * chunked (several entries, another device, forced chunks, or over the
 * budget; whole_bytes 0: a plan that meets the budget itself, so not the
 * last): 1 or 0, with FV_OK; an error when the budget cannot be read. The
 * one rule every kernel's plan_create follows. */
fv_status fv_spread_chunked (const fv_spread *s, int device, size_t whole_bytes, int *chunked);

#ifdef __cplusplus
}
#endif
#endif
