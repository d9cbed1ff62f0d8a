/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Detection beyond the device budget, or over several devices: the
 * pyramid cut into groups of whole levels, and a level too large for the
 * budget into bands of window rows, each group a CUDA plan of its own
 * (fv_vj_part: first_level, levels, band_first, band_rows) that reads the
 * frame rows it needs.
 *
 * A window is evaluated on its level's pixels and its own sums only. Every
 * level pixel is resampled from the frame exactly as in one plan, and a
 * band covers its windows' rows whole (bands overlap by a window less a
 * step), so every window gets the same verdict; each is evaluated once, in
 * its level's group or band. The groups' raw windows, each in OpenCV's
 * order (level, y, x), are appended level by level and band by band: the
 * merged list is the one plan's, and grouping it gives the same boxes.
 * Every group has a plan on every device. The devices, one thread each,
 * take the groups from one queue, largest first, until none is left, so
 * that they finish together whatever each group costs; a device runs its
 * groups one after another in one workspace as large as the largest
 * (fv_vj_cuda_set_workspace), so it holds no more than the budget. A frame
 * on another GPU is copied there once a frame. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fv_vj_plan.h"
#include "../common/fv_chunk_run.h"
#include "../common/fv_clock.h"
#include "../common/fv_cuda.h"
#include "../common/fv_env.h"
#include "../common/fv_workers.h"

typedef struct {
  int first, count;          /* levels */
  int band_first, band_rows; /* window rows of a one-level group (rows 0: all) */
  int64_t windows;           /* window positions it scans: its size in the queue */
} VjGroup;

typedef struct {
  int n;                     /* groups */
  VjGroup *group;            /* their levels and windows */
  fv_vj_plan **sub;          /* group k's plan on entry d: sub[k * ndevices + d] (first
                              * entries of a device only) */
  int *order;                /* the groups by windows, most first: the queue */
  int *ran_on;               /* the entry that ran each group this frame */
  int next;                  /* the queue's head, taken atomically */
  int devices[FV_MAX_DEVICE_ENTRIES], ndevices;
  void *frame[FV_MAX_DEVICE_ENTRIES];   /* per device: the frame, when it lies elsewhere */
  size_t pitch[FV_MAX_DEVICE_ENTRIES];
  void *work[FV_MAX_DEVICE_ENTRIES];    /* per device: the workspace its groups share */
  void *stream[FV_MAX_DEVICE_ENTRIES];  /* and their stream (one a plan costs memory) */
  fv_workers *workers;                  /* a thread a device but the first */
} VjChunks;

static fv_vj_part
group_part (const VjGroup *g)
{
  fv_vj_part q = { g->first, g->count, g->band_first, g->band_rows, 0 };
  return q;
}

/* Device bytes a CUDA plan of group g takes (fv_vj_cuda_part_bytes), and
 * whether its sums fit 32-bit offsets. */
static fv_status
group_bytes (const fv_vj_plan *pl, const VjGroup *g, size_t *bytes, int *offsets_fit)
{
  const fv_vj_part part = group_part (g);
  return fv_vj_cuda_part_bytes (pl, &part, bytes, offsets_fit);
}

static fv_status
group_fits (const fv_vj_plan *pl, const VjGroup *g, size_t budget, int *fits)
{
  size_t bytes;
  int offsets;
  fv_status st = group_bytes (pl, g, &bytes, &offsets);
  *fits = st == FV_OK && offsets && bytes <= budget;
  return st;
}

/* Window positions in `rows` window rows of a level. */
static int64_t
level_windows (const fv_vj_level *lv, int rows)
{
  return (int64_t) rows * ((lv->work_w + lv->step - 1) / lv->step);
}

static fv_status
push_group (VjGroup **g, int *n, int *cap, VjGroup v)
{
  if (*n == *cap) {
    int c = *cap ? *cap * 2 : 16;
    VjGroup *m = realloc (*g, sizeof *m * c);
    if (!m)
      return FV_ERR_NOMEM;
    *g = m;
    *cap = c;
  }
  (*g)[(*n)++] = v;
  return FV_OK;
}

