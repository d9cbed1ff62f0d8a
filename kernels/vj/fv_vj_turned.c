/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Turned scans, whole and steered to windows (fv_vj_turned.h). */
#include "fv_config.h"
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include "fv_vj_turned.h"
#include "fv_vj_plan.h"
#include "../common/fv_cuda.h"
#include "../common/fv_overlap.h"

#define STEER_PLANS 4      /* level-range plans kept, the least recently used goes */
#define LEVEL_QUANT 4      /* their ranges rounded out to this many levels: few plans */
#define REMEMBERED 64      /* boxes kept for steering at most */

typedef struct {
  fv_rect box;
  long last;             /* the searched frame it was last seen in */
} seen_box;

typedef struct {
  int i0, i1;            /* levels of the whole plan (sizes allowed), inclusive */
  fv_vj_plan *plan;
  unsigned long used;
} steer_plan;

struct fv_vj_turns {
  fv_vj_plan *plan;
  fv_vj_turn_params tp;
  int device;
  void *stream;
  /* the turned frame */
  uint8_t *canvas;
  size_t canvas_bytes, canvas_stride;
  fv_mem canvas_mem;
  int canvas_pinned;
  /* window widths of the whole plan's levels, as fv_vj_pyramid_init chooses them */
  int *lw, *lh, nlevels;
  steer_plan steer[STEER_PLANS];
  unsigned long tick;
  fv_rect *raw;
  int nraw, raw_cap;
  fv_detection *groups;
  int groups_cap;
  fv_vj_turned_det *all, *out;
  int nall, nout, all_cap;
  fv_vj_turn_window *win;   /* this frame's windows: remembered boxes, then edges */
  int win_cap;
  fv_rect *on;              /* a scan's windows on the turned frame */
  int on_cap;
  fv_vj_rows *rows;         /* and the parts of the frame they search */
  int rows_cap;
  seen_box seen[REMEMBERED];
  int nseen;
  long frame;
  fv_vj_turn_stats stats;
};

static int
grow (void **p, int *cap, int need, size_t size)
{
  if (need <= *cap)
    return 1;
  int c = *cap > 0 ? *cap : 64;
  while (c < need)
    c *= 2;
  void *n = realloc (*p, size * (size_t) c);
  if (!n)
    return 0;
  *p = n;
  *cap = c;
  return 1;
}

/* The window sizes of the levels the whole plan scans, in its order (the
 * loop of fv_vj_pyramid_init). */
static fv_status
level_sizes (fv_vj_turns *t)
{
  const fv_vj_plan *pl = t->plan;
  const fv_vj_params *p = &pl->p;
  const fv_cascade *c = pl->cascade;
  const int max_w = p->max_width > 0 && p->max_width < p->frame.width ? p->max_width
      : p->frame.width;
  const int max_h = p->max_height > 0 && p->max_height < p->frame.height ? p->max_height
      : p->frame.height;
  for (int pass = 0; pass < 2; pass++) {
    int n = 0;
    for (double f = 1;; f *= p->scale_factor) {
      const int ww = (int) lrint (c->width * f), wh = (int) lrint (c->height * f);
      if (ww > max_w || wh > max_h)
        break;
      if (ww < p->min_width || wh < p->min_height)
        continue;
      if (pass) {
        t->lw[n] = ww;
        t->lh[n] = wh;
      }
      n++;
    }
    if (!pass) {
      t->nlevels = n;
      t->lw = malloc (sizeof *t->lw * (size_t) (n + 1));
      t->lh = malloc (sizeof *t->lh * (size_t) (n + 1));
      if (!t->lw || !t->lh)
        return FV_ERR_NOMEM;
    }
  }
  return FV_OK;
}

