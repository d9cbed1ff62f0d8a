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
 *   2. a union-find over the edge pixels on the seams (the chunks' sides
 *      that face another chunk), on the plan's own GPU
 *      (fv_fill_cuda_seams): a chunk's pixels of one component are one
 *      set, facing background pixels of two chunks are joined (4-way
 *      across, 8-way the two diagonal neighbours too), and a set holding an
 *      outside pixel is outside;
 *   3. each chunk's tiles that the components the seams showed outside
 *      reach are written again (fv_fill_cuda_second): usually few, so a
 *      chunk's pixels cross a link between GPUs about once each way.
 * A path from a pixel to the border crosses seams only between facing edge
 * pixels and runs inside a chunk's component between them, so the sets are
 * exactly the frame's components as they meet the seams: the whole-frame
 * fill exactly, in one pass over each chunk whatever the content (the
 * seams' pixels only between its halves; a run of equal components across
 * a seam is joined once). When there are more chunks than entries (a
 * budget), a chunk whose labels its entry no longer holds is labelled again
 * before it is written. */
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
  /* the seams' union-find (fv_fill_cuda_seams): on the plan's GPU, a node
   * each (0 the outside, then every chunk's edge pixels); the seams, mapped */
  int *d_parent, *d_ed;
  void *stream;
  fv_fill_side *sides;
  fv_fill_seam *seams;
  fv_fill_pair *pairs;
  int nsides, nseams, npairs, longest;
  int *col_of, *row_of;     /* the chunk column of each frame column, row of each row */
  int generation;           /* of the runner's plan, when row_of was made */
  size_t edge_len;          /* each chunk's edges: room for the largest it may be */
  fv_fill_plan *whole;      /* over several devices: the frame on the plan's own, for when
                             * the runner finds that faster (NULL where it does not fit) */
  int whole_ran;            /* the last frame went to it */
  /* measuring: each chunk's regions, measured after its second pass and
   * joined across the seams after the frame (fv_fill_chunk_measure.c) */
  fv_fill_plan *owner;
  fv_fill_pieces *pieces;
} FillChunks;

/* A chunk's edge pixels, in the order top, bottom, left, right
 * (fv_fill_plan.h) */
enum { TOP = FV_FILL_TOP, BOTTOM = FV_FILL_BOTTOM, LEFT = FV_FILL_LEFT, RIGHT = FV_FILL_RIGHT };

