/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the convolution's CUDA files share beside the kernels (private to
 * kernels/fftconv): the single plan's state, which the grid plan reads for
 * its cells; the kernel spectrum (fv_conv_cuda.cu); the transform layouts
 * and their timing (fv_conv_cuda_tune.cu). */
#ifndef FV_CONV_CUDA_INTERNAL_CUH
#define FV_CONV_CUDA_INTERNAL_CUH

#include <vector>
#include "fv_conv_cuda.h"
#include "fv_conv_cuda_kernels.cuh"
#include "../common/fv_cuda_check.cuh"

namespace fvconv {

using fv::CufftApi;
using fv::cufftHandle_t;
using fv::cufft;
using fv::cufft_plan_batch;
using fv::CUFFT_R2C_;
using fv::CUFFT_C2R_;

struct ConvCuda {
  fv::PlanStream ps;
  Tiles t;              /* the window's layout, all its tiles */
  int group;            /* rows of t's tiles transformed at once: buffers and cuFFT's
                         * plans hold t.nx * group tiles (p.batch_rows) */
  int rx, ry, ow, oh;   /* the window computed */
  bool direct;          /* summed in shared memory, no FFT */
  float *kern;          /* direct: the taps on the device */
  fv_conv_params p;     /* the plan's own (kernel size, border) */
  fv::cufftHandle_t fwd, inv;
  bool have_fwd, have_inv;
  float *buf, *scale;
  cplx *spec, *kspec;
  float uniform;
  char *d_src, *d_dst;
  size_t pitch;
};

/* A kernel's conjugated spectrum at the layout t into out: the kernel at
 * (ox, oy) of buf's first tile, zeros elsewhere, through fwd (a forward
 * batch of t's tiles writing spec). */
fv_status kernel_spectrum (const CufftApi *api, cufftHandle_t fwd, const Tiles &t, float *buf,
    cplx *spec, const float *kernel, int kw, int kh, int ox, int oy, cplx *out, cudaStream_t st);

/* A frame as a plan's kernels read and write it: on the device where it
 * is (fv::stage_in, fv::stage_target: the frame's own memory, or the plan's
 * buffers d_src and d_dst of row pitch `pitch` after an upload), with the
 * channels outside the mask already copied through; unstage_frame, once
 * the kernels are queued, brings a host frame's result back and waits as
 * the plan's contract says (fv_cuda_finish). */
struct Staged {
  const char *s;
  size_t sstride;
  char *d;
  size_t dstride, row;
  char *d_dst;     /* the plan's result buffer and its pitch */
  size_t pitch;
};
fv_status stage_frame (const fv_conv_params *p, const fv_image *src, const fv_image *dst,
    char *d_src, char *d_dst, size_t pitch, cudaStream_t st, Staged *out);
fv_status unstage_frame (const fv_conv_params *p, const fv_image *dst, const Staged *f,
    cudaStream_t st);

/* Layouts (fv_conv_cuda_tune.cu): the whole w x h window as one padded
 * pw x ph transform; tiles of tw x th outputs; the candidates worth timing;
 * the median time of a channel's transforms at a layout (negative when it
 * cannot be measured); the layout a plan uses (tile > 0 forces tiles of
 * that many outputs a side, -1 the whole window, 0 the fastest, timed once
 * per window, kernel size and device in the process). */
Tiles whole (int w, int h, int pw, int ph);
Tiles tiled (int w, int h, int kw, int kh, int tw, int th);
std::vector<Tiles> layout_candidates (int w, int h, int kw, int kh, int pw, int ph);
float time_layout (const CufftApi *api, const Tiles &t, int inverses);
Tiles choose_layout (const CufftApi *api, int w, int h, int kw, int kh, int pw, int ph, int tile,
    int device);

/* The fastest of cands, each timed with inverses (t) inverse transforms;
 * the first when none can be timed. */
template <typename F>
Tiles
fastest (const CufftApi *api, const std::vector<Tiles> &cands, F inverses)
{
  Tiles best = cands[0];
  float best_ms = -1.f;
  for (const Tiles &t : cands) {
    const float ms = time_layout (api, t, inverses (t));
    if (ms >= 0 && (best_ms < 0 || ms < best_ms)) {
      best_ms = ms;
      best = t;
    }
  }
  return best;
}

}  // namespace fvconv

#endif