/* Bands of level l, each within the budget: the fewest of equal height,
 * and at least min_bands. */
static fv_status
make_bands (const fv_vj_plan *pl, int l, size_t budget, int min_bands, VjGroup **g, int *n,
    int *cap)
{
  const int rows = pl->py.lv[l].rows;
  int k = rows, fits = 0;
  fv_status st;
  /* the most window rows a band at the top may have, then equal bands of
   * at most that many, fewer rows while any does not fit */
  int lo = 0, hi = rows;
  while (lo < hi) {
    int mid = (lo + hi + 1) / 2;
    VjGroup b = { l, 1, 0, mid };
    if ((st = group_fits (pl, &b, budget, &fits)) != FV_OK)
      return st;
    if (fits)
      lo = mid;
    else
      hi = mid - 1;
  }
  const int most = (rows + min_bands - 1) / (min_bands > 0 ? min_bands : 1);
  for (k = lo < most ? lo : most; k > 0; k--) {
    const int nb = (rows + k - 1) / k, each = (rows + nb - 1) / nb;
    int all = 1;
    for (int r = 0; r < rows && all; r += each) {
      VjGroup b = { l, 1, r, each };
      if ((st = group_fits (pl, &b, budget, &all)) != FV_OK)
        return st;
    }
    if (!all)
      continue;
    for (int r = 0; r < rows; r += each) {
      const VjGroup b = { l, 1, r, each,
        level_windows (&pl->py.lv[l], rows - r < each ? rows - r : each) };
      if ((st = push_group (g, n, cap, b)) != FV_OK)
        return st;
    }
    return FV_OK;
  }
  fv_set_last_error ("one window row of pyramid level %d of this %dx%d frame does not fit the "
      "device budget of %zu bytes with its sums", l, pl->p.frame.width, pl->p.frame.height, budget);
  return FV_ERR_NOMEM;
}

/* Groups of consecutive levels: each within the budget, about the same
 * number of windows each, at least one for every entry when the levels
 * allow; a level beyond the budget alone in bands. */
static fv_status
make_groups (const fv_vj_plan *pl, size_t budget, int want, VjGroup **g, int *n)
{
  const int L = pl->py.nlevels;
  const int64_t target = (pl->py.windows + want - 1) / (want > 0 ? want : 1);
  int cap = 0;
  *g = NULL;
  *n = 0;
  for (int a = 0; a < L;) {
    VjGroup v = { a, 1, 0, 0, level_windows (&pl->py.lv[a], pl->py.lv[a].rows) };
    int fits;
    fv_status st = group_fits (pl, &v, budget, &fits);
    if (st != FV_OK)
      return st;
    const int64_t win = v.windows;
    /* a level beyond the budget, or with more than a group's share of the
     * windows (so that groups can balance devices), goes in bands */
    if (!fits || (want > 1 && win > target)) {
      const int share = want > 1 ? (int) ((win + target - 1) / target) : 1;
      if ((st = make_bands (pl, a, budget, share, g, n, &cap)) != FV_OK)
        return st;
      a++;
      continue;
    }
    while (a + v.count < L && v.windows < target && L - (a + v.count) > want - *n - 1) {
      VjGroup more = { a, v.count + 1, 0, 0, 0 };
      if ((st = group_fits (pl, &more, budget, &fits)) != FV_OK)
        return st;
      if (!fits)
        break;
      const fv_vj_level *lv = &pl->py.lv[a + v.count];
      v.windows += level_windows (lv, lv->rows);
      v.count++;
    }
    if ((st = push_group (g, n, &cap, v)) != FV_OK)
      return st;
    a += v.count;
  }
  return FV_OK;
}

/* Entries that name a device already listed get no plans: theirs run. */
static bool
first_entry (const VjChunks *c, int d)
{
  for (int e = 0; e < d; e++)
    if (c->devices[e] == c->devices[d])
      return false;
  return true;
}