static int
side_start (const fv_chunk_rect *o, int side)
{
  return fv_fill_edge_start (o->w, o->h, side);
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
  q.frame.width = width;
  q.frame.height = height;
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
  FillChunks *f = user;
  fv_fill_plan probe = { .p = f->sub };
  probe.p.frame.width = width;
  probe.p.frame.height = height;
  return fv_fill_cuda_plan_bytes (&probe);
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

/* *p from `have` bytes to `want`, counted against the frame plan's budget:
 * FV_ERR_INVALID (with the reason) past it, FV_ERR_NOMEM when the host has
 * no more */
static fv_status
pieces_grow (fv_fill_plan *owner, fv_fill_pieces *pc, void *p, size_t have, size_t want)
{
  if (want <= have)
    return FV_OK;
  if (!fv_fill_grow (owner, want - have))
    return fv_fill_over_budget (owner, "the chunks' measured regions");
  pc->counted += want - have;
  void *q = realloc (*(void **) p, want);
  if (!q)
    return FV_ERR_NOMEM;
  *(void **) p = q;
  return FV_OK;
}

/* Room for n regions of kind k and the chunk's edge pixels */
static fv_status
pieces_reserve (fv_fill_plan *owner, fv_fill_pieces *pc, int k, int n, size_t edge)
{
  fv_status st = FV_OK;
  if (n > pc->cap[k]) {
    const size_t have = (size_t) pc->cap[k], want = (size_t) n;
    if ((st = pieces_grow (owner, pc, &pc->rows[k], have * sizeof (fv_fill_region),
            want * sizeof (fv_fill_region))) != FV_OK
        || (st = pieces_grow (owner, pc, &pc->first[k], have * sizeof (int),
            want * sizeof (int))) != FV_OK)
      return st;
    pc->cap[k] = n;
  }
  if (edge > pc->edge_cap) {
    for (int j = 0; j < 2 && st == FV_OK; j++)
      st = pieces_grow (owner, pc, &pc->edge[j], pc->edge_cap * sizeof (int),
          edge * sizeof (int));
    if (st != FV_OK)
      return st;
    pc->edge_cap = edge;
  }
  return FV_OK;
}

/* Chunk c measured as a frame of its own, its regions kept for the join */
static fv_status
measure_chunk (FillChunks *f, fv_fill_plan *plan, int c)
{
  fv_fill_pieces *pc = &f->pieces[c];
  const fv_chunk_rect *o = &f->plan->chunk[c].out;   /* resized only between frames */
  fv_status st = fv_fill_cuda_chunk_measure (plan, &pc->w, &pc->h);
  if (st != FV_OK)
    return st;
  if (pc->w != o->w || pc->h != o->h) {
    fv_set_last_error ("chunk %d was filled at %dx%d, not its %dx%d", c, pc->w, pc->h, o->w,
        o->h);
    return FV_ERR_INVALID;
  }
  pc->x = o->x;
  pc->y = o->y;
  const int kinds = (f->sub.measure & FV_FILL_MEASURE_PARTS) ? 2 : 1;
  for (int k = 0; k < kinds; k++) {
    const int n = k ? plan->nparts : plan->nregions;
    if ((st = pieces_reserve (f->owner, pc, k, n, 2 * ((size_t) pc->w + pc->h))) != FV_OK)
      return st;
    memcpy (pc->rows[k], k ? plan->shown_parts : plan->shown_regions,
        sizeof (fv_fill_region) * (size_t) n);
    pc->n[k] = n;
    /* the kind joined 4-ways: holes of a 4-connected background, parts of an
     * 8-connected one */
    const int four = (f->sub.connectivity == 4) == (k == 0);
    int nc = 0;
    if ((st = fv_fill_cuda_chunk_pieces (plan, k, pc->first[k], pc->edge[k],
            four ? &nc : NULL)) != FV_OK)
      return st;
    if (!four)
      continue;
    if (nc > pc->contacts_cap) {
      if ((st = pieces_grow (f->owner, pc, &pc->contacts,
              3 * sizeof (int) * (size_t) pc->contacts_cap,
              3 * sizeof (int) * (size_t) nc)) != FV_OK)
        return st;
      pc->contacts_cap = nc;
    }
    if ((st = fv_fill_cuda_chunk_contacts (plan, pc->contacts, nc)) != FV_OK)
      return st;
    pc->ncontacts = nc;
  }
  return FV_OK;
}

static fv_status
sub_second (void *plan, int c, const fv_image *out, void *user)
{
  FillChunks *f = user;
  fv_status st = fv_fill_cuda_second (plan, f->outside[c], out);
  return st == FV_OK && f->pieces ? measure_chunk (f, plan, c) : st;
}

/* The node of frame pixel (x, y), on the given side (TOP or LEFT) of its
 * chunk, where a seam runs */
static int
node_at (const FillChunks *f, int x, int y, int side)
{
  const int c = f->row_of[y] * f->plan->cols + f->col_of[x];
  const fv_chunk_rect *o = &f->plan->chunk[c].out;
  return f->base[c] + side_start (o, side) + (side == TOP ? x - o->x : y - o->y);
}

/* Which chunk row and column each frame row and column lies in, and the
 * seams as fv_fill_cuda_seams takes them: every side that faces another
 * chunk; each chunk's bottom against the top of the chunk below, its right
 * side against the left of the chunk to its right (the chunks' rows and
 * columns line up); with 8-way background the diagonal pairs at a tile
 * grid's corners, into the chunks across them. */
static void
layout (FillChunks *f)
{
  const fv_chunk_plan *pl = f->plan;
  const int cols = pl->cols, reach = f->sub.connectivity == 8;
  for (int c = 0; c < pl->n; c++) {
    const fv_chunk_rect *o = &pl->chunk[c].out;
    for (int x = o->x; x < o->x + o->w; x++)
      f->col_of[x] = c % cols;
    for (int y = o->y; y < o->y + o->h; y++)
      f->row_of[y] = c / cols;
    memset (f->outside[c], 0, f->edge_len);   /* the frame's border: never outside by a seam */
  }
  f->nsides = f->nseams = f->npairs = f->longest = 0;
  for (int c = 0; c < pl->n; c++) {
    const fv_chunk_rect *o = &pl->chunk[c].out;
    for (int side = TOP; side <= RIGHT; side++) {
      if (!seam (f, o, side))
        continue;
      const int s0 = side_start (o, side), n = side_length (o, side);
      f->sides[f->nsides++] = (fv_fill_side) { n, f->base[c] + s0, f->base[c],
        f->edges[c] + s0, f->outside[c] + s0 };
      f->longest = n > f->longest ? n : f->longest;
    }
    if (seam (f, o, BOTTOM)) {
      const int a0 = f->base[c] + side_start (o, BOTTOM), y = o->y + o->h, i = c % cols;
      f->seams[f->nseams++] = (fv_fill_seam) { o->w, a0, f->base[c + cols] };
      if (reach && i > 0)
        f->pairs[f->npairs++] = (fv_fill_pair) { a0, node_at (f, o->x - 1, y, TOP) };
      if (reach && i + 1 < cols)
        f->pairs[f->npairs++] = (fv_fill_pair) { a0 + o->w - 1,
          node_at (f, o->x + o->w, y, TOP) };
    }
    if (seam (f, o, RIGHT)) {
      const fv_chunk_rect *orr = &pl->chunk[c + 1].out;
      f->seams[f->nseams++] = (fv_fill_seam) { o->h, f->base[c] + side_start (o, RIGHT),
        f->base[c + 1] + side_start (orr, LEFT) };
    }
  }
  f->generation = pl->generation;
}

/* Step 2 (between the runner's passes): the seams' union-find, on the
 * plan's own GPU. */
static fv_status
settle (void *user)
{
  FillChunks *f = user;
  if (f->plan->generation != f->generation)   /* the runner resized the bands */
    layout (f);
  return fv_fill_cuda_seams (f->stream, f->d_parent, f->d_ed, f->sides, f->nsides, f->seams,
      f->nseams, f->pairs, f->npairs, f->longest, f->sub.connectivity == 8);
}

static fv_status
whole (const fv_image *src, const fv_image *dst, void *user)
{
  FillChunks *f = user;
  if (!f->whole) {
    fv_set_last_error ("no whole-frame fill plan on this device");
    return FV_ERR_INVALID;
  }
  f->whole_ran = 1;
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
  for (int c = 0; f->pieces && c < n; c++) {
    for (int k = 0; k < 2; k++) {
      free (f->pieces[c].rows[k]);
      free (f->pieces[c].first[k]);
      free (f->pieces[c].edge[k]);
    }
    free (f->pieces[c].contacts);
    __atomic_sub_fetch (&f->owner->held, f->pieces[c].counted, __ATOMIC_RELAXED);
  }
  free (f->pieces);
  free (f->edges);
  free (f->outside);
  free (f->base);
  fv_cuda_free (f->d_parent);
  fv_cuda_free (f->d_ed);
  fv_cuda_host_free (f->sides);
  fv_cuda_host_free (f->seams);
  fv_cuda_host_free (f->pairs);
  fv_cuda_stream_destroy (f->stream);
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
  f->owner = pl;
  f->sub = *p;
  fv_spread_whole (&f->sub.frame.spread);
  f->W = p->frame.width;
  f->H = p->frame.height;
  fv_chunk_run_params rp;
  fv_spread_run_params (&p->frame.spread, device, p->frame.width, p->frame.height, 1, FV_U8, 0, 0,
      &rp);
  /* each entry holds one chunk's labels: as many chunks as entries, one
   * entry a device (a chunk more is a seam more and a plan more) */
  rp.lanes = 1;   /* more lanes: more seams, and no faster (docs/benchmarks.md) */
  rp.per_entry = 1;
  /* each pass reads or writes a pixel once; another GPU's band of this
   * frame goes through this GPU as bits (fv_fill_cuda_first) */
  rp.peer_direct = 1;
  /* over several devices, the whole frame on this one when it fits: the
   * runner runs it when that times faster than spreading (chunks on one
   * device cost the fill more than the whole frame does) */
  fv_status st = FV_OK;
  if (rp.ndevices > 1) {
    fv_spread home = p->frame.spread;
    home.min_chunks = 0;
    int alone = 0;
    st = fv_spread_fits_alone (&home, device,
        fv_fill_cuda_bytes (p->frame.width, p->frame.height), &alone);
    fv_fill_params q = f->sub;
    if (st == FV_OK && alone)
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
  if (p->measure && !(f->pieces = calloc (n, sizeof *f->pieces)))
    return FV_ERR_NOMEM;
  if (!f->edges || !f->outside || !f->base || !f->col_of || !f->row_of)
    return FV_ERR_NOMEM;
  /* room for each chunk's edges at the largest it may be resized to */
  int mw, mh;
  fv_chunk_run_chunk_max (f->run, &mw, &mh);
  const size_t len = f->edge_len = 2 * ((size_t) mw + mh);
  size_t nodes = 1;
  for (int c = 0; c < n; c++) {
    f->base[c] = (int) nodes;
    nodes += len;
    f->edges[c] = fv_cuda_host_alloc_mapped (len * sizeof (int));
    f->outside[c] = fv_cuda_host_alloc_mapped (len);
    if (!f->edges[c] || !f->outside[c])
      return FV_ERR_NOMEM;
  }
  if (nodes > (size_t) 1 << 30)
    return FV_ERR_NOMEM;
  st = fv_cuda_stream_create (device, &f->stream);
  if (st != FV_OK)
    return st;
  f->d_parent = fv_cuda_malloc (nodes * sizeof (int));
  f->d_ed = fv_cuda_malloc (nodes * sizeof (int));
  f->sides = fv_cuda_host_alloc_mapped (4 * (size_t) n * sizeof *f->sides);
  f->seams = fv_cuda_host_alloc_mapped (2 * (size_t) n * sizeof *f->seams);
  f->pairs = fv_cuda_host_alloc_mapped (2 * (size_t) n * sizeof *f->pairs);
  if (!f->d_parent || !f->d_ed || !f->sides || !f->seams || !f->pairs)
    return FV_ERR_NOMEM;
  layout (f);
  return FV_OK;
}

fv_status
fv_fill_chunked_execute (fv_fill_plan *pl, const fv_image *src, const fv_image *dst)
{
  FillChunks *f = pl->state;
  f->whole_ran = 0;
  fv_status st = fv_chunk_run_execute (f->run, src, dst);
  if (st != FV_OK || !pl->p.measure)
    return st;
  if (f->whole_ran) {   /* the whole frame's plan measured it: its tables handed out */
    const fv_fill_region *list;
    if ((st = fv_fill_regions (f->whole, &list, &pl->nregions)) != FV_OK)
      return st;
    pl->shown_regions = list;
    if (pl->p.measure & FV_FILL_MEASURE_PARTS) {
      if ((st = fv_fill_parts (f->whole, &list, &pl->nparts)) != FV_OK)
        return st;
      pl->shown_parts = list;
    }
  } else if ((st = fv_fill_pieces_join (pl, f->plan->cols, f->plan->rows, f->pieces))
      != FV_OK) {
    return st;
  }
  pl->measured = 1;   /* measured here, not when first asked */
  return FV_OK;
}

void
fv_fill_chunked_free (fv_fill_plan *pl)
{
  if (pl->state)
    chunks_free (pl->state);
  pl->state = NULL;
}
