/* CPU fill: the parallel reverse fill. Seeds on the frame border (one
 * label for all of them) and random interior seeds on distinct rows are
 * flooded in parallel, one scan-line fill per seed, each writing its own
 * label with no locks: a pixel that two fills race for lies where their
 * regions meet, and either label is right. A parallel pass over the labels
 * then joins every pair of labels that touch (this also catches meetings
 * that a race hid from both fills), union-find gathers the labels that
 * reach the border label, and a last parallel pass writes each pixel from
 * whether its label did. Background that no fill reached has no seed and
 * does not touch the border: it is enclosed. */
#include <stdlib.h>
#include <string.h>
#include "fv_fill_plan.h"
#include <omp.h>
#include "../common/fv_parallel.h"

#define BORDER_LABEL 1u

typedef struct {
  int *stack;            /* (x, y) pairs */
  size_t cap;
  uint32_t *parent;      /* local union-find over labels */
} thread_state;

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

static uint32_t
uf_find (uint32_t *parent, uint32_t a)
{
  while (parent[a] != a) {
    parent[a] = parent[parent[a]];   /* path halving */
    a = parent[a];
  }
  return a;
}

static void
uf_union (uint32_t *parent, uint32_t a, uint32_t b)
{
  a = uf_find (parent, a);
  b = uf_find (parent, b);
  if (a != b)
    parent[a > b ? a : b] = a < b ? a : b;   /* the smaller label is the root */
}

typedef struct {
  const uint8_t *src;
  size_t sstride;
  uint32_t *L;
  int W, H, conn8;
  uint8_t thr;
} fill_ctx;

#define BG(c, x, y) ((c)->src[(size_t) (y) * (c)->sstride + (x)] <= (c)->thr)
#define LAB(c, x, y) ((c)->L + (size_t) (y) * (c)->W + (x))

static int
push (thread_state *t, size_t *n, int x, int y)
{
  if (*n + 2 > t->cap) {
    size_t cap = t->cap ? t->cap * 2 : 4096;
    int *s = realloc (t->stack, cap * sizeof (int));
    if (!s)
      return 0;
    t->stack = s;
    t->cap = cap;
  }
  t->stack[(*n)++] = x;
  t->stack[(*n)++] = y;
  return 1;
}

/* Scan-line flood of unlabelled background from (sx, sy) with label id. */
static int
flood (const fill_ctx *c, thread_state *t, uint32_t id, int sx, int sy)
{
  size_t n = 0;
  if (!push (t, &n, sx, sy))
    return 0;
  while (n) {
    int y = t->stack[--n], x = t->stack[--n];
    if (!BG (c, x, y) || lload (LAB (c, x, y)))
      continue;
    int xl = x, xr = x;
    while (xl > 0 && BG (c, xl - 1, y) && !lload (LAB (c, xl - 1, y)))
      xl--;
    while (xr < c->W - 1 && BG (c, xr + 1, y) && !lload (LAB (c, xr + 1, y)))
      xr++;
    uint32_t *row = LAB (c, 0, y);
    for (int i = xl; i <= xr; i++)
      lstore (row + i, id);
    int a = c->conn8 && xl > 0 ? xl - 1 : xl;
    int b = c->conn8 && xr < c->W - 1 ? xr + 1 : xr;
    for (int ny = y - 1; ny <= y + 1; ny += 2) {
      if (ny < 0 || ny >= c->H)
        continue;
      for (int i = a; i <= b; i++) {
        if (BG (c, i, ny) && !lload (LAB (c, i, ny))) {
          if (!push (t, &n, i, ny))   /* one push per run of the row */
            return 0;
          while (i + 1 <= b && BG (c, i + 1, ny))
            i++;
        }
      }
    }
  }
  return 1;
}

fv_status
fv_fill_cpu_init (fv_fill_plan *pl)
{
  const fv_fill_params *p = &pl->p;
  int n = fv_threads_resolve (p->threads);
  pl->nthreads = n;
  /* interior seeds: enough for every thread to start several fills, on
   * distinct rows */
  int s = p->seeds ? p->seeds : 4 * n + p->height / 64;
  pl->nseeds = s < p->height ? s : p->height;
  size_t nl = (size_t) pl->nseeds + 2;
  pl->labels = malloc (sizeof (uint32_t) * (size_t) p->width * p->height);
  pl->parent = malloc (sizeof (uint32_t) * nl);
  pl->outside = malloc (nl);
  thread_state *ts = calloc (n, sizeof *ts);
  pl->thread_state = ts;
  if (!pl->labels || !pl->parent || !pl->outside || !ts)
    return FV_ERR_NOMEM;
  for (int i = 0; i < n; i++)
    if (!(ts[i].parent = malloc (sizeof (uint32_t) * nl)))
      return FV_ERR_NOMEM;
  pl->rng = 0x853c49e6748fea9bull;
  return FV_OK;
}

