/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Error checking for CUDA runtime calls inside the kernels library. */
#ifndef FV_CUDA_CHECK_CUH
#define FV_CUDA_CHECK_CUH

#include <cuda_runtime.h>
#include "fv_image.h"

#define FV_CUDA_TRY(call)                                                   \
  do {                                                                      \
    cudaError_t fv_err_ = (call);                                           \
    if (fv_err_ != cudaSuccess) {                                           \
      fv_set_last_error ("%s: %s (%s:%d)", #call,                           \
          cudaGetErrorString (fv_err_), __FILE__, __LINE__);                \
      return FV_ERR_CUDA;                                                   \
    }                                                                       \
  } while (0)

/* Waits until the work queued on `s` is done, without holding a CPU core
 * for long when many threads wait: the runtime's own wait spins while a
 * context has fewer threads than the machine has cores (the driver's
 * default scheduling), and many streams of one process, each waiting on
 * its own thread, then spin every core and starve the threads that feed
 * the GPU (issue #24). This one polls while few threads wait (up to 2 ms:
 * no wake-up delay for a lone stream), else for FASTVISION_CUDA_SPIN_US, then
 * sleeps on a blocking event. fv_cuda.cu. */
extern "C" cudaError_t fv_cuda_sync (cudaStream_t s);

/* Makes `dev` the device of the calling thread without displacing a context
 * the caller made current on it: GStreamer's shared GstCudaContext is pushed
 * around our work, and cudaSetDevice would swap in the primary context,
 * whose memory and streams the frames' context cannot use. */
static inline cudaError_t
fv_cuda_use_device (int dev)
{
  int cur = -1;
  if (cudaGetDevice (&cur) == cudaSuccess && cur == dev)
    return cudaSuccess;
  return cudaSetDevice (dev);
}

#endif

#ifndef FV_PLAN_STREAM
#define FV_PLAN_STREAM
namespace fv {

/* The device and stream a CUDA plan works on: the caller's stream, or one
 * of the plan's own when the caller passes none. */
struct PlanStream {
  int device;
  cudaStream_t stream;
  bool own;

  cudaError_t open (int dev, void *caller_stream)
  {
    device = dev;
    cudaError_t e = fv_cuda_use_device (dev);
    if (e != cudaSuccess)
      return e;
    if (caller_stream) {
      stream = (cudaStream_t) caller_stream;
      own = false;
      return cudaSuccess;
    }
    own = true;
    return cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking);
  }

  void close ()
  {
    if (own && stream)
      cudaStreamDestroy (stream);
    stream = nullptr;
  }
};

/* Host frames on the device (the one staging rule of every CUDA plan): a
 * kernel reads and writes device memory; a frame on the host goes through
 * the plan's staging buffer (pitch bytes a row), uploaded before and
 * downloaded after, on the plan's stream. */
struct DevView {
  char *data;
  size_t stride;
};

/* src as the kernel reads it: src itself on the device, else rows x
 * row_bytes of it uploaded into staging. */
static inline cudaError_t
stage_in (const fv_image *src, const void *rows_from, int rows, size_t row_bytes, void *staging,
    size_t pitch, cudaStream_t st, DevView *v)
{
  v->data = (char *) rows_from;
  v->stride = src->stride;
  if (src->mem != FV_MEM_HOST)
    return cudaSuccess;
  v->data = (char *) staging;
  v->stride = pitch;
  return cudaMemcpy2DAsync (staging, pitch, rows_from, src->stride, row_bytes, rows,
      cudaMemcpyHostToDevice, st);
}

/* Where the kernel writes dst: dst itself on the device, else staging. */
static inline DevView
stage_target (const fv_image *dst, void *dst_rows, void *staging, size_t pitch)
{
  return dst->mem == FV_MEM_HOST ? DevView { (char *) staging, pitch }
      : DevView { (char *) dst_rows, dst->stride };
}

/* dst's rows x row_bytes from staging, where dst is on the host. */
static inline cudaError_t
stage_out (const fv_image *dst, void *dst_rows, int rows, size_t row_bytes,
    const void *staging, size_t pitch, cudaStream_t st)
{
  if (dst->mem != FV_MEM_HOST)
    return cudaSuccess;
  return cudaMemcpy2DAsync (dst_rows, dst->stride, staging, pitch, row_bytes, rows,
      cudaMemcpyDeviceToHost, st);
}

}  // namespace fv
#endif