fv_status
fv_vj_turns_create (fv_vj_turns **out, fv_vj_plan *plan, const fv_vj_turn_params *tp,
    int device, void *stream)
{
  *out = NULL;
  if (!plan || !tp || tp->nangles < 1 || tp->nangles > FV_VJ_MAX_ANGLES || tp->interval < 1
      || tp->interval > FV_VJ_MAX_INTERVAL || tp->turned_min_neighbors < 0
      || tp->agreement < 1 || tp->agreement > FV_VJ_MAX_ANGLES
      || !(tp->edge >= 0 && tp->edge <= FV_VJ_MAX_EDGE)) {
    fv_set_last_error ("turned scans: 1 to %d angles, an interval of 1 to %d, an agreement "
        "of 1 to %d angles, edges of 0 to %g", FV_VJ_MAX_ANGLES, FV_VJ_MAX_INTERVAL,
        FV_VJ_MAX_ANGLES, FV_VJ_MAX_EDGE);
    return FV_ERR_INVALID;
  }
  for (int k = 0; k < tp->nangles; k++)
    if (!(tp->angles[k] >= -90 && tp->angles[k] <= 90)) {
      fv_set_last_error ("turned scans: angle %g is not in -90..90", tp->angles[k]);
      return FV_ERR_INVALID;
    }
  fv_vj_turns *t = calloc (1, sizeof *t);
  if (!t)
    return FV_ERR_NOMEM;
  t->plan = plan;
  t->tp = *tp;
  t->device = device;
  t->stream = stream;
  fv_status st = level_sizes (t);
  if (st != FV_OK) {
    fv_vj_turns_destroy (t);
    return st;
  }
  *out = t;
  return FV_OK;
}

static void
canvas_free (fv_vj_turns *t)
{
  if (t->canvas_mem == FV_MEM_DEVICE)
    fv_cuda_free (t->canvas);
  else if (t->canvas_pinned)
    fv_cuda_host_free (t->canvas);
  else
    free (t->canvas);
  t->canvas = NULL;
  t->canvas_bytes = 0;
}

void
fv_vj_turns_destroy (fv_vj_turns *t)
{
  if (!t)
    return;
  canvas_free (t);
  for (int i = 0; i < STEER_PLANS; i++)
    fv_vj_plan_destroy (t->steer[i].plan);
  free (t->lw);
  free (t->lh);
  free (t->raw);
  free (t->groups);
  free (t->all);
  free (t->out);
  free (t->win);
  free (t->on);
  free (t->rows);
  free (t);
}

void
fv_vj_turns_reset (fv_vj_turns *t)
{
  if (!t)
    return;
  t->nseen = 0;
  t->frame = 0;
}

fv_vj_turn_stats
fv_vj_turns_stats (const fv_vj_turns *t)
{
  return t->stats;
}

/* The turned frame, in the memory the frame is in (pinned beside a CUDA
 * plan, so that its upload is fast). */
static fv_status
turn (fv_vj_turns *t, const fv_image *gray, fv_rotation r, fv_image *canvas, int y0, int y1)
{
  const size_t stride = ((size_t) gray->width + 63) & ~(size_t) 63;
  const size_t bytes = stride * (size_t) gray->height;
  if (!t->canvas || t->canvas_bytes != bytes || t->canvas_mem != gray->mem) {
    canvas_free (t);
    t->canvas_mem = gray->mem;
    t->canvas_pinned = 0;
    if (gray->mem == FV_MEM_DEVICE) {
      t->canvas = fv_cuda_malloc (bytes);
    } else if (t->plan->backend == FV_BACKEND_CUDA
        && (t->canvas = fv_cuda_host_alloc (bytes)) != NULL) {
      t->canvas_pinned = 1;
    } else {
      t->canvas = malloc (bytes);
    }
    if (!t->canvas) {
      fv_set_last_error ("cannot allocate the turned luma of %dx%d frames", gray->width,
          gray->height);
      return FV_ERR_NOMEM;
    }
    t->canvas_bytes = bytes;
    t->canvas_stride = stride;
  }
  *canvas = fv_image_make (t->canvas, t->canvas_stride, gray->width, gray->height, 1, FV_U8,
      gray->mem);
  if (gray->mem == FV_MEM_HOST)   /* only the rows the scan reads */
    return fv_rotate_u8_rows (gray, canvas, r, t->plan->p.frame.threads, y0, y1);
  return fv_rotate_u8 (gray, canvas, r, t->plan->p.frame.threads, t->stream);
}

