/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* measure on the CPU: the runs of a filled frame joined into regions (the
 * runs its fill labelled; the GPU measures on the device,
 * fv_fill_measure_cuda.cu, to the same integers). Holes are the enclosed runs joined in the background's
 * connectivity, parts the filled runs (contour and what it encloses) joined
 * in the other one (8 for a 4-connected background, 4 for an 8-connected
 * one: the pairing under which the outside cannot pass between two parts).
 *
 * A union-find over the runs, union by the smaller index, so that a
 * region's root is its first run and the roots come out in raster order of
 * their first pixel; then one pass over the runs adds each run's
 * closed-form sums (area, x, y, x², y², xy) to its region, and one over
 * pairs of neighbouring rows counts the pixel pairs inside a region
 * vertically and diagonally (the boundary crossings follow from them).
 * Every sum is an integer: the same on every back end to the last bit, and
 * so is every feature computed from them (fv_fill_shape). No pass over the
 * pixels.
 *
 * Over the fill's threads, in bands of rows: each band counts its runs,
 * puts them in place (a prefix over the rows between) and joins them
 * inside itself; the seams join after, and the regions are named in one
 * pass. A band owns the regions whose first run it holds (a range of
 * region numbers) and sums its runs and row pairs into them; those of
 * regions another band owns it sums apart, one partial a region, and the
 * partials are added after (the box by union). The same integers for any
 * number of bands. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "fv_fill_plan.h"
#include "../common/fv_parallel.h"

#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define MIN(a, b) ((a) < (b) ? (a) : (b))

/* One kind of region being joined: its runs in raster order. */
typedef struct {
  fv_fill_plan *pl;       /* whose budget the tables grow in */
  int e;                  /* 1: runs touching at a corner join (8-connected) */
  size_t per_run;         /* bytes a run takes here */
  fv_fill_span *run;
  uint32_t *parent;       /* union-find, then the region of each run */
  uint32_t *root;         /* naming: each run's root, then a root's region */
  uint32_t *part;         /* holes: the filled run each lies in */
  size_t *row_first;      /* height + 1: each row's first run */
  size_t n, cap, most;    /* most: the frame can hold no more */
  size_t nregions;
  int with_part, over, nomem;
} joiner;

static int
reserve (joiner *j, size_t more)
{
  if (j->n + more <= j->cap)
    return 1;
  size_t cap = j->cap ? 2 * j->cap : 1024;
  while (cap < j->n + more)
    cap *= 2;
  cap = MAX (MIN (cap, j->most), j->n + more);
  if (!fv_fill_grow (j->pl, (cap - j->cap) * j->per_run)) {
    j->over = 1;
    return 0;
  }
  j->cap = cap;   /* counted: joiner_free gives back what was counted */
  fv_fill_span *r = realloc (j->run, cap * sizeof *r);
  if (r)
    j->run = r;
  uint32_t *p = realloc (j->parent, cap * sizeof *p);
  if (p)
    j->parent = p;
  uint32_t *o = realloc (j->root, cap * sizeof *o);
  if (o)
    j->root = o;
  uint32_t *q = j->with_part ? realloc (j->part, cap * sizeof *q) : NULL;
  if (q)
    j->part = q;
  if (!r || !p || !o || (j->with_part && !q)) {
    j->nomem = 1;
    return 0;
  }
  return 1;
}

/* Row y's runs joined to row y-1's where they touch (both rows in place:
 * row_first is whole), two pointers over the two rows. */
static void
join_rows (joiner *j, int y)
{
  const size_t pf = j->row_first[y - 1], first = j->row_first[y];
  const int np = (int) (first - pf), n = (int) (j->row_first[y + 1] - first), e = j->e;
  const fv_fill_span *prev = j->run + pf, *cur = j->run + first;
  for (int i = 0, k = 0; i < n && k < np;) {
    if (cur[i].x0 < prev[k].x1 + e && prev[k].x0 < cur[i].x1 + e)
      fv_fill_uf_union (j->parent, (uint32_t) (first + i), (uint32_t) (pf + k));
    if (cur[i].x1 < prev[k].x1) i++; else k++;
  }
}

