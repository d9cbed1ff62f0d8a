/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The measure of a frame filled in chunks (fv_fill_chunked.c): each chunk
 * is measured on its GPU as a frame of its own after its second pass (its
 * holes and parts, "pieces", with every pixel outside the chunk counted as
 * not in a region), and the pieces are joined here, on the host, into the
 * whole frame's regions, the same integers as one plan's:
 *   1. pieces that meet across a seam are one region: facing pixels of the
 *      same kind (enclosed background, or filled) joined by a union-find
 *      over the pieces, in the kind's connectivity (holes the background's,
 *      parts the other one), from the region each edge pixel of a chunk
 *      belongs to;
 *   2. sums are additive once moved to frame coordinates (a piece's
 *      Σx becomes Σx + area·x0, Σx² becomes Σx² + 2·x0·Σx + area·x0², ...),
 *      boxes join, a region's first pixel is its pieces' first;
 *   3. crossings are 2·area − 2·(pairs of one region): a piece's pairs are
 *      what its crossings say, and added are the pairs that straddle a seam
 *      with both pixels in one region (after step 1: diagonal pixels of a
 *      4-connected region may be joined far away), and, for the kind
 *      joined 4-ways, the diagonal pairs inside a chunk between two of its
 *      pieces that the seams joined (the chunk lists them: `contacts`);
 *   4. regions numbered by their first pixel in raster order; a hole's part
 *      is the part under its first pixel (the part its first piece named,
 *      joined), and parts count their holes.
 * The seams are visited once each: pairs across a row of seams (below,
 * and both diagonals) there, pairs across a column of seams (right, and the
 * diagonals that stay in one chunk row) there. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "fv_fill_plan.h"

/* the four directions of pixel pairs; DIR_D and DIR_A as fv_fill_pieces
 * says. The two kinds (k): holes 0, parts 1. */
enum { DIR_H, DIR_V, DIR_D, DIR_A };

typedef struct {
  int64_t area, sx, sy, sxx, syy, sxy, pairs[4];
  int xmin, ymin, xmax, ymax;
  int64_t first;        /* y * width + x of its first pixel */
  int first_chunk, first_piece;
} Acc;

/* The frame's grid of chunks and what each one measured */
typedef struct {
  int n, cols, rows, W, H;
  const fv_fill_pieces *pc;
  const int *row_of, *col_of;   /* the chunk row of each frame row, column of each column */
} Grid;

typedef struct {
  const Grid *g;
  int k, conn8;
  int *base;            /* per chunk: its first piece's node */
  uint32_t *parent;     /* a node a piece */
  int32_t *acc_of;      /* a root's accumulator */
  Acc *acc;
  int nacc;
  int32_t *number;      /* an accumulator's region number */
  uint32_t *order;      /* 2 a node: the accumulators in raster order, and room to sort */
  size_t cap;           /* nodes the arrays hold (kept from frame to frame) */
  size_t counted;       /* bytes counted against the plan's budget */
} Join;

/* What the join keeps in its plan from frame to frame (each kind's
 * arrays, grown to the largest frame's): allocating them anew each frame
 * cost as much as the join's work (the pages' first touch). */
struct fv_fill_join_state {
  Join kind[2];
};

static int
node_at (const Join *j, int x, int y, int side)
{
  const int c = j->g->row_of[y] * j->g->cols + j->g->col_of[x];
  const fv_fill_pieces *o = &j->g->pc[c];
  const int i = fv_fill_edge_start (o->w, o->h, side)
      + (side == FV_FILL_TOP || side == FV_FILL_BOTTOM ? x - o->x : y - o->y);
  const int v = o->edge[j->k][i];
  return v < 0 ? -1 : j->base[c] + v;
}

/* one pair straddling a seam: joined (pass 0, where the kind's
 * connectivity holds it) or counted (pass 1, where it lies in one region) */
static void
pair (Join *j, int pass, int dir, int a, int b)
{
  if (a < 0 || b < 0)
    return;
  if (pass == 0) {
    if (dir <= DIR_V || j->conn8)
      fv_fill_uf_union (j->parent, (uint32_t) a, (uint32_t) b);
    return;
  }
  const uint32_t r = fv_fill_uf_find (j->parent, (uint32_t) a);
  if (r == fv_fill_uf_find (j->parent, (uint32_t) b))
    j->acc[j->acc_of[r]].pairs[dir]++;
}

