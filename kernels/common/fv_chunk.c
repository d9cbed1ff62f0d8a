/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdlib.h>
#include <string.h>
#include "fv_chunk.h"
#include "fv_parallel.h"

size_t
fv_chunk_bytes (const fv_chunk_params *p, const fv_chunk_rect *in)
{
  return p->fixed_bytes + (size_t) in->w * (size_t) in->h * p->bytes_per_pixel;
}

/* Input extent of `len` outputs along an axis with halo h, at worst (an
 * interior chunk, halo on both sides), clipped to the frame's size. */
static long
reach (long len, int h, int size)
{
  long r = len + 2L * h;
  return r < size ? r : size;
}

/* The most outputs along an axis of `size` whose input, `other` input
 * pixels wide, fits: 0 when not even one does. */
static long
most_that_fit (const fv_chunk_params *p, long other, int halo, int size)
{
  if (p->budget <= p->fixed_bytes)
    return 0;
  size_t room = (p->budget - p->fixed_bytes) / p->bytes_per_pixel;   /* input pixels */
  long lines = (long) (room / (size_t) other);
  if (lines >= size)   /* the whole axis fits, halo or not */
    return size;
  return lines - 2L * halo > 0 ? lines - 2L * halo : 0;
}

/* Tiles: the tallest band of narrower tiles that fits, then as wide as
 * fits; among the shapes tried, the fewest tiles (0 when none fits). */
static long
tile_shape (const fv_chunk_params *p, int *cols, int *rows)
{
  const int W = p->width, H = p->height;
  long best = 0;
  for (long th = H; th >= 1; th = th > 64 ? th - (th + 7) / 8 : th - 1) {
    long ih = reach (th, p->halo_y, H);
    long tw = most_that_fit (p, ih, p->halo_x, W);
    long c = tw >= 1 ? (W + tw - 1) / tw : 0, r = (H + th - 1) / th;
    if (tw < 1)
      continue;
    if (!best || c * r < best) {
      best = c * r;
      *cols = (int) c;
      *rows = (int) r;
    }
  }
  return best;
}

fv_status
fv_chunk_plan_make (const fv_chunk_params *p, fv_chunk_plan *plan)
{
  memset (plan, 0, sizeof *plan);
  if (!p || p->width < 1 || p->height < 1 || p->bytes_per_pixel < 1 || p->halo_x < 0
      || p->halo_y < 0 || p->ndevices < 1 || p->align_y < 0) {
    fv_set_last_error ("invalid chunking parameters");
    return FV_ERR_INVALID;
  }
  const int W = p->width, H = p->height;
  int cols = 1, rows = 1;
  /* bands of whole rows, full width: the fewest that fit; else tiles */
  const long band = most_that_fit (p, W, p->halo_y, H);
  if (band >= 1)
    rows = (int) ((H + band - 1) / band);
  else if (!tile_shape (p, &cols, &rows)) {
    fv_set_last_error ("a %zu-byte budget holds no chunk: one pixel with its %dx%d halo "
        "needs %zu bytes", p->budget, p->halo_x, p->halo_y, p->fixed_bytes
        + (size_t) reach (1, p->halo_x, W) * reach (1, p->halo_y, H) * p->bytes_per_pixel);
    return FV_ERR_NOMEM;
  }
  /* several devices: bands in a multiple of their number (the same work
   * each), tiles at least one each, while rows allow */
  if (p->ndevices > 1 && cols == 1) {
    rows = (rows + p->ndevices - 1) / p->ndevices * p->ndevices;
    rows = rows < H ? rows : H;
  } else if (p->ndevices > 1 && cols * rows < p->ndevices) {
      rows = (p->ndevices + cols - 1) / cols < H ? (p->ndevices + cols - 1) / cols : H;
  }
  /* bands in blocks of align_y rows: as many as above, or more where the
   * tallest (the blocks' count not dividing evenly) would not fit, a
   * multiple of the devices where one fits; none where there are fewer
   * blocks than bands or no block fits */
  const long A = p->align_y > 1 ? p->align_y : 1, units = (H + A - 1) / A;
  int aligned = 0;
  for (int any = 0; any < 2 && cols == 1 && A > 1 && band >= 1 && !aligned; any++)
    for (long n = rows; n <= units && !aligned; n++) {   /* band: the outputs that fit */
      const long tallest = (units + n - 1) / n * A;
      if ((tallest < H ? tallest : H) <= band && (any || n % p->ndevices == 0)) {
        aligned = 1;
        rows = (int) n;
      }
    }
  plan->n = cols * rows;
  plan->cols = cols;
  plan->rows = rows;
  plan->chunk = calloc (plan->n, sizeof *plan->chunk);
  if (!plan->chunk)
    return FV_ERR_NOMEM;
  double read = 0;
  for (int j = 0; j < rows; j++)
    for (int i = 0; i < cols; i++) {
      fv_chunk *c = &plan->chunk[j * cols + i];
      int x0, x1, y0, y1;
      fv_split_range (W, cols, i, &x0, &x1);   /* as even as can be */
      if (aligned) {   /* whole blocks, the last band the rest */
        fv_split_range ((int) units, rows, j, &y0, &y1);
        y0 = (int) (y0 * A);
        y1 = y1 * A < H ? (int) (y1 * A) : H;
      } else {
        fv_split_range (H, rows, j, &y0, &y1);
      }
      c->out = (fv_chunk_rect) { x0, y0, x1 - x0, y1 - y0 };
      int ix0 = x0 - p->halo_x > 0 ? x0 - p->halo_x : 0;
      int iy0 = y0 - p->halo_y > 0 ? y0 - p->halo_y : 0;
      int ix1 = x1 + p->halo_x < W ? x1 + p->halo_x : W;
      int iy1 = y1 + p->halo_y < H ? y1 + p->halo_y : H;
      c->in = (fv_chunk_rect) { ix0, iy0, ix1 - ix0, iy1 - iy0 };
      /* contiguous runs of chunks per device: neighbours share halos */
      c->device = (int) ((long) (j * cols + i) * p->ndevices / plan->n);
      read += (double) c->in.w * c->in.h;
      size_t need = fv_chunk_bytes (p, &c->in);
      if (need > plan->largest)
        plan->largest = need;
    }
  plan->redundancy = read / ((double) W * H) - 1.0;
  return FV_OK;
}

void
fv_chunk_plan_free (fv_chunk_plan *plan)
{
  free (plan->chunk);
  memset (plan, 0, sizeof *plan);
}
