/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* CPU summed-area table in two parallel passes over row strips: each strip
 * sums its columns; the sums above each strip are carried in; then each
 * strip writes its table rows once, starting from the row above it. */
#include <stdlib.h>
#include <string.h>
#include "fv_sat_plan.h"
#include "../common/fv_parallel.h"

/* What a strip's call needs. */
typedef struct {
  const fv_image *src;
  int ch, sq, n;
  void *carry;
  char *table;
  size_t tstride;
} sat_job;

#define SAT_STRIP(NAME, TIN, TACC)                                              \
  static void NAME##_colsum (const fv_image *src, int ch, int sq, int y0, int y1, \
      TACC *col)                                                                \
  {                                                                             \
    const int W = src->width, C = src->channels;                                \
    memset (col, 0, sizeof (TACC) * W);                                         \
    for (int y = y0; y < y1; y++) {                                             \
      const TIN *r = (const TIN *) ((const char *) src->data + (size_t) y * src->stride) + ch; \
      if (sq)                                                                   \
        for (int x = 0; x < W; x++) col[x] += (TACC) r[x * C] * r[x * C];       \
      else                                                                      \
        for (int x = 0; x < W; x++) col[x] += r[x * C];                         \
    }                                                                           \
  }                                                                             \
  static void NAME##_rows (const fv_image *src, int ch, int sq, int y0, int y1, \
      const TACC *above, char *table, size_t tstride)                          \
  {                                                                             \
    const int W = src->width, C = src->channels;                                \
    const TACC *prev = above;                                                   \
    for (int y = y0; y < y1; y++) {                                             \
      const TIN *r = (const TIN *) ((const char *) src->data + (size_t) y * src->stride) + ch; \
      TACC *o = (TACC *) (table + (size_t) y * tstride), run = 0;               \
      if (C == 1 && !sq) { /* the common case, without strides or squares */    \
        for (int x = 0; x < W; x++) {                                           \
          run += r[x];                                                          \
          o[x] = prev[x] + run;                                                 \
        }                                                                       \
      } else {                                                                  \
        for (int x = 0; x < W; x++) {                                           \
          TACC v = r[x * C];                                                    \
          run += sq ? v * v : v;                                                \
          o[x] = prev[x] + run;                                                 \
        }                                                                       \
      }                                                                         \
      prev = o;                                                                 \
    }                                                                           \
  }                                                                             \
  static void NAME##_colsum_strip (void *ctx, long t, int me)                   \
  {                                                                             \
    const sat_job *j = ctx;                                                     \
    int y0, y1;                                                                 \
    (void) me;                                                                  \
    fv_split_range (j->src->height, j->n, (int) t, &y0, &y1);                   \
    NAME##_colsum (j->src, j->ch, j->sq, y0, y1,                                \
        (TACC *) j->carry + (size_t) t * j->src->width);                        \
  }                                                                             \
  static void NAME##_rows_strip (void *ctx, long t, int me)                     \
  {                                                                             \
    const sat_job *j = ctx;                                                     \
    int y0, y1;                                                                 \
    (void) me;                                                                  \
    fv_split_range (j->src->height, j->n, (int) t, &y0, &y1);                   \
    NAME##_rows (j->src, j->ch, j->sq, y0, y1,                                  \
        (const TACC *) j->carry + (size_t) t * j->src->width, j->table, j->tstride); \
  }                                                                             \
  static void NAME (fv_sat_plan *pl, const fv_image *src, char *table, size_t tstride) \
  {                                                                             \
    const int W = src->width, n = pl->nthreads;                                 \
    TACC *carry = (TACC *) pl->state; /* n+1 rows: column sums, then row above */ \
    sat_job j = { src, pl->p.channel, pl->p.squared, n, carry, table, tstride }; \
    /* one strip per thread asked for, whatever the team */                   \
    fv_team team = fv_team_begin (n);                                           \
    fv_team_for (team, n, 1, NAME##_colsum_strip, &j);                          \
    /* turn column sums into the table row just above each strip */           \
    TACC *acc = carry + (size_t) n * W;                                         \
    memset (acc, 0, sizeof (TACC) * W);                                         \
    for (int t = 0; t < n; t++) {                                               \
      TACC *c = carry + (size_t) t * W, run = 0;                                \
      for (int x = 0; x < W; x++) {                                             \
        TACC v = c[x];                                                          \
        acc[x] += v;                                                            \
        run += acc[x] - v;                                                      \
        c[x] = run;                                                             \
      }                                                                         \
    }                                                                           \
    fv_team_for (team, n, 1, NAME##_rows_strip, &j);                            \
    fv_team_end (team);                                                         \
  }

SAT_STRIP (sat_u8_a32, uint8_t, uint32_t)
SAT_STRIP (sat_u8_a64, uint8_t, uint64_t)
SAT_STRIP (sat_u16_a32, uint16_t, uint32_t)
SAT_STRIP (sat_u16_a64, uint16_t, uint64_t)

fv_status
fv_sat_cpu_execute (fv_sat_plan *pl, const fv_image *src, void *table, size_t tstride)
{
  int a64 = pl->p.type == FV_SAT_U64;
  if (pl->p.sample == FV_U8)
    (a64 ? sat_u8_a64 : sat_u8_a32) (pl, src, table, tstride);
  else
    (a64 ? sat_u16_a64 : sat_u16_a32) (pl, src, table, tstride);
  return FV_OK;
}
