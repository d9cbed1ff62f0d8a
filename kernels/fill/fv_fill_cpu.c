/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* CPU fill: the parallel reverse fill, on runs of background.
 *
 * Each row's background is first cut into runs (maximal spans of pixels
 * <= threshold), in parallel. Then seeds on the frame border (one label for
 * all of them) and random interior seeds on distinct rows are flooded in
 * parallel, one scan-line fill per seed; a scan line here is a run, so a
 * fill touches each run once instead of each pixel three times. Fills write
 * their own label with no locks: a run two fills race for lies where their
 * regions meet, and either label is right. A parallel pass over pairs of
 * rows then joins every two labels whose runs touch (which also catches
 * meetings a race hid from both fills), union-find gathers the labels that
 * reach the border label, and a last parallel pass writes each row run by
 * run. Background that no fill reached has no seed and does not touch the
 * border: it is enclosed. */
#include <stdlib.h>
#include <string.h>
#include "fv_fill_plan.h"
#include "../common/fv_parallel.h"

#define BORDER_LABEL 1u

typedef struct {
  int32_t x0, x1;        /* [x0, x1) */
  uint32_t label;        /* 0 = not reached */
} run_t;

typedef struct {
  run_t *runs;           /* runs of this thread's strip of rows */
  size_t nruns, cap, most;   /* most: the strip's rows can hold no more */
  run_t **stack;         /* fill stack: run and its row */
  int *stack_y;
  size_t stack_cap;
  uint32_t *parent;      /* local union-find over labels */
  fv_fill_plan *pl;      /* whose budget the runs and the stack grow in */
  int over;              /* grew past it this frame */
} thread_state;

typedef struct fv_fill_rows {
  run_t **row;           /* first run of each row */
  int *count;            /* runs in each row */
  size_t *offset;        /* index of the row's first run in its strip's array */
} row_index;

static inline uint32_t
lload (const uint32_t *p)
{
  return __atomic_load_n (p, __ATOMIC_RELAXED);
}

static inline void
lstore (uint32_t *p, uint32_t v)
{
  __atomic_store_n (p, v, __ATOMIC_RELAXED);
}


/* Appends the background runs of one row; returns how many, -1 on OOM. */
static int
cut_row (thread_state *t, const uint8_t *s, int W, uint8_t thr)
{
  int n = 0, x = 0;
  while (x < W) {
    while (x < W && s[x] > thr)
      x++;
    if (x >= W)
      break;
    int x0 = x;
    while (x < W && s[x] <= thr)
      x++;
    if (t->nruns == t->cap) {
      size_t cap = t->cap ? 2 * t->cap : 1 << 16;
      cap = cap < t->most ? cap : t->most;
      if (!fv_fill_grow (t->pl, (cap - t->cap) * sizeof (run_t))) {
        t->over = 1;
        return -1;
      }
      run_t *r = realloc (t->runs, cap * sizeof *r);
      if (!r)
        return -1;
      t->runs = r;
      t->cap = cap;
    }
    t->runs[t->nruns++] = (run_t) { x0, x, 0 };
    n++;
  }
  return n;
}

typedef struct {
  row_index *ri;
  int W, H, conn8;
} fill_ctx;

static int
push (thread_state *t, size_t *n, run_t *r, int y)
{
  if (*n == t->stack_cap) {
    size_t cap = t->stack_cap ? 2 * t->stack_cap : 4096;
    if (!fv_fill_grow (t->pl, (cap - t->stack_cap) * (sizeof (run_t *) + sizeof (int)))) {
      t->over = 1;
      return 0;
    }
    run_t **s = realloc (t->stack, cap * sizeof *s);
    int *sy = s ? realloc (t->stack_y, cap * sizeof *sy) : NULL;
    if (s)
      t->stack = s;
    if (!s || !sy)
      return 0;
    t->stack_y = sy;
    t->stack_cap = cap;
  }
  t->stack[*n] = r;
  t->stack_y[(*n)++] = y;
  return 1;
}

/* First run of [q, end) with x1 > x: neighbouring rows have runs at
 * similar places, so start where x falls proportionally, walk a few steps,
 * and only then search by halves (a plain binary search misses the cache
 * on almost every probe). */
