/* The CUDA half of the convolution plan (private to kernels/fftconv). */
#ifndef FV_CONV_CUDA_H
#define FV_CONV_CUDA_H

#include "fv_conv.h"

#ifdef __cplusplus
extern "C" {
#endif

/* scale: width*height per-pixel factors (renormalize) or NULL for uniform. */
fv_status fv_conv_cuda_init (void **cuda, const fv_conv_params *p, int pw, int ph,
    const float *scale, float uniform_scale, int device, void *stream);
fv_status fv_conv_cuda_execute (void *cuda, const fv_conv_params *p, const fv_image *src,
    const fv_image *dst);
void fv_conv_cuda_free (void *cuda);

#ifdef __cplusplus
}
#endif
#endif
