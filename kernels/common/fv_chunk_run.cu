/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The chunk runner (fv_chunk_run.h): a persistent worker thread per device
 * entry, each taking chunks as it finishes the last: staging the chunk's
 * input, running its sub-plan and copying its output into the frame, on
 * its own stream. */
#include "fv_chunk_run_impl.cuh"

using namespace fv_run;

thread_local fv_chunk_run_stats fv_run::last_stats;

extern "C" const fv_chunk_run_stats *
fv_chunk_run_last (void)
{
  return &last_stats;
}

extern "C" void
fv_chunk_run_last_clear (void)
{
  memset (&last_stats, 0, sizeof last_stats);
}

extern "C" void
fv_chunk_run_last_set (const fv_chunk_run_stats *s)
{
  last_stats = *s;
}

/* One axis of a chunk's staged input: up to three runs of the frame
 * (wrapping) as (frame position, staged offset, length). */
static int
runs (int origin, int len, int size, int wrap, int out[3][3])
{
  if (!wrap) {
    out[0][0] = origin;
    out[0][1] = 0;
    out[0][2] = len;
    return 1;
  }
  int n = 0, pos = ((origin % size) + size) % size, off = 0;
  while (len > 0 && n < 3) {
    int k = len < size - pos ? len : size - pos;
    out[n][0] = pos;
    out[n][1] = off;
    out[n][2] = k;
    n++;
    off += k;
    len -= k;
    pos = 0;
  }
  return n;
}

fv_status
fv_run::stage (Entry *e, int c, const fv_image *src)
{
  fv_chunk_run *r = e->run;
  const size_t px = pixel_bytes (&r->p);
  int xr[3][3], yr[3][3];
  /* two passes: the chunk's own input alone */
  const fv_chunk_rect *in = &r->plan.chunk[c].in;
  const int inw = r->two ? in->w : r->sw, inh = r->two ? in->h : r->sh;
  int nx = runs (r->sx[c], inw, r->p.width, r->p.wrap, xr);
  int ny = runs (r->sy[c], inh, r->p.height, r->p.wrap, yr);
  for (int j = 0; j < ny; j++)
    for (int i = 0; i < nx; i++) {
      const char *s = (const char *) src->data + (size_t) yr[j][0] * src->stride + xr[i][0] * px;
      char *d = e->d_in + (size_t) yr[j][1] * e->pitch_in + xr[i][1] * px;
      FV_CUDA_TRY (cudaMemcpy2DAsync (d, e->pitch_in, s, src->stride, xr[i][2] * px, yr[j][2],
          cudaMemcpyDefault, e->stream));
    }
  return FV_OK;
}

fv_status
fv_run::unstage (Entry *e, int c, const fv_image *dst)
{
  fv_chunk_run *r = e->run;
  const fv_chunk_rect *o = &r->plan.chunk[c].out;
  const size_t px = pixel_bytes (&r->p);
  const int ox = o->x - r->sx[c], oy = o->y - r->sy[c];
  FV_CUDA_TRY (cudaMemcpy2DAsync ((char *) dst->data + (size_t) o->y * dst->stride + o->x * px,
      dst->stride, e->d_out + (size_t) oy * e->pitch_out + ox * px, e->pitch_out, o->w * px,
      o->h, cudaMemcpyDefault, e->stream));
  return FV_OK;
}

static fv_status
entry_budget (Entry *e)
{
  fv_chunk_run *r = e->run;
  int sharing = 0;   /* the budget is the device's: its entries share it */
  for (int i = 0; i < r->nent; i++)
    sharing += r->e[i].device == e->device;
  size_t budget = r->p.budget;
  fv_status st = budget ? FV_OK : fv_cuda_free_budget (&budget);
  e->budget = budget / sharing;
  return st;
}

/* Copies between this entry's GPU and the others (the frame's among them)
 * go peer to peer where the GPUs allow it, not through the host. */
static void
enable_peers (Entry *e)
{
  fv_chunk_run *r = e->run;
  for (int i = -1; i < r->p.ndevices; i++) {
    const int d = i < 0 ? r->caller.device : r->p.devices[i];
    int ok = 0;
    if (d >= 0 && d != e->device && cudaDeviceCanAccessPeer (&ok, e->device, d) == cudaSuccess
        && ok)
      cudaDeviceEnablePeerAccess (d, 0);   /* already enabled is fine */
    cudaGetLastError ();
  }
}