static inline run_t *
first_after (run_t *q, run_t *end, int x, int W)
{
  long n = end - q;
  if (n == 0)
    return end;
  run_t *g = q + (long) ((double) n * (x < 0 ? 0 : x) / W);
  if (g >= end)
    g = end - 1;
  for (int step = 0; step < 8; step++) {
    if (g->x1 > x) {
      if (g == q || (g - 1)->x1 <= x)
        return g;
      g--;
    } else {
      g++;
      if (g == end || g->x1 > x)
        return g;
    }
  }
  run_t *lo = q, *hi = end;
  while (lo < hi) {
    run_t *mid = lo + (hi - lo) / 2;
    if (mid->x1 > x) hi = mid; else lo = mid + 1;
  }
  return lo;
}

/* Scan-line flood over runs, from run r0 of row y0, with label id. */
static int
flood (const fill_ctx *c, thread_state *t, uint32_t id, run_t *r0, int y0)
{
  size_t n = 0;
  const int e = c->conn8;
  if (!push (t, &n, r0, y0))
    return 0;
  while (n) {
    n--;
    run_t *r = t->stack[n];
    int y = t->stack_y[n];
    if (lload (&r->label))
      continue;
    lstore (&r->label, id);
    for (int ny = y - 1; ny <= y + 1; ny += 2) {
      if (ny < 0 || ny >= c->H)
        continue;
      run_t *q = c->ri->row[ny], *end = q + c->ri->count[ny];
      q = first_after (q, end, r->x0 - e, c->W);
      for (; q < end && q->x0 < r->x1 + e; q++)
        if (!lload (&q->label) && !push (t, &n, q, ny))
          return 0;
    }
  }
  return 1;
}

/* Threads and seed labels of a plan for p. */
static int
fill_threads (const fv_fill_params *p)
{
  int n = fv_threads_resolve (p->frame.threads);
  return n > p->frame.height ? p->frame.height : n;
}

static size_t
fill_labels (const fv_fill_params *p, int n)
{
  int s = p->seeds ? p->seeds : 4 * n + p->frame.height / 64;
  return (size_t) (s < p->frame.height ? s : p->frame.height) + 2;
}

/* Runs a row of width W can hold: a run and a gap at least each. */
static size_t
row_runs (int W)
{
  return (size_t) W / 2 + 1;
}

size_t
fv_fill_cpu_bytes (const fv_fill_plan *pl)
{
  const fv_fill_params *p = &pl->p;
  const int n = fill_threads (p);
  const size_t nl = fill_labels (p, n);
  /* union-finds and the row index; the runs grow with the content, counted
   * by fv_fill_grow */
  return nl * (sizeof (uint32_t) * (n + 1) + 1) + (size_t) p->frame.height * (sizeof (run_t *)
      + sizeof (int) + sizeof (size_t)) + n * sizeof (thread_state);
}

fv_status
fv_fill_cpu_init (fv_fill_plan *pl, int device, void *stream)
{
  const fv_fill_params *p = &pl->p;
  const int n = fill_threads (p);
  pl->nthreads = n;
  size_t nl = fill_labels (p, n);
  pl->nseeds = (int) nl - 2;
  row_index *ri = calloc (1, sizeof *ri);
  pl->rows = ri;
  pl->parent = malloc (sizeof (uint32_t) * nl);
  pl->outside = malloc (nl);
  thread_state *ts = calloc (n, sizeof *ts);
  pl->thread_state = ts;
  if (!ri || !pl->parent || !pl->outside || !ts)
    return FV_ERR_NOMEM;
  ri->row = malloc (sizeof (run_t *) * p->frame.height);
  ri->count = malloc (sizeof (int) * p->frame.height);
  ri->offset = malloc (sizeof (size_t) * p->frame.height);
  if (!ri->row || !ri->count || !ri->offset)
    return FV_ERR_NOMEM;
  for (int i = 0; i < n; i++) {
    int y0, y1;
    fv_split_range (p->frame.height, n, i, &y0, &y1);
    ts[i].most = row_runs (p->frame.width) * (size_t) (y1 - y0);
    ts[i].pl = pl;
    if (!(ts[i].parent = malloc (sizeof (uint32_t) * nl)))
      return FV_ERR_NOMEM;
  }
  pl->rng = 0x853c49e6748fea9bull;
  return FV_OK;
}

/* What every part of a fill shares. Each phase below is one pass over the
 * team (fv_team_run, fv_team_for); part me works with thread state me. */
typedef struct {
  fv_fill_plan *pl;
  const fv_image *src, *dst;
  fill_ctx c;
  const int *seed;
  uint32_t nl;
  int ok;      /* cleared (never set) by any thread that runs out of memory */
} fill_job;

