/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The convolution's CUDA single plan: one kernel over the frame (or a
 * window of it), by cuFFT (real-to-complex and back) or, for small
 * kernels, summed directly in shared memory. The transforms run over the
 * whole window or, overlap-save, over a batch of tiles: each tile's
 * transform holds its outputs and the kernel's reach around them, so no
 * tile's correlation wraps into its outputs; the layout is timed once per
 * size (fv_conv_cuda_tune.cu). The kernel's spectrum stays on the device.
 * The kernels themselves are in fv_conv_cuda_kernels.cuh, cuFFT's loader in
 * common/fv_cufft.cu, the grid plan in fv_conv_cuda_grid.cu. */
#include <cstdlib>
#include "fv_conv_cuda_internal.cuh"
#include "../common/fv_cuda.h"

namespace fvconv {

/* The tiles a plan transforms at once: a batch of its layout's rows */
static Tiles
batch (const ConvCuda *c)
{
  Tiles t = c->t;
  t.ny = c->group;
  return t;
}

/* A window of w x h outputs at (rx, ry) as the plan's batch of tiles
 * lays it out (all of its layout when it transforms every tile at once) */
Geo
plan_geo (const ConvCuda *c, int w, int h, int channels, int channel, int rx, int ry)
{
  const fv_conv_params &p = c->p;
  return geo_make (w, h, channels, channel, p.kernel_width, p.kernel_height, (int) p.border, rx,
      ry, p.frame.width, p.frame.height, batch (c));
}

/* A kernel's conjugated spectrum at the layout t into out: the kernel at
 * (ox, oy) of buf's first tile, zeros elsewhere, through fwd (a forward
 * batch of t's tiles writing spec). */
fv_status
kernel_spectrum (const CufftApi *api, cufftHandle_t fwd, const Tiles &t, float *buf, cplx *spec,
    const float *kernel, int kw, int kh, int ox, int oy, cplx *out, cudaStream_t st)
{
  const size_t nc = t.spectrum ();
  FV_CUDA_TRY (cudaMemsetAsync (buf, 0, sizeof (float) * t.reals (), st));
  FV_CUDA_TRY (cudaMemcpy2DAsync (buf + (size_t) oy * t.px + ox, sizeof (float) * t.px, kernel,
      sizeof (float) * kw, sizeof (float) * kw, kh, cudaMemcpyHostToDevice, st));
  CUFFT_TRY (api->r2c (fwd, buf, spec));
  FV_CUDA_TRY (cudaMemcpyAsync (out, spec, sizeof (cplx) * nc, cudaMemcpyDeviceToDevice, st));
  conjugate<<<(unsigned) ((nc + 255) / 256), 256, 0, st>>> (out, nc);
  FV_CUDA_TRY (cudaGetLastError ());
  return FV_OK;
}

/* The raw correlation of one channel into c->buf (laid out as g.t),
 * directly or through the spectra. */
static fv_status
correlate (ConvCuda *c, const CufftApi *api, const char *src, size_t stride, const Geo &g,
    fv_sample sample, float norm)
{
  cudaStream_t st = c->ps.stream;
  if (c->direct) {
    dim3 blk (32, 8), grid ((g.w + 31) / 32, (g.h + 7) / 8);
    const size_t smem = sizeof (float) * (32 + g.kw - 1) * (8 + g.kh - 1);
    if (sample == FV_U8)
      direct_sum<uint8_t><<<grid, blk, smem, st>>> (src, stride, g, c->kern, c->buf);
    else
      direct_sum<uint16_t><<<grid, blk, smem, st>>> (src, stride, g, c->kern, c->buf);
    FV_CUDA_TRY (cudaGetLastError ());
    return FV_OK;
  }
  const Tiles &t = g.t;   /* the plan's batch of tiles */
  const size_t nc = t.spectrum ();
  launch_extend (src, stride, g, sample, c->buf, st);
  CUFFT_TRY (api->r2c (c->fwd, c->buf, c->spec));
  multiply<<<dim3 ((unsigned) ((nc + 255) / 256), t.count ()), 256, 0, st>>> (c->spec, c->kspec,
      nc, norm);
  CUFFT_TRY (api->c2r (c->inv, c->spec, c->buf));
  return FV_OK;
}

fv_status
stage_frame (const fv_conv_params *p, const fv_image *src, const fv_image *dst, char *d_src,
    char *d_dst, size_t pitch, cudaStream_t st, Staged *f)
{
  f->row = fv_image_row_bytes (src);
  fv::DevView in, out = fv::stage_target (dst, dst->data, d_dst, pitch);
  FV_CUDA_TRY (fv::stage_in (src, src->data, p->frame.height, f->row, d_src, pitch, st, &in));
  *f = Staged { in.data, in.stride, out.data, out.stride, f->row, d_dst, pitch };
  if (p->channel_mask != (1u << p->frame.channels) - 1)
    FV_CUDA_TRY (cudaMemcpy2DAsync (f->d, f->dstride, f->s, f->sstride, f->row, p->frame.height,
        cudaMemcpyDeviceToDevice, st));
  return FV_OK;
}

fv_status
unstage_frame (const fv_conv_params *p, const fv_image *dst, const Staged *f, cudaStream_t st)
{
  FV_CUDA_TRY (cudaGetLastError ());
  FV_CUDA_TRY (fv::stage_out (dst, dst->data, p->frame.height, f->row, f->d_dst, f->pitch, st));
  return fv_cuda_finish (st, dst->mem != FV_MEM_HOST);
}

}  // namespace fvconv