fv_rect
fv_vj_turn_window_rect (const fv_vj_turn_window *win, fv_rotation r, int w, int h)
{
  /* canvas = centre + R^T (frame - centre) */
  const fv_rotation back = { r.c, -r.s };
  double x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
  for (int c = 0; c < 4; c++) {
    double cx, cy;
    fv_rotation_to_frame (back, w, h, win->frame.x + (c & 1) * win->frame.width,
        win->frame.y + (c >> 1) * win->frame.height, &cx, &cy);
    x0 = fmin (x0, cx);
    y0 = fmin (y0, cy);
    x1 = fmax (x1, cx);
    y1 = fmax (y1, cy);
  }
  const int ix = (int) floor (x0), iy = (int) floor (y0);
  return (fv_rect) { ix, iy, (int) ceil (x1) - ix, (int) ceil (y1) - iy };
}

static int
inside (const fv_rect *r, const fv_rect *in)
{
  return r->x >= in->x && r->y >= in->y && r->x + r->width <= in->x + in->width
      && r->y + r->height <= in->y + in->height;
}

/* The plan of levels [i0, i1] of the whole plan's, from the cache or made:
 * the whole plan's parameters with sizes that allow only those levels
 * (and perhaps neighbours of equal rounded size: a superset, filtered). */
static fv_status
steer_plan_for (fv_vj_turns *t, int i0, int i1, fv_vj_plan **out)
{
  i0 = i0 / LEVEL_QUANT * LEVEL_QUANT;
  i1 = (i1 / LEVEL_QUANT + 1) * LEVEL_QUANT - 1;
  if (i1 >= t->nlevels)
    i1 = t->nlevels - 1;
  if (i0 == 0 && i1 == t->nlevels - 1) {
    *out = t->plan;
    return FV_OK;
  }
  steer_plan *victim = &t->steer[0];
  for (int i = 0; i < STEER_PLANS; i++) {
    steer_plan *s = &t->steer[i];
    if (s->plan && s->i0 == i0 && s->i1 == i1) {
      s->used = ++t->tick;
      *out = s->plan;
      return FV_OK;
    }
    if (!s->plan || (victim->plan && s->used < victim->used))
      victim = s;
  }
  fv_vj_params p = t->plan->p;
  p.min_width = t->lw[i0] > p.min_width ? t->lw[i0] : p.min_width;
  p.min_height = t->lh[i0] > p.min_height ? t->lh[i0] : p.min_height;
  p.max_width = t->lw[i1];
  p.max_height = t->lh[i1];
  fv_vj_plan *pl = NULL;
  fv_status st = fv_vj_plan_create (&pl, t->plan->cascade, &p, t->plan->backend, t->device,
      t->stream);
  if (st != FV_OK)
    return st;
  fv_vj_plan_destroy (victim->plan);
  victim->plan = pl;
  victim->i0 = i0;
  victim->i1 = i1;
  victim->used = ++t->tick;
  *out = pl;
  return FV_OK;
}

/* The first level whose window is at least w wide, and the last at most w. */
static int
level_from (const fv_vj_turns *t, int w)
{
  int i = 0;
  while (i < t->nlevels && t->lw[i] < w)
    i++;
  return i;
}

static int
level_to (const fv_vj_turns *t, int w)
{
  int i = t->nlevels - 1;
  while (i >= 0 && t->lw[i] > w)
    i--;
  return i;
}

