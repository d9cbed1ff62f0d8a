/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The chunk runner's kernels of two passes (fv_chunk_run.h: first, settle,
 * second; the fill), and their bands sized to the entries' speeds. */
#include "fv_chunk_run_impl.cuh"

using namespace fv_run;

/* Two passes: where chunk c's output goes, in the frame or in staging. */
static fv_image
chunk_out (Entry *e, int c, bool direct)
{
  fv_chunk_run *r = e->run;
  const fv_chunk_rect *o = &r->plan.chunk[c].out;
  fv_image im = fv_image_make (e->d_out, e->pitch_out, o->w, o->h, r->p.channels, r->p.sample,
      FV_MEM_DEVICE);
  if (direct) {
    im.data = pixel_at (e->dst, o->x, o->y, pixel_bytes (&r->p));
    im.stride = e->dst->stride;
  }
  return im;
}

/* Two passes: chunk c's first, on its own input where it lies or staged. */
static fv_status
chunk_first (Entry *e, int c, bool src_direct, bool dst_direct)
{
  fv_chunk_run *r = e->run;
  const fv_chunk_rect *in = &r->plan.chunk[c].in;
  fv_image im = fv_image_make (e->d_in, e->pitch_in, in->w, in->h, r->p.channels, r->p.sample,
      FV_MEM_DEVICE);
  fv_status st = FV_OK;
  if (src_direct) {
    im.data = pixel_at (e->src, in->x, in->y, pixel_bytes (&r->p));
    im.stride = e->src->stride;
  } else {
    st = stage (e, c, e->src);
  }
  const fv_image out = chunk_out (e, c, dst_direct);
  if (st == FV_OK)
    st = r->k.first (e->plan, c, &im, &out, r->user);
  if (st == FV_OK)
    FV_CUDA_TRY (fv_cuda_sync (e->stream));
  e->held = st == FV_OK ? c : -1;
  return st;
}

/* Two passes: chunk c's second (its first held by the plan), then its
 * output copied out of staging. */
static fv_status
chunk_second (Entry *e, int c, bool direct)
{
  fv_chunk_run *r = e->run;
  const fv_image out = chunk_out (e, c, direct);
  fv_status st = r->k.second (e->plan, c, &out, r->user);
  if (st == FV_OK && !direct)
    st = unstage (e, c, e->dst);
  if (st == FV_OK)
    FV_CUDA_TRY (fv_cuda_sync (e->stream));
  return st;
}

/* The first passes: its own chunk, then the next no entry has taken,
 * until none is left; the plan keeps the last. The second: that chunk's,
 * then the chunks no entry holds, each first pass again. Whether the
 * frames are read and written in place is found once a frame, in the
 * first. */
fv_status
fv_run::entry_pass (Entry *e, bool second)
{
  fv_chunk_run *r = e->run;
  if (!second) {
    e->src_direct = in_reach (e, e->src);
    e->dst_direct = in_reach (e, e->dst);
  }
  fv_status st = FV_OK;
  if (second && e->held >= 0)
    st = chunk_second (e, e->held, e->dst_direct);
  for (int k; st == FV_OK && (k = take_chunk (e)) >= 0;) {
    st = chunk_first (e, r->todo[k], e->src_direct, e->dst_direct);
    if (st == FV_OK && second)
      st = chunk_second (e, r->todo[k], e->dst_direct);
    if (st == FV_OK && !second)
      ran_chunk (e, r->todo[k]);
  }
  if (st != FV_OK)
    __atomic_store_n (&r->next, r->ntodo, __ATOMIC_RELAXED);   /* the others stop too */
  return st;
}

/* Two passes, by the entries (the home device's alone when home_only):
 * every chunk's first, settle, every chunk's second. */
fv_status
fv_run::run_two (fv_chunk_run *r, const fv_image *src, const fv_image *dst, bool home_only)
{
  for (int i = 0; i < r->nent; i++)
    r->e[i].held = -1;
  fv_status st = run_entries (r, OP_FIRST, src, dst, home_only);
  fv_chunk_run_stats *s = &last_stats;
  for (int i = 0; i < r->nent; i++)
    s->first_ms[i] = r->e[i].busy = r->e[i].done_ms;
  s->settle_from_ms = fv_now_ms () - r->t0;
  if (st == FV_OK)
    st = r->k.settle (r->user);
  s->settle_to_ms = fv_now_ms () - r->t0;
  if (st != FV_OK)
    return st;
  /* the second passes' other chunks: those no entry's plan holds */
  r->ntodo = 0;
  for (int c = 0; c < r->plan.n; c++) {
    bool held = false;
    for (int i = 0; i < r->nent && !held; i++)
      held = r->e[i].held == c;
    if (!held)
      r->todo[r->ntodo++] = c;
  }
  r->next = 0;
  st = run_entries (r, OP_SECOND, src, dst, home_only);
  for (int i = 0; i < r->nent; i++)   /* its chunks: the first passes it ran (counted) */
    r->e[i].busy += r->e[i].done_ms - s->settle_to_ms;
  return st;
}

/* After the first spread frames of bands sized to speeds: each entry's
 * band (entry i runs chunk i: its own) made proportional to the rows it
 * did a ms, those over cap_h held there and the rest shared among the
 * others the same way; kept as it is when no share fits. */
void
fv_run::resize_bands (fv_chunk_run *r)
{
  const int n = r->nent;
  double speed[FV_MAX_DEVICE_ENTRIES], rows[FV_MAX_DEVICE_ENTRIES];
  bool held[FV_MAX_DEVICE_ENTRIES];
  for (int i = 0; i < n; i++) {
    if (r->e[i].busy <= 0)
      return;
    speed[i] = r->plan.chunk[i].out.h / r->e[i].busy;
    held[i] = false;
  }
  for (bool again = true; again;) {   /* water-filling: at most n rounds */
    double left = r->p.height, sum = 0;
    for (int i = 0; i < n; i++)
      held[i] ? left -= r->cap_h : sum += speed[i];
    again = false;
    for (int i = 0; i < n; i++) {
      if (held[i])
        continue;
      rows[i] = sum > 0 ? left * speed[i] / sum : 0;
      if (rows[i] > r->cap_h) {
        held[i] = again = true;
        break;
      }
    }
  }
  int y[FV_MAX_DEVICE_ENTRIES + 1];
  double acc = 0;
  y[0] = 0;
  for (int i = 0; i < n; i++) {
    acc += held[i] ? r->cap_h : rows[i];
    y[i + 1] = i + 1 == n ? r->p.height : (int) (acc + 0.5);
    if (y[i + 1] - y[i] < 1 || y[i + 1] - y[i] > r->cap_h)
      return;
  }
  for (int i = 0; i < n; i++) {
    fv_chunk *c = &r->plan.chunk[i];
    c->out.y = c->in.y = r->sy[i] = y[i];
    c->out.h = c->in.h = y[i + 1] - y[i];
  }
  r->plan.generation++;
}
