/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Seedless filling of closed contours: every pixel that cannot reach the
 * frame border through background pixels is filled. Plan once per size,
 * execute per frame.
 *
 * Contour pixels are those > threshold; the rest is background, connected
 * 4-ways (default) or 8-ways. FV_FILL_FILLED gives fill_value on contours
 * and enclosed background, 0 elsewhere (scipy.ndimage.binary_fill_holes);
 * FV_FILL_HOLES gives fill_value on enclosed background only. */
#ifndef FV_FILL_H
#define FV_FILL_H

#include "../common/fv_image.h"
#include "../common/fv_plan.h"
#include "../common/fv_frame.h"

/* The largest frame side a fill plan takes (the element's caps say it). */
#define FV_FILL_MAX_SIDE (1 << 16)

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { FV_FILL_FILLED = 0, FV_FILL_HOLES = 1 } fv_fill_output;

typedef struct {
  /* the frame: size and threads (one 8-bit channel, no window); CUDA
   * (frame.spread): the device memory budget and the devices a frame is
   * spread over (fv_chunk_run.h): beyond it, chunks filled alone and their
   * seams reconciled (fv_fill_chunked.c), exactly */
  fv_frame frame;
  unsigned threshold;      /* 0..254 */
  unsigned fill_value;     /* 0..255 */
  int connectivity;        /* of the background: 4 or 8 */
  fv_fill_output output;
  int seeds;               /* CPU interior seeds, 0 = from size and cores */
  /* also measure every frame (fv_fill_measure_what: holes, parts or both,
   * fv_fill_regions and fv_fill_parts). CUDA: chunked or spread plans
   * measure each chunk on its device and join the regions across the
   * seams, the same integers as one plan's */
  int measure;
} fv_fill_params;

/* What a plan measures (flags). Parts include their holes' count and area,
 * so measuring parts finds the holes too. */
typedef enum {
  FV_FILL_MEASURE_NONE = 0,
  FV_FILL_MEASURE_HOLES = 1,
  FV_FILL_MEASURE_PARTS = 2,
  FV_FILL_MEASURE_BOTH = 3,
} fv_fill_measure_what;

/* A measured region. A hole is one connected component (in the
 * background's connectivity) of the enclosed background, that is of the
 * pixels the fill turns on that were not contour. A part is one connected
 * component of the filled pixels (contour and what it encloses) in the
 * other connectivity (8 for a 4-connected background, 4 for 8). Its box is
 * inclusive of x, y and spans width x height; area counts its pixels (a
 * part's includes its holes'). Every field is an integer, the same on every
 * back end: fv_fill_region_shape gives the features. */
typedef struct {
  int x, y, width, height;
  int64_t area;
  /* sums over the region's pixels, at (x, y) their column and row */
  int64_t sum_x, sum_y, sum_xx, sum_yy, sum_xy;
  /* pairs of pixels one step apart with one in the region and one not (or
   * outside the frame): along rows (h), columns (v), the diagonal
   * (x,y)-(x+1,y+1) (d) and the anti-diagonal (x+1,y)-(x,y+1) (a) */
  int64_t cross_h, cross_v, cross_d, cross_a;
  int part;             /* a hole: its part (index in fv_fill_parts), -1 if
                           parts are not measured; a part: -1 */
  int holes;            /* a part: its holes */
  int64_t hole_area;    /* a part: its holes' pixels */
} fv_fill_region;

/* A region's features, from its sums (docs/autofill.md has the
 * definitions). Pixel centres are at integer coordinates. */
typedef struct {
  double cx, cy;                /* centroid */
  double perimeter;             /* Crofton's estimate over four directions */
  double equivalent_diameter;   /* of the disc of the same area */
  double circularity;           /* 4 pi area / perimeter^2 */
  double major, minor;          /* axes of the ellipse of the same second moments */
  double orientation;           /* the major axis, degrees counter-clockwise from
                                   +x as the image is shown, (-90, 90] */
} fv_fill_shape;

void fv_fill_region_shape (const fv_fill_region *r, fv_fill_shape *s);

typedef struct fv_fill_plan fv_fill_plan;

/* A plan whose host memory (its worst frame's runs included) would pass
 * fv_memory_limit() is refused (FV_ERR_INVALID, the figures in
 * fv_last_error()) before anything is allocated. */
fv_status fv_fill_plan_create (fv_fill_plan **plan, const fv_fill_params *params,
    fv_backend backend, int device, void *stream);

/* The host bytes a plan of params takes on that backend, at most. */
size_t fv_fill_plan_bytes (const fv_fill_params *params, fv_backend backend);

/* GRAY8 images of the plan's size (one channel). A CUDA plan takes host or
 * device images and returns when dst is written. */
fv_status fv_fill_execute (fv_fill_plan *plan, const fv_image *src, const fv_image *dst);

/* Queues the work and returns: on a CUDA plan src must stay unchanged and
 * dst unread until fv_fill_wait() (pinned host memory makes the copies
 * truly asynchronous); on a CPU plan this is fv_fill_execute. */
fv_status fv_fill_execute_async (fv_fill_plan *plan, const fv_image *src, const fv_image *dst);
fv_status fv_fill_wait (fv_fill_plan *plan);

/* The holes (enclosed regions) of the last frame executed (after fv_fill_wait for
 * an asynchronous one), ordered by their first pixel in raster order (top
 * row first, then leftmost); *regions stays valid until the next execute.
 * Needs a plan made with measure set (either flag). The same list on
 * every back end. */
fv_status fv_fill_regions (fv_fill_plan *plan, const fv_fill_region **regions, int *n);

/* The parts of the last frame executed, as fv_fill_regions gives holes
 * (then fv_fill_regions' holes name their parts). Needs a plan made with
 * FV_FILL_MEASURE_PARTS. */
fv_status fv_fill_parts (fv_fill_plan *plan, const fv_fill_region **parts, int *n);

void fv_fill_plan_destroy (fv_fill_plan *plan);

#ifdef __cplusplus
}
#endif
#endif
