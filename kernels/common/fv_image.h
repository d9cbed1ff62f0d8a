/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Image views shared by every fastvision kernel: a pointer, a row stride in
 * bytes and interleaved channels, on the host or on a CUDA device. */
#ifndef FV_IMAGE_H
#define FV_IMAGE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "fv_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { FV_U8 = 1, FV_U16 = 2 } fv_sample;  /* value = bytes per sample */

typedef enum { FV_MEM_HOST = 0, FV_MEM_DEVICE = 1 } fv_mem;

typedef struct {
  void *data;        /* first sample of the first row */
  size_t stride;     /* bytes from one row to the next */
  int width, height; /* pixels */
  int channels;      /* interleaved samples per pixel (1..4) */
  fv_sample sample;
  fv_mem mem;        /* where data lives */
} fv_image;

static inline fv_image
fv_image_make (void *data, size_t stride, int width, int height, int channels,
    fv_sample sample, fv_mem mem)
{
  fv_image im = { data, stride, width, height, channels, sample, mem };
  return im;
}

/* Bytes one row of pixels occupies, without padding. */
static inline size_t
fv_image_row_bytes (const fv_image *im)
{
  return (size_t) im->width * im->channels * im->sample;
}

/* 16-bit samples at any address: strides may be odd (a video meta can say
 * so), and a cast pointer would then be misaligned. */
static inline uint16_t
fv_load_u16 (const void *p)
{
  uint16_t v;
  memcpy (&v, p, sizeof v);
  return v;
}

static inline void
fv_store_u16 (void *p, uint16_t v)
{
  memcpy (p, &v, sizeof v);
}

/* FV_OK when a (and b, unless NULL) are in host memory, as CPU plans need;
 * FV_ERR_INVALID, with the reason in fv_last_error(), otherwise. */
fv_status fv_require_host (const fv_image *a, const fv_image *b);

#ifdef __cplusplus
}
#endif
#endif
