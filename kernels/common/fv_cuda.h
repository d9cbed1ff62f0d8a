/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* CUDA helpers visible to C code. Everything here also exists in builds
 * without CUDA, where it reports that no GPU is usable. */
#ifndef FV_CUDA_H
#define FV_CUDA_H

#include <stddef.h>
#include "fv_image.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 1 when this build has CUDA code. */
int fv_cuda_built (void);

/* Number of usable devices; 0 without a driver or GPU (never fails). */
int fv_cuda_device_count (void);

/* FV_OK when `device` can run our kernels; otherwise the reason in why. */
fv_status fv_cuda_check_device (int device, char *why, size_t why_len);

/* A non-blocking stream on `device`, as an opaque cudaStream_t. */
fv_status fv_cuda_stream_create (int device, void **stream);
void fv_cuda_stream_destroy (void *stream);

/* Page-locked host memory (NULL when CUDA is unusable) and its release;
 * usable from every context (portable). Call it with no foreign context
 * current: memory pinned in a context is freed when that context is. */
void *fv_cuda_host_alloc (size_t size);
void fv_cuda_host_free (void *ptr);

/* Device memory, for callers that keep frames on the GPU. */
void *fv_cuda_malloc (size_t size);
void fv_cuda_free (void *ptr);
/* Bytes this process holds through fv_cuda_malloc now, on every device
 * (tests measure a plan's own device memory with it). */
size_t fv_cuda_allocated (void);
/* Copies and waits until the bytes have landed. */
fv_status fv_cuda_memcpy (void *dst, const void *src, size_t size);

/* Waits for the work queued on `stream`. */
fv_status fv_cuda_stream_sync (void *stream);

/* The synchronisation contract of an execute: it returns when its output
 * is written. A caller that orders its neighbours on the GPU instead (a
 * GStreamer 1.24+ element between stream-ordered CUDA memories) defers
 * that wait on this thread for its own stream: between begin and end, an
 * execute on `stream` whose output is device memory returns with the work
 * queued, and the caller waits for the stream or makes others wait on it.
 * Other streams (chunk lanes on other devices) and host outputs still wait. */
void fv_cuda_defer_begin (void *stream);
void fv_cuda_defer_end (void);
/* The end of an execute on `stream`: waits for it unless deferred above
 * and dst_on_device. */
fv_status fv_cuda_finish (void *stream, int dst_on_device);

/* Makes the work queued on `waiter` from now on wait for the work queued
 * on `signaler` so far, on the GPU (an event; the host does not wait).
 * Streams of the current context; the same stream twice is a no-op. */
fv_status fv_cuda_stream_wait (void *waiter, void *signaler);

/* Copies `rows` rows of `row_bytes` between any two memories (host or
 * device; the runtime tells them apart), on `stream`, and waits (as
 * fv_cuda_finish: not for a device destination while `stream` is
 * deferred). */
fv_status fv_cuda_copy_rows (void *dst, size_t dst_stride, const void *src, size_t src_stride,
    size_t row_bytes, int rows, void *stream);

/* Sets the 8-bit samples [x0, x1) x [y0, y1) of a device plane, `pstride`
 * bytes apart in a row, to v; queued on `stream`. */
fv_status fv_cuda_fill_rect (void *plane, size_t stride, int pstride, int x0, int y0, int x1,
    int y1, unsigned char v, void *stream);

/* What the current device has free, less 1/16 of its memory and 64 MB for
 * others: the default device-memory budget of plans. */
fv_status fv_cuda_free_budget (size_t *budget);

/* The device whose memory im is, or -1 (not device memory). */
int fv_cuda_image_device (const fv_image *im);
/* 1 when im is device memory of `device` (its kernels may read it). */
int fv_cuda_image_on_device (const fv_image *im, int device);
/* Device memory of another GPU that kernels on `device` may use in place:
 * `device` has peer access to it, and it is in that GPU's primary context
 * (peer access must also have been enabled, cudaDeviceEnablePeerAccess). */
int fv_cuda_image_peer (const fv_image *im, int device);

/* The calling thread's CUDA context and device, to come back to after
 * work on another device (a pipeline's shared context stays current
 * around our work: cudaSetDevice alone would leave a primary one). */
typedef struct {
  void *ctx;
  int device;
} fv_cuda_place;
void fv_cuda_place_save (fv_cuda_place *p);
void fv_cuda_place_restore (const fv_cuda_place *p);
/* Makes `device` current: the saved context when it is that device's,
 * else the device's primary context. */
fv_status fv_cuda_place_enter (const fv_cuda_place *saved, int device);

/* Page-locked host memory that kernels read and write in place (mapped,
 * portable); free with fv_cuda_host_free. Same caveat as fv_cuda_host_alloc. */
void *fv_cuda_host_alloc_mapped (size_t size);

#ifdef __cplusplus
}
#endif
#endif
