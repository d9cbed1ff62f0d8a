/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* CPU detector: one team, two lists of work taken in order by whichever
 * part is free: first the levels to build, largest first, then the levels'
 * window rows in small bunches, smallest level first (built first), each
 * bunch waiting, if need be, for its level's build, which a running part
 * holds. Idle parts take rows of the largest levels last, so the cores
 * stay busy however unevenly the cascade rejects windows. */
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include "fv_vj_plan.h"
#include "../common/fv_env.h"
#include "../common/fv_parallel.h"

#define ROWS_A_TASK 4

/* One thread's windows found so far, and its scan buffers. */
typedef struct {
  uint64_t *keys;
  int n, cap, failed;
  uint64_t *row;
  int *xs;
  uint8_t *scratch;             /* the level build's */
  int *spans;                   /* a row's column spans, with a restriction */
} thread_state;

typedef struct {
  uint32_t *planes;
  thread_state *ts;
  int threads;
  fv_vj_scan_fn simd;           /* the SIMD row scan, or NULL: the scalar one */
  fv_vj_model_host split;       /* its offsets for levels of step 2, built split */
} cpu_state;

void
fv_vj_cpu_destroy (fv_vj_plan *pl)
{
  cpu_state *cs = pl->state;
  if (!cs)
    return;
  free (cs->planes);
  if (cs->ts)
    for (int t = 0; t < cs->threads; t++) {
      free (cs->ts[t].keys);
      free (cs->ts[t].row);
      free (cs->ts[t].xs);
      free (cs->ts[t].scratch);
    }
  free (cs->ts);
  fv_vj_model_clear (&cs->split);
  free (cs);
  pl->state = NULL;
}

size_t
fv_vj_cpu_bytes (const fv_vj_plan *pl)
{
  const fv_vj_pyramid *py = &pl->py;
  const size_t nplanes = pl->mh.has_tilted ? 3 : 2, widest = py->nlevels ? py->lv[0].work_w : 0;
  const size_t thread = 256 * sizeof (uint64_t) + (widest + 1) * sizeof (uint64_t)
      + (widest + 8) * sizeof (int) + fv_vj_scratch_bytes (py) + 64 + sizeof (thread_state);
  return sizeof (uint32_t) * (size_t) (py->plane * nplanes + 64)
      + thread * (size_t) fv_threads_resolve (pl->p.frame.threads);
}

fv_status
fv_vj_cpu_init (fv_vj_plan *pl)
{
  cpu_state *cs = calloc (1, sizeof *cs);
  if (!cs)
    return FV_ERR_NOMEM;
  pl->state = cs;
  const fv_vj_pyramid *py = &pl->py;
  cs->threads = fv_threads_resolve (pl->p.frame.threads);
  int nplanes = pl->mh.has_tilted ? 3 : 2;
  /* slack: the SIMD scan reads up to 15 windows' worth past a row's end */
  cs->planes = calloc ((size_t) (py->plane * nplanes + 64), sizeof (uint32_t));
  if (fv_vj_avx2_usable (&pl->mh.m, pl->mh.nweak) && !fv_env_set (FV_ENV_VJ_NO_SIMD))
    cs->simd = fv_vj_avx512_usable () && !fv_env_set (FV_ENV_VJ_NO_AVX512)
        ? fv_vj_scan_row_avx512 : fv_vj_scan_row_avx2;
  if (cs->simd) {
    fv_status st = fv_vj_model_init_split (&cs->split, pl->cascade, py->stride, py->stride / 2,
        py->plane);
    if (st != FV_OK)
      return st;
  }
  cs->ts = calloc (cs->threads, sizeof *cs->ts);
  if (!cs->planes || !cs->ts)
    return FV_ERR_NOMEM;
  const int widest = py->nlevels ? py->lv[0].work_w : 0;
  for (int t = 0; t < cs->threads; t++) {
    thread_state *ts = &cs->ts[t];
    ts->cap = 256;
    ts->keys = malloc (sizeof *ts->keys * ts->cap);
    ts->row = malloc (sizeof *ts->row * (widest + 1));
    ts->xs = malloc (sizeof *ts->xs * (widest + 8));
    ts->scratch = malloc (fv_vj_scratch_bytes (py) + 64);
    if (!ts->keys || !ts->row || !ts->xs || !ts->scratch)
      return FV_ERR_NOMEM;
  }
  return FV_OK;
}