static fv_status
entry_create (Entry *e)
{
  fv_chunk_run *r = e->run;
  enable_peers (e);
  const size_t row = (size_t) r->sw * pixel_bytes (&r->p);
  FV_CUDA_TRY (cudaStreamCreateWithFlags (&e->stream, cudaStreamNonBlocking));
  FV_CUDA_TRY (cudaMallocPitch ((void **) &e->d_in, &e->pitch_in, row, r->sh));
  FV_CUDA_TRY (cudaMallocPitch ((void **) &e->d_out, &e->pitch_out, row, r->sh));
  return r->k.create (&e->plan, r->sw, r->sh, e->device, e->stream, r->user);
}

/* One chunk: staged (or read where it lies), filtered, copied out (or
 * written in place); returns when its output is in the frame. Bands, where
 * the kernel can, compute their own rows only (not the halo's). */
static fv_status
entry_chunk (Entry *e, int c, fv_image *in, const fv_image *out, bool direct, bool in_place,
    bool band_rows)
{
  fv_chunk_run *r = e->run;
  fv_status st = FV_OK;
  if (direct) {
    in->data = pixel_at (e->src, r->sx[c], r->sy[c], pixel_bytes (&r->p));
    in->stride = e->src->stride;
  } else {
    st = stage (e, c, e->src);
  }
  if (st == FV_OK && band_rows) {
    const fv_chunk_rect *o = &r->plan.chunk[c].out;
    const int oy = o->y - r->sy[c];
    fv_image rows = in_place ? *e->dst : *out;
    rows.data = in_place ? pixel_at (e->dst, 0, o->y, 0) : pixel_at (out, 0, oy, 0);
    rows.height = o->h;
    st = r->k.execute_rows (e->plan, in, &rows, oy, o->h, r->user);
    if (st == FV_OK && !in_place)
      st = unstage (e, c, e->dst);
  } else {
    if (st == FV_OK)
      st = r->k.execute (e->plan, in, out, r->user);
    if (st == FV_OK)
      st = unstage (e, c, e->dst);
  }
  if (st == FV_OK)
    FV_CUDA_TRY (fv_cuda_sync (e->stream));
  return st;
}

static fv_status
entry_execute (Entry *e)
{
  fv_chunk_run *r = e->run;
  fv_image in = fv_image_make (e->d_in, e->pitch_in, r->sw, r->sh, r->p.channels, r->p.sample,
      FV_MEM_DEVICE);
  fv_image out = fv_image_make (e->d_out, e->pitch_out, r->sw, r->sh, r->p.channels,
      r->p.sample, FV_MEM_DEVICE);
  /* device frames in reach (on this entry's GPU, or a peer's with
   * peer_direct) are read where they lie, unless the chunk's input must be
   * gathered around the edges */
  const bool direct = !r->p.wrap && in_reach (e, e->src);
  /* bands, when the kernel can, compute their rows alone, written into
   * such a frame in place */
  const bool band_rows = r->k.execute_rows && r->plan.cols == 1;
  const bool in_place = band_rows && in_reach (e, e->dst);
  /* its own chunk, then the next no entry has taken, until none is left */
  for (int k; (k = take_chunk (e)) >= 0;) {
    fv_status st = entry_chunk (e, r->todo[k], &in, &out, direct, in_place, band_rows);
    if (st != FV_OK) {
      __atomic_store_n (&r->next, r->ntodo, __ATOMIC_RELAXED);   /* the others stop too */
      return st;
    }
    ran_chunk (e, r->todo[k]);
  }
  return FV_OK;
}

static void
entry_destroy (Entry *e)
{
  fv_chunk_run *r = e->run;
  if (e->plan)
    r->k.destroy (e->plan, r->user);
  cudaFree (e->d_in);
  cudaFree (e->d_out);
  if (e->stream)
    cudaStreamDestroy (e->stream);
  cudaGetLastError ();
  e->plan = NULL;
  e->d_in = e->d_out = NULL;
  e->stream = NULL;
}

