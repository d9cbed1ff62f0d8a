/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The chunk planner: cuts a frame whose plan does not fit a device's memory
 * into chunks that do, each with the overlap (halo) its kernel reads past
 * its output, spread over one or several devices, so that the stitched
 * output equals the whole-frame result (the design of the HIP image
 * library's chunking). No GStreamer, no CUDA: sizes in, rectangles out.
 *
 * Chunks are full-width bands of whole rows where a band with its halo
 * fits (contiguous copies, halo only above and below; on whole blocks of
 * rows where asked), else tiles; always
 * the fewest that fit, with heights (and widths) balanced so that no chunk
 * is a sliver. Redundant work is the halo rows and columns read by two
 * chunks: fv_chunk_plan reports it. Frame edges get no halo: the frame's
 * own border rule applies there. */
#ifndef FV_CHUNK_H
#define FV_CHUNK_H

#include <stddef.h>
#include "fv_image.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct { int x, y, w, h; } fv_chunk_rect;

typedef struct {
  fv_chunk_rect out;   /* the output pixels the chunk writes (they tile the frame) */
  fv_chunk_rect in;    /* the input it reads: out grown by the halo, clipped to the frame */
  int device;          /* which of the devices runs it (0 .. ndevices-1) */
} fv_chunk;

typedef struct {
  int width, height;           /* the frame */
  size_t bytes_per_pixel;      /* what a chunk holds per input pixel: frame, result, tables */
  size_t fixed_bytes;          /* per chunk whatever its size (plans, small tables) */
  int halo_x, halo_y;          /* how far the kernel reads past an output pixel */
  size_t budget;               /* bytes a chunk may take on its device */
  int ndevices;                /* >= 1; more: bands in a multiple of it (tiles: at least one each), as rows allow */
  int align_y;                 /* 0 or 1, or bands' output rows start at multiples of it
                                * (the last band takes the rest), as even as that allows and
                                * as many bands as that needs to fit: a kernel whose work
                                * comes in blocks of rows (the convolution's rows of tiles) */
} fv_chunk_params;

typedef struct {
  int n;                       /* chunks */
  int cols, rows;              /* their grid (cols == 1: bands of whole rows) */
  fv_chunk *chunk;             /* row-major; free with fv_chunk_plan_free */
  double redundancy;           /* input pixels read over frame pixels, minus 1 */
  int generation;              /* a runner that resizes the chunks counts up (fv_chunk_run.h) */
  size_t largest;              /* bytes the largest chunk needs */
} fv_chunk_plan;

/* FV_ERR_INVALID for bad sizes, FV_ERR_NOMEM (with the figures in
 * fv_last_error) when not even a one-pixel chunk with its halo fits. */
fv_status fv_chunk_plan_make (const fv_chunk_params *p, fv_chunk_plan *plan);
void fv_chunk_plan_free (fv_chunk_plan *plan);

/* Bytes a chunk reading `in` needs. */
size_t fv_chunk_bytes (const fv_chunk_params *p, const fv_chunk_rect *in);

#ifdef __cplusplus
}
#endif
#endif
