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
 * the halo. A kernel of two passes (the fill, whose reach is the whole
 * frame) has its chunks staged exactly, and settles what their first passes
 * found between the passes (fv_chunk_kernel).
 *
 * Device entries (each listed device times `lanes`; a device listed twice
 * has twice the lanes) each have a persistent worker thread, a stream, a
 * sub-plan and staging for one chunk, and share the device's budget. Spread,
 * each entry starts with a chunk of its own; then each takes the next chunk
 * not yet taken when it has finished its last,
 * so the frame's own GPU, which copies nothing, takes more of them. Over
 * several GPUs, the first frames are timed spread and on the caller's
 * device alone (its entries taking every chunk) and the faster way is
 * kept (`note` is told when that is one device; the kernel's `whole`, where
 * it has one, then runs the frame); source and
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
  /* set by the runner (fv_spread_part): this plan filters a chunk or band
   * of a frame this size (0: a frame of its own); a kernel that picks its
   * method by the frame's size picks it by that frame's, so that a chunk
   * runs the way the whole frame would */
  int part_of_width, part_of_height;
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
  /* optional: a kernel of two passes, whose output depends on the whole
   * frame (halo 0): a chunk is staged alone (its own size, at the staging's
   * origin) or read where it lies, and written where it lies or through
   * staging (`out`, device memory of the chunk's size, the same for both
   * passes, copied out after the second). `first` runs on each chunk and
   * its plan keeps what it found; when every chunk has, `settle` runs on
   * the calling thread (what the first passes reported is whole then);
   * `second` finishes each chunk's output from its plan. An entry's plan
   * holds the last chunk it ran, so the entry runs that chunk's second
   * pass; any other chunk (more chunks than entries) has its first pass
   * run again before its second. The runner waits for the entry's stream
   * after each pass. execute is not used. */
  fv_status (*first) (void *plan, int chunk, const fv_image *in, const fv_image *out,
      void *user);
  fv_status (*settle) (void *user);
  fv_status (*second) (void *plan, int chunk, const fv_image *out, void *user);
  /* optional: the whole frame on the caller's device, on the calling
   * thread, returning when dst is written: how the runner runs a frame when
   * it keeps to one device, where chunks would cost more than the kernel's
   * whole-frame plan (a kernel of two passes). NULL: the caller's device's
   * entries run the chunks. */
  fv_status (*whole) (const fv_image *src, const fv_image *dst, void *user);
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
  int peer_direct;         /* entries read (and, bands computing their own rows, write)
                            * device frames on other GPUs in place, over peer access where
                            * the GPUs have it, rather than through staging copies. The
                            * fill's passes gain (each touches a pixel once); the box
                            * filter's and the convolution's kernels lost 2-4x on four
                            * H200 (their reads over NVLink ran far below the copy
                            * engines' rate), so they stage */
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
  int align_y;             /* bands' output rows start at multiples of it (fv_chunk_params) */
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
  double share[FV_MAX_DEVICE_ENTRIES];     /* of the frame's pixels (two passes: the first's) */
  double done_ms[FV_MAX_DEVICE_ENTRIES];
  /* two passes: when each entry's first passes ended, and when settle
   * began and ended (0 otherwise) */
  double first_ms[FV_MAX_DEVICE_ENTRIES];
  double settle_from_ms, settle_to_ms;
  double total_ms;
  int todo;                /* the chunks it was to run */
  int home_only;
  /* over several GPUs, once the runner has chosen: the best times of the
   * two ways it timed, which decided home_only (0 before, and for a plan
   * that never chooses) */
  double home_ms, spread_ms;
} fv_chunk_run_stats;

const fv_chunk_run_stats *fv_chunk_run_last (void);
void fv_chunk_run_last_clear (void);
/* for a spread of its own (the detector's level groups): what it did, as
 * the runner's would say it (chunks: the groups an entry ran) */
void fv_chunk_run_last_set (const fv_chunk_run_stats *s);

typedef struct fv_chunk_run fv_chunk_run;

/* Plans the chunks and makes each entry's stream, sub-plan and staging.
 * FV_ERR_NOMEM with the figures when not even a one-pixel chunk fits. */
fv_status fv_chunk_run_create (fv_chunk_run **run, const fv_chunk_run_params *p,
    const fv_chunk_kernel *kernel, void *user);

/* Filters src into dst (the frame's size; host or device memory), every
 * chunk. Returns when dst is written. */
fv_status fv_chunk_run_execute (fv_chunk_run *run, const fv_image *src, const fv_image *dst);

void fv_chunk_run_destroy (fv_chunk_run *run);

/* The chunks (output and input rectangles). Which entry runs each is
 * decided per frame (fv_chunk_run_last says how many each ran). A kernel of
 * two passes in bands, one an entry, over several GPUs has its bands sized
 * to the entries' speeds after its first two spread frames (the bands move;
 * the plan's generation counts up): a GPU that copies nothing takes more
 * rows. */
const fv_chunk_plan *fv_chunk_run_plan (const fv_chunk_run *run);

/* The largest chunk input the sub-plans take: chunks stay within it,
 * resized or not. */
void fv_chunk_run_chunk_max (const fv_chunk_run *run, int *width, int *height);

/* The device bytes the whole frame's plan would take on one device, over
 * the budget: > 1 means chunks are needed. Budget 0 resolves as above. */
fv_status fv_chunk_run_budget (const fv_chunk_run_params *p, int entry, size_t *budget);

/* Runner parameters for a plan's spread on `device`, for frames of
 * width x height x channels samples and a kernel reaching halo_x, halo_y
 * (wrap and peer_direct left to the caller). */
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

/* The spread of a plan for a chunk or band of a width x height frame: one
 * device, never chunked itself, told the frame it is part of. */
static inline void
fv_spread_part (fv_spread *s, int width, int height)
{
  fv_spread_whole (s);
  if (!s->part_of_width) {   /* a part of a part is part of the first frame */
    s->part_of_width = width;
    s->part_of_height = height;
  }
}

/* Whether a CUDA plan on `device` whose whole frame needs whole_bytes runs
 * chunked (several entries, another device, forced chunks, or over the
 * budget; whole_bytes 0: a plan that meets the budget itself, so not the
 * last): 1 or 0, with FV_OK; an error when the budget cannot be read. The
 * one rule every kernel's plan_create follows. */
fv_status fv_spread_chunked (const fv_spread *s, int device, size_t whole_bytes, int *chunked);

/* The same rule with s's device list set aside: whether the whole frame
 * would run on `device` alone, unchunked (*alone 1 or 0, with FV_OK). For
 * a spread plan that keeps the whole frame on its own device too (the
 * fill: to time against spreading, and to measure). */
fv_status fv_spread_fits_alone (const fv_spread *s, int device, size_t whole_bytes, int *alone);

#ifdef __cplusplus
}
#endif
#endif