static void
seams (Join *j, int pass)
{
  const int W = j->g->W, H = j->g->H;
  for (int r = 1; r < j->g->rows; r++) {   /* a row of seams: rows y - 1 and y */
    const int y = j->g->pc[r * j->g->cols].y;
    for (int x = 0; x < W; x++) {
      const int up = node_at (j, x, y - 1, FV_FILL_BOTTOM);
      const int down = node_at (j, x, y, FV_FILL_TOP);
      pair (j, pass, DIR_V, up, down);
      if (x + 1 < W) {
        pair (j, pass, DIR_D, up, node_at (j, x + 1, y, FV_FILL_TOP));
        pair (j, pass, DIR_A, node_at (j, x + 1, y - 1, FV_FILL_BOTTOM), down);
      }
    }
  }
  for (int i = 1; i < j->g->cols; i++) {   /* a column of seams: columns x - 1 and x */
    const int x = j->g->pc[i].x;
    for (int y = 0; y < H; y++) {
      const int left = node_at (j, x - 1, y, FV_FILL_RIGHT);
      const int right = node_at (j, x, y, FV_FILL_LEFT);
      pair (j, pass, DIR_H, left, right);
      if (y + 1 < H && j->g->row_of[y + 1] == j->g->row_of[y]) {
        pair (j, pass, DIR_D, left, node_at (j, x, y + 1, FV_FILL_LEFT));
        pair (j, pass, DIR_A, right, node_at (j, x - 1, y + 1, FV_FILL_RIGHT));
      }
    }
  }
}

/* idx[0..n) (accumulators) ordered by their first pixels, which are
 * distinct and below 2^32 (frames of at most 65536 x 65536): two passes of
 * a radix sort, 16 bits each, through tmp */
static int
by_first (const Acc *acc, int n, uint32_t *idx, uint32_t *tmp)
{
  enum { BITS = 16 };
  size_t *count = malloc (sizeof *count << BITS);
  if (!count)
    return 0;
  for (int pass = 0; pass < 2; pass++) {
    const int shift = pass * BITS;
    const uint32_t *from = pass ? tmp : idx;
    uint32_t *to = pass ? idx : tmp;
    memset (count, 0, sizeof *count << BITS);
    for (int i = 0; i < n; i++)
      count[(uint64_t) acc[from[i]].first >> shift & 0xffff]++;
    size_t sum = 0;
    for (size_t d = 0; d < (size_t) 1 << BITS; d++) {
      const size_t c = count[d];
      count[d] = sum;
      sum += c;
    }
    for (int i = 0; i < n; i++)
      to[count[(uint64_t) acc[from[i]].first >> shift & 0xffff]++] = from[i];
  }
  free (count);
  return 1;
}

static void
join_free (fv_fill_plan *pl, Join *j)
{
  free (j->parent);
  free (j->acc_of);
  free (j->acc);
  free (j->number);
  free (j->order);
  __atomic_sub_fetch (&pl->held, j->counted, __ATOMIC_RELAXED);
  *j = (Join) { 0 };
}

void
fv_fill_pieces_join_free (fv_fill_plan *pl)
{
  if (!pl->join_state)
    return;
  for (int k = 0; k < 2; k++)
    join_free (pl, &pl->join_state->kind[k]);
  free (pl->join_state);
  pl->join_state = NULL;
}

/* Room for `nodes` in j's arrays (grown, counted against pl's budget) */
static fv_status
join_reserve (fv_fill_plan *pl, Join *j, size_t nodes)
{
  if (nodes <= j->cap && j->parent)
    return FV_OK;
  const size_t per = 4 * sizeof (uint32_t) + 2 * sizeof (int32_t) + sizeof (Acc);
  const size_t bytes = nodes * per + ((size_t) 1 << 16) * sizeof (size_t);
  if (bytes > j->counted && !fv_fill_grow (pl, bytes - j->counted))
    return fv_fill_over_budget (pl, "joining the chunks' regions");
  if (bytes > j->counted)
    j->counted = bytes;
  free (j->parent);
  free (j->acc_of);
  free (j->acc);
  free (j->number);
  free (j->order);
  j->parent = malloc (nodes * sizeof *j->parent + 1);
  j->acc_of = malloc (nodes * sizeof *j->acc_of + 1);
  j->acc = malloc (nodes * sizeof *j->acc + 1);
  j->number = malloc (nodes * sizeof *j->number + 1);
  j->order = malloc (nodes * 2 * sizeof *j->order + 1);
  j->cap = nodes;
  if (!j->parent || !j->acc_of || !j->acc || !j->number || !j->order) {
    j->cap = 0;
    return FV_ERR_NOMEM;
  }
  return FV_OK;
}

/* kind j->k's regions joined into *out (of *cap), numbered by first pixel;
 * j keeps the forest, the accumulators and their numbers */
