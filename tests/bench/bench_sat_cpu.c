/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* CPU benchmark of the SAT and the box filter (not run by CI). Prints one
 * line per measurement: "fastvision SIZE FORMAT OP MS" (median of runs). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_time.h"
#include "fv_sat.h"
#include "fv_box.h"


#define MEDIAN(reps, stmt) ({ double t_[64]; int n_ = (reps); stmt; \
  for (int i_ = 0; i_ < n_; i_++) { double a_ = now_ms (); stmt; t_[i_] = now_ms () - a_; } \
  qsort (t_, n_, sizeof (double), cmp_double); t_[n_ / 2]; })

int
main (int argc, char **argv)
{
  struct { const char *name; int w, h; } sizes[] = {
    {"1080p", 1920, 1080}, {"4K", 3840, 2160}, {"8K", 7680, 4320} };
  int nsizes = argc > 1 && !strcmp (argv[1], "--quick") ? 1 : 3;
  for (int si = 0; si < nsizes; si++) {
    int w = sizes[si].w, h = sizes[si].h, reps = si == 0 ? 15 : 5;
    for (int ch = 1; ch <= 4; ch += 3) {
      const char *fmt = ch == 1 ? "GRAY8" : "RGBA";
      size_t n = (size_t) w * h * ch;
      unsigned char *src = malloc (n), *dst = malloc (n);
      for (size_t i = 0; i < n; i++)
        src[i] = (unsigned char) (i * 2654435761u >> 24);
      fv_image a = fv_image_make (src, (size_t) w * ch, w, h, ch, FV_U8, FV_MEM_HOST);
      fv_image b = fv_image_make (dst, (size_t) w * ch, w, h, ch, FV_U8, FV_MEM_HOST);
      if (ch == 1) {
        fv_sat_params sp = { w, h, 1, 0, FV_U8, FV_SAT_U32, 0, 0 };
        fv_sat_plan *plan;
        unsigned int *tab = malloc ((size_t) w * h * 4);
        fv_sat_plan_create (&plan, &sp, FV_BACKEND_CPU, 0, NULL);
        double ms = MEDIAN (reps, fv_sat_execute (plan, &a, tab, (size_t) w * 4));
        printf ("fastvision %s %s integral %.3f\n", sizes[si].name, fmt, ms);
        fv_sat_plan_destroy (plan);
        free (tab);
      }
      for (int r = 15; r <= 100; r += 85) {
        fv_box_params bp = { 0 };
        bp.frame.width = w; bp.frame.height = h; bp.frame.channels = ch; bp.channel_mask = ch == 4
            ? 0xF : 1;
        bp.frame.sample = FV_U8; bp.radius_x = bp.radius_y = r;
        fv_box_plan *plan;
        fv_box_plan_create (&plan, &bp, FV_BACKEND_CPU, 0, NULL);
        double ms = MEDIAN (reps, fv_box_execute (plan, &a, &b));
        printf ("fastvision %s %s blur_r%d %.3f\n", sizes[si].name, fmt, r, ms);
        fv_box_plan_destroy (plan);
      }
      free (src);
      free (dst);
    }
  }
  return 0;
}
