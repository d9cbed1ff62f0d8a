/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The chunked CUDA back end of a kernel whose chunk is simply its own plan
 * at the chunk's size (the box filter, the convolution): the chunk runner
 * (fv_chunk_run.h) over the kernel's fv_chunk_kernel, whose `user` is a
 * copy of the frame's parameters that this keeps. The kernel's create
 * makes a whole-frame CUDA plan of that copy resized to the chunk, with
 * its spread made a part of the frame (fv_spread_part): written out in the
 * kernel's planner, where its parameters' type is known. Built with CUDA
 * only. */
#ifndef FV_CHUNKED_H
#define FV_CHUNKED_H

#include <stddef.h>
#include "fv_chunk_run.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fv_chunked fv_chunked;

/* Plans the chunks of a frame for `params` (params_size bytes, copied: the
 * kernel's calls get the copy as their `user`) under rp
 * (fv_spread_run_params, then the kernel's own wrap), into *state (a
 * plan's state field: an fv_chunked, also after a failure, for the back
 * end's free). */
fv_status fv_chunked_create (void **state, const fv_chunk_kernel *k, const void *params,
    size_t params_size, const fv_chunk_run_params *rp);
fv_status fv_chunked_execute (fv_chunked *c, const fv_image *src, const fv_image *dst);
void fv_chunked_destroy (fv_chunked *c);
const fv_chunk_plan *fv_chunked_plan (const fv_chunked *c);

#ifdef __cplusplus
}
#endif
#endif
