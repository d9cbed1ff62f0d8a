/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Fills of frames beyond the device budget, or spread over several
 * devices: chunks filled independently, their seams reconciled.
 *
 * A pixel is outside when background joins it to the frame's border. Each
 * chunk is filled as a frame of its own with a one-pixel ring around it
 * standing for its neighbours' facing edge pixels: background (a seed)
 * where that neighbour pixel is known to be outside or lies beyond the
 * frame, contour where it is not known to be. The ring is on the staged
 * frame's border, so its background pixels are seeds, and each touches
 * exactly the inner pixels its neighbour pixel touches (4- or 8-way).
 * After a pass every chunk's edge pixels that came out background and
 * unfilled are known outside; chunks whose ring changed run again, until
 * none changes. Knowledge only grows, and at the fixed point every path
 * to the border is followed across every seam: the whole-frame fill
 * exactly. Typical frames settle in two passes; a path that crosses seams
 * k times back and forth needs up to k + 1. */
#include <stdlib.h>
#include <string.h>
#include "fv_fill_plan.h"
#include "../common/fv_chunk_run.h"
#include "../common/fv_cuda.h"

typedef struct {
  unsigned char *top, *bottom, *left, *right;   /* 1: that edge pixel is outside */
} Edges;

typedef struct {
  fv_fill_params sub;       /* sizes set per chunk */
  int W, H;
  fv_chunk_run *run;
  const fv_chunk_plan *plan;
  Edges *known, *found;     /* per chunk: at the pass's start, found by it */
  unsigned char **host;     /* per chunk: ring rows and edges' staging */
  int sw, sh;               /* staged size */
} FillChunks;

static fv_status
sub_create (void **plan, int width, int height, int device, void *stream, void *user)
{
  FillChunks *f = user;
  fv_fill_params q = f->sub;
  q.width = width;
  q.height = height;
  f->sw = width;
  f->sh = height;
  return fv_fill_plan_create ((fv_fill_plan **) plan, &q, FV_BACKEND_CUDA, device, stream);
}

static fv_status
sub_execute (void *plan, const fv_image *src, const fv_image *dst, void *user)
{
  (void) user;
  return fv_fill_execute (plan, src, dst);
}

static void
sub_destroy (void *plan, void *user)
{
  (void) user;
  fv_fill_plan_destroy (plan);
}

size_t
fv_fill_cuda_bytes (int width, int height)
{
  const size_t pitch = ((size_t) width + 511) / 512 * 512;
  return sizeof (int) * (size_t) width * height + 2 * pitch * height + ((size_t) 1 << 20);
}

static size_t
sub_bytes (int width, int height, void *user)
{
  (void) user;
  return fv_fill_cuda_bytes (width, height);
}

/* Whether frame pixel (x, y), next to the chunk being staged, is known
 * outside: beyond the frame it is the border itself. */
static int
known_outside (const FillChunks *f, int x, int y)
{
  if (x < 0 || y < 0 || x >= f->W || y >= f->H)
    return 1;
  const fv_chunk_plan *pl = f->plan;
  int i = 0, j = 0;
  while (i + 1 < pl->cols && pl->chunk[i + 1].out.x <= x)
    i++;
  while (j + 1 < pl->rows && pl->chunk[(j + 1) * pl->cols].out.y <= y)
    j++;
  const int k = j * pl->cols + i;
  const fv_chunk_rect *o = &pl->chunk[k].out;
  const Edges *e = &f->known[k];
  if (y == o->y)
    return e->top[x - o->x];
  if (y == o->y + o->h - 1)
    return e->bottom[x - o->x];
  if (x == o->x)
    return e->left[y - o->y];
  return e->right[y - o->y];   /* pixels next to a chunk lie on an edge of theirs */
}

/* The ring (and, past it, background up to the staged size) from what is
 * known: four copies of host rows into the staged frame. */
