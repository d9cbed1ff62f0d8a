/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Box filters through summed-area tables: plan once for a size and its
 * parameters, execute per frame (in the manner of FFTW and cuFFT).
 *
 *   fv_box_plan *plan;
 *   fv_box_plan_create (&plan, &params, FV_BACKEND_CUDA, device, stream);
 *   for each frame: fv_box_execute (plan, &src, &dst);
 *   fv_box_plan_destroy (plan);
 *
 * Results are exact integers and identical on every backend. */
#ifndef FV_BOX_H
#define FV_BOX_H

#include "../common/fv_image.h"
#include "../common/fv_plan.h"
#include "../common/fv_border.h"
#include "../common/fv_frame.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  FV_BOX_MEAN = 0,       /* window mean, rounded to nearest, ties up */
  FV_BOX_STDDEV,         /* sqrt(mean of squares - squared mean), rounded */
  FV_BOX_THRESHOLD       /* max value where pixel > mean*(1-sensitivity), else 0 */
} fv_box_mode;

/* fv_border: the first four (FV_BORDER_WRAP is convolution's alone) */

/* The largest radius any backend accepts: every sum then fits 64 bits and
 * the stddev's n*sum(x^2) fits 128. Larger than any frame side. */
#define FV_BOX_MAX_RADIUS 16383
/* The largest frame side a box plan takes (the element's caps say it). */
#define FV_BOX_MAX_SIDE (1 << 20)

typedef struct {
  /* the frame: size, channels (1..4), FV_U8 or FV_U16, threads, and:
   * - CUDA (frame.spread): max_device_bytes is the device memory the plan
   *   may take (0: what the device has free, less a margin); a frame whose
   *   buffers do not fit is filtered in bands of whole rows with their
   *   halo, on three streams, exactly. Several devices (ndevices > 1) or
   *   forced chunks: the chunk runner (fv_chunk_run.h), as exact.
   * - an optional window of the frame to compute (frame.roi_width 0: the
   *   whole frame), as fftconv's: samples around it are read from src as
   *   far as the radius reaches, the border rule applies at the frame's
   *   edges, and only the window of dst is written (region mode: the cost
   *   follows the window's area). Such a plan also computes any smaller
   *   window anywhere in the frame (fv_box_execute_roi). */
  fv_frame frame;
  unsigned channel_mask;   /* bit c set: channel c is filtered, else copied */
  int radius_x, radius_y;  /* window (2*radius_x+1) x (2*radius_y+1) */
  fv_box_mode mode;
  fv_border border;
  double sensitivity;      /* FV_BOX_THRESHOLD, 0..1 */
} fv_box_params;

typedef struct fv_box_plan fv_box_plan;

/* device and stream (a cudaStream_t, or NULL for a plan-owned one) are
 * used by FV_BACKEND_CUDA only. A plan whose host memory would pass
 * fv_memory_limit() is refused (FV_ERR_INVALID, the figures in
 * fv_last_error()) before anything is allocated. */
fv_status fv_box_plan_create (fv_box_plan **plan, const fv_box_params *params,
    fv_backend backend, int device, void *stream);

/* src and dst must have the plan's size, channels and sample type. A CPU
 * plan takes host images; a CUDA plan takes host or device images (host
 * ones are best in pinned memory) and returns when dst is written. */
fv_status fv_box_execute (fv_box_plan *plan, const fv_image *src, const fv_image *dst);

/* CUDA plans: only rows [row0, row0 + rows) of the result, written to dst
 * (rows high, dst->data where row0 goes), so that a band of a larger frame
 * is written in place. FV_ERR_INVALID on CPU plans. */
fv_status fv_box_execute_rows (fv_box_plan *plan, const fv_image *src, const fv_image *dst,
    int row0, int rows);

/* Window plans (roi_width > 0): the window (x, y, w, h) of the result,
 * any size up to the plan's roi_width x roi_height, anywhere in the frame,
 * into dst (the frame's size; nothing outside the window is written), so
 * that one plan serves regions that move every frame. Exact: the same
 * samples as a whole-frame plan's. FV_ERR_INVALID on other plans. */
fv_status fv_box_execute_roi (fv_box_plan *plan, const fv_image *src, const fv_image *dst,
    int x, int y, int w, int h);

void fv_box_plan_destroy (fv_box_plan *plan);

/* The host bytes a plan of params takes on that backend (valid params). */
size_t fv_box_plan_bytes (const fv_box_params *params, fv_backend backend);

/* Checks params; on error, fv_last_error() says which one. */
fv_status fv_box_params_validate (const fv_box_params *params);

#ifdef __cplusplus
}
#endif
#endif