/* Row y's runs in at their place (row_first counted), each its own tree. */
static void
put_row (joiner *j, int y, const fv_fill_span *s, int n)
{
  const size_t first = j->row_first[y];
  for (int k = 0; k < n; k++) {
    j->run[first + k] = s[k];
    j->parent[first + k] = (uint32_t) (first + k);
  }
}

/* Row counts (row_first[y + 1] = row y's runs) to each row's first run,
 * the tables grown to hold them all. */
static int
place_rows (joiner *j, int height)
{
  j->row_first[0] = 0;
  for (int y = 0; y < height; y++)
    j->row_first[y + 1] += j->row_first[y];
  j->row_first[height + 1] = j->row_first[height];
  j->n = 0;
  if (!reserve (j, j->row_first[height]))
    return 0;
  j->n = j->row_first[height];
  return 1;
}

typedef struct {
  joiner *j;
  const int *band_y;
  uint32_t *kfirst;
} naming;

/* Band b's runs: each one's root, and how many roots the band holds. */
static void
find_roots (void *ctx, long b, int me)
{
  (void) me;
  const naming *nm = ctx;
  const joiner *j = nm->j;
  uint32_t *const parent = j->parent, *const root = j->root;
  const size_t i0 = j->row_first[nm->band_y[b]], i1 = j->row_first[nm->band_y[b + 1]];
  uint32_t n = 0;
  for (size_t i = i0; i < i1; i++) {
    uint32_t r = parent[i];
    if (r == i)
      n++;
    else if (r >= i0)
      r = root[r];   /* found already: an earlier run of this band */
    else
      while (parent[r] != r)
        r = parent[r];
    root[i] = r;
  }
  nm->kfirst[b + 1] = n;
}

/* Band b's roots numbered from kfirst[b]. */
static void
number_roots (void *ctx, long b, int me)
{
  (void) me;
  const naming *nm = ctx;
  const joiner *j = nm->j;
  uint32_t *const root = j->root;
  const size_t i0 = j->row_first[nm->band_y[b]], i1 = j->row_first[nm->band_y[b + 1]];
  uint32_t k = nm->kfirst[b];
  for (size_t i = i0; i < i1; i++)
    if (root[i] == i)
      root[i] = k++;   /* a root: its region from now on */
}

/* Band b's runs named by their roots' regions. */
static void
name_runs (void *ctx, long b, int me)
{
  (void) me;
  const naming *nm = ctx;
  const joiner *j = nm->j;
  uint32_t *const parent = j->parent, *const root = j->root;
  const size_t i0 = j->row_first[nm->band_y[b]], i1 = j->row_first[nm->band_y[b + 1]];
  for (size_t i = i0; i < i1; i++)
    parent[i] = parent[i] == i ? root[i] : root[root[i]];
}

/* parent[] from trees to region indices, regions numbered by their first
 * run (a tree's root: a run's parent is never after it), band by band over
 * the threads: each run's root (through the band's own roots, or up the
 * trees where it leaves the band: parent[] is only read), the roots a
 * band holds counted, numbered from the bands before (kfirst[b]: the first
 * region whose first run lies in band b, the regions band b owns up to
 * kfirst[b + 1]), then every run named by its root. */
static void
name_regions (joiner *j, const int *band_y, int bands, uint32_t *kfirst)
{
  naming nm = { j, band_y, kfirst };
  fv_team team = fv_team_begin (bands);
  fv_team_for (team, bands, 0, find_roots, &nm);
  kfirst[0] = 0;
  for (int b = 0; b < bands; b++)
    kfirst[b + 1] += kfirst[b];
  fv_team_for (team, bands, 0, number_roots, &nm);
  fv_team_for (team, bands, 0, name_runs, &nm);
  fv_team_end (team);
  j->nregions = kfirst[bands];
}