/* The element of window x in a level's rows: levels of step 2 are built
 * split for the SIMD scan (eight neighbouring windows are eight
 * neighbouring elements), with the split model's offsets. */
static inline int
window_index (const cpu_state *cs, const fv_vj_level *lv, int x)
{
  return cs->simd ? x / lv->step : x;
}

static inline const fv_vj_model *
row_model (const cpu_state *cs, const fv_vj_model *m, const fv_vj_level *lv)
{
  return cs->simd && lv->step == 2 ? &cs->split.m : m;
}

/* The first window at or before x whose visit does not depend on the
 * windows before it: OpenCV skips a window after one that passes the
 * variance test and fails the first stage, so walk back over such
 * windows; the window after the last of them is always visited. */
static int
walk_start (const cpu_state *cs, const fv_vj_model *m, const fv_vj_level *lv,
    const uint32_t *row, int x)
{
  const fv_vj_model *mm = row_model (cs, m, lv);
  while (x > 0 && fv_vj_window (mm, row + window_index (cs, lv, x - lv->step)) == 0)
    x -= lv->step;
  return x;
}

/* Windows x in [xa, xb) of one row (xa a multiple of the step) in OpenCV's
 * order: after a window fails the first stage the next one is skipped, the
 * walk starting at walk_start so that the visits are the whole row's.
 * Keys (level, y, x) of those at or after `report` go to out; xs is
 * scratch for the SIMD scan. */
static int
scan_row (const cpu_state *cs, const fv_vj_model *m, const fv_vj_level *lv, int l, int y,
    const uint32_t *row, int xa, int xb, int report, uint64_t *out, int *xs)
{
  const int x0 = xa > 0 ? walk_start (cs, m, lv, row, xa) : 0;
  int n = 0;
  if (cs->simd) {
    fv_vj_level part = *lv;
    part.work_w = xb - x0;
    const int k = cs->simd (row_model (cs, m, lv), &part, row + window_index (cs, lv, x0), xs);
    for (int i = 0; i < k; i++)
      if (x0 + xs[i] >= report)
        out[n++] = fv_vj_key (l, y, x0 + xs[i]);
    return n;
  }
  for (int x = x0; x < xb; x += lv->step) {
    int r = fv_vj_window (m, row + x);
    if (r > 0 && x >= report)
      out[n++] = fv_vj_key (l, y, x);
    else if (r == 0)
      x += lv->step;
  }
  return n;
}

/* The columns of window row y of level l that a restriction to parts
 * (fv_vj_rows) needs: merged spans [x, x') of window positions, a
 * superset (the caller keeps what it asked for). Returns their count. */
static int
row_spans (const fv_vj_level *lv, int y, const fv_vj_rows *rows, int nrows, int *span)
{
  const fv_rect q = fv_vj_window_rect (lv, 0, y);
  int n = 0;
  for (int b = 0; b < nrows; b++) {
    const fv_vj_rows *o = &rows[b];
    if (q.width < o->min_w || q.width > o->max_w || q.y < o->y0 || q.y + q.height > o->y1)
      continue;
    /* window x has its rectangle at lrintf (x * scale): one position of slack */
    int a = (int) floorf ((float) o->x0 / lv->scale) - lv->step;
    int e = (int) ceilf ((float) (o->x1 - lv->win_w) / lv->scale) + 2 * lv->step;
    a = a < 0 ? 0 : a / lv->step * lv->step;
    e = e > lv->work_w ? lv->work_w : e;
    if (a >= e)
      continue;
    int i = n++;   /* insertion by start */
    while (i > 0 && span[2 * (i - 1)] > a) {
      span[2 * i] = span[2 * (i - 1)];
      span[2 * i + 1] = span[2 * (i - 1) + 1];
      i--;
    }
    span[2 * i] = a;
    span[2 * i + 1] = e;
  }
  int m = 0;
  for (int i = 0; i < n; i++)
    if (m > 0 && span[2 * i] <= span[2 * (m - 1) + 1]) {
      if (span[2 * i + 1] > span[2 * (m - 1) + 1])
        span[2 * (m - 1) + 1] = span[2 * i + 1];
    } else {
      span[2 * m] = span[2 * i];
      span[2 * m + 1] = span[2 * i + 1];
      m++;
    }
  return m;
}

