/* SPDX-License-Identifier: LGPL-2.1-or-later */
// What the CUDA benchmarks share (not run by CI): a kernel's time by CUDA
// events, the median of `reps` runs after `warm` ones (fn takes the run's
// index where it wants to rotate its inputs), and NPP reached through
// dlopen (its context filled from the device, its symbols by name), so that
// the benchmarks build where NPP's headers are absent.
#ifndef BENCH_CUDA_CUH
#define BENCH_CUDA_CUH

#include <algorithm>
#include <cstring>
#include <dlfcn.h>
#include <type_traits>
#include <vector>
#include <cuda_runtime.h>

template <typename F>
static double
event_median_ms (cudaStream_t stream, F &&fn, int reps, int warm = 1)
{
  auto call = [&] (int i) {
    if constexpr (std::is_invocable_v<F &, int>)
      fn (i);
    else
      fn ();
  };
  cudaEvent_t a, b;
  cudaEventCreate (&a);
  cudaEventCreate (&b);
  for (int i = 0; i < warm; i++)
    call (i);
  std::vector<float> t;
  for (int i = 0; i < reps; i++) {
    cudaEventRecord (a, stream);
    call (i);
    cudaEventRecord (b, stream);
    cudaEventSynchronize (b);
    float ms = 0;
    cudaEventElapsedTime (&ms, a, b);
    t.push_back (ms);
  }
  std::sort (t.begin (), t.end ());
  cudaEventDestroy (a);
  cudaEventDestroy (b);
  return t.empty () ? 0 : t[t.size () / 2];
}

// NppStreamContext's layout (nppdefs.h), and the few NPP types used
struct NppCtx {
  cudaStream_t hStream;
  int nCudaDeviceId, nMultiProcessorCount, nMaxThreadsPerMultiProcessor, nMaxThreadsPerBlock;
  size_t nSharedMemPerBlock;
  int nCudaDevAttrComputeCapabilityMajor, nCudaDevAttrComputeCapabilityMinor;
  unsigned int nStreamFlags;
  int nReserved0;
  char spare[64];
};
struct NppSize { int width, height; };

// The context of `stream` on device 0.
static inline NppCtx
npp_context (cudaStream_t stream)
{
  cudaDeviceProp p;
  cudaGetDeviceProperties (&p, 0);
  NppCtx c;
  memset (&c, 0, sizeof c);
  c.hStream = stream;
  c.nMultiProcessorCount = p.multiProcessorCount;
  c.nMaxThreadsPerMultiProcessor = p.maxThreadsPerMultiProcessor;
  c.nMaxThreadsPerBlock = p.maxThreadsPerBlock;
  c.nSharedMemPerBlock = p.sharedMemPerBlock;
  c.nCudaDevAttrComputeCapabilityMajor = p.major;
  c.nCudaDevAttrComputeCapabilityMinor = p.minor;
  cudaStreamGetFlags (stream, &c.nStreamFlags);
  return c;
}

// An NPP function by name from whichever of NPP's libraries has it, or null.
static inline void *
npp_sym (const char *name)
{
  const char *libs[] = { "libnppif.so", "libnppif.so.13", "libnppif.so.12", "libnppist.so",
    "libnppist.so.13", "libnppist.so.12", "libnppial.so", "libnppc.so" };
  for (const char *l : libs) {
    void *h = dlopen (l, RTLD_NOW | RTLD_GLOBAL);
    void *s = h ? dlsym (h, name) : nullptr;
    if (s)
      return s;
  }
  return nullptr;
}

#endif