static inline int64_t
sum_sq (int64_t k)   /* 0² + 1² + ... + k² (0 for k = -1) */
{
  return k * (k + 1) * (2 * k + 1) / 6;
}

static inline int64_t
overlap (int a0, int a1, int b0, int b1)
{
  return MAX (0, MIN (a1, b1) - MAX (a0, b0));
}

/* A band's share of the regions whose first run another band holds: one
 * partial sum a region (its runs' sums and box, its pairs), found by an
 * open-addressing table of region numbers; added to the regions after the
 * bands, in band order (a band's runs of such a region all come after the
 * owner's, so its partial box joins by union). */
typedef struct {
  fv_fill_region r;
  int64_t t[3];
} partial;

typedef struct {
  fv_fill_plan *pl;        /* whose budget the table grows in */
  uint32_t *key;           /* region numbers, FREE where empty */
  uint32_t *slot;          /* their partial's index */
  size_t cap;              /* a power of two, or 0 */
  partial *part;
  size_t n, part_cap;
  size_t counted;          /* bytes counted against the budget */
  int nomem, over;
} foreign;

#define FREE UINT32_MAX

static void
foreign_clear (foreign *f)
{
  if (f->cap)
    memset (f->key, 0xff, f->cap * sizeof *f->key);
  f->n = 0;
  f->nomem = f->over = 0;
}

static int
foreign_grow (foreign *f)
{
  const size_t cap = f->cap ? 2 * f->cap : 64;
  const size_t bytes = cap * (2 * sizeof (uint32_t) + sizeof (partial) / 2);
  if (!fv_fill_grow (f->pl, bytes - f->counted)) {
    f->over = 1;
    return 0;
  }
  f->counted = bytes;   /* counted: fv_fill_measure_free gives it back */
  uint32_t *key = malloc (cap * sizeof *key), *slot = malloc (cap * sizeof *slot);
  partial *part = realloc (f->part, cap / 2 * sizeof *part);
  if (part) {
    f->part = part;
    f->part_cap = cap / 2;
  }
  if (!key || !slot || !part) {
    free (key);
    free (slot);
    f->nomem = 1;
    return 0;
  }
  memset (key, 0xff, cap * sizeof *key);
  for (size_t i = 0; i < f->cap; i++)   /* the entries so far, placed again */
    if (f->key[i] != FREE) {
      size_t h = (f->key[i] * 2654435761u) & (cap - 1);
      while (key[h] != FREE)
        h = (h + 1) & (cap - 1);
      key[h] = f->key[i];
      slot[h] = f->slot[i];
    }
  free (f->key);
  free (f->slot);
  f->key = key;
  f->slot = slot;
  f->cap = cap;
  return 1;
}

/* Region k's partial in this band, made empty on first use; NULL when out
 * of memory or past the budget (f->nomem or f->over set). */
static partial *
foreign_get (foreign *f, uint32_t k)
{
  if (2 * (f->n + 1) > f->cap && !foreign_grow (f))
    return NULL;
  size_t h = (k * 2654435761u) & (f->cap - 1);
  while (f->key[h] != FREE && f->key[h] != k)
    h = (h + 1) & (f->cap - 1);
  if (f->key[h] == FREE) {
    f->key[h] = k;
    f->slot[h] = (uint32_t) f->n;
    f->part[f->n++] = (partial) { .r = { .part = -1 } };
  }
  return &f->part[f->slot[h]];
}

/* A band's partial into its region (which has its owner's runs: the box
 * grows by union). */
