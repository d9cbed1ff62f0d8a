/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Helpers shared by the kernel tests: random images with padded strides,
 * PNM loading, and references written straight from the definitions. */
#ifndef FVTEST_H
#define FVTEST_H

#include <stdint.h>
#include <stdio.h>
#include "fv_box.h"
#include "fv_fill.h"

#define FVTEST_SKIP 77

typedef struct {
  uint64_t s;
} fvt_rng;

static inline uint32_t
fvt_next (fvt_rng *r)
{
  r->s ^= r->s << 13;
  r->s ^= r->s >> 7;
  r->s ^= r->s << 17;
  return (uint32_t) (r->s >> 11);
}

/* An image with a padded stride, filled with random samples (or pattern
 * `smooth` != 0 for a smooth gradient with noise, closer to real frames). */
fv_image fvt_image_new (int w, int h, int channels, fv_sample sample, int pad,
    fvt_rng *rng);
void fvt_image_free (fv_image *im);
void fvt_image_fill (fv_image *im, fvt_rng *rng, uint32_t max);
uint32_t fvt_get (const fv_image *im, int x, int y, int c);
void fvt_set (fv_image *im, int x, int y, int c, uint32_t v);

/* P5/P6 8-bit PNM; NULL on failure. */
fv_image *fvt_load_pnm (const char *path);

/* The filter's output at (x, y, c) by summing the window directly. */
uint32_t fvt_ref_box (const fv_box_params *p, const fv_image *src, int x, int y, int c);

/* Counts mismatches between dst and the reference over every pixel and
 * channel (unmasked channels must equal src); prints the first few. */
long fvt_check_box (const fv_box_params *p, const fv_image *src, const fv_image *dst,
    const char *label);

/* The fill's definition, by breadth-first search from the border: out gets
 * fv on enclosed background (and on contours when output is 0, "filled"),
 * 0 elsewhere; width*height bytes, no padding. */
void fvt_ref_fill (const fv_image *src, unsigned thr, int conn, int output, unsigned fv,
    uint8_t *out);

/* fftconvolve's definition summed directly in double precision, before
 * rounding (params is an fv_conv_params). */
/* The enclosed regions from their definition: components (conn) of the
 * pixels that are background in src (<= thr) and set in want (the fill's
 * output), listed by first pixel in raster order; returns how many, the
 * list (malloc'd) in *out. Boxes inclusive of x, y, width x height. */
/* autofill's measurements from their definitions, pixel by pixel: the
 * holes (enclosed background: src <= thr where the fill's output want is
 * on, joined in conn), and the parts (filled pixels: src > thr or a hole's,
 * joined in the other connectivity), with every sum, crossing and link of
 * fv_fill_region. Parts also set the holes' part. */
typedef fv_fill_region fvt_region;
int fvt_ref_regions (const fv_image *src, unsigned thr, int conn, const uint8_t *want,
    fvt_region **out);
int fvt_ref_parts (const fv_image *src, unsigned thr, int conn, const uint8_t *want,
    fvt_region *holes, int nholes, fvt_region **out);
/* The regions of the pixels where in[] (W x H) is set, joined in conn,
 * numbered in raster order of their first pixel, each pixel's region in
 * label[] (-1: none), every field but the links counted pixel by pixel (the
 * frame's edge counts as not in a region); returns how many. */
int fvt_ref_label (int W, int H, const uint8_t *in, int conn, int *label, fvt_region **out);
/* Every field of a region on one line of stderr, after `what` (failures). */
void fvt_print_region (const char *what, const fvt_region *r);

double fvt_ref_conv (const void *params, const fv_image *src, int x, int y, int c);

/* Test bookkeeping: every check counted, failures printed. */
extern int fvt_failures, fvt_checks;
#define FVT_CHECK(cond, ...)                                      \
  do {                                                            \
    fvt_checks++;                                                 \
    if (!(cond)) {                                                \
      fvt_failures++;                                             \
      fprintf (stderr, "FAIL %s:%d: ", __FILE__, __LINE__);       \
      fprintf (stderr, __VA_ARGS__);                              \
      fputc ('\n', stderr);                                       \
    }                                                             \
  } while (0)
int fvt_summary (const char *name);

#endif
