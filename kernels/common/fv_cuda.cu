/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Device discovery, streams and pinned memory through the static CUDA
 * runtime, which opens the driver itself: without one every call here
 * fails cleanly and the caller falls back to the CPU. */
#include <cstdio>
#include "fv_cuda.h"
#include "fv_cuda_check.cuh"

extern "C" int
fv_cuda_built (void)
{
  return 1;
}

extern "C" int
fv_cuda_device_count (void)
{
  int n = 0;
  if (cudaGetDeviceCount (&n) != cudaSuccess) {
    cudaGetLastError ();  /* clear the sticky "no driver" state */
    return 0;
  }
  return n;
}

extern "C" fv_status
fv_cuda_check_device (int device, char *why, size_t why_len)
{
  int n = 0;
  cudaError_t err = cudaGetDeviceCount (&n);
  if (err != cudaSuccess) {
    cudaGetLastError ();
    snprintf (why, why_len, "no usable CUDA driver or GPU (%s)",
        cudaGetErrorString (err));
    return FV_ERR_NO_CUDA;
  }
  if (device < 0 || device >= n) {
    snprintf (why, why_len, "device-id %d out of range: %d CUDA device(s) present",
        device, n);
    return FV_ERR_NO_CUDA;
  }
  cudaDeviceProp prop;
  err = cudaGetDeviceProperties (&prop, device);
  if (err != cudaSuccess) {
    snprintf (why, why_len, "cannot query CUDA device %d (%s)", device,
        cudaGetErrorString (err));
    return FV_ERR_NO_CUDA;
  }
  if (prop.major < 7 || (prop.major == 7 && prop.minor < 5)) {
    snprintf (why, why_len, "CUDA device %d (%s) has compute capability %d.%d; "
        "fastvision needs 7.5 or newer", device, prop.name, prop.major, prop.minor);
    return FV_ERR_NO_CUDA;
  }
  /* Touch the context so a broken driver shows up now, not mid-stream. */
  err = cudaSetDevice (device);
  if (err == cudaSuccess)
    err = cudaFree (0);
  if (err != cudaSuccess) {
    snprintf (why, why_len, "cannot create a context on CUDA device %d (%s)",
        device, cudaGetErrorString (err));
    cudaGetLastError ();
    return FV_ERR_NO_CUDA;
  }
  if (why_len)
    why[0] = '\0';
  return FV_OK;
}

extern "C" fv_status
fv_cuda_stream_create (int device, void **stream)
{
  cudaStream_t s;
  FV_CUDA_TRY (cudaSetDevice (device));
  FV_CUDA_TRY (cudaStreamCreateWithFlags (&s, cudaStreamNonBlocking));
  *stream = (void *) s;
  return FV_OK;
}

extern "C" void
fv_cuda_stream_destroy (void *stream)
{
  if (stream)
    cudaStreamDestroy ((cudaStream_t) stream);
}

extern "C" void *
fv_cuda_host_alloc (size_t size)
{
  void *p = NULL;
  if (cudaHostAlloc (&p, size, cudaHostAllocPortable) != cudaSuccess) {
    cudaGetLastError ();
    return NULL;
  }
  return p;
}

extern "C" void
fv_cuda_host_free (void *ptr)
{
  if (ptr)
    cudaFreeHost (ptr);
}

extern "C" void *
fv_cuda_malloc (size_t size)
{
  void *p = NULL;
  if (cudaMalloc (&p, size) != cudaSuccess) {
    cudaGetLastError ();
    return NULL;
  }
  return p;
}

extern "C" void
fv_cuda_free (void *ptr)
{
  if (ptr)
    cudaFree (ptr);
}

extern "C" fv_status
fv_cuda_memcpy (void *dst, const void *src, size_t size)
{
  FV_CUDA_TRY (cudaMemcpy (dst, src, size, cudaMemcpyDefault));
  return FV_OK;
}