/* 1. Runs of background, one strip of rows per part. */
static void
phase_runs (void *ctx, int me, int parts)
{
  fill_job *j = ctx;
  thread_state *t = (thread_state *) j->pl->thread_state + me;
  const fv_fill_params *p = &j->pl->p;
  row_index *ri = j->pl->rows;
  int y0, y1;
  fv_split_range (p->frame.height, parts, me, &y0, &y1);
  /* a team smaller than the plan's (fv_team_begin) gives a longer strip */
  const size_t most = row_runs (p->frame.width) * (size_t) (y1 - y0);
  if (most > t->most)
    t->most = most;
  t->nruns = 0;
  for (int y = y0; y < y1; y++) {
    ri->offset[y] = t->nruns;
    int m = cut_row (t, (const uint8_t *) j->src->data + (size_t) y * j->src->stride,
        p->frame.width,
        (uint8_t) p->threshold);
    if (m < 0) {
      j->ok = 0;
      m = 0;
    }
    ri->count[y] = m;
  }
  for (int y = y0; y < y1; y++)
    ri->row[y] = t->runs + ri->offset[y];
}

/* Item 0 of the floods: from every run on the border. */
static void
flood_border (fill_job *j, thread_state *t)
{
  const int W = j->pl->p.frame.width, H = j->pl->p.frame.height;
  row_index *ri = j->pl->rows;
  for (int y = 0; y < H && j->ok; y++) {
    int m = ri->count[y];
    run_t *r = ri->row[y];
    for (int k = 0; k < m && j->ok; k++) {
      int on_border = y == 0 || y == H - 1 || r[k].x0 == 0 || r[k].x1 == W;
      if (on_border && !lload (&r[k].label) && !flood (&j->c, t, BORDER_LABEL, &r[k], y))
        j->ok = 0;
      if (y > 0 && y < H - 1 && k == 0 && m > 1)
        k = m - 2;   /* inner rows: only the first and last runs can touch */
    }
  }
}

/* 2. Floods: item 0 from every border run, the others from one seed each. */
static void
phase_floods (void *ctx, long k, int me)
{
  fill_job *j = ctx;
  thread_state *t = (thread_state *) j->pl->thread_state + me;
  row_index *ri = j->pl->rows;
  if (!j->ok)
    return;
  if (k == 0) {
    flood_border (j, t);
    return;
  }
  int y = j->seed[2 * k + 1], m = ri->count[y];
  run_t *r = ri->row[y];
  for (int d = 0; d < m; d++) {   /* the chosen run, or the next free one */
    run_t *q = &r[(j->seed[2 * k] + d) % m];
    if (!lload (&q->label)) {
      if (!flood (&j->c, t, (uint32_t) k + 1, q, y))
        j->ok = 0;
      break;
    }
  }
}

/* 3. Labels whose runs touch, and labels on the border, joined in a
 * union-find of the part's own, over one strip of rows a part. */
static void
phase_join (void *ctx, int me, int parts)
{
  fill_job *j = ctx;
  thread_state *t = (thread_state *) j->pl->thread_state + me;
  const int W = j->pl->p.frame.width, H = j->pl->p.frame.height, e = j->c.conn8;
  row_index *ri = j->pl->rows;
  for (uint32_t l = 0; l < j->nl; l++)
    t->parent[l] = l;
  int y0, y1;
  fv_split_range (H, parts, me, &y0, &y1);
  for (int y = y0; y < y1; y++) {
    run_t *a = ri->row[y], *aend = a + ri->count[y];
    for (run_t *q = a; q < aend; q++)
      if (q->label && (y == 0 || y == H - 1 || q->x0 == 0 || q->x1 == W))
        fv_fill_uf_union (t->parent, q->label, BORDER_LABEL);
    if (y + 1 >= H)
      continue;
    run_t *b = ri->row[y + 1], *bend = b + ri->count[y + 1];
    while (a < aend && b < bend) {   /* two pointers over the rows' runs */
      if (a->x0 < b->x1 + e && b->x0 < a->x1 + e && a->label && b->label
          && a->label != b->label)
        fv_fill_uf_union (t->parent, a->label, b->label);
      if (a->x1 < b->x1) a++; else b++;
    }
  }
}

/* The parts' union-finds merged: which labels reach the border. One
 * thread. */
static void
merge_labels (fill_job *j, int parts)
{
  fv_fill_plan *pl = j->pl;
  thread_state *ts = pl->thread_state;
  for (uint32_t l = 0; l < j->nl; l++)
    pl->parent[l] = l;
  for (int i = 0; i < parts; i++)
    for (uint32_t l = 1; l < j->nl; l++)
      fv_fill_uf_union (pl->parent, l, fv_fill_uf_find (ts[i].parent, l));
  uint32_t root = fv_fill_uf_find (pl->parent, BORDER_LABEL);
  pl->outside[0] = 0;
  for (uint32_t l = 1; l < j->nl; l++)
    pl->outside[l] = fv_fill_uf_find (pl->parent, l) == root;
}

