/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The chunked-plan tests' shared helpers (chunkcases.h). */
#include <stdio.h>
#include <string.h>
#include "chunkcases.h"
#include "fv_box.h"
#include "fv_conv.h"
#include "fv_fill.h"
#include "fv_cuda.h"

Spread spreads[NSPREADS] = {
  { "2 chunks", { 0, { 0 }, 0, 2 } },
  { "3 chunks", { 0, { 0 }, 0, 3 } },
  { "13 chunks", { 0, { 0 }, 0, 13 } },
  { "devices 0,0", { 0, { 0, 0 }, 2, 0 } },
  { "devices 0,0,0 x 7 chunks", { 0, { 0, 0, 0 }, 3, 7 } },
};

/* Copies a host image to device memory (same stride) or back. */
fv_image
to_device (const fv_image *h)
{
  fv_image d = *h;
  d.data = fv_cuda_malloc (h->stride * h->height);
  fv_cuda_memcpy (d.data, h->data, h->stride * h->height);
  d.mem = FV_MEM_DEVICE;
  return d;
}

long
rows_differ (const fv_image *a, const fv_image *b)
{
  long bad = 0;
  const size_t row = fv_image_row_bytes (a);
  for (int y = 0; y < a->height; y++)
    bad += memcmp ((char *) a->data + y * a->stride, (char *) b->data + y * b->stride, row) != 0;
  return bad;
}

fv_image
run_on (ExecFn exec, void *plan, const fv_image *src, int device, const char *what)
{
  fv_image out = fvt_image_new (src->width, src->height, src->channels, src->sample, 7, NULL);
  if (!device) {
    FVT_CHECK (exec (plan, src, &out) == FV_OK, "%s: execute: %s", what, fv_last_error ());
  } else {
    fv_image ds = to_device (src), dd = to_device (&out);
    FVT_CHECK (exec (plan, &ds, &dd) == FV_OK, "%s: execute (device): %s", what,
        fv_last_error ());
    fv_cuda_memcpy (out.data, dd.data, out.stride * out.height);
    fv_cuda_free (ds.data);
    fv_cuda_free (dd.data);
  }
  long pad = 0;   /* chunks write their rectangles only: the padding survives */
  for (int y = 0; y < out.height; y++)
    for (size_t i = fv_image_row_bytes (&out); i < out.stride; i++)
      pad += ((uint8_t *) out.data)[(size_t) y * out.stride + i] != 0xA5;
  FVT_CHECK (pad == 0, "%s: %ld padding bytes overwritten", what, pad);
  return out;
}

fv_status
box_exec (void *p, const fv_image *s, const fv_image *d)
{
  return fv_box_execute (p, s, d);
}

fv_status
conv_exec (void *p, const fv_image *s, const fv_image *d)
{
  return fv_conv_execute (p, s, d);
}

fv_status
fill_exec (void *p, const fv_image *s, const fv_image *d)
{
  return fv_fill_execute (p, s, d);
}


int
have_gpu (void)
{
  char why[256];
  if (fv_cuda_check_device (0, why, sizeof why) == FV_OK)
    return 1;
  printf ("SKIP: %s\n", why);
  return 0;
}