using namespace fvconv;

extern "C" fv_status
fv_conv_cuda_init (void **out, const fv_conv_params *p, int direct, int pw, int ph,
    const float *scale, float uniform_scale, int device, void *stream)
{
  const CufftApi *api = cufft ();
  if (!api && !direct) {
    fv_set_last_error ("cuFFT (libcufft) is not installed");
    return FV_ERR_NO_CUDA;
  }
  ConvCuda *c = (ConvCuda *) calloc (1, sizeof (ConvCuda));
  if (!c)
    return FV_ERR_NOMEM;
  *out = c;
  c->uniform = uniform_scale;
  c->p = *p;
  c->rx = p->frame.roi_width ? p->frame.roi_x : 0;
  c->ry = p->frame.roi_width ? p->frame.roi_y : 0;
  c->ow = p->frame.roi_width ? p->frame.roi_width : p->frame.width;
  c->oh = p->frame.roi_width ? p->frame.roi_height : p->frame.height;
  FV_CUDA_TRY (c->ps.open (device, stream));
  c->direct = direct;
  /* direct: results straight into a window-sized buffer; batched rows:
   * fv_conv_batch_tiles's tiles, so many rows at a time */
  const bool batched = !direct && p->batch_rows > 0 && !p->frame.roi_width;
  int btw = 0, bth = 0;
  if (batched)
    fv_conv_batch_tiles (p, c->ow, c->oh, &btw, &bth);
  c->t = direct ? whole (c->ow, c->oh, c->ow, c->oh)
      : batched ? tiled (c->ow, c->oh, p->kernel_width, p->kernel_height, btw, bth)
      : choose_layout (api, c->ow, c->oh, p->kernel_width, p->kernel_height, pw, ph, p->tile,
          device);
  c->group = batched && p->batch_rows < c->t.ny ? p->batch_rows : c->t.ny;
  const Tiles t = batch (c);
  const size_t nr = t.reals (), nc = t.spectrum ();
  FV_CUDA_TRY (cudaMalloc (&c->buf, sizeof (float) * nr));
  if (!direct) {
    FV_CUDA_TRY (cudaMalloc (&c->spec, sizeof (cplx) * nc * t.count ()));
    FV_CUDA_TRY (cudaMalloc (&c->kspec, sizeof (cplx) * nc));
  }
  const size_t row = (size_t) p->frame.width * p->frame.channels * p->frame.sample;
  FV_CUDA_TRY (cudaMallocPitch ((void **) &c->d_src, &c->pitch, row, p->frame.height));
  size_t pitch2;
  FV_CUDA_TRY (cudaMallocPitch ((void **) &c->d_dst, &pitch2, row, p->frame.height));
  if (scale) {
    FV_CUDA_TRY (cudaMalloc (&c->scale, sizeof (float) * c->ow * c->oh));
    /* on the plan's stream: a plain cudaMemcpy from pageable memory returns
     * before its DMA lands and is not ordered with a non-blocking stream
     * (chunk lanes' first rows came out of taps not yet there) */
    FV_CUDA_TRY (cudaMemcpyAsync (c->scale, scale, sizeof (float) * c->ow * c->oh,
        cudaMemcpyHostToDevice, c->ps.stream));
  }
  if (direct) {
    const size_t nk = (size_t) p->kernel_width * p->kernel_height;
    FV_CUDA_TRY (cudaMalloc (&c->kern, sizeof (float) * nk));
    FV_CUDA_TRY (cudaMemcpyAsync (c->kern, p->kernel, sizeof (float) * nk,
        cudaMemcpyHostToDevice, c->ps.stream));
    const size_t smem = sizeof (float) * (32 + p->kernel_width - 1) * (8 + p->kernel_height - 1);
    if (smem > 48 * 1024) {
      int dev_max = 0;
      FV_CUDA_TRY (cudaDeviceGetAttribute (&dev_max, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
      if (smem > (size_t) dev_max) {
        fv_set_last_error ("kernel too large for direct summation on this GPU: use method=fft");
        return FV_ERR_INVALID;
      }
      FV_CUDA_TRY (cudaFuncSetAttribute (direct_sum<uint8_t>,
          cudaFuncAttributeMaxDynamicSharedMemorySize, (int) smem));
      FV_CUDA_TRY (cudaFuncSetAttribute (direct_sum<uint16_t>,
          cudaFuncAttributeMaxDynamicSharedMemorySize, (int) smem));
    }
    FV_CUDA_TRY (fv_cuda_sync (c->ps.stream));
    return FV_OK;
  }
  CUFFT_TRY (cufft_plan_batch (api, &c->fwd, t.px, t.py, t.count (), CUFFT_R2C_));
  c->have_fwd = true;
  CUFFT_TRY (cufft_plan_batch (api, &c->inv, t.px, t.py, t.count (), CUFFT_C2R_));
  c->have_inv = true;
  CUFFT_TRY (api->set_stream (c->fwd, c->ps.stream));
  CUFFT_TRY (api->set_stream (c->inv, c->ps.stream));
  /* the kernel's spectrum, once */
  fv_status r = kernel_spectrum (api, c->fwd, t, c->buf, c->spec, p->kernel, p->kernel_width,
      p->kernel_height, 0, 0, c->kspec, c->ps.stream);
  if (r != FV_OK)
    return r;
  FV_CUDA_TRY (fv_cuda_sync (c->ps.stream));
  return FV_OK;
}

/* Rows [y0, y0 + rows) of the whole-frame result, from s into d (d's
 * first row is y0's), a batch of tile rows at a time, the batches' tiles
 * starting at y0: queued on the plan's stream. */
static fv_status
run_rows (ConvCuda *c, const fv_conv_params *p, const char *s, size_t sstride, char *d,
    size_t dstride, int y0, int rows)
{
  const CufftApi *api = cufft ();
  cudaStream_t st = c->ps.stream;
  const Tiles t = batch (c);
  const float norm = 1.0f / ((float) t.px * (float) t.py);
  const float maxv = p->frame.sample == FV_U8 ? 255.0f : 65535.0f;
  const int step = t.th * t.ny;   /* the rows a batch makes */
  for (int ch = 0; ch < p->frame.channels; ch++) {
    if (!(p->channel_mask & (1u << ch)))
      continue;
    for (int y = 0; y < rows; y += step) {
      const int h = rows - y < step ? rows - y : step;
      const Geo g = plan_geo (c, c->ow, h, p->frame.channels, ch, c->rx, c->ry + y0 + y);
      fv_status r = correlate (c, api, s, sstride, g, p->frame.sample, norm);
      if (r != FV_OK)
        return r;
      char *out = d + (size_t) y * dstride;
      const float *scale = c->scale ? c->scale + (size_t) (y0 + y) * c->ow : NULL;
      const bool words = words_ok (out, dstride, p->frame.channels, p->frame.sample)
          && t.tw % 4 == 0
          && t.px % 4 == 0;
      dim3 blk (32, 8), gout ((c->ow + 32 * SPAN - 1) / (32 * SPAN), (h + 7) / 8);
      if (p->frame.sample == FV_U8)
        finish<uint8_t><<<gout, blk, 0, st>>> (c->buf, g, words, scale, c->uniform,
            (float) p->bias, maxv, out, dstride);
      else
        finish<uint16_t><<<gout, blk, 0, st>>> (c->buf, g, words, scale, c->uniform,
            (float) p->bias, maxv, out, dstride);
    }
  }
  FV_CUDA_TRY (cudaGetLastError ());
  return FV_OK;
}

extern "C" fv_status
fv_conv_cuda_execute (void *cuda, const fv_conv_params *p, const fv_image *src,
    const fv_image *dst)
{
  ConvCuda *c = (ConvCuda *) cuda;
  cudaStream_t st = c->ps.stream;
  FV_CUDA_TRY (fv_cuda_use_device (c->ps.device));
  Staged f;
  fv_status sr = stage_frame (p, src, dst, c->d_src, c->d_dst, c->pitch, st, &f);
  if (sr == FV_OK)
    sr = run_rows (c, p, f.s, f.sstride, f.d, f.dstride, 0, p->frame.height);
  return sr == FV_OK ? unstage_frame (p, dst, &f, st) : sr;
}

extern "C" fv_status
fv_conv_cuda_execute_rows (void *cuda, const fv_conv_params *p, const fv_image *src,
    const fv_image *dst, int row0, int rows)
{
  ConvCuda *c = (ConvCuda *) cuda;
  cudaStream_t st = c->ps.stream;
  FV_CUDA_TRY (fv_cuda_use_device (c->ps.device));
  if (!fv_cuda_image_on_device (src, c->ps.device) || !fv_cuda_image_on_device (dst, c->ps.device)) {
    fv_set_last_error ("row windows take device frames on the plan's device (%d)", c->ps.device);
    return FV_ERR_INVALID;
  }
  const char *s = (const char *) src->data;
  char *d = (char *) dst->data;
  if (p->channel_mask != (1u << p->frame.channels) - 1)
    FV_CUDA_TRY (cudaMemcpy2DAsync (d, dst->stride, s + (size_t) row0 * src->stride, src->stride,
        fv_image_row_bytes (src), rows, cudaMemcpyDeviceToDevice, st));
  fv_status r = run_rows (c, p, s, src->stride, d, dst->stride, row0, rows);
  if (r != FV_OK)
    return r;
  FV_CUDA_TRY (fv_cuda_sync (st));
  return FV_OK;
}

extern "C" void
fv_conv_cuda_layout (void *cuda, int *px, int *py, int *tiles)
{
  const ConvCuda *c = (const ConvCuda *) cuda;
  *px = c->direct ? 0 : c->t.px;
  *py = c->direct ? 0 : c->t.py;
  *tiles = c->direct ? 0 : c->t.count ();
}

extern "C" fv_status
fv_conv_cuda_accumulate (void *cuda, const fv_conv_params *grid_params, const void *src,
    size_t stride, int channel, float *acc, int cols, int rows, int ci, int cj)
{
  ConvCuda *c = (ConvCuda *) cuda;
  const fv_conv_params *p = &c->p;   /* this cell's kernel, not the grid's first */
  (void) grid_params;
  const CufftApi *api = cufft ();
  cudaStream_t st = c->ps.stream;
  FV_CUDA_TRY (fv_cuda_use_device (c->ps.device));
  const float norm = 1.0f / ((float) c->t.px * (float) c->t.py);
  const Geo g = plan_geo (c, c->ow, c->oh, p->frame.channels, channel, c->rx, c->ry);
  dim3 blk (32, 8), gout ((c->ow + 31) / 32, (c->oh + 7) / 8);
  fv_status r = correlate (c, api, (const char *) src, stride, g, p->frame.sample, norm);
  if (r != FV_OK)
    return r;
  accumulate<<<gout, blk, 0, st>>> (c->buf, g, c->scale, c->uniform, acc, cols, rows, ci, cj);
  FV_CUDA_TRY (cudaGetLastError ());
  return FV_OK;
}

extern "C" void
fv_conv_cuda_free (void *cuda)
{
  ConvCuda *c = (ConvCuda *) cuda;
  if (!c)
    return;
  const CufftApi *api = cufft ();
  fv_cuda_use_device (c->ps.device);
  if (api && c->have_fwd)
    api->destroy (c->fwd);
  if (api && c->have_inv)
    api->destroy (c->inv);
  cudaFree (c->buf);
  cudaFree (c->kern);
  cudaFree (c->scale);
  cudaFree (c->spec);
  cudaFree (c->kspec);
  cudaFree (c->d_src);
  cudaFree (c->d_dst);
  c->ps.close ();
  free (c);
}
