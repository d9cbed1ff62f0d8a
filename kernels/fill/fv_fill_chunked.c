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
 * unfilled are known outside. A chunk runs again only when a ring pixel
 * newly known outside touches one of its edge pixels that is background
 * and was not outside in its last run (a seed next to outside pixels or
 * contours changes nothing), until none does. Knowledge only grows, and at
 * the fixed point every path to the border is followed across every seam:
 * the whole-frame fill exactly. Frames whose outside reaches each chunk's
 * own frame edges settle in one pass; a path that crosses seams k times
 * back and forth needs up to k + 1. */
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
  Edges *known, *found;     /* per chunk: at the pass's start, found by its last run */
  Edges *bg;                /* per chunk: its edge pixels are background */
  unsigned char **seeded;   /* per chunk: its ring at its last run, top, bottom, left, right */
  unsigned char **host;     /* per chunk, mapped: its ring, or its edges' input and result */
} FillChunks;

static fv_status
sub_create (void **plan, int width, int height, int device, void *stream, void *user)
{
  FillChunks *f = user;
  fv_fill_params q = f->sub;
  q.width = width;
  q.height = height;
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

/* The ring from what is known, and background past it up to the staged
 * size; the ring goes in as the edges of the (w + 2) x (h + 2) rectangle. */
static fv_status
before (int c, const fv_image *in, void *stream, void *user)
{
  FillChunks *f = user;
  const fv_chunk_rect *o = &f->plan->chunk[c].out;
  const int w = o->w, h = o->h, rw = w + 2, rh = h + 2;
  unsigned char *top = f->host[c], *low = top + rw, *left = low + rw, *right = left + rh;
  unsigned char *seeded = f->seeded[c];
  for (int x = -1; x <= w; x++) {
    seeded[x + 1] = known_outside (f, o->x + x, o->y - 1);
    seeded[rw + x + 1] = known_outside (f, o->x + x, o->y + h);
    top[x + 1] = seeded[x + 1] ? 0 : 255;
    low[x + 1] = seeded[rw + x + 1] ? 0 : 255;
  }
  for (int y = 0; y < h; y++) {
    seeded[2 * rw + y] = known_outside (f, o->x - 1, o->y + y);
    seeded[2 * rw + h + y] = known_outside (f, o->x + w, o->y + y);
    left[y + 1] = seeded[2 * rw + y] ? 0 : 255;
    right[y + 1] = seeded[2 * rw + h + y] ? 0 : 255;
  }
  left[0] = top[0];
  left[rh - 1] = low[0];
  right[0] = top[rw - 1];
  right[rh - 1] = low[rw - 1];
  fv_status st = fv_cuda_fill_rect (in->data, in->stride, 1, rw, 0, in->width, in->height, 0,
      stream);
  if (st == FV_OK)
    st = fv_cuda_fill_rect (in->data, in->stride, 1, 0, rh, rw, in->height, 0, stream);
  if (st == FV_OK)
    st = fv_cuda_edges (in->data, in->stride, rw, rh, top, 1, stream);
  return st;
}

/* The chunk's edge pixels that came out outside: background in, 0 out. */
static fv_status
after (int c, const fv_image *in, const fv_image *out, void *stream, void *user)
{
  FillChunks *f = user;
  const fv_chunk_rect *o = &f->plan->chunk[c].out;
  const int w = o->w, h = o->h;
  unsigned char *src = f->host[c], *res = src + 2 * (w + h);
  fv_status st = fv_cuda_edges ((char *) in->data + in->stride + 1, in->stride, w, h, src, 0,
      stream);
  if (st == FV_OK)
    st = fv_cuda_edges ((char *) out->data + out->stride + 1, out->stride, w, h, res, 0,
        stream);
  if (st == FV_OK)
    st = fv_cuda_stream_sync (stream);
  if (st != FV_OK)
    return st;
  const unsigned thr = f->sub.threshold;
  Edges *e = &f->found[c];
  unsigned char *bg = f->bg[c].top;   /* top, bottom, left, right: as src */
  for (int i = 0; i < 2 * (w + h); i++)
    bg[i] = src[i] <= thr;
  for (int x = 0; x < w; x++) {
    e->top[x] = bg[x] && res[x] == 0;
    e->bottom[x] = bg[w + x] && res[w + x] == 0;
  }
  for (int y = 0; y < h; y++) {
    e->left[y] = bg[2 * w + y] && res[2 * w + y] == 0;
    e->right[y] = bg[2 * w + h + y] && res[2 * w + h + y] == 0;
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
    if (f->bg)
      free (f->bg[c].top);
    if (f->seeded)
      free (f->seeded[c]);
    if (f->host)
      fv_cuda_host_free (f->host[c]);
  }
  free (f->known);
  free (f->found);
  free (f->bg);
  free (f->seeded);
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
  pl->state = f;
  f->sub = *p;
  fv_spread_whole (&f->sub.spread);
  f->W = p->width;
  f->H = p->height;
  fv_chunk_run_params rp;
  fv_spread_run_params (&p->spread, device, p->width, p->height, 1, FV_U8, 0, 0, &rp);
  rp.ring = 1;
  rp.lanes = 1;   /* more chunks mean more seams to settle: measured slower with two */
  rp.per_entry = 1;
  fv_status st = fv_chunk_run_create (&f->run, &rp, &fill_chunk_kernel, f);
  if (st != FV_OK)
    return st;
  f->plan = fv_chunk_run_plan (f->run);
  const int n = f->plan->n;
  f->known = calloc (n, sizeof *f->known);
  f->found = calloc (n, sizeof *f->found);
  f->host = calloc (n, sizeof *f->host);
  f->bg = calloc (n, sizeof *f->bg);
  f->seeded = calloc (n, sizeof *f->seeded);
  if (!f->known || !f->found || !f->host || !f->bg || !f->seeded)
    return FV_ERR_NOMEM;
  for (int c = 0; c < n; c++) {
    const fv_chunk_rect *o = &f->plan->chunk[c].out;
    /* the ring in, the edges of input and result out: read and written
     * by kernels in place */
    f->host[c] = fv_cuda_host_alloc_mapped (4 * ((size_t) o->w + o->h) + 8);
    f->seeded[c] = calloc (2 * ((size_t) o->w + 2 + o->h), 1);
    if (!f->host[c] || !f->seeded[c] || edges_alloc (&f->known[c], o) != FV_OK
        || edges_alloc (&f->found[c], o) != FV_OK || edges_alloc (&f->bg[c], o) != FV_OK)
      return FV_ERR_NOMEM;
  }
  return FV_OK;
}

/* Whether inner edge pixel (x, y) of chunk c is background that was not
 * outside in its last run: a new seed next to it changes the fill. */
static int
open_pixel (const FillChunks *f, int c, int x, int y)
{
  const fv_chunk_rect *o = &f->plan->chunk[c].out;
  if (x < 0 || y < 0 || x >= o->w || y >= o->h)
    return 0;
  const Edges *bg = &f->bg[c], *out = &f->found[c];
  if (y == 0)
    return bg->top[x] && !out->top[x];
  if (y == o->h - 1)
    return bg->bottom[x] && !out->bottom[x];
  if (x == 0)
    return bg->left[y] && !out->left[y];
  return bg->right[y] && !out->right[y];
}

/* A ring pixel at chunk coordinates (x, y), newly known outside, next to
 * an open edge pixel: 4-way the one across, 8-way its two neighbours too. */
static int
opens (const FillChunks *f, int c, int was, int x, int y, int dx, int dy)
{
  const fv_chunk_rect *o = &f->plan->chunk[c].out;
  if (was || !known_outside (f, o->x + x, o->y + y))
    return 0;
  const int ix = x + dx, iy = y + dy, reach = f->sub.connectivity == 8;
  for (int k = -reach; k <= reach; k++)
    if (open_pixel (f, c, dx ? ix : ix + k, dy ? iy : iy + k))
      return 1;
  return 0;
}

static int
needs_rerun (const FillChunks *f, int c)
{
  const fv_chunk_rect *o = &f->plan->chunk[c].out;
  const int w = o->w, h = o->h;
  const unsigned char *s = f->seeded[c];
  for (int x = -1; x <= w; x++)
    if (opens (f, c, s[x + 1], x, -1, 0, 1) || opens (f, c, s[w + 2 + x + 1], x, h, 0, -1))
      return 1;
  for (int y = 0; y < h; y++)
    if (opens (f, c, s[2 * (w + 2) + y], -1, y, 1, 0)
        || opens (f, c, s[2 * (w + 2) + h + y], w, y, -1, 0))
      return 1;
  return 0;
}

fv_status
fv_fill_chunked_execute (fv_fill_plan *pl, const fv_image *src, const fv_image *dst)
{
  FillChunks *f = pl->state;
  const int n = f->plan->n;
  if (f->sub.fill_value == 0)   /* nothing to tell outside from: all 0, one pass */
    return fv_chunk_run_execute (f->run, src, dst, NULL);
  unsigned char *which = malloc (n);
  if (!which)
    return FV_ERR_NOMEM;
  for (int c = 0; c < n; c++) {
    const fv_chunk_rect *o = &f->plan->chunk[c].out;
    memset (f->known[c].top, 0, 2 * ((size_t) o->w + o->h));
  }
  memset (which, 1, n);
  fv_status st = FV_OK;
  for (int more = 1; more && st == FV_OK;) {
    st = fv_chunk_run_execute (f->run, src, dst, which);
    for (int c = 0; c < n; c++)
      if (which[c]) {
        const fv_chunk_rect *o = &f->plan->chunk[c].out;
        memcpy (f->known[c].top, f->found[c].top, 2 * ((size_t) o->w + o->h));
      }
    more = 0;
    for (int c = 0; c < n && st == FV_OK; c++)
      more |= which[c] = (unsigned char) needs_rerun (f, c);
  }
  free (which);
  return st;
}

void
fv_fill_chunked_free (fv_fill_plan *pl)
{
  if (pl->state)
    chunks_free (pl->state);
  pl->state = NULL;
}
