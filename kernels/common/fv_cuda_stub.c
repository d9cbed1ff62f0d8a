/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Builds without CUDA: the same API, reporting that no GPU can be used. */
#include <stdio.h>
#include "fv_cuda.h"
#include "fv_chunk_run.h"

int fv_cuda_built (void) { return 0; }
int fv_cuda_device_count (void) { return 0; }

fv_status
fv_cuda_check_device (int device, char *why, size_t why_len)
{
  snprintf (why, why_len, "fastvision was built without CUDA (meson option cuda)");
  return FV_ERR_NO_CUDA;
}

fv_status
fv_cuda_stream_create (int device, void **stream)
{
  *stream = NULL;
  fv_set_last_error ("built without CUDA");
  return FV_ERR_NO_CUDA;
}

void fv_cuda_stream_destroy (void *stream) { }
void *fv_cuda_host_alloc (size_t size) { return NULL; }
void *fv_cuda_host_alloc_mapped (size_t size) { return NULL; }
fv_status fv_cuda_free_budget (size_t *budget) { *budget = 0; return FV_ERR_NO_CUDA; }
int fv_cuda_image_device (const fv_image *im) { return -1; }
int fv_cuda_image_on_device (const fv_image *im, int device) { return 0; }
int fv_cuda_image_peer (const fv_image *im, int device) { return 0; }
void fv_cuda_place_save (fv_cuda_place *p) { p->ctx = NULL; p->device = -1; }
void fv_cuda_place_restore (const fv_cuda_place *p) { }

fv_status
fv_cuda_place_enter (const fv_cuda_place *saved, int device)
{
  return FV_ERR_NO_CUDA;
}

void fv_cuda_host_free (void *ptr) { }
void *fv_cuda_malloc (size_t size) { return NULL; }
void fv_cuda_free (void *ptr) { }
size_t fv_cuda_allocated (void) { return 0; }

fv_status
fv_cuda_memcpy (void *dst, const void *src, size_t size)
{
  return FV_ERR_NO_CUDA;
}

fv_status
fv_cuda_stream_sync (void *stream)
{
  return FV_ERR_NO_CUDA;
}

void fv_cuda_defer_begin (void *stream) { }
void fv_cuda_defer_end (void) { }

fv_status
fv_cuda_finish (void *stream, int dst_on_device)
{
  return FV_ERR_NO_CUDA;
}

fv_status
fv_cuda_stream_wait (void *waiter, void *signaler)
{
  return FV_ERR_NO_CUDA;
}

fv_status
fv_cuda_copy_rows (void *dst, size_t dst_stride, const void *src, size_t src_stride,
    size_t row_bytes, int rows, void *stream)
{
  fv_set_last_error ("built without CUDA");
  return FV_ERR_NO_CUDA;
}

fv_status
fv_cuda_fill_rect (void *plane, size_t stride, int pstride, int x0, int y0, int x1, int y1,
    unsigned char v, void *stream)
{
  fv_set_last_error ("built without CUDA");
  return FV_ERR_NO_CUDA;
}

/* fv_chunk_run.h: no chunk ever ran */
static fv_chunk_run_stats no_stats;

const fv_chunk_run_stats *
fv_chunk_run_last (void)
{
  return &no_stats;
}

void
fv_chunk_run_last_clear (void)
{
}
