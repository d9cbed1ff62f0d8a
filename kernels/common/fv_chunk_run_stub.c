/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Builds without CUDA: no chunks to run, as no CUDA plan can be made. */
#include "fv_chunk_run.h"

fv_status
fv_chunk_run_create (fv_chunk_run **run, const fv_chunk_run_params *p,
    const fv_chunk_kernel *kernel, void *user)
{
  *run = NULL;
  fv_set_last_error ("built without CUDA");
  return FV_ERR_NO_CUDA;
}

fv_status
fv_chunk_run_execute (fv_chunk_run *run, const fv_image *src, const fv_image *dst,
    const unsigned char *which)
{
  fv_set_last_error ("built without CUDA");
  return FV_ERR_NO_CUDA;
}

void fv_chunk_run_destroy (fv_chunk_run *run) { }
const fv_chunk_plan *fv_chunk_run_plan (const fv_chunk_run *run) { return NULL; }

fv_status
fv_chunk_run_budget (const fv_chunk_run_params *p, int entry, size_t *budget)
{
  fv_set_last_error ("built without CUDA");
  return FV_ERR_NO_CUDA;
}
