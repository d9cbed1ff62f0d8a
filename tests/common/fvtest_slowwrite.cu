/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A producer that is still writing when it pushes: one thread spins for
 * `spin_ms` on `stream`, then the frame is copied in. Queued on the
 * stream, not waited for (what 1.24's CUDA memory allows a producer). */
#include <cuda_runtime.h>
#include "fvtest_slowwrite.h"

static __global__ void
spin (long long ns)
{
  unsigned long long t0, t;
  asm volatile ("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do {
    __nanosleep (10000);
    asm volatile ("mov.u64 %0, %%globaltimer;" : "=l"(t));
  } while ((long long) (t - t0) < ns);
}

extern "C" int
fvtest_slow_copy (void *dst, size_t dst_pitch, const void *src, size_t src_pitch,
    size_t row_bytes, int rows, void *stream, int spin_ms)
{
  cudaStream_t s = (cudaStream_t) stream;
  spin<<<1, 1, 0, s>>> ((long long) spin_ms * 1000000);
  if (cudaGetLastError () != cudaSuccess)
    return -1;
  return cudaMemcpy2DAsync (dst, dst_pitch, src, src_pitch, row_bytes, rows,
      cudaMemcpyDefault, s) == cudaSuccess ? 0 : -1;
}

extern "C" int
fvtest_stream_busy (void *stream)
{
  return cudaStreamQuery ((cudaStream_t) stream) == cudaErrorNotReady;
}

extern "C" void *
fvtest_host_alloc (size_t size)
{
  void *p = NULL;
  return cudaHostAlloc (&p, size, cudaHostAllocPortable) == cudaSuccess ? p : NULL;
}

extern "C" void
fvtest_host_free (void *p)
{
  cudaFreeHost (p);
}
