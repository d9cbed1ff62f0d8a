/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* CPU detector: the levels are built in parallel, then window rows of every
 * level come from one dynamic queue, so the cores stay busy however unevenly
 * the cascade rejects windows. */
#include <stdlib.h>
#include <string.h>
#include <omp.h>
#include "fv_vj_plan.h"
#include "../common/fv_env.h"
#include "../common/fv_parallel.h"

typedef struct {
  uint32_t *planes;
  int32_t *row_level, *row_y;   /* the queue: one entry per window row */
  uint8_t **scratch;            /* per thread */
  int threads;
  int avx2;                     /* fv_vj_scan_row_avx2 applies */
  fv_vj_model_host split;       /* its offsets for levels of step 2, built split */
} cpu_state;

void
fv_vj_cpu_destroy (fv_vj_plan *pl)
{
  cpu_state *cs = pl->impl;
  if (!cs)
    return;
  free (cs->planes);
  free (cs->row_level);
  free (cs->row_y);
  if (cs->scratch)
    for (int t = 0; t < cs->threads; t++)
      free (cs->scratch[t]);
  free (cs->scratch);
  fv_vj_model_clear (&cs->split);
  free (cs);
  pl->impl = NULL;
}

fv_status
fv_vj_cpu_init (fv_vj_plan *pl)
{
  cpu_state *cs = calloc (1, sizeof *cs);
  if (!cs)
    return FV_ERR_NOMEM;
  pl->impl = cs;
  const fv_vj_pyramid *py = &pl->py;
  cs->threads = fv_threads_resolve (pl->p.threads);
  int nplanes = pl->mh.has_tilted ? 3 : 2;
  /* slack: the SIMD scan reads up to 15 windows' worth past a row's end */
  cs->planes = calloc ((size_t) (py->plane * nplanes + 64), sizeof (uint32_t));
  cs->avx2 = fv_vj_avx2_usable (&pl->mh.m, pl->mh.nweak) && !fv_env_set (FV_ENV_VJ_NO_SIMD);
  if (cs->avx2) {
    fv_status st = fv_vj_model_init_split (&cs->split, pl->cascade, py->stride, py->stride / 2,
        py->plane);
    if (st != FV_OK)
      return st;
  }
  cs->row_level = malloc (sizeof (int32_t) * (size_t) (py->rows + 1));
  cs->row_y = malloc (sizeof (int32_t) * (size_t) (py->rows + 1));
  cs->scratch = calloc (cs->threads, sizeof *cs->scratch);
  if (!cs->planes || !cs->row_level || !cs->row_y || !cs->scratch)
    return FV_ERR_NOMEM;
  for (int t = 0; t < cs->threads; t++)
    if (!(cs->scratch[t] = malloc (fv_vj_scratch_bytes (py) + 64)))
      return FV_ERR_NOMEM;
  int64_t r = 0;
  for (int l = 0; l < py->nlevels; l++)
    for (int y = 0; y < py->lv[l].work_h; y += py->lv[l].step) {
      cs->row_level[r] = l;
      cs->row_y[r++] = y;
    }
  return FV_OK;
}

/* Windows of one row in OpenCV's order: after a window fails the first
 * stage the next one is skipped. Keys (level, y, x) go to out; xs is
 * scratch for the SIMD scan. */
static int
scan_row (const cpu_state *cs, const fv_vj_model *m, const fv_vj_pyramid *py, int l, int y,
    uint64_t *out, int *xs)
{
  const fv_vj_level *lv = &py->lv[l];
  const uint32_t *row = cs->planes + lv->origin + (int64_t) y * py->stride;
  int n = 0;
  if (cs->avx2) {
    n = fv_vj_scan_row_avx2 (lv->step == 2 ? &cs->split.m : m, lv, row, xs);
    for (int i = 0; i < n; i++)
      out[i] = fv_vj_key (l, y, xs[i]);
    return n;
  }
  for (int x = 0; x < lv->work_w; x += lv->step) {
    int r = fv_vj_window (m, row + x);
    if (r > 0)
      out[n++] = fv_vj_key (l, y, x);
    else if (r == 0)
      x += lv->step;
  }
  return n;
}

fv_status
fv_vj_cpu_execute (fv_vj_plan *pl, const fv_image *gray)
{
  cpu_state *cs = pl->impl;
  const fv_vj_pyramid *py = &pl->py;
  const fv_vj_model *m = &pl->mh.m;
  const int has_tilted = pl->mh.has_tilted;
  const int nlevels = py->nlevels;
  const int64_t nrows = py->rows;
  uint64_t *keys = NULL;
  int nkeys = 0, failed = 0;
  pl->nraw = 0;

#pragma omp parallel num_threads(cs->threads)
  {
    uint8_t *scratch = cs->scratch[omp_get_thread_num ()];
#pragma omp for schedule(dynamic, 1)
    for (int l = 0; l < nlevels; l++)
      fv_vj_level_build (py, l, gray->data, gray->stride, scratch,
          cs->planes, has_tilted, cs->avx2);

    /* each thread keeps its windows, then appends them under a lock */
    int cap = 256, n = 0;
    uint64_t *mine = malloc (sizeof *mine * cap);
    const int widest = py->nlevels ? py->lv[0].work_w : 0;
    uint64_t *row = malloc (sizeof *row * (widest + 1));
    int *xs = malloc (sizeof *xs * (widest + 8));
    if (!mine || !row || !xs) {
#pragma omp atomic write
      failed = 1;
    }
#pragma omp for schedule(dynamic, 2)
    for (int64_t r = 0; r < nrows; r++) {
      if (!mine || !row || !xs)
        continue;
      int k = scan_row (cs, m, py, cs->row_level[r], cs->row_y[r], row, xs);
      if (n + k > cap) {
        while (n + k > cap)
          cap *= 2;
        uint64_t *g = realloc (mine, sizeof *mine * cap);
        if (!g) {
#pragma omp atomic write
          failed = 1;
          continue;
        }
        mine = g;
      }
      memcpy (mine + n, row, sizeof *row * k);
      n += k;
    }
#pragma omp critical
    {
      uint64_t *g = realloc (keys, sizeof *keys * (nkeys + n + 1));
      if (g) {
        keys = g;
        if (mine)
          memcpy (keys + nkeys, mine, sizeof *mine * n);
        nkeys += n;
      } else {
        failed = 1;
      }
    }
    free (mine);
    free (row);
    free (xs);
  }
  if (failed || fv_vj_raw_reserve (pl, nkeys) != FV_OK) {
    free (keys);
    return FV_ERR_NOMEM;
  }
  fv_vj_keys_to_raw (pl, keys, nkeys);
  free (keys);
  return FV_OK;
}