static void
join_partial (fv_fill_region *r, int64_t *t, const partial *q)
{
  const int x1 = MAX (r->x + r->width, q->r.x + q->r.width);
  const int y1 = MAX (r->y + r->height, q->r.y + q->r.height);
  r->x = MIN (r->x, q->r.x);
  r->y = MIN (r->y, q->r.y);
  r->width = x1 - r->x;
  r->height = y1 - r->y;
  r->area += q->r.area;
  r->sum_x += q->r.sum_x;
  r->sum_y += q->r.sum_y;
  r->sum_xx += q->r.sum_xx;
  r->sum_yy += q->r.sum_yy;
  r->sum_xy += q->r.sum_xy;
  r->cross_h += q->r.cross_h;
  t[0] += q->t[0];
  t[1] += q->t[1];
  t[2] += q->t[2];
}

/* What a plan keeps from frame to frame: the joiners' tables and the
 * buffers, grown to the largest frame seen (counted against the budget
 * while the plan lives) */
typedef struct fv_fill_measure_state {
  joiner j[2];             /* holes, parts */
  fv_fill_span *row[2];    /* a band's row of spans of each, bands side by side */
  int bands;               /* fixed by the plan's threads and height */
  int64_t *pairs;          /* 3 a region */
  size_t pairs_cap;
  foreign *away;           /* a band's partial sums of regions another owns */
  int *band_y;             /* bands + 1: each band's first row */
  uint32_t *kfirst[2];     /* bands + 1: each band's first region, of each */
} measure_state;

/* Run i (row y) into its region: box, area, moments, its two ends. */
static inline void
add_run (fv_fill_region *r, const fv_fill_span *run, int y)
{
  const int x0 = run->x0, x1 = run->x1;
  const int64_t n = x1 - x0, sx = (int64_t) (x0 + x1 - 1) * n / 2;
  if (r->area == 0) {   /* its first run: the top row, the box starts here */
    r->x = x0; r->y = y; r->width = x1 - x0; r->height = 1;
  } else {
    const int rx1 = MAX (r->x + r->width, x1);
    r->x = MIN (r->x, x0);
    r->width = rx1 - r->x;
    r->height = y - r->y + 1;
  }
  r->area += n;
  r->sum_x += sx;
  r->sum_y += n * y;
  r->sum_xx += sum_sq (x1 - 1) - sum_sq (x0 - 1);
  r->sum_yy += n * y * y;
  r->sum_xy += sx * y;
  r->cross_h += 2;   /* along a row a run is crossed at its two ends */
}

/* Band b's share of the sums: its own regions' (kfirst[b] up to
 * kfirst[b + 1]) set out, its runs and its pairs of rows (y, y + 1) added
 * where it owns the region, summed apart in `f` where another band does. The
 * pairs are those of pixels inside one region one row apart (straight
 * down, down-right, down-left), from which the crossings of its boundary
 * follow: two pointers over the runs of rows y and y + 1 widened by one
 * pixel find every pair of runs that has any. */
static void
sum_band (const joiner *j, fv_fill_region *reg, int64_t *v, int height, int y0, int y1,
    uint32_t k0, uint32_t k1, foreign *f)
{
  for (uint32_t k = k0; k < k1; k++)
    reg[k] = (fv_fill_region) { .x = INT32_MAX, .y = INT32_MAX, .part = -1 };
  memset (v + 3 * (size_t) k0, 0, 3 * sizeof *v * (k1 - k0));
  foreign_clear (f);
  partial *q;
  for (int y = y0; y < y1; y++)
    for (size_t i = j->row_first[y]; i < j->row_first[y + 1]; i++) {
      const uint32_t k = j->parent[i];
      if (k >= k0 && k < k1)
        add_run (&reg[k], &j->run[i], y);
      else if ((q = foreign_get (f, k)))
        add_run (&q->r, &j->run[i], y);
    }
  for (int yy = y0; yy < y1 && yy + 1 < height; yy++) {
    const size_t a0 = j->row_first[yy], b0 = j->row_first[yy + 1], b1 = j->row_first[yy + 2];
    for (size_t i = a0, k = b0; i < b0 && k < b1;) {
      const fv_fill_span a = j->run[i], b = j->run[k];
      if (a.x0 - 1 < b.x1 && b.x0 < a.x1 + 1 && j->parent[i] == j->parent[k]) {
        const uint32_t r = j->parent[i];
        const int32_t t[3] = { (int32_t) overlap (a.x0, a.x1, b.x0, b.x1),
          (int32_t) overlap (a.x0 + 1, a.x1 + 1, b.x0, b.x1),
          (int32_t) overlap (a.x0 - 1, a.x1 - 1, b.x0, b.x1) };
        if (r >= k0 && r < k1) {
          int64_t *p = &v[3 * (size_t) r];
          p[0] += t[0];
          p[1] += t[1];
          p[2] += t[2];
        } else if ((q = foreign_get (f, r))) {
          q->t[0] += t[0];
          q->t[1] += t[1];
          q->t[2] += t[2];
        }
      }
      if (a.x1 < b.x1) i++; else k++;
    }
  }
}