static fv_status
join_kind (fv_fill_plan *pl, Join *j, fv_fill_region **out, int *cap, int *nout)
{
  const int W = j->g->W;
  size_t nodes = 0;
  for (int c = 0; c < j->g->n; c++) {
    j->base[c] = (int) nodes;
    nodes += (size_t) j->g->pc[c].n[j->k];
    if (nodes >= INT_MAX) {
      fv_set_last_error ("more than %d regions in a frame", INT_MAX - 1);
      return FV_ERR_INVALID;
    }
  }
  fv_status st = join_reserve (pl, j, nodes);
  if (st != FV_OK)
    return st;
  uint32_t *order = j->order;
  for (size_t i = 0; i < nodes; i++)
    j->parent[i] = (uint32_t) i;
  seams (j, 0);
  /* every root an accumulator, every piece added to its root's */
  int nacc = 0;
  for (size_t i = 0; i < nodes; i++)
    if (fv_fill_uf_find (j->parent, (uint32_t) i) == i) {
      j->acc[nacc] = (Acc) { .xmin = INT_MAX, .ymin = INT_MAX, .xmax = -1, .ymax = -1,
        .first = INT64_MAX };
      j->acc_of[i] = nacc++;
    }
  for (int c = 0; c < j->g->n; c++) {
    const fv_fill_pieces *pc = &j->g->pc[c], *o = pc;
    const int64_t x0 = o->x, y0 = o->y;
    for (int i = 0; i < pc->n[j->k]; i++) {
      const fv_fill_region *r = &pc->rows[j->k][i];
      Acc *a = &j->acc[j->acc_of[fv_fill_uf_find (j->parent, (uint32_t) (j->base[c] + i))]];
      const int f = pc->first[j->k][i];
      const int64_t first = (int64_t) (f / pc->w + o->y) * W + f % pc->w + o->x;
      if (first < a->first) {
        a->first = first;
        a->first_chunk = c;
        a->first_piece = i;
      }
      const int64_t A = r->area;
      a->area += A;
      a->sx += r->sum_x + A * x0;
      a->sy += r->sum_y + A * y0;
      a->sxx += r->sum_xx + 2 * x0 * r->sum_x + A * x0 * x0;
      a->syy += r->sum_yy + 2 * y0 * r->sum_y + A * y0 * y0;
      a->sxy += r->sum_xy + y0 * r->sum_x + x0 * r->sum_y + A * x0 * y0;
      a->pairs[DIR_H] += A - r->cross_h / 2;
      a->pairs[DIR_V] += A - r->cross_v / 2;
      a->pairs[DIR_D] += A - r->cross_d / 2;
      a->pairs[DIR_A] += A - r->cross_a / 2;
      const int x1 = r->x + o->x, y1 = r->y + o->y;
      const int x2 = x1 + r->width - 1, y2 = y1 + r->height - 1;
      a->xmin = x1 < a->xmin ? x1 : a->xmin;
      a->ymin = y1 < a->ymin ? y1 : a->ymin;
      a->xmax = x2 > a->xmax ? x2 : a->xmax;
      a->ymax = y2 > a->ymax ? y2 : a->ymax;
    }
  }
  seams (j, 1);   /* the pairs across the seams inside one region */
  /* diagonal pairs inside a chunk that the seams joined (pieces of a kind
   * joined 4-ways): contacts only between pieces both on the chunk's edge */
  for (int c = 0; !j->conn8 && c < j->g->n; c++)
    for (int i = 0; i < j->g->pc[c].ncontacts; i++) {
      const int *t = &j->g->pc[c].contacts[3 * i];
      if (t[0] >= 0 && t[1] >= 0 && t[0] < j->g->pc[c].n[j->k] && t[1] < j->g->pc[c].n[j->k]
          && (t[2] == DIR_D || t[2] == DIR_A))
        pair (j, 1, t[2], j->base[c] + t[0], j->base[c] + t[1]);
    }
  for (int i = 0; i < nacc; i++)
    order[i] = (uint32_t) i;
  st = by_first (j->acc, nacc, order, order + nacc)
      && fv_fill_regions_reserve (out, cap, (size_t) nacc) ? FV_OK : FV_ERR_NOMEM;
  for (int n = 0; st == FV_OK && n < nacc; n++) {
    const Acc *a = &j->acc[order[n]];
    j->number[order[n]] = n;
    (*out)[n] = (fv_fill_region) { a->xmin, a->ymin, a->xmax - a->xmin + 1,
      a->ymax - a->ymin + 1, a->area, a->sx, a->sy, a->sxx, a->syy, a->sxy,
      2 * a->area - 2 * a->pairs[DIR_H], 2 * a->area - 2 * a->pairs[DIR_V],
      2 * a->area - 2 * a->pairs[DIR_D], 2 * a->area - 2 * a->pairs[DIR_A], -1, 0, 0 };
  }
  j->nacc = nacc;
  *nout = st == FV_OK ? nacc : 0;
  return st;
}