fv_status
fv_fill_cpu_execute (fv_fill_plan *pl, const fv_image *src, const fv_image *dst)
{
  const fv_fill_params *p = &pl->p;
  const int W = p->width, H = p->height, n = pl->nthreads, S = pl->nseeds;
  const uint32_t nl = (uint32_t) S + 2;
  thread_state *ts = pl->thread_state;
  fill_ctx c = { src->data, src->stride, pl->labels, W, H, p->connectivity == 8,
    (uint8_t) p->threshold };
  int ok = 1;

  /* seed positions: one row each, spread evenly, a random column */
  int *seed_x = malloc (sizeof (int) * (S + 1) * 2);
  if (!seed_x)
    return FV_ERR_NOMEM;
  for (int k = 1; k <= S; k++) {
    pl->rng ^= pl->rng << 13; pl->rng ^= pl->rng >> 7; pl->rng ^= pl->rng << 17;
    seed_x[2 * k] = (int) (pl->rng % (uint64_t) W);
    seed_x[2 * k + 1] = (int) (((long) (k - 1) * H + H / 2) / S);
  }

#pragma omp parallel num_threads(n)
  {
#pragma omp for schedule(static)
    for (int y = 0; y < H; y++)
      memset (pl->labels + (size_t) y * W, 0, sizeof (uint32_t) * W);
    /* item 0 floods from every border pixel, the others from one seed each */
#pragma omp for schedule(dynamic, 1)
    for (int k = 0; k <= S; k++) {
      thread_state *t = &ts[omp_get_thread_num ()];
      if (k == 0) {
        for (int i = 0; i < 2 * W + 2 * H && ok; i++) {
          int x, y;
          if (i < W) { x = i; y = 0; }
          else if (i < 2 * W) { x = i - W; y = H - 1; }
          else if (i < 2 * W + H) { x = 0; y = i - 2 * W; }
          else { x = W - 1; y = i - 2 * W - H; }
          if (BG (&c, x, y) && !lload (LAB (&c, x, y)) && !flood (&c, t, BORDER_LABEL, x, y))
            ok = 0;
        }
      } else {
        int y = seed_x[2 * k + 1], x0 = seed_x[2 * k];
        for (int d = 0; d < W; d++) {   /* nearest free background to the right */
          int x = (x0 + d) % W;
          if (BG (&c, x, y) && !lload (LAB (&c, x, y))) {
            if (!flood (&c, t, (uint32_t) k + 1, x, y))
              ok = 0;
            break;
          }
        }
      }
    }
    /* every pair of touching labels, and every label on the border, into a
     * union-find of the thread's own */
    thread_state *t = &ts[omp_get_thread_num ()];
    for (uint32_t l = 0; l < nl; l++)
      t->parent[l] = l;
#pragma omp for schedule(static)
    for (int y = 0; y < H; y++) {
      const uint32_t *r = pl->labels + (size_t) y * W;
      const uint32_t *d = y + 1 < H ? r + W : NULL;
      uint32_t last_a = 0, last_b = 0;
      for (int x = 0; x < W; x++) {
        uint32_t a = r[x];
        if (!a)
          continue;
        uint32_t nb[4];
        int m = 0;
        if (x + 1 < W) nb[m++] = r[x + 1];
        if (d) {
          nb[m++] = d[x];
          if (c.conn8) {
            if (x > 0) nb[m++] = d[x - 1];
            if (x + 1 < W) nb[m++] = d[x + 1];
          }
        }
        for (int j = 0; j < m; j++)
          if (nb[j] && nb[j] != a && !(a == last_a && nb[j] == last_b)) {
            uf_union (t->parent, a, nb[j]);
            last_a = a;
            last_b = nb[j];
          }
      }
      if (y == 0 || y == H - 1) {
        for (int x = 0; x < W; x++)
          if (r[x])
            uf_union (t->parent, r[x], BORDER_LABEL);
      } else {
        if (r[0]) uf_union (t->parent, r[0], BORDER_LABEL);
        if (r[W - 1]) uf_union (t->parent, r[W - 1], BORDER_LABEL);
      }
    }
#pragma omp single
    {
      for (uint32_t l = 0; l < nl; l++)
        pl->parent[l] = l;
      for (int i = 0; i < n; i++)
        for (uint32_t l = 1; l < nl; l++)
          uf_union (pl->parent, l, uf_find (ts[i].parent, l));
      uint32_t root = uf_find (pl->parent, BORDER_LABEL);
      pl->outside[0] = 0;   /* never reached: enclosed */
      for (uint32_t l = 1; l < nl; l++)
        pl->outside[l] = uf_find (pl->parent, l) == root;
    }
    /* implicit barrier: outside[] is complete */
    const uint8_t fv = (uint8_t) p->fill_value, on_contour = p->output == FV_FILL_FILLED ? fv : 0;
#pragma omp for schedule(static)
    for (int y = 0; y < H; y++) {
      const uint8_t *s = (const uint8_t *) src->data + (size_t) y * src->stride;
      const uint32_t *r = pl->labels + (size_t) y * W;
      uint8_t *o = (uint8_t *) dst->data + (size_t) y * dst->stride;
      for (int x = 0; x < W; x++)
        o[x] = s[x] > c.thr ? on_contour : (pl->outside[r[x]] ? 0 : fv);
    }
  }
  free (seed_x);
  if (!ok) {
    fv_set_last_error ("out of memory for the fill stack");
    return FV_ERR_NOMEM;
  }
  return FV_OK;
}

void
fv_fill_cpu_free (fv_fill_plan *pl)
{
  thread_state *ts = pl->thread_state;
  if (ts)
    for (int i = 0; i < pl->nthreads; i++) {
      free (ts[i].stack);
      free (ts[i].parent);
    }
  free (ts);
  free (pl->labels);
  free (pl->parent);
  free (pl->outside);
  pl->thread_state = NULL;
  pl->labels = pl->parent = NULL;
  pl->outside = NULL;
}
