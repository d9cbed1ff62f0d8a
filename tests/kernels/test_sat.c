/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Summed-area tables (CPU, and CUDA where a GPU is present) against a
 * direct prefix sum, modulo the table's width. */
#include <stdlib.h>
#include <string.h>
#include "fvtest.h"
#include "fv_sat.h"
#include "fv_cuda.h"

static void
check_sat (fv_backend backend, int w, int h, int ch, int c, fv_sample s, fv_sat_type t,
    int sq, fvt_rng *rng)
{
  fv_image src = fvt_image_new (w, h, ch, s, 5, rng);
  size_t tstride = (size_t) (w + 3) * t;
  void *table = malloc (tstride * h), *dtable = NULL;
  fv_sat_params p = { w, h, ch, c, s, t, sq, 0 };
  fv_sat_plan *plan;
  fv_status st = fv_sat_plan_create (&plan, &p, backend, 0, NULL);
  FVT_CHECK (st == FV_OK, "plan %dx%d: %s", w, h, fv_last_error ());
  if (st != FV_OK)
    goto out;
  if (backend == FV_BACKEND_CUDA) {
    dtable = fv_cuda_malloc (tstride * h);
    FVT_CHECK (fv_sat_execute (plan, &src, dtable, tstride) == FV_OK, "exec: %s", fv_last_error ());
    FVT_CHECK (fv_cuda_memcpy (table, dtable, tstride * h) == FV_OK, "copy back");
  } else {
    FVT_CHECK (fv_sat_execute (plan, &src, table, tstride) == FV_OK, "exec");
  }
  uint64_t *col = calloc (w, sizeof *col);
  long bad = 0;
  for (int y = 0; y < h; y++) {
    uint64_t run = 0;
    for (int x = 0; x < w; x++) {
      uint64_t v = fvt_get (&src, x, y, c);
      run += sq ? v * v : v;
      col[x] += run;
      uint64_t want = t == FV_SAT_U32 ? (uint32_t) col[x] : col[x];
      const char *row = (const char *) table + (size_t) y * tstride;
      uint64_t got = t == FV_SAT_U32 ? ((const uint32_t *) row)[x] : ((const uint64_t *) row)[x];
      if (got != want && bad++ < 3)
        fprintf (stderr, "  sat %dx%d (%d,%d): %llu != %llu\n", w, h, x, y,
            (unsigned long long) got, (unsigned long long) want);
    }
  }
  FVT_CHECK (bad == 0, "%s SAT %dx%dx%d c%d %d-bit %s%s", backend ? "CUDA" : "CPU", w, h, ch, c,
      s * 8, t == FV_SAT_U32 ? "u32" : "u64", sq ? " squared" : "");
  free (col);
  fv_sat_plan_destroy (plan);
out:
  fv_cuda_free (dtable);
  free (table);
  fvt_image_free (&src);
}

int
main (int argc, char **argv)
{
  fvt_rng rng = { 777 };
  int cuda = argc > 1 && !strcmp (argv[1], "--cuda");
  if (cuda && fv_cuda_device_count () == 0) {
    printf ("test_sat --cuda: no GPU, skipped\n");
    return FVTEST_SKIP;
  }
  fv_backend b = cuda ? FV_BACKEND_CUDA : FV_BACKEND_CPU;
  static const int sizes[][2] = { {1, 1}, {3, 7}, {17, 1}, {1, 17}, {1000, 3}, {127, 129},
      {128, 128}, {300, 257}, {1921, 1081} };
  for (unsigned i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
    for (int s = 1; s <= 2; s++)
      for (int t = 4; t <= 8; t += 4)
        for (int sq = 0; sq <= 1; sq++) {
          check_sat (b, sizes[i][0], sizes[i][1], 1, 0, s, t, sq, &rng);
          if (i < 6)
            check_sat (b, sizes[i][0], sizes[i][1], 3, (i + sq) % 3, s, t, sq, &rng);
        }
  /* a frame whose total overflows 32 bits: entries wrap, differences stay right */
  check_sat (b, 6000, 6000, 1, 0, FV_U8, FV_SAT_U32, 0, &rng);
  return fvt_summary (cuda ? "test_sat --cuda" : "test_sat");
}
