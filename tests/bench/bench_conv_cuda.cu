// GPU benchmark of fftconvolve's kernel (not run by CI): device images, CUDA
// events, median of runs, GRAY8 at 1080p, 4K and 8K with kernels of 7, 31
// and 101 taps a side.
#include <algorithm>
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>
#include "fv_conv.h"

int
main ()
{
  cudaStream_t stream;
  cudaSetDevice (0);
  cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking);
  struct { const char *name; int w, h; } sizes[] = {
    {"1080p", 1920, 1080}, {"4K", 3840, 2160}, {"8K", 7680, 4320} };
  printf ("| size | kernel | FFT size | fastvision ms |\n|---|---|---|---|\n");
  for (auto &s : sizes)
    for (int k : {7, 31, 101}) {
      std::vector<float> kern ((size_t) k * k, 1.0f);
      unsigned char *a, *b;
      cudaMalloc (&a, (size_t) s.w * s.h);
      cudaMalloc (&b, (size_t) s.w * s.h);
      cudaMemset (a, 90, (size_t) s.w * s.h);
      fv_conv_params p = { s.w, s.h, 1, 1, FV_U8, kern.data (), k, k, 1, 0, FV_CONV_MIRROR,
        FV_CONV_FFT, 0, 0 };
      fv_conv_plan *plan;
      if (fv_conv_plan_create (&plan, &p, FV_BACKEND_CUDA, 0, stream) != FV_OK) {
        fprintf (stderr, "plan: %s\n", fv_last_error ());
        return 1;
      }
      fv_image A = fv_image_make (a, s.w, s.w, s.h, 1, FV_U8, FV_MEM_DEVICE), B = A;
      B.data = b;
      cudaEvent_t e0, e1;
      cudaEventCreate (&e0);
      cudaEventCreate (&e1);
      fv_conv_execute (plan, &A, &B);
      std::vector<float> t;
      for (int i = 0; i < 20; i++) {
        cudaEventRecord (e0, stream);
        fv_conv_execute (plan, &A, &B);
        cudaEventRecord (e1, stream);
        cudaEventSynchronize (e1);
        float ms;
        cudaEventElapsedTime (&ms, e0, e1);
        t.push_back (ms);
      }
      std::sort (t.begin (), t.end ());
      printf ("| %s | %d x %d | %dx%d | %.4f |\n", s.name, k, k, fv_conv_fast_size (s.w + k - 1),
          fv_conv_fast_size (s.h + k - 1), t[t.size () / 2]);
      fv_conv_plan_destroy (plan);
      cudaFree (a);
      cudaFree (b);
    }
  return 0;
}
