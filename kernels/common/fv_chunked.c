/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdlib.h>
#include <string.h>
#include "fv_chunked.h"

struct fv_chunked {
  void *params;         /* the frame's parameters: the kernel's calls' `user` */
  fv_chunk_run *run;
};

fv_status
fv_chunked_create (void **state, const fv_chunk_kernel *k, const void *params,
    size_t params_size, const fv_chunk_run_params *rp)
{
  fv_chunked *c = calloc (1, sizeof *c);
  *state = c;
  if (!c || !(c->params = malloc (params_size)))
    return FV_ERR_NOMEM;
  memcpy (c->params, params, params_size);
  return fv_chunk_run_create (&c->run, rp, k, c->params);
}

fv_status
fv_chunked_execute (fv_chunked *c, const fv_image *src, const fv_image *dst)
{
  return fv_chunk_run_execute (c->run, src, dst);
}

void
fv_chunked_destroy (fv_chunked *c)
{
  if (!c)
    return;
  fv_chunk_run_destroy (c->run);
  free (c->params);
  free (c);
}

const fv_chunk_plan *
fv_chunked_plan (const fv_chunked *c)
{
  return fv_chunk_run_plan (c->run);
}