fv_status
fv_vj_turns_scan (fv_vj_turns *t, const fv_image *gray, double degrees, const fv_vj_turn_window *w,
    int nw, const fv_rect **raw, int *nraw)
{
  *raw = NULL;
  *nraw = 0;
  t->nraw = 0;
  fv_vj_plan *pl = t->plan;
  const fv_rotation r = fv_rotation_of (degrees);
  if (nw > 0) {   /* the levels the windows' sizes need */
    if (!grow ((void **) &t->on, &t->on_cap, nw, sizeof *t->on)
        || !grow ((void **) &t->rows, &t->rows_cap, nw, sizeof *t->rows))
      return FV_ERR_NOMEM;
    int i0 = t->nlevels, i1 = -1;
    for (int k = 0; k < nw; k++) {
      const int a = level_from (t, w[k].min_w), b = level_to (t, w[k].max_w);
      if (a <= b) {
        i0 = a < i0 ? a : i0;
        i1 = b > i1 ? b : i1;
      }
      t->on[k] = fv_vj_turn_window_rect (&w[k], r, gray->width, gray->height);
    }
    if (i0 > i1)   /* no level holds a window of these sizes */
      return FV_OK;
    fv_status st = steer_plan_for (t, i0, i1, &pl);
    if (st != FV_OK)
      return st;
  }
  /* the rows the windows take (a CPU plan builds and scans only those) */
  fv_rect *on = t->on;
  fv_vj_rows *rows = t->rows;
  for (int k = 0; k < nw; k++)
    rows[k] = (fv_vj_rows) { on[k].y, on[k].y + on[k].height, w[k].min_w, w[k].max_w, on[k].x,
      on[k].x + on[k].width };
  int s0 = 0, s1 = gray->height;
  if (nw > 0)
    fv_vj_rows_source (pl, rows, nw, &s0, &s1);
  if (s0 >= s1)
    return FV_OK;
  fv_image canvas;
  fv_status st = degrees != 0 ? turn (t, gray, r, &canvas, s0, s1) : FV_OK;
  if (st == FV_OK)
    st = fv_vj_execute_rows (pl, degrees != 0 ? &canvas : gray, rows, nw);
  if (st != FV_OK)
    return st;
  if (!grow ((void **) &t->raw, &t->raw_cap, pl->nraw, sizeof *t->raw))
    return FV_ERR_NOMEM;
  for (int i = 0; i < pl->nraw; i++) {
    const fv_rect *q = &pl->raw[i];
    int keep = nw == 0;
    for (int k = 0; !keep && k < nw; k++)
      keep = q->width >= w[k].min_w && q->width <= w[k].max_w && inside (q, &on[k]);
    if (keep)
      t->raw[t->nraw++] = *q;
  }
  *raw = t->raw;
  *nraw = t->nraw;
  return FV_OK;
}

/* Whether a and b are boxes of one object: sharing half of the smaller
 * (fv_overlap.h) */
static int
overlap_half (const fv_rect *a, const fv_rect *b)
{
  const double da[4] = { a->x, a->y, a->width, a->height };
  const double db[4] = { b->x, b->y, b->width, b->height };
  return fv_overlap_of_smaller (da, db) >= 0.5;
}

/* The raw windows of one scan grouped, a turned scan's weak boxes dropped,
 * and each box mapped back to the frame (the bounding box of its corners,
 * clipped) into t->all. */
