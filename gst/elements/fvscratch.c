/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "fvscratch.h"
#include "fv_cuda.h"

gboolean
fv_scratch_ensure (FvScratch *s, gsize size, gboolean want_pinned)
{
  if (s->data && s->size >= size && !s->device && (!want_pinned || s->pinned))
    return TRUE;
  fv_scratch_free (s);
  s->data = want_pinned ? fv_cuda_host_alloc (size) : NULL;
  s->pinned = s->data != NULL;
  if (!s->data)
    s->data = g_try_malloc (size ? size : 1);
  s->size = s->data ? size : 0;
  return s->data != NULL;
}

gboolean
fv_scratch_ensure_device (FvScratch *s, gsize size)
{
  if (s->data && s->size >= size && s->device)
    return TRUE;
  fv_scratch_free (s);
  s->data = fv_cuda_malloc (size ? size : 1);
  s->device = s->data != NULL;
  s->size = s->data ? size : 0;
  return s->data != NULL;
}

void
fv_scratch_free (FvScratch *s)
{
  if (s->device)
    fv_cuda_free (s->data);
  else if (s->pinned)
    fv_cuda_host_free (s->data);
  else
    g_free (s->data);
  s->data = NULL;
  s->size = 0;
  s->pinned = s->device = FALSE;
}
