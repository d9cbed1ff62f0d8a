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

#endif