/* Scans window row y of level l (built from its row ya), all of it or
 * only the columns the restriction needs, into the calling thread's keys. */
static void
scan_into (const cpu_state *cs, const fv_vj_model *m, const fv_vj_pyramid *py, int l, int y,
    int ya, const fv_vj_rows *rows, int nrows, int me)
{
  thread_state *ts = &cs->ts[me];
  const fv_vj_level *lv = &py->lv[l];
  /* the level's sums start at its row ya (all of it built: 0) */
  const uint32_t *row = cs->planes + lv->origin + (int64_t) (y - ya) * py->stride;
  int k = 0;
  if (nrows > 0) {
    const int ns = row_spans (lv, y, rows, nrows, ts->spans);
    for (int i = 0, report = 0; i < ns; i++) {
      const int xa = ts->spans[2 * i], xb = ts->spans[2 * i + 1];
      k += scan_row (cs, m, lv, l, y, row, xa, xb, xa > report ? xa : report, ts->row + k,
          ts->xs);
      report = xb;
    }
  } else {
    k = scan_row (cs, m, lv, l, y, row, 0, lv->work_w, 0, ts->row, ts->xs);
  }
  if (ts->n + k > ts->cap) {
    int cap = ts->cap;
    while (ts->n + k > cap)
      cap *= 2;
    uint64_t *g = realloc (ts->keys, sizeof *g * cap);
    if (!g) {
      ts->failed = 1;
      return;
    }
    ts->keys = g;
    ts->cap = cap;
  }
  memcpy (ts->keys + ts->n, ts->row, sizeof *ts->row * k);
  ts->n += k;
}

/* A frame's work for the team: the levels to build (level numbers), then
 * the bunches to scan ((level, first row) pairs), each list claimed in
 * order; built[l] is set once level l is built. */
typedef struct {
  const cpu_state *cs;
  const fv_vj_model *m;
  const fv_vj_pyramid *py;
  const fv_image *gray;
  int has_tilted;
  const unsigned char *keep;
  const int *span;
  const fv_vj_rows *rows;   /* the restriction's parts (nrows 0: none) */
  int nrows;
  int *builds;
  int nbuilds;
  int *bunch;
  int nbunches;
  int *at;            /* each level's first row in keep */
  int *built;         /* atomic */
  int next_build, next_bunch;   /* atomic */
} scan_job;

static void
scan_part (void *ctx, int me, int parts)
{
  (void) parts;
  scan_job *sj = ctx;
  const cpu_state *cs = sj->cs;
  const fv_vj_pyramid *py = sj->py;
  int i;
  while ((i = __atomic_fetch_add (&sj->next_build, 1, __ATOMIC_RELAXED)) < sj->nbuilds) {
    const int l = sj->builds[i];
    const int ya = sj->span ? sj->span[2 * l] : 0, yb = sj->span ? sj->span[2 * l + 1]
        : py->lv[l].h;
    fv_vj_level_build_rows (py, l, sj->gray->data, sj->gray->stride, cs->ts[me].scratch,
        cs->planes, sj->has_tilted, cs->simd != NULL, ya, yb);
    __atomic_store_n (&sj->built[l], 1, __ATOMIC_RELEASE);
  }
  /* every build is claimed, by a part that runs it now: the waits end */
  while ((i = __atomic_fetch_add (&sj->next_bunch, 1, __ATOMIC_RELAXED)) < sj->nbunches) {
    const int l = sj->bunch[2 * i], r0 = sj->bunch[2 * i + 1];
    const fv_vj_level *lv = &py->lv[l];
    for (int spins = 0; !__atomic_load_n (&sj->built[l], __ATOMIC_ACQUIRE); spins++)
      if (spins > 64)
        sched_yield ();
    const int ya = sj->span ? sj->span[2 * l] : 0;
    const int r1 = r0 + ROWS_A_TASK < lv->rows ? r0 + ROWS_A_TASK : lv->rows;
    for (int r = r0; r < r1; r++)
      if (!sj->keep || sj->keep[sj->at[l] + r])
        scan_into (cs, sj->m, py, l, r * lv->step, ya, sj->rows, sj->nrows, me);
  }
}