/* the number of the region node i is in */
static int
number_of (const Join *j, int i)
{
  return j->number[j->acc_of[fv_fill_uf_find (j->parent, (uint32_t) i)]];
}

/* Whether the chunks tile the frame as a grid whose rows and columns line
 * up; row_of and col_of made */
static int
grid (const fv_fill_pieces *pc, int cols, int rows, int W, int H, int *row_of, int *col_of)
{
  for (int r = 0; r < rows; r++)
    for (int i = 0; i < cols; i++) {
      const fv_fill_pieces *o = &pc[r * cols + i];
      if (o->w < 1 || o->h < 1 || o->x != (i ? pc[r * cols + i - 1].x + pc[r * cols + i - 1].w : 0)
          || o->y != (r ? pc[(r - 1) * cols + i].y + pc[(r - 1) * cols + i].h : 0)
          || o->w != pc[i].w || o->h != pc[r * cols].h)
        return 0;
    }
  const fv_fill_pieces *last = &pc[rows * cols - 1];
  if (last->x + last->w != W || last->y + last->h != H)
    return 0;
  for (int i = 0; i < cols; i++)
    for (int x = pc[i].x; x < pc[i].x + pc[i].w; x++)
      col_of[x] = i;
  for (int r = 0; r < rows; r++)
    for (int y = pc[r * cols].y; y < pc[r * cols].y + pc[r * cols].h; y++)
      row_of[y] = r;
  return 1;
}

fv_status
fv_fill_pieces_join (fv_fill_plan *pl, int cols, int rows, const fv_fill_pieces *pc)
{
  const int parts = (pl->p.measure & FV_FILL_MEASURE_PARTS) != 0, n = cols * rows;
  const int W = pl->p.frame.width, H = pl->p.frame.height;
  pl->nregions = pl->nparts = 0;
  pl->shown_regions = pl->shown_parts = NULL;
  int *base = calloc (2 * (size_t) n + W + H, sizeof *base);
  if (!base)
    return FV_ERR_NOMEM;
  int *row_of = base + 2 * n, *col_of = row_of + H;
  if (cols < 1 || rows < 1 || !grid (pc, cols, rows, W, H, row_of, col_of)) {
    free (base);
    fv_set_last_error ("the measured chunks do not tile the %dx%d frame as a grid", W, H);
    return FV_ERR_INVALID;
  }
  if (!pl->join_state && !(pl->join_state = calloc (1, sizeof *pl->join_state))) {
    free (base);
    return FV_ERR_NOMEM;
  }
  Join *kind = pl->join_state->kind;
  const Grid g = { n, cols, rows, W, H, pc, row_of, col_of };
  for (int k = 0; k < 2; k++) {
    Join *j = &kind[k];
    j->g = &g;
    j->k = k;
    j->conn8 = (pl->p.connectivity == 8) == (k == 0);
    j->base = base + k * n;
    j->nacc = 0;
  }
  fv_status st = join_kind (pl, &kind[0], &pl->regions, &pl->regions_cap, &pl->nregions);
  if (st == FV_OK && parts)
    st = join_kind (pl, &kind[1], &pl->parts, &pl->parts_cap, &pl->nparts);
  /* a hole's part: the part its first piece named, joined */
  for (int i = 0; st == FV_OK && parts && i < kind[0].nacc; i++) {
    const Acc *a = &kind[0].acc[i];
    fv_fill_region *h = &pl->regions[kind[0].number[i]];
    const int local = pc[a->first_chunk].rows[0][a->first_piece].part;
    if (local < 0 || local >= pc[a->first_chunk].n[1]) {
      fv_set_last_error ("chunk %d: a hole names no part", a->first_chunk);
      st = FV_ERR_INVALID;
      break;
    }
    h->part = number_of (&kind[1], kind[1].base[a->first_chunk] + local);
    pl->parts[h->part].holes++;
    pl->parts[h->part].hole_area += h->area;
  }
  for (int k = 0; k < 2; k++) {   /* what lives past this call: the arrays */
    kind[k].base = NULL;
    kind[k].g = NULL;
  }
  free (base);
  if (st != FV_OK)
    pl->nregions = pl->nparts = 0;
  return st;
}
