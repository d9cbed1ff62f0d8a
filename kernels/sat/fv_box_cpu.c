/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* CPU box filter: rows split in one strip per thread, each strip streams
 * its SAT rows (see fv_box_cpu_rows.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "fv_box_plan.h"
#include "fv_box_math.h"
#include "fv_sat_cpu_util.h"
#include "../common/fv_parallel.h"
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* the row loops are built for AVX2 too, picked at run time */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define FV_CLONES __attribute__ ((target_clones ("avx2", "default")))
#else
#define FV_CLONES
#endif

/* Inclusive prefix sums of n 32-bit values per channel (c = 1 or 4
 * interleaved), four lanes at a time: the dependency chain runs once per
 * vector instead of once per value. */
static inline void
fv_prefix_u32 (uint32_t *out, const uint32_t *in, int n, int c)
{
  int i = 0;
#ifdef __SSE2__
  __m128i carry = _mm_setzero_si128 ();
  if (c == 4) {
    for (; i + 4 <= n; i += 4) {
      carry = _mm_add_epi32 (carry, _mm_loadu_si128 ((const __m128i *) (in + i)));
      _mm_storeu_si128 ((__m128i *) (out + i), carry);
    }
    return;
  }
  for (; i + 4 <= n; i += 4) {
    __m128i x = _mm_loadu_si128 ((const __m128i *) (in + i));
    x = _mm_add_epi32 (x, _mm_slli_si128 (x, 4));
    x = _mm_add_epi32 (x, _mm_slli_si128 (x, 8));
    x = _mm_add_epi32 (x, carry);
    _mm_storeu_si128 ((__m128i *) (out + i), x);
    carry = _mm_shuffle_epi32 (x, 0xff);
  }
#endif
  uint32_t run = i ? out[i - 1] : 0;
  if (c == 1)
    for (; i < n; i++)
      out[i] = run += in[i];
  else
    for (; i < n; i++)
      out[i] = (i >= c ? out[i - c] : 0) + in[i];
}

/* Pz[C + x*C + c] = sum of V[x'*C + c] over x' <= x, one register per
 * channel (a store-to-load chain through memory would cost 4x). */
#define FV_PREFIX(Pz, V, W, C)                                          \
  do {                                                                  \
    if (sizeof (TACC) == 4 && ((C) == 1 || (C) == 4)) {                 \
      fv_prefix_u32 ((uint32_t *) (Pz) + (C), (const uint32_t *) (V),   \
          (W) * (C), (C));                                              \
    } else if ((C) == 1) {                                              \
      TACC a0 = 0;                                                      \
      for (int x = 0; x < (W); x++)                                     \
        (Pz)[1 + x] = a0 += (V)[x];                                     \
    } else if ((C) == 3) {                                              \
      TACC a0 = 0, a1 = 0, a2 = 0;                                      \
      for (int x = 0; x < (W); x++) {                                   \
        (Pz)[3 + 3 * x] = a0 += (V)[3 * x];                             \
        (Pz)[4 + 3 * x] = a1 += (V)[3 * x + 1];                         \
        (Pz)[5 + 3 * x] = a2 += (V)[3 * x + 2];                         \
      }                                                                 \
    } else if ((C) == 4) {                                              \
      TACC a0 = 0, a1 = 0, a2 = 0, a3 = 0;                              \
      for (int x = 0; x < (W); x++) {                                   \
        (Pz)[4 + 4 * x] = a0 += (V)[4 * x];                             \
        (Pz)[5 + 4 * x] = a1 += (V)[4 * x + 1];                         \
        (Pz)[6 + 4 * x] = a2 += (V)[4 * x + 2];                         \
        (Pz)[7 + 4 * x] = a3 += (V)[4 * x + 3];                         \
      }                                                                 \
    } else {                                                            \
      for (int i = 0; i < (W) * (C); i++)                               \
        (Pz)[i + (C)] = (Pz)[i] + (V)[i];                               \
    }                                                                   \
  } while (0)

#define TIN uint8_t
#define TACC uint32_t
#define SACC int32_t
#define FV_ROWS rows_u8_a32
#include "fv_box_cpu_rows.h"
#undef TACC
#undef FV_ROWS
#undef SACC
#define TACC uint64_t
#define SACC int64_t
#define FV_ROWS rows_u8_a64
#include "fv_box_cpu_rows.h"
#undef TIN
#undef TACC
#undef SACC
#undef FV_ROWS
#define TIN uint16_t
#define TACC uint32_t
#define SACC int32_t
#define FV_ROWS rows_u16_a32
#include "fv_box_cpu_rows.h"
#undef TACC
#undef SACC
#undef FV_ROWS
#define TACC uint64_t
#define SACC int64_t
#define FV_ROWS rows_u16_a64
#include "fv_box_cpu_rows.h"
#undef TIN
#undef TACC
#undef SACC
#undef FV_ROWS

typedef void (*rows_fn) (const fv_box_plan *, const fv_image *, const fv_image *,
    int, int, char *);

/* Interior range and the terms of every border column. */
static fv_status
make_columns (const fv_box_params *p, fv_box_cpu *c)
{
  const int W = p->frame.width, rx = p->radius_x;
  c->xl = rx < W ? rx : W;
  c->xr = W - 1 - rx >= c->xl ? W - rx : c->xl;
  c->cols = calloc (W, sizeof (fv_col_terms));
  if (!c->cols)
    return FV_ERR_NOMEM;
  for (int x = 0; x < W; x++) {
    fv_col_terms *ct = &c->cols[x];
    int ia[8], ib[8];
    int64_t ca[8], cb[8];
    int na = fv_border_terms (x + (long) rx, W, p->border, ia, ca);
    int nb = fv_border_terms (x - (long) rx - 1, W, p->border, ib, cb);
    ct->count = fv_window_count (x, rx, W, p->border);
    for (int t = 0; t < na; t++) {
      ct->idx[ct->n] = ia[t] + 1;
      ct->coef[ct->n++] = ca[t];
    }
    for (int t = 0; t < nb; t++) {
      ct->idx[ct->n] = ib[t] + 1;
      ct->coef[ct->n++] = -cb[t];
    }
  }
  return FV_OK;
}

/* Threads of a plan: strips well taller than the window (each strip starts
 * with a full window of rows, so that start-up stays a small part of the
 * work); and the bytes of one strip's scratch. */
static int
strips (const fv_box_params *p)
{
  int n = fv_threads_resolve (p->frame.threads);
  if (n > p->frame.height)
    n = p->frame.height;
  long min_rows = 2L * p->radius_y + 1;
  if (min_rows < 16)
    min_rows = 16;
  while (n > 1 && (long) p->frame.height / n < min_rows)
    n--;
  return n;
}

static size_t
strip_scratch (const fv_box_params *p)
{
  size_t acc = fv_box_needs_acc64 (p) ? 8 : 4, wc = (size_t) p->frame.width * p->frame.channels;
  size_t bytes = acc * (4 * wc + 2 * (size_t) p->frame.channels) + sizeof (int)
      * (size_t) p->frame.height;
  return (bytes + 63) & ~(size_t) 63;
}

size_t
fv_box_cpu_bytes (const fv_box_params *p)
{
  return sizeof (fv_box_cpu) + sizeof (fv_col_terms) * (size_t) p->frame.width
      + strip_scratch (p) * (size_t) strips (p);
}

fv_status
fv_box_cpu_init (fv_box_plan *plan)
{
  const fv_box_params *p = &plan->p;
  fv_box_cpu *c = calloc (1, sizeof *c);
  plan->state = c;
  if (!c)
    return FV_ERR_NOMEM;
  fv_status st = make_columns (p, c);
  if (st != FV_OK)
    return st;
  const int n = strips (p);
  c->nthreads = n;
  c->scratch_stride = strip_scratch (p);
  c->scratch = aligned_alloc (64, c->scratch_stride * n);
  if (!c->scratch) {
    fv_set_last_error ("cannot allocate %zu bytes of scratch", c->scratch_stride * n);
    return FV_ERR_NOMEM;
  }
  return FV_OK;
}

typedef struct {
  fv_box_plan *plan;
  const fv_image *src, *dst;
  rows_fn fn;
} box_job;

static void
box_strip (void *ctx, long t, int me)
{
  (void) me;
  const box_job *j = ctx;
  const fv_box_cpu *c = j->plan->state;
  int y0, y1;
  fv_split_range (j->plan->p.frame.height, c->nthreads, (int) t, &y0, &y1);
  j->fn (j->plan, j->src, j->dst, y0, y1, (char *) c->scratch + c->scratch_stride * t);
}

fv_status
fv_box_cpu_execute (fv_box_plan *plan, const fv_image *src, const fv_image *dst)
{
  const fv_box_params *p = &plan->p;
  rows_fn fn = p->frame.sample == FV_U8 ? (plan->acc64 ? rows_u8_a64 : rows_u8_a32)
      : (plan->acc64 ? rows_u16_a64 : rows_u16_a32);
  /* one strip per thread asked for, whatever the team: a thread of a
   * smaller team takes the next strip free */
  const fv_box_cpu *c = plan->state;
  box_job j = { plan, src, dst, fn };
  fv_team team = fv_team_begin (c->nthreads);
  fv_team_for (team, c->nthreads, 1, box_strip, &j);
  fv_team_end (team);
  return FV_OK;
}

void
fv_box_cpu_free (fv_box_plan *plan)
{
  fv_box_cpu *c = plan->state;
  if (c) {
    free (c->scratch);
    free (c->cols);
  }
  free (c);
  plan->state = NULL;
}
