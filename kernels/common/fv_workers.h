/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Persistent worker threads, one a slot, that run one call for every slot
 * at once: how a plan spread over devices fans out to its device entries
 * (the chunk runner's entries, the detector's devices). Each slot's thread
 * starts the first time the slot takes part and stays until destroy; slot
 * 0 may run on the calling thread instead (where the caller's CUDA context
 * is current already). No CUDA here. */
#ifndef FV_WORKERS_H
#define FV_WORKERS_H

#include "fv_status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FV_MAX_WORKERS 16

typedef struct fv_workers fv_workers;

fv_status fv_workers_create (fv_workers **w);

/* Calls fn (i, user) for every slot i < n with active[i] (active NULL: all
 * of them), slot 0 on this thread when slot0_here, the others on their own
 * threads, at once; returns when every call has returned. FV_ERR_NOMEM
 * (and nothing run) when a thread cannot be started. */
fv_status fv_workers_run (fv_workers *w, int n, int slot0_here, const unsigned char *active,
    void (*fn) (int slot, void *user), void *user);

/* Ends the threads (none may be running a call). NULL is fine. */
void fv_workers_destroy (fv_workers *w);

#ifdef __cplusplus
}
#endif
#endif