static void
destroy_groups (VjChunks *c)
{
  fv_cuda_place here;
  fv_cuda_place_save (&here);
  for (int d = 0; d < c->ndevices; d++) {
    if (!first_entry (c, d) || fv_cuda_place_enter (&here, c->devices[d]) != FV_OK)
      continue;
    for (int k = 0; c->sub && k < c->n; k++)
      fv_vj_plan_destroy (c->sub[k * c->ndevices + d]);
    fv_cuda_free (c->frame[d]);
    fv_cuda_free (c->work[d]);
    fv_cuda_stream_destroy (c->stream[d]);
    c->frame[d] = c->work[d] = c->stream[d] = NULL;
  }
  fv_cuda_place_restore (&here);
  free (c->sub);
  free (c->group);
  free (c->order);
  free (c->ran_on);
  c->group = NULL;
  c->sub = NULL;
  c->order = c->ran_on = NULL;
  c->n = 0;
}

typedef struct {
  int64_t windows;
  int k;
} Ranked;

static int
more_windows (const void *a, const void *b)
{
  const Ranked *x = a, *y = b;
  return x->windows > y->windows ? -1 : x->windows < y->windows ? 1 : x->k - y->k;
}

/* The queue: groups by their windows, most first. */
static fv_status
order_groups (VjChunks *c, const VjGroup *groups)
{
  Ranked *r = calloc (c->n > 0 ? c->n : 1, sizeof *r);
  c->order = calloc (c->n > 0 ? c->n : 1, sizeof *c->order);
  c->ran_on = calloc (c->n > 0 ? c->n : 1, sizeof *c->ran_on);
  fv_status st = r && c->order && c->ran_on ? FV_OK : FV_ERR_NOMEM;
  for (int k = 0; k < c->n && st == FV_OK; k++)
    r[k] = (Ranked) { groups[k].windows, k };
  if (st == FV_OK)
    qsort (r, c->n, sizeof *r, more_windows);
  for (int i = 0; i < c->n && st == FV_OK; i++)
    c->order[i] = r[i].k;
  free (r);
  return st;
}

/* The groups' plans on every device within budget, and each device's
 * workspace; *over: by how much the largest workspace passed the budget
 * (then nothing is allocated, and a smaller budget is tried). */
static fv_status
make_plans (fv_vj_plan *pl, VjChunks *c, const fv_chunk_run_params *rp, size_t budget,
    size_t *over)
{
  memcpy (c->devices, rp->devices, sizeof c->devices);
  c->ndevices = rp->ndevices;
  int distinct = 0;
  for (int d = 0; d < c->ndevices; d++)
    distinct += first_entry (c, d);
  /* several groups a device, so that the queue can balance them */
  const int per = distinct > 1 ? 4 * distinct : 1;
  int want = per > pl->p.frame.spread.min_chunks ? per : pl->p.frame.spread.min_chunks;
  want = want < pl->py.nlevels ? want : pl->py.nlevels;
  VjGroup *groups = NULL;
  *over = 0;
  fv_status st = make_groups (pl, budget, want, &groups, &c->n);
  c->group = groups;
  c->sub = calloc ((size_t) (c->n > 0 ? c->n : 1) * c->ndevices, sizeof *c->sub);
  if (st == FV_OK && !c->sub)
    st = FV_ERR_NOMEM;
  if (st == FV_OK)
    st = order_groups (c, groups);
  size_t work[FV_MAX_DEVICE_ENTRIES] = { 0 };
  fv_cuda_place here;
  fv_cuda_place_save (&here);
  for (int d = 0; d < c->ndevices && st == FV_OK; d++) {
    if (!first_entry (c, d))
      continue;
    st = fv_cuda_place_enter (&here, c->devices[d]);
    if (st == FV_OK)
      st = fv_cuda_stream_create (c->devices[d], &c->stream[d]);
    for (int k = 0; k < c->n && st == FV_OK; k++) {
      fv_vj_params q = pl->p;
      fv_spread_whole (&q.frame.spread);
      fv_vj_part part = group_part (&groups[k]);
      part.shared_workspace = 1;
      fv_vj_plan **sub = &c->sub[k * c->ndevices + d];
      st = fv_vj_plan_create_part (sub, pl->cascade, &q, &part, FV_BACKEND_CUDA, c->devices[d],
          c->stream[d]);
      if (st == FV_OK) {
        const size_t b = fv_vj_cuda_workspace_bytes (*sub);
        work[d] = b > work[d] ? b : work[d];
        *over = b > budget && b - budget > *over ? b - budget : *over;
      }
    }
    if (st == FV_OK && !*over && !(c->work[d] = fv_cuda_malloc (work[d])))
      st = FV_ERR_NOMEM;
    for (int k = 0; k < c->n && st == FV_OK && !*over; k++)
      fv_vj_cuda_set_workspace (c->sub[k * c->ndevices + d], c->work[d]);
  }
  fv_cuda_place_restore (&here);
  return st;
}