/* 4. Each row: contour value, then every run's verdict. */
static void
phase_write (void *ctx, long y, int me)
{
  (void) me;
  const fill_job *j = ctx;
  const fv_fill_params *p = &j->pl->p;
  row_index *ri = j->pl->rows;
  const uint8_t fv = (uint8_t) p->fill_value, on_contour = p->output == FV_FILL_FILLED ? fv : 0;
  uint8_t *o = (uint8_t *) j->dst->data + (size_t) y * j->dst->stride;
  memset (o, on_contour, p->frame.width);
  const run_t *r = ri->row[y];
  for (int k = 0; k < ri->count[y]; k++)
    memset (o + r[k].x0, j->pl->outside[r[k].label] ? 0 : fv, r[k].x1 - r[k].x0);
}

/* measure: this row's enclosed runs (no fill reached them, or only fills
 * that never joined the border), and its filled ones: what lies between
 * runs of outside background */
static void
measure_spans (void *ctx, int y, fv_fill_row_spans *row)
{
  const fv_fill_plan *pl = ctx;
  const run_t *r = pl->rows->row[y];
  int nh = 0, nf = 0, from = 0;   /* from: where the filled pixels may start */
  for (int k = 0; k < pl->rows->count[y]; k++) {
    if (!pl->outside[r[k].label]) {
      row->holes[nh++] = (fv_fill_span) { r[k].x0, r[k].x1 };
      continue;
    }
    if (row->filled && r[k].x0 > from)
      row->filled[nf++] = (fv_fill_span) { from, r[k].x0 };
    from = r[k].x1;
  }
  if (row->filled && from < pl->p.frame.width)
    row->filled[nf++] = (fv_fill_span) { from, pl->p.frame.width };
  row->nholes = nh;
  row->nfilled = nf;
}

fv_status
fv_fill_cpu_execute (fv_fill_plan *pl, const fv_image *src, const fv_image *dst)
{
  fv_status st = fv_require_host (src, dst);   /* host images only, nothing to wait for */
  if (st != FV_OK)
    return st;
  const fv_fill_params *p = &pl->p;
  const int H = p->frame.height, S = pl->nseeds;
  int *seed = malloc (sizeof (int) * (S + 1) * 2);
  if (!seed)
    return FV_ERR_NOMEM;
  for (int k = 1; k <= S; k++) {
    pl->rng ^= pl->rng << 13; pl->rng ^= pl->rng >> 7; pl->rng ^= pl->rng << 17;
    seed[2 * k] = (int) (pl->rng >> 33);   /* which run of the row */
    seed[2 * k + 1] = (int) (((long) (k - 1) * H + H / 2) / S);
  }
  fill_job j = { pl, src, dst, { pl->rows, p->frame.width, H, p->connectivity == 8 }, seed,
    (uint32_t) S + 2, 1 };
  thread_state *ts = pl->thread_state;
  fv_team team = fv_team_begin (pl->nthreads);
  fv_team_run (team, phase_runs, &j);
  fv_team_for (team, S + 1, 1, phase_floods, &j);
  fv_team_run (team, phase_join, &j);
  merge_labels (&j, team.threads);
  fv_team_for (team, H, 0, phase_write, &j);
  fv_team_end (team);
  free (seed);
  int over = 0;
  for (int i = 0; i < pl->nthreads; i++) {
    over |= ts[i].over;
    ts[i].over = 0;
  }
  if (over)
    return fv_fill_over_budget (pl, "the runs of background");
  if (!j.ok) {
    fv_set_last_error ("out of memory for the fill");
    return FV_ERR_NOMEM;
  }
  return p->measure ? fv_fill_measure (pl, measure_spans, pl) : FV_OK;
}

void
fv_fill_cpu_free (fv_fill_plan *pl)
{
  thread_state *ts = pl->thread_state;
  row_index *ri = pl->rows;
  if (ts)
    for (int i = 0; i < pl->nthreads; i++) {
      free (ts[i].runs);
      free (ts[i].stack);
      free (ts[i].stack_y);
      free (ts[i].parent);
    }
  if (ri) {
    free (ri->row);
    free (ri->count);
    free (ri->offset);
  }
  free (ri);
  free (ts);
  free (pl->parent);
  free (pl->outside);
  pl->thread_state = NULL;
  pl->rows = NULL;
  pl->parent = NULL;
  pl->outside = NULL;
}