static void
entry_work (Entry *e)
{
  e->status = fv_cuda_place_enter (&e->run->caller, e->device);
  if (e->status == FV_OK) {
    switch (e->op) {
      case OP_BUDGET: e->status = entry_budget (e); break;
      case OP_CREATE: e->status = entry_create (e); break;
      case OP_EXECUTE: e->status = entry_execute (e); break;
      case OP_FIRST: e->status = entry_pass (e, false); break;
      case OP_SECOND: e->status = entry_pass (e, true); break;
      case OP_DESTROY: entry_destroy (e); break;
    }
  }
  if (e->status != FV_OK)
    snprintf (e->error, sizeof e->error, "CUDA device %d: %s", e->device, fv_last_error ());
  e->done_ms = fv_now_ms () - e->run->t0;
}

static void
entry_slot (int i, void *user)
{
  entry_work (&((fv_chunk_run *) user)->e[i]);
}

/* Whether the first entry works on the calling thread: it is on the
 * caller's device (its context is current already). */
static bool
first_on_caller (const fv_chunk_run *r)
{
  return r->e[0].device == r->caller.device;
}

/* Every entry (those on the caller's device alone when home_only) does
 * `op`: the caller's on this thread, the others on their workers, at once.
 * The first failure's reason becomes this thread's. */
fv_status
fv_run::run_entries (fv_chunk_run *r, Op op, const fv_image *src, const fv_image *dst, bool home_only)
{
  unsigned char active[FV_MAX_DEVICE_ENTRIES];
  for (int i = 0; i < r->nent; i++) {
    Entry *e = &r->e[i];
    e->op = op;
    active[i] = !home_only || e->device == r->caller.device;
    e->src = src;
    e->dst = dst;
    e->status = FV_OK;
    e->done_ms = 0;
    e->error[0] = '\0';
  }
  fv_status st = fv_workers_run (r->workers, r->nent, first_on_caller (r), active, entry_slot,
      r);
  for (int i = 0; i < r->nent && st == FV_OK; i++)
    if (r->e[i].status != FV_OK) {
      st = r->e[i].status;
      fv_set_last_error ("%s", r->e[i].error);
    }
  return st;
}

/* Whether the entries are on more than one GPU. */
bool
fv_run::several_gpus (const fv_chunk_run *r)
{
  for (int i = 1; i < r->nent; i++)
    if (r->e[i].device != r->e[0].device)
      return true;
  return false;
}

/* Uniform chunk inputs: the widest output plus its halo on both sides (or
 * the whole axis), slid inside the frame, or for a wrapping border centred
 * on the output wherever that reaches. */
static void
place_chunks (fv_chunk_run *r, bool may_size)
{
  const fv_chunk_run_params *p = &r->p;
  int mw = 0, mh = 0;
  for (int c = 0; c < r->plan.n; c++) {
    mw = r->plan.chunk[c].out.w > mw ? r->plan.chunk[c].out.w : mw;
    mh = r->plan.chunk[c].out.h > mh ? r->plan.chunk[c].out.h : mh;
  }
  const int inw = mw + 2 * p->halo_x < p->width ? mw + 2 * p->halo_x : p->width;
  const int inh = mh + 2 * p->halo_y < p->height ? mh + 2 * p->halo_y : p->height;
  r->sw = inw;
  r->sh = inh;
  /* bands sized to speeds: room for a band of 1.6 times the even one, or
   * 0.6 of the frame where that is more (a GPU that copies nothing takes
   * more: about 0.6 of the frame on four H100) */
  bool one_each = true;   /* an entry a device: entry i runs chunk i, its own */
  for (int i = 1; i < r->nent; i++)
    one_each &= r->e[i].device != r->e[i - 1].device;
  r->sized = may_size && r->two && r->plan.cols == 1 && r->plan.n == r->nent && one_each
      && several_gpus (r);
  if (r->sized) {
    long cap = (long) r->sh * 8 / 5;
    cap = cap > (long) p->height * 3 / 5 ? cap : (long) p->height * 3 / 5;
    r->sh = r->cap_h = (int) (cap < p->height ? cap : p->height);
  }
  for (int c = 0; c < r->plan.n; c++) {
    const fv_chunk_rect *o = &r->plan.chunk[c].out;
    /* a wrapping border reads past the edges: there the window stays centred */
    const int x = inw == p->width || !p->wrap ? fv_window_start (o->x, p->halo_x, inw, p->width)
        : o->x - p->halo_x;
    const int y = inh == p->height || !p->wrap ? fv_window_start (o->y, p->halo_y, inh, p->height)
        : o->y - p->halo_y;
    r->sx[c] = r->two ? r->plan.chunk[c].in.x : x;
    r->sy[c] = r->two ? r->plan.chunk[c].in.y : y;
  }
}