fv_status
fv_vj_chunked_init (fv_vj_plan *pl, int device, void *stream)
{
  (void) stream;
  VjChunks *c = calloc (1, sizeof *c);
  if (!c)
    return FV_ERR_NOMEM;
  pl->state = c;
  if (fv_workers_create (&c->workers) != FV_OK)
    return FV_ERR_NOMEM;
  fv_chunk_run_params rp;
  fv_spread_run_params (&pl->p.frame.spread, device, pl->p.frame.width, pl->p.frame.height, 1,
      FV_U8, 0, 0, &rp);
  size_t budget = (size_t) -1;
  for (int i = 0; i < rp.ndevices; i++) {
    size_t b;   /* the device's whole budget, given or free */
    fv_status st = fv_chunk_run_budget (&rp, i, &b);
    if (st != FV_OK)
      return st;
    int sharing = 0;
    for (int j = 0; j < rp.ndevices; j++)
      sharing += rp.devices[j] == rp.devices[i];
    budget = b / sharing < budget ? b / sharing : budget;
  }
  /* the groups' sizes are estimates: where a workspace comes out larger,
   * plan again for a budget smaller by the excess */
  const size_t limit = budget;
  for (int tries = 0;; tries++) {
    size_t over;
    fv_status st = make_plans (pl, c, &rp, budget, &over);
    if (st != FV_OK || !over)
      return st;
    destroy_groups (c);
    if (tries == 3 || over >= budget) {
      fv_set_last_error ("the detector's groups of pyramid levels do not fit the device budget "
          "of %zu bytes", limit);
      return FV_ERR_NOMEM;
    }
    budget -= over;
  }
}

/* The frame where entry d's device can read it: in place, or copied once
 * a frame to that device (host frames are uploaded by the plans). */
static fv_status
frame_for (VjChunks *c, int d, const fv_image *g, fv_image *out)
{
  *out = *g;
  if (g->mem == FV_MEM_HOST || fv_cuda_image_on_device (g, c->devices[d]))
    return FV_OK;
  if (!c->frame[d]) {
    c->pitch[d] = ((size_t) g->width + 255) & ~(size_t) 255;
    c->frame[d] = fv_cuda_malloc (c->pitch[d] * g->height);
    if (!c->frame[d])
      return FV_ERR_NOMEM;
  }
  fv_status st = fv_cuda_copy_rows (c->frame[d], c->pitch[d], g->data, g->stride, g->width,
      g->height, NULL);
  out->data = c->frame[d];
  out->stride = c->pitch[d];
  return st;
}

/* A frame's fan-out: what each device's share reads, and how it went. */
typedef struct {
  VjChunks *c;
  const fv_cuda_place *caller;
  const fv_image *frame;
  fv_status status[FV_MAX_DEVICE_ENTRIES];
  char error[FV_MAX_DEVICE_ENTRIES][256];
  double t0;                                /* the frame's start (fv_now_ms) */
  double done_ms[FV_MAX_DEVICE_ENTRIES];    /* when each device ran out of groups */
  int groups[FV_MAX_DEVICE_ENTRIES];        /* and how many it ran */
  int profile;                              /* FASTVISION_VJ_PROFILE: a line a group */
} FrameWork;