typedef struct {
  joiner *j;
  fv_fill_region *reg;
  int64_t *v;
  int height;
  measure_state *ms;
  const uint32_t *kfirst;
} summing;

static void
sum_one_band (void *ctx, long b, int me)
{
  (void) me;
  const summing *sm = ctx;
  sum_band (sm->j, sm->reg, sm->v, sm->height, sm->ms->band_y[b], sm->ms->band_y[b + 1],
      sm->kfirst[b], sm->kfirst[b + 1], &sm->ms->away[b]);
}

static void
crossings (void *ctx, long k, int me)
{
  (void) me;
  const summing *sm = ctx;
  fv_fill_region *r = &sm->reg[k];
  const int64_t *t = &sm->v[3 * k];
  r->cross_v = 2 * r->area - 2 * t[0];
  r->cross_d = 2 * r->area - 2 * t[1];
  r->cross_a = 2 * r->area - 2 * t[2];
}

/* The regions' sums from their runs, band by band over the threads, then
 * what the bands listed for others in band order; the crossings last: a
 * pixel has one pair each way down and one each way up, so pairs that
 * leave the region are the pixel's pairs less twice those inside (the
 * frame's outside is not in it). */
static void
sum_regions (joiner *j, fv_fill_region *reg, int height, measure_state *ms, int bands,
    const uint32_t *kfirst)
{
  const size_t need = 3 * MAX (j->nregions, 1);
  if (need > ms->pairs_cap) {
    int64_t *p = realloc (ms->pairs, need * sizeof *p);
    if (!p) {
      j->nomem = 1;
      return;
    }
    ms->pairs = p;
    ms->pairs_cap = need;
  }
  int64_t *v = ms->pairs;
  summing sm = { j, reg, v, height, ms, kfirst };
  fv_team team = fv_team_begin (bands);
  fv_team_for (team, bands, 0, sum_one_band, &sm);
  for (int b = 0; b < bands; b++) {
    const foreign *f = &ms->away[b];
    j->nomem |= f->nomem;
    j->over |= f->over;
    for (size_t h = 0; h < f->cap; h++)
      if (f->key[h] != FREE)
        join_partial (&reg[f->key[h]], &v[3 * (size_t) f->key[h]], &f->part[f->slot[h]]);
  }
  fv_team_for (team, (long) j->nregions, 0, crossings, &sm);
  fv_team_end (team);
}

static void
joiner_free (joiner *j)
{
  free (j->run);
  free (j->parent);
  free (j->root);
  free (j->part);
  free (j->row_first);
  if (j->pl)
    __atomic_sub_fetch (&j->pl->held, j->cap * j->per_run, __ATOMIC_RELAXED);
}