/* Device bytes an entry needs for staged inputs of sw x sh. */
static size_t
entry_bytes (const fv_chunk_run *r, int sw, int sh)
{
  const size_t row = ((size_t) sw * pixel_bytes (&r->p) + 511) / 512 * 512;
  return r->k.bytes (sw, sh, r->user) + 2 * row * sh;
}

/* The fewest chunks that fit: planned from a per-pixel estimate, then
 * checked against the exact need of the uniform input, the estimate's
 * budget trimmed until it holds. */
static fv_status
plan_chunks (fv_chunk_run *r, size_t budget)
{
  const fv_chunk_run_params *p = &r->p;
  const double frame = (double) p->width * p->height;
  const size_t fixed = entry_bytes (r, 1, 1);
  const size_t whole = entry_bytes (r, p->width, p->height);
  const size_t per_px = (size_t) ((whole > fixed ? whole - fixed : 0) / frame) + 1;
  /* over several GPUs, per_entry chunks an entry: those that copy nothing take more */
  const int want = r->nent * (several_gpus (r) && p->per_entry > 1 ? p->per_entry : 1);
  fv_chunk_params cp = { p->width, p->height, per_px, fixed, p->halo_x, p->halo_y, budget,
    want > p->min_chunks ? want : p->min_chunks, p->align_y };
  for (int tries = 0; tries < 24; tries++) {
    fv_chunk_plan_free (&r->plan);
    fv_status st = fv_chunk_plan_make (&cp, &r->plan);
    if (st != FV_OK)
      return st;
    free (r->sx);
    free (r->sy);
    r->sx = (int *) calloc (r->plan.n, sizeof (int));
    r->sy = (int *) calloc (r->plan.n, sizeof (int));
    if (!r->sx || !r->sy)
      return FV_ERR_NOMEM;
    place_chunks (r, true);
    size_t need = entry_bytes (r, r->sw, r->sh);
    if (need > budget && r->sized) {   /* no room to resize the bands: even ones */
      place_chunks (r, false);
      need = entry_bytes (r, r->sw, r->sh);
    }
    if (need <= budget)
      return FV_OK;   /* which entry runs a chunk is decided per frame, as they finish */
    cp.budget = (size_t) ((double) cp.budget * ((double) budget / need) * 0.97);
  }
  fv_set_last_error ("a %zu-byte device budget holds no chunk of this %dx%d frame with its "
      "%dx%d halo", budget, p->width, p->height, p->halo_x, p->halo_y);
  return FV_ERR_NOMEM;
}

extern "C" fv_status
fv_chunk_run_budget (const fv_chunk_run_params *p, int entry, size_t *budget)
{
  fv_chunk_run r;
  memset (&r, 0, sizeof r);
  r.p = *p;
  fv_cuda_place_save (&r.caller);
  Entry *e = &r.e[0];   /* the whole frame on one device: the device's budget */
  r.nent = 1;
  e->run = &r;
  e->index = 0;
  e->device = p->devices[entry];
  e->op = OP_BUDGET;
  /* on another device, from a thread of its own: this one's context stays */
  fv_status st = fv_workers_create (&r.workers);
  if (st == FV_OK)
    st = fv_workers_run (r.workers, 1, e->device == r.caller.device, NULL, entry_slot, &r);
  fv_workers_destroy (r.workers);
  if (st != FV_OK)
    return st;
  if (e->status != FV_OK) {
    fv_set_last_error ("%s", e->error);
    return e->status;
  }
  *budget = e->budget;
  return FV_OK;
}

/* Whether the plan's bands start on whole blocks of align_y rows, or
 * could not (no blocks asked, or fewer blocks than entries). */