/* One device's share of a frame: groups from the queue until it is empty,
 * on its worker (the first on the calling thread, in the caller's context
 * where the device is the caller's). */
static void
device_work (int d, void *arg)
{
  FrameWork *w = arg;
  VjChunks *c = w->c;
  fv_image im;
  bool have = false;
  fv_status st = fv_cuda_place_enter (w->caller, c->devices[d]);
  while (st == FV_OK) {
    const int i = __atomic_fetch_add (&c->next, 1, __ATOMIC_RELAXED);
    if (i >= c->n)
      break;
    const int k = c->order[i];
    if (!have && (st = frame_for (c, d, w->frame, &im)) != FV_OK)
      break;
    have = true;
    fv_vj_plan *s = c->sub[k * c->ndevices + d];
    const double from = fv_now_ms ();
    st = s->be->execute (s, &im, NULL);
    const double to = fv_now_ms ();
    c->ran_on[k] = d;
    w->groups[d]++;
    w->done_ms[d] = to - w->t0;
    if (w->profile)
      fprintf (stderr, "vj group %d (levels %d+%d, rows %d+%d, %lld windows): device %d, "
          "%.2f ms, ends %.2f ms\n", k, c->group[k].first, c->group[k].count,
          c->group[k].band_first, c->group[k].band_rows, (long long) c->group[k].windows,
          c->devices[d], to - from, w->done_ms[d]);
  }
  w->status[d] = st;
  if (st != FV_OK)
    snprintf (w->error[d], sizeof w->error[d], "CUDA device %d: %s", c->devices[d],
        fv_last_error ());
}

/* The devices take groups at once (the first on this thread); then the
 * groups' raw windows are appended in group order. */
fv_status
fv_vj_chunked_execute (fv_vj_plan *pl, const fv_image *g, const fv_image *unused)
{
  (void) unused;
  VjChunks *c = pl->state;
  fv_cuda_place here;
  fv_cuda_place_save (&here);
  FrameWork w = { c, &here, g, { FV_OK }, { "" }, fv_now_ms (), { 0 }, { 0 },
    fv_env_set (FV_ENV_VJ_PROFILE) };
  unsigned char active[FV_MAX_DEVICE_ENTRIES];
  for (int d = 0; d < c->ndevices; d++)
    active[d] = first_entry (c, d);
  c->next = 0;
  fv_status st = fv_workers_run (c->workers, c->ndevices, 1, active, device_work, &w);
  fv_cuda_place_restore (&here);
  fv_chunk_run_stats stats = { .entries = c->ndevices, .todo = c->n };
  for (int d = 0; d < c->ndevices; d++) {
    stats.device[d] = c->devices[d];
    stats.chunks[d] = w.groups[d];
    stats.done_ms[d] = w.done_ms[d];
  }
  stats.total_ms = fv_now_ms () - w.t0;
  fv_chunk_run_last_set (&stats);
  for (int d = 0; d < c->ndevices && st == FV_OK; d++)
    if (w.status[d] != FV_OK) {
      st = w.status[d];
      fv_set_last_error ("%s", w.error[d]);
    }
  pl->nraw = 0;
  for (int k = 0; k < c->n && st == FV_OK; k++) {
    const fv_vj_plan *s = c->sub[k * c->ndevices + c->ran_on[k]];
    st = fv_vj_raw_reserve (pl, pl->nraw + s->nraw);
    if (st == FV_OK) {
      memcpy (pl->raw + pl->nraw, s->raw, sizeof (fv_rect) * s->nraw);
      pl->nraw += s->nraw;
    }
  }
  return st;
}

void
fv_vj_chunked_destroy (fv_vj_plan *pl)
{
  VjChunks *c = pl->state;
  if (!c)
    return;
  destroy_groups (c);
  fv_workers_destroy (c->workers);
  free (c);
  pl->state = NULL;
}
