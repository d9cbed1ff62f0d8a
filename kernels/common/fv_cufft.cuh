/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* cuFFT for the CUDA kernels, opened with dlopen so that the plugin loads
 * where no CUDA toolkit is installed: the few entry points used, and the
 * batched 2D plans they make. */
#ifndef FV_CUFFT_CUH
#define FV_CUFFT_CUH

#include <cuda_runtime.h>
#include "fv_image.h"

namespace fv {

typedef int cufftHandle_t;
typedef struct { float x, y; } cplx;
enum { CUFFT_R2C_ = 0x2a, CUFFT_C2R_ = 0x2c };
struct CufftApi {
  int (*plan_many) (cufftHandle_t *, int, int *, int *, int, int, int *, int, int, int, int);
  int (*r2c) (cufftHandle_t, float *, cplx *);
  int (*c2r) (cufftHandle_t, cplx *, float *);
  int (*set_stream) (cufftHandle_t, cudaStream_t);
  int (*destroy) (cufftHandle_t);
  bool ok;
};

/* The loaded library, or NULL where it cannot be opened. */
const CufftApi *cufft (void);

/* batch 2D transforms of py rows by px columns, contiguous */
int cufft_plan_batch (const CufftApi *api, cufftHandle_t *h, int px, int py, int batch, int type);

}  // namespace fv

/* Returns FV_ERR_CUDA from the calling function when a cuFFT call fails. */
#define CUFFT_TRY(call)                                                         \
  do {                                                                          \
    int r_ = (call);                                                            \
    if (r_ != 0) {                                                              \
      fv_set_last_error ("%s failed: cuFFT error %d", #call, r_);              \
      return FV_ERR_CUDA;                                                       \
    }                                                                           \
  } while (0)

#endif