/* A frame begins: the tables kept, emptied. */
static int
joiner_begin (joiner *j, fv_fill_plan *pl, int conn, int with_part)
{
  const int H = pl->p.frame.height;
  if (!j->row_first) {
    *j = (joiner) { .pl = pl, .with_part = with_part,
      .per_run = sizeof (fv_fill_span) + sizeof (uint32_t) * (with_part ? 3 : 2),
      .most = ((size_t) pl->p.frame.width / 2 + 1) * (size_t) H };
    j->row_first = malloc (sizeof *j->row_first * ((size_t) H + 2));
  }
  j->e = conn == 8;
  j->n = j->nregions = 0;
  j->over = j->nomem = 0;
  return j->row_first != NULL;
}

void
fv_fill_measure_free (fv_fill_plan *pl)
{
  measure_state *ms = pl->measure_state;
  if (!ms)
    return;
  joiner_free (&ms->j[0]);
  joiner_free (&ms->j[1]);
  free (ms->row[0]);
  free (ms->row[1]);
  free (ms->pairs);
  for (int b = 0; ms->away && b < ms->bands; b++) {
    free (ms->away[b].key);
    free (ms->away[b].slot);
    free (ms->away[b].part);
    __atomic_sub_fetch (&pl->held, ms->away[b].counted, __ATOMIC_RELAXED);
  }
  free (ms->away);
  free (ms->band_y);
  free (ms->kfirst[0]);
  free (ms->kfirst[1]);
  free (ms);
  pl->measure_state = NULL;
}

/* Each hole run of row y's filled run (a hole's pixels are filled, and a
 * run of them lies inside one run of filled pixels of its row). */
static void
holes_in_parts (joiner *h, const joiner *f, int y)
{
  const size_t hend = h->row_first[y + 1], fend = f->row_first[y + 1];
  for (size_t i = h->row_first[y], k = f->row_first[y]; i < hend && k < fend;) {
    if (f->run[k].x1 <= h->run[i].x0)
      k++;
    else
      h->part[i++] = (uint32_t) k;
  }
}

/* The runs of rows [y0, y1) in, joined inside the band; first only
 * counted (row_first[y + 1]), then put in place. */
static void
band_rows (measure_state *ms, int b, int y0, int y1, int count, int parts,
    fv_fill_spans_fn spans, void *ctx, size_t most)
{
  joiner *const hp = &ms->j[0], *const fp = &ms->j[1];
  fv_fill_row_spans row = { ms->row[0] + (size_t) b * most, 0,
    parts ? ms->row[1] + (size_t) b * most : NULL, 0 };
  for (int y = y0; y < y1; y++) {
    spans (ctx, y, &row);
    if (count) {
      hp->row_first[y + 1] = (size_t) row.nholes;
      if (parts)
        fp->row_first[y + 1] = (size_t) row.nfilled;
      continue;
    }
    put_row (hp, y, row.holes, row.nholes);
    if (y > y0)
      join_rows (hp, y);
    if (parts) {
      put_row (fp, y, row.filled, row.nfilled);
      if (y > y0)
        join_rows (fp, y);
      holes_in_parts (hp, fp, y);
    }
  }
}

typedef struct {
  measure_state *ms;
  int count, parts;
  fv_fill_spans_fn spans;
  void *ctx;
  size_t most;
} banding;

static void
one_band_rows (void *data, long b, int me)
{
  (void) me;
  const banding *bj = data;
  band_rows (bj->ms, (int) b, bj->ms->band_y[b], bj->ms->band_y[b + 1], bj->count, bj->parts,
      bj->spans, bj->ctx, bj->most);
}