static fv_status
before (int c, const fv_image *in, void *stream, void *user)
{
  FillChunks *f = user;
  const fv_chunk_rect *o = &f->plan->chunk[c].out;
  const int sw = in->width, sh = in->height, w = o->w, h = o->h, side = sw - w - 1;
  unsigned char *top = f->host[c], *low = top + sw, *left = low + (size_t) sw * (sh - h - 1);
  unsigned char *right = left + h;
  memset (top, 0, (size_t) sw * (sh - h));
  memset (right, 0, (size_t) side * h);
  for (int x = -1; x <= w; x++) {
    top[x + 1] = known_outside (f, o->x + x, o->y - 1) ? 0 : 255;
    low[x + 1] = known_outside (f, o->x + x, o->y + h) ? 0 : 255;
  }
  for (int y = 0; y < h; y++) {
    left[y] = known_outside (f, o->x - 1, o->y + y) ? 0 : 255;
    right[(size_t) y * side] = known_outside (f, o->x + w, o->y + y) ? 0 : 255;
  }
  char *d = in->data;
  fv_status st = fv_cuda_copy_rows (d, in->stride, top, sw, sw, 1, stream);
  if (st == FV_OK)
    st = fv_cuda_copy_rows (d + (size_t) (h + 1) * in->stride, in->stride, low, sw, sw,
        sh - h - 1, stream);
  if (st == FV_OK)
    st = fv_cuda_copy_rows (d + in->stride, in->stride, left, 1, 1, h, stream);
  if (st == FV_OK)
    st = fv_cuda_copy_rows (d + in->stride + w + 1, in->stride, right, side, side, h, stream);
  return st;
}

/* The chunk's edge pixels that came out outside: background in, 0 out. */
static fv_status
after (int c, const fv_image *in, const fv_image *out, void *stream, void *user)
{
  FillChunks *f = user;
  const fv_chunk_rect *o = &f->plan->chunk[c].out;
  const int w = o->w, h = o->h;
  unsigned char *buf = f->host[c], *src = buf, *res = buf + 2 * (w + h);
  const fv_image *im[2] = { in, out };
  unsigned char *to[2] = { src, res };
  for (int k = 0; k < 2; k++) {
    const char *d = (const char *) im[k]->data + im[k]->stride + 1;
    const size_t s = im[k]->stride;
    fv_status st = fv_cuda_copy_rows (to[k], w, d, s, w, 1, stream);
    if (st == FV_OK)
      st = fv_cuda_copy_rows (to[k] + w, w, d + (h - 1) * s, s, w, 1, stream);
    if (st == FV_OK)
      st = fv_cuda_copy_rows (to[k] + 2 * w, 1, d, s, 1, h, stream);
    if (st == FV_OK)
      st = fv_cuda_copy_rows (to[k] + 2 * w + h, 1, d + w - 1, s, 1, h, stream);
    if (st != FV_OK)
      return st;
  }
  const unsigned thr = f->sub.threshold;
  Edges *e = &f->found[c];
  for (int x = 0; x < w; x++) {
    e->top[x] = src[x] <= thr && res[x] == 0;
    e->bottom[x] = src[w + x] <= thr && res[w + x] == 0;
  }
  for (int y = 0; y < h; y++) {
    e->left[y] = src[2 * w + y] <= thr && res[2 * w + y] == 0;
    e->right[y] = src[2 * w + h + y] <= thr && res[2 * w + h + y] == 0;
  }
  return FV_OK;
}

static const fv_chunk_kernel fill_chunk_kernel = {
  sub_create, sub_execute, sub_destroy, sub_bytes, before, after
};

static fv_status
edges_alloc (Edges *e, const fv_chunk_rect *o)
{
  e->top = calloc (2 * ((size_t) o->w + o->h), 1);
  if (!e->top)
    return FV_ERR_NOMEM;
  e->bottom = e->top + o->w;
  e->left = e->bottom + o->w;
  e->right = e->left + o->h;
  return FV_OK;
}

static void
chunks_free (FillChunks *f)
{
  const int n = f->plan ? f->plan->n : 0;
  for (int c = 0; c < n; c++) {
    if (f->known)
      free (f->known[c].top);
    if (f->found)
      free (f->found[c].top);
    if (f->host)
      free (f->host[c]);
  }
  free (f->known);
  free (f->found);
  free (f->host);
  fv_chunk_run_destroy (f->run);
  free (f);
}

