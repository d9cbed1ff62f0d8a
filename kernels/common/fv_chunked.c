/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdlib.h>
#include <string.h>
#include "fv_chunked.h"

struct fv_chunked {
  const fv_chunked_kernel *k;
  void *sub;            /* the frame's parameters, spread to one device: sizes set per chunk */
  fv_chunk_run *run;
};

/* The parameters of a chunk's plan: the copy at width x height. */
static void *
resized (fv_chunked *c, int width, int height)
{
  void *q = malloc (c->k->params_size);
  if (!q)
    return NULL;
  memcpy (q, c->sub, c->k->params_size);
  memcpy ((char *) q + c->k->width_at, &width, sizeof width);
  memcpy ((char *) q + c->k->height_at, &height, sizeof height);
  return q;
}

static fv_status
sub_create (void **plan, int width, int height, int device, void *stream, void *user)
{
  fv_chunked *c = user;
  void *q = resized (c, width, height);
  if (!q)
    return FV_ERR_NOMEM;
  fv_status st = c->k->create (plan, q, device, stream);
  free (q);
  return st;
}

static fv_status
sub_execute (void *plan, const fv_image *src, const fv_image *dst, void *user)
{
  return ((fv_chunked *) user)->k->execute (plan, src, dst);
}

static void
sub_destroy (void *plan, void *user)
{
  ((fv_chunked *) user)->k->destroy (plan);
}

static size_t
sub_bytes (int width, int height, void *user)
{
  fv_chunked *c = user;
  return c->k->bytes (c->sub, width, height);
}

static fv_status
sub_execute_rows (void *plan, const fv_image *src, const fv_image *dst, int row0, int rows,
    void *user)
{
  return ((fv_chunked *) user)->k->execute_rows (plan, src, dst, row0, rows);
}

static const fv_chunk_kernel with_rows = {
  .create = sub_create, .execute = sub_execute, .destroy = sub_destroy, .bytes = sub_bytes,
  .execute_rows = sub_execute_rows
};
static const fv_chunk_kernel without_rows = {
  .create = sub_create, .execute = sub_execute, .destroy = sub_destroy, .bytes = sub_bytes
};

fv_status
fv_chunked_create (void **state, const fv_chunked_kernel *k, const void *params,
    const fv_chunk_run_params *rp)
{
  fv_chunked *c = calloc (1, sizeof *c);
  *state = c;
  if (!c || !(c->sub = malloc (k->params_size)))
    return FV_ERR_NOMEM;
  c->k = k;
  memcpy (c->sub, params, k->params_size);
  int width, height;
  memcpy (&width, (const char *) params + k->width_at, sizeof width);
  memcpy (&height, (const char *) params + k->height_at, sizeof height);
  fv_spread_part ((fv_spread *) ((char *) c->sub + k->spread_at), width, height);
  return fv_chunk_run_create (&c->run, rp, k->execute_rows ? &with_rows : &without_rows, c);
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
  free (c->sub);
  free (c);
}

const fv_chunk_plan *
fv_chunked_plan (const fv_chunked *c)
{
  return fv_chunk_run_plan (c->run);
}
