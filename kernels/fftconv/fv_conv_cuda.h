/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The CUDA half of the convolution plan (private to kernels/fftconv). */
#ifndef FV_CONV_CUDA_H
#define FV_CONV_CUDA_H

#include "fv_conv.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The padded transform size for an ew x eh extended frame that cuFFT runs
 * fastest, timed once per size and process; leaves *pw, *ph as they are
 * when it cannot time them. */
void fv_conv_cuda_pick_size (int ew, int eh, int device, int *pw, int *ph);

/* Device bytes a plan of p at width x height takes (an upper estimate:
 * buffers, spectra, cuFFT's work areas, staging). */
size_t fv_conv_cuda_bytes (const fv_conv_params *p, int direct, int width, int height);

/* 1 when a CUDA plan of p sums directly rather than by FFT. */
int fv_conv_cuda_direct (const fv_conv_params *p);

/* scale: width*height per-pixel factors (renormalize) or NULL for uniform. */
fv_status fv_conv_cuda_init (void **cuda, const fv_conv_params *p, int direct, int pw, int ph,
    const float *scale, float uniform_scale, int device, void *stream);
fv_status fv_conv_cuda_execute (void *cuda, const fv_conv_params *p, const fv_image *src,
    const fv_image *dst);
/* Rows [row0, row0 + rows) of the result into dst (fv_conv_execute_rows). */
fv_status fv_conv_cuda_execute_rows (void *cuda, const fv_conv_params *p, const fv_image *src,
    const fv_image *dst, int row0, int rows);
void fv_conv_cuda_free (void *cuda);
/* The transforms' layout a plan chose: px x py samples, tiles of them
 * (1: the whole window); 0s for direct summation. */
void fv_conv_cuda_layout (void *cuda, int *px, int *py, int *tiles);

/* The GPU half of a CUDA plan, NULL for CPU plans. */
void *fv_conv_plan_cuda (const fv_conv_plan *plan);

/* Grids: each cell's window plan adds its weighted result into acc (a
 * device float frame); src is a device image. */
fv_status fv_conv_cuda_accumulate (void *cuda, const fv_conv_params *p, const void *src,
    size_t stride, int channel, float *acc, int cols, int rows, int ci, int cj);
fv_status fv_conv_cuda_grid_init (void **grid, const fv_conv_params *p, int device,
    void *stream);
fv_status fv_conv_cuda_grid_execute (void *grid, const fv_conv_params *p, void *const *cells,
    int cols, int rows, const fv_image *src, const fv_image *dst);
void fv_conv_cuda_grid_free (void *grid);
/* The grid's stream, for its cells' plans, so that they run in order. */
void *fv_conv_cuda_grid_stream (void *grid);
/* Once the cells are planned: one forward transform of the frame's tiles
 * shared by every cell, where all cells go by FFT and the buffers fit
 * (else each cell keeps transforming its own window). */
fv_status fv_conv_cuda_grid_share (void *grid, const fv_conv_params *p, void *const *cells,
    int cols, int rows);
/* The (cell, tile) pairs the shared transforms run; 0 on the per-cell path. */
int fv_conv_cuda_grid_pairs (void *grid);
/* The same for a grid (tests and benchmarks: which path it took). */
int fv_conv_grid_shared_pairs (const fv_conv_grid *grid);

#ifdef __cplusplus
}
#endif
#endif