static bool
on_blocks (const fv_chunk_run *r)
{
  const int A = r->p.align_y;
  if (A <= 1 || (r->p.height + A - 1) / A < r->nent)
    return true;
  if (r->plan.cols != 1)
    return false;
  for (int c = 0; c < r->plan.n; c++)
    if (r->plan.chunk[c].out.y % A)
      return false;
  return true;
}

extern "C" fv_status
fv_chunk_run_create (fv_chunk_run **out, const fv_chunk_run_params *p,
    const fv_chunk_kernel *kernel, void *user)
{
  *out = NULL;
  const int lanes = p->lanes > 1 ? p->lanes : 1;
  if (p->ndevices < 1 || p->ndevices * lanes > FV_MAX_DEVICE_ENTRIES || p->width < 1
      || p->height < 1 || p->halo_x < 0 || p->halo_y < 0
      || (kernel->first && (p->halo_x || p->halo_y || p->wrap || !kernel->settle
          || !kernel->second))) {
    fv_set_last_error ("invalid chunk runner parameters");
    return FV_ERR_INVALID;
  }
  fv_chunk_run *r = (fv_chunk_run *) calloc (1, sizeof (fv_chunk_run));
  if (!r)
    return FV_ERR_NOMEM;
  r->p = *p;
  r->k = *kernel;
  r->user = user;
  r->two = kernel->first != NULL;
  r->p.peer_direct = p->peer_direct && fv_env_int (FV_ENV_CHUNK_PEER_DIRECT, 1) != 0;
  fv_cuda_place_save (&r->caller);
  if (fv_workers_create (&r->workers) != FV_OK) {
    fv_chunk_run_destroy (r);
    return FV_ERR_NOMEM;
  }
  /* fewer lanes when a lane's share of the budget holds no chunk */
  fv_status st = FV_ERR_NOMEM;
  for (int l = lanes; l >= 1 && st == FV_ERR_NOMEM; l--) {
    for (int i = 0; i < p->ndevices * l; i++) {   /* a device's lanes side by side */
      r->e[i].run = r;
      r->e[i].index = i;
      r->e[i].device = p->devices[i / l];
    }
    r->nent = p->ndevices * l;
    st = run_entries (r, OP_BUDGET, NULL, NULL, false);
    size_t budget = (size_t) -1;
    for (int i = 0; i < r->nent; i++)
      budget = r->e[i].budget < budget ? r->e[i].budget : budget;
    if (st == FV_OK)
      st = plan_chunks (r, budget);
    /* a kernel whose work comes in blocks of rows: fewer lanes, where a
     * lane's share holds no band of whole blocks and the frame has blocks
     * for every chunk (the convolution's row of tiles at 32768 wide takes
     * 550 MB: three lanes in 953 MB cut tiles, +135%; one cuts bands) */
    if (st == FV_OK && l > 1 && !on_blocks (r))
      st = FV_ERR_NOMEM;
  }
  if (st == FV_OK)
    st = run_entries (r, OP_CREATE, NULL, NULL, false);
  if (st == FV_OK && !(r->todo = (int *) calloc (r->plan.n, sizeof (int))))
    st = FV_ERR_NOMEM;
  bool home = false;   /* the caller's device among the entries */
  for (int i = 0; i < r->nent; i++)
    home |= r->e[i].device == r->caller.device;
  r->choose = several_gpus (r) && home && !p->keep_spread;
  if (st != FV_OK) {
    char why[512];
    snprintf (why, sizeof why, "%s", fv_last_error ());
    fv_chunk_run_destroy (r);
    fv_set_last_error ("%s", why);
    return st;
  }
  *out = r;
  return FV_OK;
}

/* While choosing: which way this call runs (the first spread, untimed). */
static Way
trying (const fv_chunk_run *r)
{
  return r->calls % 2 == 0 ? WAY_SPREAD : WAY_HOME;
}

