/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The frame a plan is made for: the head of every kernel's parameters
 * (fv_box_params, fv_conv_params, fv_fill_params and fv_vj_params begin
 * with it, as `frame`), so that what the kernels share reads it in one
 * place: the planner's order reads it (fv_planner.h: a window is never
 * chunked, the spread decides chunks), and the box filter's, the
 * convolution's and the fill's chunk sub-plans are the parameters with
 * frame.width and frame.height set to the chunk's. */
#ifndef FV_FRAME_H
#define FV_FRAME_H

#include "fv_image.h"
#include "fv_status.h"
#include "fv_chunk_run.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  int width, height;        /* pixels */
  int channels;             /* interleaved samples per pixel (kernels of one
                             * channel: 0 or 1) */
  fv_sample sample;         /* FV_U8 or FV_U16 (kernels of 8 bits: 0 or FV_U8) */
  /* a window of the frame to compute (roi_width 0: the whole frame), for
   * kernels that take one (the box filter, the convolution) */
  int roi_x, roi_y, roi_width, roi_height;
  int threads;              /* CPU threads, 0 = all cores */
  /* CUDA: the devices a frame may be spread over and the device memory a
   * plan may take on each (fv_chunk_run.h) */
  fv_spread spread;
} fv_frame;

/* For kernels of one 8-bit channel and no window (the fill, the
 * detector): FV_OK, or FV_ERR_INVALID naming what `what` does not take. */
fv_status fv_frame_check_gray (const fv_frame *f, const char *what);

#ifdef __cplusplus
}
#endif
#endif