fv_status
fv_fill_chunked_init (fv_fill_plan *pl, int device, void *stream)
{
  (void) stream;   /* each device entry has its own */
  const fv_fill_params *p = &pl->p;
  FillChunks *f = calloc (1, sizeof *f);
  if (!f)
    return FV_ERR_NOMEM;
  pl->cuda = f;
  f->sub = *p;
  f->sub.spread.max_device_bytes = (size_t) -1;
  f->sub.spread.ndevices = 0;
  f->sub.spread.min_chunks = 0;
  f->W = p->width;
  f->H = p->height;
  fv_chunk_run_params rp;
  fv_spread_run_params (&p->spread, device, &rp);
  rp.width = p->width;
  rp.height = p->height;
  rp.channels = 1;
  rp.sample = FV_U8;
  rp.ring = 1;
  fv_status st = fv_chunk_run_create (&f->run, &rp, &fill_chunk_kernel, f);
  if (st != FV_OK)
    return st;
  f->plan = fv_chunk_run_plan (f->run);
  const int n = f->plan->n;
  f->known = calloc (n, sizeof *f->known);
  f->found = calloc (n, sizeof *f->found);
  f->host = calloc (n, sizeof *f->host);
  if (!f->known || !f->found || !f->host)
    return FV_ERR_NOMEM;
  for (int c = 0; c < n; c++) {
    const fv_chunk_rect *o = &f->plan->chunk[c].out;
    size_t ring = (size_t) f->sw * (f->sh - o->h) + (size_t) (f->sw - o->w) * o->h;
    size_t edges = 4 * ((size_t) o->w + o->h);
    f->host[c] = malloc (ring > edges ? ring : edges);
    if (!f->host[c] || edges_alloc (&f->known[c], o) != FV_OK
        || edges_alloc (&f->found[c], o) != FV_OK)
      return FV_ERR_NOMEM;
  }
  return FV_OK;
}

static int
neighbours (const fv_chunk_plan *pl, int a, int b)
{
  const int ia = a % pl->cols, ja = a / pl->cols, ib = b % pl->cols, jb = b / pl->cols;
  return abs (ia - ib) <= 1 && abs (ja - jb) <= 1;
}

fv_status
fv_fill_chunked_execute (fv_fill_plan *pl, const fv_image *src, const fv_image *dst,
    int wait)
{
  (void) wait;   /* returns when dst is written */
  FillChunks *f = pl->cuda;
  const int n = f->plan->n;
  if (f->sub.fill_value == 0)   /* nothing to tell outside from: all 0, one pass */
    return fv_chunk_run_execute (f->run, src, dst, NULL);
  unsigned char *which = malloc (n), *changed = malloc (n);
  if (!which || !changed) {
    free (which);
    free (changed);
    return FV_ERR_NOMEM;
  }
  for (int c = 0; c < n; c++) {
    const fv_chunk_rect *o = &f->plan->chunk[c].out;
    memset (f->known[c].top, 0, 2 * ((size_t) o->w + o->h));
  }
  memset (which, 1, n);
  fv_status st = FV_OK;
  for (int more = 1; more && st == FV_OK;) {
    st = fv_chunk_run_execute (f->run, src, dst, which);
    more = 0;
    for (int c = 0; c < n && st == FV_OK; c++) {
      const fv_chunk_rect *o = &f->plan->chunk[c].out;
      const size_t len = 2 * ((size_t) o->w + o->h);
      changed[c] = which[c] && memcmp (f->known[c].top, f->found[c].top, len) != 0;
      if (changed[c])
        memcpy (f->known[c].top, f->found[c].top, len);
    }
    for (int c = 0; c < n && st == FV_OK; c++) {
      which[c] = 0;
      for (int k = 0; k < n && !which[c]; k++)
        which[c] = changed[k] && k != c && neighbours (f->plan, c, k);
      more |= which[c];
    }
  }
  free (which);
  free (changed);
  return st;
}

fv_status
fv_fill_chunked_wait (fv_fill_plan *pl)
{
  (void) pl;
  return FV_OK;
}

void
fv_fill_chunked_free (fv_fill_plan *pl)
{
  if (pl->cuda)
    chunks_free (pl->cuda);
  pl->cuda = NULL;
}