static fv_status
collect (fv_vj_turns *t, const fv_image *gray, double degrees, const fv_rect *raw, int nraw)
{
  if (!grow ((void **) &t->groups, &t->groups_cap, nraw + 1, sizeof *t->groups)
      || !grow ((void **) &t->all, &t->all_cap, t->nall + nraw + 1, sizeof *t->all))
    return FV_ERR_NOMEM;
  const int k = fv_vj_group (raw, nraw, t->plan->p.min_neighbors, FV_VJ_GROUP_EPS, t->groups);
  if (k < 0)
    return FV_ERR_NOMEM;
  const fv_rotation r = fv_rotation_of (degrees);
  for (int i = 0; i < k; i++) {
    const fv_detection *d = &t->groups[i];
    fv_vj_turned_det o = { d->box, d->neighbors, degrees, 1 };
    if (degrees != 0) {
      if (d->neighbors < t->tp.turned_min_neighbors)
        continue;
      double x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
      for (int c = 0; c < 4; c++) {
        double fx, fy;
        fv_rotation_to_frame (r, gray->width, gray->height, d->box.x + (c & 1) * d->box.width,
            d->box.y + (c >> 1) * d->box.height, &fx, &fy);
        x0 = fmin (x0, fx);
        y0 = fmin (y0, fy);
        x1 = fmax (x1, fx);
        y1 = fmax (y1, fy);
      }
#define CLIP(v, hi) ((v) < 0 ? 0 : (v) > (hi) ? (hi) : (v))
      o.box.x = (int) CLIP (floor (x0), gray->width);
      o.box.y = (int) CLIP (floor (y0), gray->height);
      o.box.width = (int) CLIP (ceil (x1), gray->width) - o.box.x;
      o.box.height = (int) CLIP (ceil (y1), gray->height) - o.box.y;
#undef CLIP
      if (o.box.width <= 0 || o.box.height <= 0)
        continue;
    }
    t->all[t->nall++] = o;
  }
  return FV_OK;
}

/* Whether angle k of the turned ones (n of them) scans the whole frame now. */
static int
whole_due (const fv_vj_turns *t, int k, int n)
{
  const long K = t->tp.interval;
  return K <= 1 || (t->frame + (long) k * K / n) % K == 0;
}

/* Windows tiling the bands along the frame's edges (fv_vj_turn_params's
 * edge): 1.5 bands deep and two long, a band apart, so that a face up to a
 * band wide inside a band lies inside one of them; they reach past the
 * frame's corners as the steered windows do. Returns their count, or the
 * count it would need (w NULL). */
static int
edge_windows (const fv_vj_turns *t, fv_vj_turn_window *w)
{
  const int W = t->plan->p.frame.width, H = t->plan->p.frame.height;
  const int b = (int) lrint (t->tp.edge * (W < H ? W : H));
  if (b < t->lw[0])   /* no window of the cascade fits */
    return 0;
  const int deep = b + b / 2;
  int n = 0;
  for (int side = 0; side < 4; side++) {
    const int along = side < 2 ? H : W;
    for (int a = -b / 2; a < along; a += b, n++) {
      if (!w)
        continue;
      fv_rect r = side < 2 ? (fv_rect) { side ? W - deep : 0, a, deep, 2 * b }
          : (fv_rect) { a, side == 3 ? H - deep : 0, 2 * b, deep };
      w[n] = (fv_vj_turn_window) { r, 0, b };
    }
  }
  return n;
}

/* Windows around the boxes remembered that the upright boxes of this
 * frame (t->all so far) do not find again, then the edges' (into t->win).
 * Returns their count, or -1 out of memory; *edges: how many tile the
 * edges. */
static int
steer_windows (fv_vj_turns *t, int *edges)
{
  *edges = edge_windows (t, NULL);
  if (!grow ((void **) &t->win, &t->win_cap, t->nseen + *edges + 1, sizeof *t->win))
    return -1;
  fv_vj_turn_window *w = t->win;
  int nw = 0;
  for (int i = 0; i < t->nseen; i++) {
    const seen_box *s = &t->seen[i];
    int again = 0;
    for (int j = 0; !again && j < t->nall; j++)
      again = t->all[j].angle == 0 && overlap_half (&t->all[j].box, &s->box);
    if (again)
      continue;
    const int size = s->box.width > s->box.height ? s->box.width : s->box.height;
    const long age = t->frame - s->last;   /* >= 1 */
    double g = size * (0.5 + 0.25 * (double) (age - 1));
    g = g < 2.0 * size ? g : 2.0 * size;
    /* not clipped to the frame: a turned window near an edge reaches past it */
    const int x0 = (int) floor (s->box.x - g), y0 = (int) floor (s->box.y - g);
    const int x1 = (int) ceil (s->box.x + s->box.width + g);
    const int y1 = (int) ceil (s->box.y + s->box.height + g);
    w[nw++] = (fv_vj_turn_window) { { x0, y0, x1 - x0, y1 - y0 }, (int) (0.4 * size),
      (int) ceil (1.5 * size) };
  }
  return nw + edge_windows (t, w + nw);
}

