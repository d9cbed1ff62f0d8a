/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The contract every kernel's plan keeps (FFTW's way: plan once for a size,
 * execute per frame, the back end chosen once when the plan is made).
 *
 * A plan holds its parameters, the back end it was made for and a table of
 * that back end's entries, all of one shape:
 *   init     makes what the back end keeps for the plan's parameters;
 *   execute  runs a frame: src in, dst out (a kernel whose output is not a
 *            frame, the detector's, takes dst NULL); it returns when dst is
 *            written unless the table has a wait;
 *   wait     where present: execute only queued the work (src must stay
 *            unchanged and dst unread until wait returns);
 *   free     undoes init (also after a failed init);
 *   bytes    what init allocates for the plan's parameters, at most (host
 *            memory for the CPU, device memory for CUDA), computed beside
 *            those allocations.
 * CUDA entries are absent (NULL) in builds without CUDA: a plan asked for
 * CUDA there fails with FV_ERR_NO_CUDA (fv_plan_backend_missing). */
#ifndef FV_PLAN_H
#define FV_PLAN_H

#include <stddef.h>
#include "fv_status.h"
#include "fv_image.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { FV_BACKEND_CPU = 0, FV_BACKEND_CUDA = 1 } fv_backend;

#define FV_PLAN_BACKEND(PLAN)                                                  \
  struct {                                                                    \
    fv_status (*init) (PLAN *pl, int device, void *stream);                   \
    fv_status (*execute) (PLAN *pl, const fv_image *src, const fv_image *dst); \
    fv_status (*wait) (PLAN *pl);                                             \
    void (*free) (PLAN *pl);                                                  \
    size_t (*bytes) (const PLAN *pl);                                         \
  }

/* An entry compiled only with CUDA (FV_HAVE_CUDA from fv_config.h, which
 * the file defining a table includes first). */
#if defined(FV_HAVE_CUDA) && FV_HAVE_CUDA
#define FV_CUDA_ENTRY(f) (f)
#else
#define FV_CUDA_ENTRY(f) NULL
#endif

/* FV_OK for a backend the library knows; FV_ERR_INVALID naming it
 * otherwise, FV_ERR_NO_CUDA when this build has no CUDA (`init` is the
 * table's entry for it). The one check every plan_create makes. */
fv_status fv_plan_backend_check (fv_backend backend, const void *init);

/* The check for a front file's table of back ends, indexed by backend:
 * rows of entries, or (FV_PLAN_CHECK_PTR) pointers to them. */
#define FV_PLAN_ROWS(table) (sizeof (table) / sizeof (table)[0])
/* The table's init for backend, NULL where the table has no such row or
 * this build lacks it (what fv_plan_backend_check and fv_plan_choose take). */
#define FV_PLAN_INIT(backend, table)                                            \
  ((unsigned) (backend) < FV_PLAN_ROWS (table) ? (const void *) (table)[backend].init : NULL)
#define FV_PLAN_INIT_PTR(backend, table)                                        \
  ((unsigned) (backend) < FV_PLAN_ROWS (table) ? (const void *) (table)[backend] : NULL)
#define FV_PLAN_CHECK(backend, table)                                           \
  fv_plan_backend_check ((backend), FV_PLAN_INIT (backend, table))
#define FV_PLAN_CHECK_PTR(backend, table)                                       \
  fv_plan_backend_check ((backend), FV_PLAN_INIT_PTR (backend, table))

#ifdef __cplusplus
}
#endif
#endif
