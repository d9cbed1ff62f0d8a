/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Fills of frames beyond the device budget, or spread over several
 * devices: every chunk labelled once, the labels joined along the seams,
 * every chunk written once.
 *
 * A pixel is outside when background joins it to the frame's border. The
 * chunk runner runs the fill's two passes (fv_chunk_run.h):
 *   1. each chunk is labelled as a frame of its own whose border is only
 *      the frame's (fv_fill_cuda_first): each of its edge pixels gets its
 *      component there, "outside" when that reaches the frame's border,
 *      and the chunk is written as if no seam led outside;
 *   2. here, on the host, a union-find over the edge pixels on the seams
 *      (the chunks' sides that face another chunk): a chunk's pixels of one
 *      component are one set, facing background pixels of two chunks are
 *      joined (4-way across, 8-way the two diagonal neighbours too), and a
 *      set holding an outside pixel is outside;
 *   3. each chunk's tiles that the components the seams showed outside
 *      reach are written again (fv_fill_cuda_second): usually few, so a
 *      chunk's pixels cross a link between GPUs about once each way.
 * A path from a pixel to the border crosses seams only between facing edge
 * pixels and runs inside a chunk's component between them, so the sets are
 * exactly the frame's components as they meet the seams: the whole-frame
 * fill exactly, in one pass over each chunk whatever the content (the
 * seams' pixels only, on the host, between its halves; a run of equal
 * components across a seam is joined once). When
 * there are more chunks than entries (a budget), a chunk whose labels its
 * entry no longer holds is labelled again before it is written. */
#include <stdlib.h>
#include <string.h>
#include "fv_fill_plan.h"
#include "../common/fv_chunk_run.h"
#include "../common/fv_cuda.h"

typedef struct {
  fv_fill_params sub;       /* sizes set per chunk */
  int W, H;
  fv_chunk_run *run;
  const fv_chunk_plan *plan;
  int **edges;              /* per chunk, mapped: its edge pixels' components (pass 1) */
  unsigned char **outside;  /* per chunk, mapped: those the seams showed outside */
  int *base;                /* per chunk: its edge pixels' first node */
  uint32_t *parent;         /* nodes: 0 the outside, then every chunk's edge pixels
                             * (fv_fill_uf_find, fv_fill_uf_union) */
  int *col_of, *row_of;     /* the chunk column of each frame column, row of each row */
  fv_fill_plan *whole;      /* over several devices: the frame on the plan's own, for when
                             * the runner finds that faster (NULL where it does not fit) */
} FillChunks;

/* A chunk's edge pixels, in the order top, bottom, left, right */
enum { TOP, BOTTOM, LEFT, RIGHT };

static int
side_start (const fv_chunk_rect *o, int side)
{
  return side == TOP ? 0 : side == BOTTOM ? o->w : side == LEFT ? 2 * o->w : 2 * o->w + o->h;
}

static int
side_length (const fv_chunk_rect *o, int side)
{
  return side < LEFT ? o->w : o->h;
}

/* Whether a side of the chunk faces another chunk (else the frame's border) */
static int
seam (const FillChunks *f, const fv_chunk_rect *o, int side)
{
  switch (side) {
    case TOP: return o->y > 0;
    case BOTTOM: return o->y + o->h < f->H;
    case LEFT: return o->x > 0;
    default: return o->x + o->w < f->W;
  }
}

static fv_status
sub_create (void **plan, int width, int height, int device, void *stream, void *user)
{
  FillChunks *f = user;
  fv_fill_params q = f->sub;
  q.width = width;
  q.height = height;
  return fv_fill_plan_create ((fv_fill_plan **) plan, &q, FV_BACKEND_CUDA, device, stream);
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

static fv_status
sub_first (void *plan, int c, const fv_image *in, const fv_image *out, void *user)
{
  FillChunks *f = user;
  const fv_chunk_rect *o = &f->plan->chunk[c].out;
  const unsigned sides = (unsigned) !seam (f, o, TOP) | (unsigned) !seam (f, o, BOTTOM) << 1
      | (unsigned) !seam (f, o, LEFT) << 2 | (unsigned) !seam (f, o, RIGHT) << 3;
  return fv_fill_cuda_first (plan, in, sides, f->edges[c], out);
}

static fv_status
sub_second (void *plan, int c, const fv_image *out, void *user)
{
  FillChunks *f = user;
  return fv_fill_cuda_second (plan, f->outside[c], out);
}

/* a seam pixel that is contour: no node */
#define NONE UINT32_MAX

/* The node of frame pixel (x, y), on the given side (TOP or LEFT) of its
 * chunk, where a seam runs */
static uint32_t
node_at (const FillChunks *f, int x, int y, int side)
{
  const int c = f->row_of[y] * f->plan->cols + f->col_of[x];
  const fv_chunk_rect *o = &f->plan->chunk[c].out;
  return (uint32_t) (f->base[c] + side_start (o, side) + (side == TOP ? x - o->x : y - o->y));
}

/* Joins a seam's facing pixels: side `a` of one chunk (n pixels, first
 * node a0, components ea) against the chunk across (first node b0,
 * components eb), pixel i against i + d for d within reach and 0 <= i + d < n.
 * A pair whose components both equal the pair before it is joined already. */
static void
join_run (uint32_t *parent, int n, int a0, const int *ea, int b0, const int *eb, int reach)
{
  for (int d = -reach; d <= reach; d++) {
    const int i0 = d < 0 ? -d : 0, i1 = d > 0 ? n - d : n;
    for (int i = i0; i < i1; i++) {
      if (ea[i] < 0 || eb[i + d] < 0)
        continue;
      if (i > i0 && ea[i] == ea[i - 1] && eb[i + d] == eb[i + d - 1])
        continue;
      fv_fill_uf_union (parent, (uint32_t) (a0 + i), (uint32_t) (b0 + i + d));
    }
  }
}

/* Step 2 (between the runner's passes): the seams' union-find. */
static fv_status
settle (void *user)
{
  FillChunks *f = user;
  const fv_chunk_plan *pl = f->plan;
  const int reach = f->sub.connectivity == 8, cols = pl->cols;
  uint32_t *parent = f->parent;
  /* each seam pixel: contour (-1), outside, or its component's first pixel */
  for (int c = 0; c < pl->n; c++) {
    const fv_chunk_rect *o = &pl->chunk[c].out;
    for (int side = TOP; side <= RIGHT; side++) {
      if (!seam (f, o, side))
        continue;
      const int s0 = side_start (o, side), n = side_length (o, side), b = f->base[c] - 1;
      const int *e = f->edges[c] + s0;
      uint32_t *node = parent + f->base[c] + s0;
      for (int i = 0; i < n; i++)
        node[i] = e[i] < 0 ? NONE : e[i] == 0 ? 0 : (uint32_t) (b + e[i]);
    }
  }
  /* facing background pixels joined: each chunk's bottom against the top
   * of the chunk below, its right side against the left of the chunk to
   * its right (the chunks' rows and columns line up), and with 8-way
   * background the diagonal pairs at the corners, into the chunks across
   * them */
  for (int c = 0; c < pl->n; c++) {
    const fv_chunk_rect *o = &pl->chunk[c].out;
    const int i = c % cols;
    if (seam (f, o, BOTTOM)) {
      const int below = c + cols, a0 = f->base[c] + side_start (o, BOTTOM);
      join_run (parent, o->w, a0, f->edges[c] + o->w, f->base[below], f->edges[below], reach);
      const int y = o->y + o->h;
      if (reach && i > 0 && parent[a0] != NONE && parent[node_at (f, o->x - 1, y, TOP)] != NONE)
        fv_fill_uf_union (parent, (uint32_t) a0, node_at (f, o->x - 1, y, TOP));
      if (reach && i + 1 < cols && parent[a0 + o->w - 1] != NONE
          && parent[node_at (f, o->x + o->w, y, TOP)] != NONE)
        fv_fill_uf_union (parent, (uint32_t) (a0 + o->w - 1), node_at (f, o->x + o->w, y, TOP));
    }
    if (seam (f, o, RIGHT)) {
      const int right = c + 1, a0 = f->base[c] + side_start (o, RIGHT);
      const fv_chunk_rect *orr = &pl->chunk[right].out;
      join_run (parent, o->h, a0, f->edges[c] + 2 * o->w + o->h,
          f->base[right] + side_start (orr, LEFT), f->edges[right] + 2 * orr->w, reach);
    }
  }
  /* what the seams showed outside that the chunk did not know */
  for (int c = 0; c < pl->n; c++) {
    const fv_chunk_rect *o = &pl->chunk[c].out;
    for (int side = TOP; side <= RIGHT; side++) {
      if (!seam (f, o, side))
        continue;
      const int s0 = side_start (o, side), n = side_length (o, side);
      const int *e = f->edges[c] + s0;
      unsigned char *out = f->outside[c] + s0;
      for (int k = 0; k < n; k++)
        out[k] = e[k] > 0 && (k > 0 && e[k] == e[k - 1] ? out[k - 1]
            : fv_fill_uf_find (parent, (uint32_t) (f->base[c] + s0 + k)) == 0);
    }
  }
  return FV_OK;
}

static fv_status
whole (const fv_image *src, const fv_image *dst, void *user)
{
  FillChunks *f = user;
  if (!f->whole) {
    fv_set_last_error ("no whole-frame fill plan on this device");
    return FV_ERR_INVALID;
  }
  return fv_fill_execute (f->whole, src, dst);
}

static const fv_chunk_kernel fill_chunk_kernel = {
  .create = sub_create, .destroy = sub_destroy, .bytes = sub_bytes,
  .first = sub_first, .settle = settle, .second = sub_second, .whole = whole,
};

static const fv_chunk_kernel fill_chunks_only = {
  .create = sub_create, .destroy = sub_destroy, .bytes = sub_bytes,
  .first = sub_first, .settle = settle, .second = sub_second,
};

static void
chunks_free (FillChunks *f)
{
  const int n = f->plan ? f->plan->n : 0;
  for (int c = 0; c < n; c++) {
    if (f->edges)
      fv_cuda_host_free (f->edges[c]);
    if (f->outside)
      fv_cuda_host_free (f->outside[c]);
  }
  free (f->edges);
  free (f->outside);
  free (f->base);
  free (f->parent);
  free (f->col_of);
  free (f->row_of);
  fv_chunk_run_destroy (f->run);
  fv_fill_plan_destroy (f->whole);
  free (f);
}

fv_status
fv_fill_chunked_init (fv_fill_plan *pl, int device, void *stream)
{
  const fv_fill_params *p = &pl->p;   /* the chunks: each device entry has its own stream */
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
  /* each entry holds one chunk's labels: as many chunks as entries, one
   * entry a device (a chunk more is a seam more and a plan more) */
  rp.lanes = 1;   /* more lanes: more seams, and no faster (docs/benchmarks.md) */
  rp.per_entry = 1;
  rp.peer_direct = 1;   /* each pass reads or writes a pixel once */
  /* over several devices, the whole frame on this one when it fits: the
   * runner runs it when that times faster than spreading (chunks on one
   * device cost the fill more than the whole frame does) */
  fv_status st = FV_OK;
  if (rp.ndevices > 1) {
    fv_spread home = p->spread;
    home.ndevices = 0;
    home.min_chunks = 0;
    int chunked = 1;
    st = fv_spread_chunked (&home, device, fv_fill_cuda_bytes (p->width, p->height), &chunked);
    fv_fill_params q = f->sub;
    if (st == FV_OK && !chunked)
      st = fv_fill_plan_create (&f->whole, &q, FV_BACKEND_CUDA, device, stream);
    if (st != FV_OK)
      return st;
  }
  st = fv_chunk_run_create (&f->run, &rp, f->whole ? &fill_chunk_kernel
      : &fill_chunks_only, f);
  if (st != FV_OK)
    return st;
  f->plan = fv_chunk_run_plan (f->run);
  const int n = f->plan->n;
  f->edges = calloc (n, sizeof *f->edges);
  f->outside = calloc (n, sizeof *f->outside);
  f->base = calloc (n, sizeof *f->base);
  f->col_of = calloc (f->W, sizeof *f->col_of);
  f->row_of = calloc (f->H, sizeof *f->row_of);
  if (!f->edges || !f->outside || !f->base || !f->col_of || !f->row_of)
    return FV_ERR_NOMEM;
  size_t nodes = 1;
  for (int c = 0; c < n; c++) {
    const fv_chunk_rect *o = &f->plan->chunk[c].out;
    const size_t len = 2 * ((size_t) o->w + o->h);
    f->base[c] = (int) nodes;
    nodes += len;
    f->edges[c] = fv_cuda_host_alloc_mapped (len * sizeof (int));
    f->outside[c] = fv_cuda_host_alloc_mapped (len);
    if (!f->edges[c] || !f->outside[c])
      return FV_ERR_NOMEM;
    memset (f->outside[c], 0, len);
    for (int x = o->x; x < o->x + o->w; x++)
      f->col_of[x] = c % f->plan->cols;
    for (int y = o->y; y < o->y + o->h; y++)
      f->row_of[y] = c / f->plan->cols;
  }
  if (nodes > (size_t) 1 << 30 || !(f->parent = malloc (nodes * sizeof *f->parent)))
    return FV_ERR_NOMEM;
  f->parent[0] = 0;   /* the outside */
  return FV_OK;
}

fv_status
fv_fill_chunked_execute (fv_fill_plan *pl, const fv_image *src, const fv_image *dst)
{
  FillChunks *f = pl->state;
  return fv_chunk_run_execute (f->run, src, dst);
}

void
fv_fill_chunked_free (fv_fill_plan *pl)
{
  if (pl->state)
    chunks_free (pl->state);
  pl->state = NULL;
}