fv_status
fv_fill_measure (fv_fill_plan *pl, fv_fill_spans_fn spans, void *ctx)
{
  const int H = pl->p.frame.height, W = pl->p.frame.width;
  const int parts = (pl->p.measure & FV_FILL_MEASURE_PARTS) != 0;
  const size_t most = (size_t) W / 2 + 1;
  /* bands of rows over the fill's threads: each counts its runs, then puts
   * them in place and joins them inside itself; the seams join after */
  const int bands = pl->nthreads < H ? (pl->nthreads > 1 ? pl->nthreads : 1) : H;
  measure_state *ms = pl->measure_state;
  if (!ms) {
    ms = pl->measure_state = calloc (1, sizeof *ms);
    if (ms) {
      ms->bands = bands;
      ms->row[0] = malloc (sizeof (fv_fill_span) * most * bands);
      ms->row[1] = parts ? malloc (sizeof (fv_fill_span) * most * bands) : NULL;
      ms->away = calloc (bands, sizeof *ms->away);
      for (int b = 0; ms->away && b < bands; b++)
        ms->away[b].pl = pl;
      ms->band_y = malloc (sizeof (int) * (bands + 1));
      ms->kfirst[0] = malloc (sizeof (uint32_t) * (bands + 1));
      ms->kfirst[1] = malloc (sizeof (uint32_t) * (bands + 1));
      for (int b = 0; ms->band_y && b < bands; b++)
        fv_split_range (H, bands, b, &ms->band_y[b], &ms->band_y[b + 1]);
    }
  }
  if (!ms || !ms->row[0] || (parts && !ms->row[1]) || !ms->away || !ms->band_y
      || !ms->kfirst[0] || !ms->kfirst[1]) {
    fv_set_last_error ("out of memory measuring the regions");
    return FV_ERR_NOMEM;
  }
  joiner *const hp = &ms->j[0], *const fp = &ms->j[1];
  int ok = joiner_begin (hp, pl, pl->p.connectivity, parts);
  if (parts)
    ok = joiner_begin (fp, pl, pl->p.connectivity == 8 ? 4 : 8, 0) && ok;
  for (int pass = 0; pass < 2 && ok; pass++) {
    banding bj = { ms, pass == 0, parts, spans, ctx, most };
    fv_team team = fv_team_begin (bands);
    fv_team_for (team, bands, 0, one_band_rows, &bj);
    fv_team_end (team);
    if (pass == 0)
      ok = place_rows (hp, H) && (!parts || place_rows (fp, H));
  }
  for (int b = 1; b < bands && ok; b++) {   /* the seams */
    join_rows (hp, ms->band_y[b]);
    if (parts)
      join_rows (fp, ms->band_y[b]);
  }
  if (ok) {
    name_regions (hp, ms->band_y, bands, ms->kfirst[0]);
    if (parts)
      name_regions (fp, ms->band_y, bands, ms->kfirst[1]);
    ok = fv_fill_regions_reserve (&pl->regions, &pl->regions_cap, hp->nregions)
        && (!parts || fv_fill_regions_reserve (&pl->parts, &pl->parts_cap, fp->nregions));
  }
  pl->nregions = pl->nparts = 0;
  if (ok) {
    sum_regions (hp, pl->regions, H, ms, bands, ms->kfirst[0]);
    if (parts)
      sum_regions (fp, pl->parts, H, ms, bands, ms->kfirst[1]);
    ok = !hp->nomem && !hp->over && !(parts && (fp->nomem || fp->over));
  }
  if (ok && parts) {
    /* a hole's part is its first run's; the parts count their holes */
    for (size_t i = 0, k = 0; i < hp->n && k < hp->nregions; i++)
      if (hp->parent[i] == k) {
        fv_fill_region *hole = &pl->regions[k++], *part;
        hole->part = (int) fp->parent[hp->part[i]];
        part = &pl->parts[hole->part];
        part->holes++;
        part->hole_area += hole->area;
      }
  }
  if (ok) {
    pl->nregions = (int) hp->nregions;
    pl->nparts = parts ? (int) fp->nregions : 0;
  }
  const int over = hp->over || (parts && fp->over);
  if (over)
    return fv_fill_over_budget (pl, "the measured regions");
  if (!ok) {
    fv_set_last_error ("out of memory measuring the regions");
    return FV_ERR_NOMEM;
  }
  return FV_OK;
}
