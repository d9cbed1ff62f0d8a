/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cuFFT opened with dlopen (fv_cufft.cuh). */
#include <dlfcn.h>
#include "fv_cufft.cuh"

namespace fv {

/* libcufft opened once per process; a static local's initialisation is
 * thread-safe, so plans made at once on several threads (the chunk
 * runner's lanes) all see it loaded, never half-way. */
static CufftApi
load_cufft (void)
{
  CufftApi api = {};
  const char *names[] = { "libcufft.so.12", "libcufft.so.13", "libcufft.so" };
  void *h = nullptr;
  for (const char *n : names)
    if ((h = dlopen (n, RTLD_NOW)))
      break;
  if (h) {
    api.plan_many = (int (*) (cufftHandle_t *, int, int *, int *, int, int, int *, int, int,
        int, int)) dlsym (h, "cufftPlanMany");
    api.r2c = (int (*) (cufftHandle_t, float *, cplx *)) dlsym (h, "cufftExecR2C");
    api.c2r = (int (*) (cufftHandle_t, cplx *, float *)) dlsym (h, "cufftExecC2R");
    api.set_stream = (int (*) (cufftHandle_t, cudaStream_t)) dlsym (h, "cufftSetStream");
    api.destroy = (int (*) (cufftHandle_t)) dlsym (h, "cufftDestroy");
    api.ok = api.plan_many && api.r2c && api.c2r && api.set_stream && api.destroy;
  }
  return api;
}

const CufftApi *
cufft (void)
{
  static const CufftApi api = load_cufft ();
  return api.ok ? &api : nullptr;
}

int
cufft_plan_batch (const CufftApi *api, cufftHandle_t *h, int px, int py, int batch, int type)
{
  int n[2] = { py, px };
  return api->plan_many (h, 2, n, nullptr, 1, 0, nullptr, 1, 0, type, batch);
}

}  // namespace fv
