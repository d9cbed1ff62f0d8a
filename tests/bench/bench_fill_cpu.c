/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* CPU benchmark of autofill's kernel (not run by CI). Writes each frame as
 * PGM into DIR for bench_opencv_fill.py, and prints
 * "fastvision SIZE KIND fill MS" (median of runs).
 *   bench_fill_cpu DIR [--quick] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_time.h"
#include "fv_fill.h"
#include "fill_frames.h"


int
main (int argc, char **argv)
{
  const char *dir = argc > 1 ? argv[1] : ".";
  int quick = argc > 2 && !strcmp (argv[2], "--quick");
  struct { const char *name; int w, h; } sizes[] = {
    {"1080p", 1920, 1080}, {"4K", 3840, 2160}, {"8K", 7680, 4320} };
  for (int si = quick ? 0 : 0; si < (quick ? 1 : 3); si++)
    for (int k = 0; k < FF_KINDS; k++) {
      int w = sizes[si].w, h = sizes[si].h;
      uint8_t *src = malloc ((size_t) w * h), *dst = malloc ((size_t) w * h);
      ff_make (src, w, h, k);
      char path[512];
      snprintf (path, sizeof path, "%s/%s-%s.pgm", dir, sizes[si].name, ff_kind_names[k]);
      FILE *f = fopen (path, "wb");
      if (f) {
        fprintf (f, "P5\n%d %d\n255\n", w, h);
        fwrite (src, 1, (size_t) w * h, f);
        fclose (f);
      }
      fv_fill_params p = { .frame.width = w, .frame.height = h, .threshold = 127,
          .fill_value = 255, .connectivity = 4, .output = FV_FILL_FILLED };
      fv_fill_plan *plan;
      if (fv_fill_plan_create (&plan, &p, FV_BACKEND_CPU, 0, NULL) != FV_OK)
        return 1;
      fv_image a = fv_image_make (src, w, w, h, 1, FV_U8, FV_MEM_HOST), b = a;
      b.data = dst;
      double t[31];
      int reps = si == 0 ? 21 : (si == 1 ? 9 : 5);
      fv_fill_execute (plan, &a, &b);
      for (int i = 0; i < reps; i++) {
        double t0 = now_ms ();
        fv_fill_execute (plan, &a, &b);
        t[i] = now_ms () - t0;
      }
      qsort (t, reps, sizeof (double), cmp_double);
      printf ("fastvision %s %s fill %.3f\n", sizes[si].name, ff_kind_names[k], t[reps / 2]);
      fflush (stdout);
      fv_fill_plan_destroy (plan);
      /* measure: the same fill and its holes (then parts and holes) joined
       * from the runs */
      for (int m = 0; m < 2; m++) {
        p.measure = m ? FV_FILL_MEASURE_BOTH : FV_FILL_MEASURE_HOLES;
        const fv_fill_region *r;
        int nreg = 0, nparts = 0;
        if (fv_fill_plan_create (&plan, &p, FV_BACKEND_CPU, 0, NULL) != FV_OK)
          return 1;
        fv_fill_execute (plan, &a, &b);
        for (int i = 0; i < reps; i++) {
          double t0 = now_ms ();
          fv_fill_execute (plan, &a, &b);
          fv_fill_regions (plan, &r, &nreg);
          if (m)
            fv_fill_parts (plan, &r, &nparts);
          t[i] = now_ms () - t0;
        }
        qsort (t, reps, sizeof (double), cmp_double);
        printf ("fastvision %s %s fill+%s %.3f regions %d parts %d\n", sizes[si].name,
            ff_kind_names[k], m ? "parts+holes" : "holes", t[reps / 2], nreg, nparts);
        fflush (stdout);
        fv_fill_plan_destroy (plan);
      }
      free (src);
      free (dst);
    }
  return 0;
}