/* The merged boxes of this frame become the boxes remembered; those not
 * seen for `interval` searched frames are forgotten. */
static void
remember (fv_vj_turns *t)
{
  int keep = 0;
  for (int i = 0; i < t->nseen; i++)
    if (t->frame - t->seen[i].last < t->tp.interval)
      t->seen[keep++] = t->seen[i];
  t->nseen = keep;
  for (int j = 0; j < t->nout; j++) {
    const fv_rect *b = &t->out[j].box;
    int i = 0;
    while (i < t->nseen && !overlap_half (&t->seen[i].box, b))
      i++;
    if (i == t->nseen) {
      if (t->nseen == REMEMBERED) {   /* the one seen longest ago goes */
        int old = 0;
        for (int k = 1; k < t->nseen; k++)
          if (t->seen[k].last < t->seen[old].last)
            old = k;
        i = old;
      } else {
        t->nseen++;
      }
    }
    t->seen[i].box = *b;
    t->seen[i].last = t->frame;
  }
}

fv_status
fv_vj_turns_execute (fv_vj_turns *t, const fv_image *gray, const fv_vj_turned_det **det, int *n)
{
  *det = NULL;
  *n = 0;
  memset (&t->stats, 0, sizeof t->stats);
  t->nall = 0;
  fv_status st = FV_OK;
  const fv_rect *raw;
  int nraw, nturned = 0;
  for (int k = 0; k < t->tp.nangles; k++)
    nturned += t->tp.angles[k] != 0;
  /* upright first: its boxes decide which windows the turns look at */
  for (int k = 0; st == FV_OK && k < t->tp.nangles; k++)
    if (t->tp.angles[k] == 0) {
      st = fv_vj_turns_scan (t, gray, 0, NULL, 0, &raw, &nraw);
      if (st == FV_OK)
        st = collect (t, gray, 0, raw, nraw);
      t->stats.whole_scans++;
      break;
    }
  int nw = 0, edges = 0;
  if (st == FV_OK && t->tp.interval > 1 && (nw = steer_windows (t, &edges)) < 0)
    return FV_ERR_NOMEM;
  const fv_vj_turn_window *w = t->win;
  for (int k = 0, turned = 0; st == FV_OK && k < t->tp.nangles; k++) {
    const double a = t->tp.angles[k];
    if (a == 0)
      continue;
    const int whole = whole_due (t, turned++, nturned);
    if (!whole && nw == 0)
      continue;
    st = fv_vj_turns_scan (t, gray, a, w, whole ? 0 : nw, &raw, &nraw);
    if (st == FV_OK)
      st = collect (t, gray, a, raw, nraw);
    if (whole)
      t->stats.whole_scans++;
    else
      t->stats.steered_scans++;
  }
  if (st != FV_OK)
    return st;
  void *o = realloc (t->out, sizeof *t->out * (size_t) (t->nall + 1));
  if (!o)
    return FV_ERR_NOMEM;
  t->out = o;
  int m = fv_vj_merge_turns (t->all, t->nall, t->out);
  if (m < 0)
    return FV_ERR_NOMEM;
  t->nout = m;
  t->stats.windows = nw;
  t->stats.edge_windows = edges;
  remember (t);
  /* boxes only turned scans saw, at too few angles: remembered, not returned */
  int kept = 0;
  for (int i = 0; i < m; i++) {
    int upright = 0;
    for (int j = 0; j < t->nall && !upright; j++)
      upright = t->all[j].angle == 0 && overlap_half (&t->all[j].box, &t->out[i].box);
    if (upright || t->out[i].nangles >= t->tp.agreement)
      t->out[kept++] = t->out[i];
  }
  t->stats.held = m - kept;
  t->nout = m = kept;
  t->stats.remembered = t->nseen;
  t->frame++;
  *det = t->out;
  *n = m;
  return FV_OK;
}