/* After a call that ran every chunk the chosen way, or a timed one. */
static void
chose (fv_chunk_run *r, Way way, double ms)
{
  if (r->calls > 0)
    r->best[way] = r->calls <= 2 || ms < r->best[way] ? ms : r->best[way];
  if (++r->calls < TIMED_CALLS)
    return;
  r->choose = false;
  r->way = r->best[WAY_HOME] < r->best[WAY_SPREAD] ? WAY_HOME : WAY_SPREAD;
  if (r->way == WAY_HOME && r->p.note) {
    char msg[256];
    snprintf (msg, sizeof msg, "one device is faster for this %dx%d frame than spreading it "
        "over the listed devices (%.3f ms against %.3f ms a frame): running on CUDA device %d "
        "alone", r->p.width, r->p.height, r->best[WAY_HOME], r->best[WAY_SPREAD],
        r->caller.device);
    r->p.note (r->p.note_user, msg);
  }
}

extern "C" fv_status
fv_chunk_run_execute (fv_chunk_run *r, const fv_image *src, const fv_image *dst)
{
  if (src->width != r->p.width || src->height != r->p.height || dst->width != r->p.width
      || dst->height != r->p.height) {
    fv_set_last_error ("image size differs from the chunk plan's");
    return FV_ERR_INVALID;
  }
  r->ntodo = r->plan.n;
  for (int c = 0; c < r->plan.n; c++)
    r->todo[c] = c;
  for (int i = 0; i < r->nent; i++) {
    r->e[i].chunks = 0;
    r->e[i].pixels = 0;
  }
  if (!r->two) {
    memset (last_stats.first_ms, 0, sizeof last_stats.first_ms);
    last_stats.settle_from_ms = last_stats.settle_to_ms = 0;
  }
  const bool timed = r->choose;
  const Way way = timed ? trying (r) : r->way;
  /* spread, every entry starts with a chunk of its own (so every GPU takes
   * part whatever its threads' wake-up; one a device's first entry alone
   * measured slower for satfilter on two H100, 0.83 against 0.72 ms at
   * 16384²), then they take the rest as they finish */
  r->next = 0;
  for (int i = 0; i < r->nent; i++)
    r->e[i].own = way == WAY_SPREAD && r->next < r->ntodo ? r->next++ : -1;
  const bool whole = way == WAY_HOME && r->k.whole;
  r->t0 = fv_now_ms ();
  fv_status st = whole ? r->k.whole (src, dst, r->user)
      : r->two ? run_two (r, src, dst, way == WAY_HOME)
      : run_entries (r, OP_EXECUTE, src, dst, way == WAY_HOME);
  const double ms = fv_now_ms () - r->t0;
  if (st == FV_OK && timed)
    chose (r, way, ms);
  if (st == FV_OK && r->sized && way == WAY_SPREAD && r->resized < RESIZES) {
    resize_bands (r);
    r->resized++;
  }
  fv_chunk_run_stats *s = &last_stats;
  s->entries = r->nent;
  s->total_ms = ms;
  s->todo = whole ? 0 : r->plan.n;   /* the whole frame: no chunks */
  s->home_only = way == WAY_HOME;
  const bool chosen = r->calls >= TIMED_CALLS;
  s->home_ms = chosen ? r->best[WAY_HOME] : 0;
  s->spread_ms = chosen ? r->best[WAY_SPREAD] : 0;
  for (int i = 0; i < r->nent; i++) {
    s->device[i] = r->e[i].device;
    s->chunks[i] = whole ? 0 : r->e[i].chunks;
    s->share[i] = whole ? 0 : r->e[i].pixels / ((double) r->p.width * r->p.height);
    s->done_ms[i] = whole ? 0 : r->e[i].done_ms;   /* 0 for an entry that sat the call out */
  }
  return st;
}

extern "C" void
fv_chunk_run_destroy (fv_chunk_run *r)
{
  if (!r)
    return;
  if (r->workers)
    run_entries (r, OP_DESTROY, NULL, NULL, false);
  fv_workers_destroy (r->workers);
  fv_chunk_plan_free (&r->plan);
  free (r->todo);
  free (r->sx);
  free (r->sy);
  free (r);
}

extern "C" const fv_chunk_plan *
fv_chunk_run_plan (const fv_chunk_run *r)
{
  return &r->plan;
}

extern "C" void
fv_chunk_run_chunk_max (const fv_chunk_run *r, int *width, int *height)
{
  *width = r->sw;
  *height = r->sh;
}
