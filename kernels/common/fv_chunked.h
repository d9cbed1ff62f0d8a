/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The chunked CUDA back end of a kernel whose chunk is simply its own plan
 * at the chunk's size (the box filter, the convolution): the kernel names
 * its plan functions and where its parameters keep the size and the
 * spread; this keeps a copy of the parameters and the chunk runner
 * (fv_chunk_run.h), and makes each sub-plan of the copy resized to its
 * chunk and spread to its one device. Built with CUDA only. */
#ifndef FV_CHUNKED_H
#define FV_CHUNKED_H

#include <stddef.h>
#include "fv_chunk_run.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  /* the kernel's CUDA plan of params (the copy, resized), and its calls */
  fv_status (*create) (void **plan, const void *params, int device, void *stream);
  fv_status (*execute) (void *plan, const fv_image *src, const fv_image *dst);
  void (*destroy) (void *plan);
  /* device bytes a plan of params at width x height takes */
  size_t (*bytes) (const void *params, int width, int height);
  /* optional: rows [row0, row0 + rows) of the result only (fv_chunk_run.h) */
  fv_status (*execute_rows) (void *plan, const fv_image *src, const fv_image *dst, int row0,
      int rows);
  /* the parameters' type: its size and where it keeps width, height and
   * spread (FV_CHUNKED_PARAMS) */
  size_t params_size, width_at, height_at, spread_at;
} fv_chunked_kernel;

#define FV_CHUNKED_PARAMS(type) sizeof (type), offsetof (type, width), offsetof (type, height), \
  offsetof (type, spread)

/* Defines, for a kernel NAME whose plan type (with its parameters in `p`
 * and its back end's state in `state`) and public calls have the shapes
 * every kernel's have:
 *   NAME: its fv_chunked_kernel, over create (with FV_BACKEND_CUDA),
 *     execute, destroy and bytes (size_t (const params_t *, int, int)),
 *     with rows (the void * shape of execute_rows above, or NULL);
 *   NAME_execute and NAME_free: the chunked back end's execute and free.
 * The back end's init is the kernel's own (the halo, a wrap): it calls
 * fv_chunked_create (&plan->state, &NAME, &plan->p, &rp). */
#define FV_CHUNKED_BACKEND(NAME, plan_t, params_t, create, execute, destroy, bytes, rows) \
  static fv_status NAME##_sub_create (void **plan, const void *q, int device, void *stream) \
  { return create ((plan_t **) plan, (const params_t *) q, FV_BACKEND_CUDA, device, stream); } \
  static fv_status NAME##_sub_execute (void *plan, const fv_image *src, const fv_image *dst) \
  { return execute ((plan_t *) plan, src, dst); } \
  static void NAME##_sub_destroy (void *plan) { destroy ((plan_t *) plan); } \
  static size_t NAME##_sub_bytes (const void *q, int width, int height) \
  { return bytes ((const params_t *) q, width, height); } \
  static const fv_chunked_kernel NAME = { NAME##_sub_create, NAME##_sub_execute, \
    NAME##_sub_destroy, NAME##_sub_bytes, rows, FV_CHUNKED_PARAMS (params_t) }; \
  static fv_status NAME##_execute (plan_t *plan, const fv_image *src, const fv_image *dst) \
  { return fv_chunked_execute ((fv_chunked *) plan->state, src, dst); } \
  static void NAME##_free (plan_t *plan) \
  { fv_chunked_destroy ((fv_chunked *) plan->state); plan->state = NULL; }

typedef struct fv_chunked fv_chunked;

/* Plans the chunks of a frame for params under rp (fv_spread_run_params,
 * then the kernel's own wrap), into *state (a plan's state field:
 * an fv_chunked, also after a failure, for the back end's free). */
fv_status fv_chunked_create (void **state, const fv_chunked_kernel *k, const void *params,
    const fv_chunk_run_params *rp);
fv_status fv_chunked_execute (fv_chunked *c, const fv_image *src, const fv_image *dst);
void fv_chunked_destroy (fv_chunked *c);
const fv_chunk_plan *fv_chunked_plan (const fv_chunked *c);

#ifdef __cplusplus
}
#endif
#endif
