/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* 2D convolution or correlation of images with any kernel, by FFT or by
 * direct summation. Plan once per size and kernel, execute per frame.
 *
 *   out(x, y) = s(x, y) * sum_{j,i} K[j][i] * E(x + i - cx, y + j - cy) + bias
 *
 * rounded to nearest and clamped to the sample range, with the kernel's
 * centre cx = kw/2, cy = kh/2 (for even sizes: the tap right of / below
 * the middle, as OpenCV's default anchor) and E the border-extended image.
 * This is filter2D's correlation; with `convolve` set, the true convolution
 * (the kernel flipped about its centre; see the field). s = 1/sum(K) when normalizing, else 1; with the
 * renormalize border, s also rescales by the share of the kernel's weight
 * that fell inside the frame. */
#ifndef FV_CONV_H
#define FV_CONV_H

#include "../common/fv_image.h"
#include "../common/fv_plan.h"
#include "../common/fv_border.h"
#include "../common/fv_frame.h"

#ifdef __cplusplus
extern "C" {
#endif

/* SEPARABLE: direct summation in two passes, a column then a row, for
 * kernels that are an outer product (fv_conv_separate); others are refused.
 * CPU plans; CUDA plans take a separable kernel as AUTO. */
typedef enum { FV_CONV_AUTO = 0, FV_CONV_FFT, FV_CONV_DIRECT, FV_CONV_SEPARABLE } fv_conv_method;

#define FV_CONV_MAX_KERNEL 2048
/* The largest sum of tap magnitudes (and, normalized, the inverse of the
 * smallest sum) a plan takes: a 16-bit frame times such a kernel, through
 * a transform of 2^30 points, stays within float's range. */
#define FV_CONV_MAX_TAP_SUM 1e20

typedef struct {
  /* the frame: size, channels, sample, threads; an optional window of it
   * to compute (frame.roi_width 0: the whole frame; pixels around it are
   * read from the frame, extended at its borders); CUDA (frame.spread):
   * the device memory budget and the devices a frame is spread over
   * (fv_chunk_run.h), frames beyond it run in chunks with the kernel's
   * reach as halo. Windows and grids are never chunked. */
  fv_frame frame;
  unsigned channel_mask;       /* channels convolved; the others are copied */
  const float *kernel;         /* kernel_height rows of kernel_width taps; copied */
  int kernel_width, kernel_height;
  int normalize;
  double bias;
  fv_border border;            /* any of the five */
  fv_conv_method method;
  int measure;                 /* plan FFTs with FFTW_MEASURE (slow once, fast after) */
  /* FFT in tiles of this many output pixels a side: overlap-add on the
   * CPU, batched overlap-save on the GPU (0: where the CPU's cost model
   * or the GPU's timing finds them faster; -1: never) */
  int tile;
  /* 1: true convolution, the kernel flipped: out(x, y) = sum K[j][i] *
   * E(x - i + cx, y - j + cy), as scipy.ndimage.convolve and MATLAB's
   * conv2(..., 'same'); 0: the correlation above (OpenCV's filter2D) */
  int convolve;
  /* how far each tap may be from the kernel meant: the rounding of a
   * kernel file written with few decimals (half its last decimal's step);
   * 0: the taps are exact. Only the separability test uses it. */
  double kernel_rounding;
  /* CUDA, FFT over the whole frame (no window): 0 transforms all of the
   * frame's tiles at once (the layout timed fastest); n > 0 takes tiles of
   * fv_conv_batch_tiles's size and transforms n rows of them at a time, so
   * that the device holds buffers for n rows of tiles, not the frame's (the
   * chunks' sub-plans use 1: a band costs its rows of tiles, no more) */
  int batch_rows;
} fv_conv_params;

typedef struct fv_conv_plan fv_conv_plan;

fv_status fv_conv_plan_create (fv_conv_plan **plan, const fv_conv_params *params,
    fv_backend backend, int device, void *stream);
fv_status fv_conv_execute (fv_conv_plan *plan, const fv_image *src, const fv_image *dst);
void fv_conv_plan_destroy (fv_conv_plan *plan);

/* The unrounded result s(x,y) * sum(...) of channel `channel` over the
 * plan's window, into out (window width floats a row, out_stride floats
 * apart), without bias; for blending several kernels. CPU plans only. */
fv_status fv_conv_execute_float (fv_conv_plan *plan, const fv_image *src, int channel,
    float *out, size_t out_stride);

/* FV_OK when a plan would take these taps: finite, not summing to zero
 * when normalized, within FV_CONV_MAX_TAP_SUM; else why, in fv_last_error. */
fv_status fv_conv_kernel_check (const float *k, int kw, int kh, int normalize);

/* 1 when the kh x kw taps are the outer product of a column and a row,
 * within float rounding (what they miss sums to at most 1e-6 of the taps'
 * magnitudes), with col (kh taps) and row (kw taps) set; else 0. */
int fv_conv_separate (const float *k, int kw, int kh, float *col, float *row);
/* The same, for taps each known only to within `rounding` (a kernel file's
 * decimals): separable when what the product misses is within what that
 * rounding can make it miss, to first order. */
int fv_conv_separate_within (const float *k, int kw, int kh, double rounding, float *col,
    float *row);
/* FV_OK when method separable takes these taps; else why, in fv_last_error
 * (every backend refuses them). */
fv_status fv_conv_separable_check (const float *k, int kw, int kh, double rounding);

/* At most how many bytes of host memory a plan for p takes (FFT buffers,
 * tiles, scale); plans refuse (FV_ERR_NOMEM, with the figures in
 * fv_last_error) past fv_memory_limit(), before allocating anything. */
double fv_conv_plan_estimate (const fv_conv_params *p);

/* The outputs a tile makes, tw x th, when p->batch_rows > 0: tiles of
 * 1024 samples a side (a power of two at least twice the kernel for
 * kernels over 512 taps), as many outputs as the kernel leaves, no more
 * than the frame. */
void fv_conv_batch_tiles (const fv_conv_params *p, int width, int height, int *tw, int *th);

/* CUDA plans of the whole frame only: rows [row0, row0 + rows) of the
 * result into dst (rows high); src and dst in device memory on the plan's
 * device. The band's tiles start at row0: a band of whole tile rows costs
 * those rows. Results agree with fv_conv_execute's within the transform's
 * rounding (bit for bit by direct sums). */
fv_status fv_conv_execute_rows (fv_conv_plan *plan, const fv_image *src, const fv_image *dst,
    int row0, int rows);

/* A chunked CUDA plan's chunks, NULL for a whole-frame plan. */
const fv_chunk_plan *fv_conv_plan_chunks (const fv_conv_plan *plan);
/* The method a plan uses (what FV_CONV_AUTO chose). */
fv_conv_method fv_conv_plan_method (const fv_conv_plan *plan);

/* Spatially varying kernels: a cols x rows grid of kernels, kernel (i, j)
 * belonging to the centre of cell (i, j) of the grid laid over the frame;
 * each output pixel is the bilinear blend of the four nearest kernels'
 * results (weights summing to 1), each kernel computed only over the window
 * where its weight is not zero. base gives everything but the kernel;
 * kernels[j * cols + i] has kw[..] x kh[..] taps. On the GPU the cells add
 * into one float frame on the device and it is rounded once. */
typedef struct fv_conv_grid fv_conv_grid;

fv_status fv_conv_grid_create (fv_conv_grid **grid, const fv_conv_params *base, int cols,
    int rows, const float *const *kernels, const int *kw, const int *kh, fv_backend backend,
    int device, void *stream);
fv_status fv_conv_grid_execute (fv_conv_grid *grid, const fv_image *src, const fv_image *dst);
void fv_conv_grid_destroy (fv_conv_grid *grid);

/* Weight of cell i of n along an axis of `size` pixels at pixel x. */
float fv_conv_grid_weight (int x, int size, int n, int i);

/* Smallest 2^a 3^b 5^c 7^d >= n. */
int fv_conv_fast_size (int n);
/* Smallest m >= n with no prime factor above max_prime. */
int fv_conv_smooth_size (int n, int max_prime);

/* FFTW wisdom, so that a second start plans instantly: kept in `dir`
 * (NULL: none), one file a transform measured, at most FV_FFT_WISDOM_KEEP
 * of them (the least recently used go); a file is rewritten only when
 * planning learnt something. */
#define FV_FFT_WISDOM_KEEP 64
void fv_conv_wisdom_use (const char *dir);

#ifdef __cplusplus
}
#endif
#endif