fv_status
fv_vj_cpu_execute (fv_vj_plan *pl, const fv_image *gray)
{
  cpu_state *cs = pl->state;
  const fv_vj_pyramid *py = &pl->py;
  const fv_vj_model *m = &pl->mh.m;
  const int has_tilted = pl->mh.has_tilted;
  pl->nraw = 0;
  for (int t = 0; t < cs->threads; t++)
    cs->ts[t].n = cs->ts[t].failed = 0;

  /* a restriction to rows: each level's rows to build and window rows to scan */
  unsigned char *keep = NULL;
  int *span = NULL;
  int *spans = NULL;
  if (pl->nrows > 0) {
    keep = malloc ((size_t) py->rows + 1);
    span = malloc (sizeof *span * 2 * (size_t) py->nlevels);
    spans = malloc (sizeof *spans * 2 * (size_t) pl->nrows * (size_t) cs->threads);
    if (!keep || !span || !spans) {
      free (keep);
      free (span);
      free (spans);
      return FV_ERR_NOMEM;
    }
    for (int t = 0; t < cs->threads; t++)
      cs->ts[t].spans = spans + 2 * (size_t) pl->nrows * (size_t) t;
    for (int l = 0, at = 0; l < py->nlevels; at += py->lv[l].rows, l++)
      fv_vj_rows_of_level (py, pl->cascade, l, pl->rows, pl->nrows, keep + at, &span[2 * l],
          &span[2 * l + 1]);
  }
  /* the levels to build, the bunches of rows to scan */
  const int L = py->nlevels;
  int nb = 0, nc = 0;
  for (int l = 0; l < L; l++)
    if (!span || span[2 * l] < span[2 * l + 1]) {
      nb++;
      nc += (py->lv[l].rows + ROWS_A_TASK - 1) / ROWS_A_TASK;
    }
  int *work = malloc (sizeof (int) * (size_t) (nb + 2 * nc + 2 * L + 1));
  if (!work) {
    free (keep);
    free (span);
    free (spans);
    return FV_ERR_NOMEM;
  }
  scan_job sj = { cs, m, py, gray, has_tilted, keep, span, pl->rows, pl->nrows, work, nb,
    work + nb, nc,
    work + nb + 2 * nc, work + nb + 2 * nc + L, 0, 0 };
  for (int l = 0, b = 0, at = 0; l < L; at += py->lv[l].rows, l++) {
    sj.at[l] = at;
    sj.built[l] = 0;
    if (!span || span[2 * l] < span[2 * l + 1])
      sj.builds[b++] = l;   /* level 0 is the largest */
  }
  for (int l = L - 1, c = 0; l >= 0; l--)
    if (!span || span[2 * l] < span[2 * l + 1])
      for (int r = 0; r < py->lv[l].rows; r += ROWS_A_TASK, c++) {
        sj.bunch[2 * c] = l;
        sj.bunch[2 * c + 1] = r;
      }
  fv_team team = fv_team_begin (cs->threads);
  fv_team_run (team, scan_part, &sj);
  free (work);
  fv_team_end (team);
  free (keep);
  free (span);
  free (spans);

  int nkeys = 0, failed = 0;
  for (int t = 0; t < cs->threads; t++) {
    nkeys += cs->ts[t].n;
    failed |= cs->ts[t].failed;
  }
  if (failed || fv_vj_raw_reserve (pl, nkeys) != FV_OK)
    return FV_ERR_NOMEM;
  uint64_t *keys = malloc (sizeof *keys * (nkeys + 1));
  if (!keys)
    return FV_ERR_NOMEM;
  for (int t = 0, at = 0; t < cs->threads; t++) {
    memcpy (keys + at, cs->ts[t].keys, sizeof *keys * cs->ts[t].n);
    at += cs->ts[t].n;
  }
  fv_vj_keys_to_raw (pl, keys, nkeys);
  free (keys);
  return FV_OK;
}
