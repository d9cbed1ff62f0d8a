/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* vjdetect's kernel on PGM images: prints the boxes (--print) or the raw
 * windows (--raw), and the median time per frame over --iters runs.
 *
 *   bench_vj [--cuda|--device] [--threads N] [--iters N] [--print|--raw]
 *            [--scale F] [--min-neighbors N] [--min-size N] CASCADE IMAGE.pgm... */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fvtest.h"
#include "fv_vj.h"
#include "fv_cuda.h"
#include "bench_time.h"

int
main (int argc, char **argv)
{
  fv_vj_params p = { 0 };
  p.scale_factor = 1.1;
  p.min_neighbors = 3;
  int cuda = 0, iters = 1, print = 0, raw = 0, device = 0, i = 1;
  for (; i < argc && !strncmp (argv[i], "--", 2); i++) {
    const char *a = argv[i];
    if (!strcmp (a, "--cuda"))
      cuda = 1;
    else if (!strcmp (a, "--device"))   /* the frame already on the GPU */
      device = cuda = 1;
    else if (!strcmp (a, "--print"))
      print = 1;
    else if (!strcmp (a, "--raw"))
      raw = 1;
    else if (i + 1 < argc && !strcmp (a, "--threads"))
      p.threads = atoi (argv[++i]);
    else if (i + 1 < argc && !strcmp (a, "--iters"))
      iters = atoi (argv[++i]);
    else if (i + 1 < argc && !strcmp (a, "--scale"))
      p.scale_factor = atof (argv[++i]);
    else if (i + 1 < argc && !strcmp (a, "--min-neighbors"))
      p.min_neighbors = atoi (argv[++i]);
    else if (i + 1 < argc && !strcmp (a, "--min-size"))
      p.min_width = p.min_height = atoi (argv[++i]);
    else {
      fprintf (stderr, "unknown option %s\n", a);
      return 2;
    }
  }
  if (argc - i < 2) {
    fprintf (stderr, "usage: bench_vj [options] CASCADE IMAGE.pgm...\n");
    return 2;
  }
  fv_cascade *c = fv_cascade_load (argv[i]);
  if (!c) {
    fprintf (stderr, "%s\n", fv_last_error ());
    return 1;
  }
  for (int f = i + 1; f < argc; f++) {
    fv_image *im = fvt_load_pnm (argv[f]);
    if (!im || im->channels != 1) {
      fprintf (stderr, "%s: not a PGM\n", argv[f]);
      return 1;
    }
    p.width = im->width;
    p.height = im->height;
    fv_vj_plan *plan;
    fv_status st = fv_vj_plan_create (&plan, c, &p, cuda ? FV_BACKEND_CUDA : FV_BACKEND_CPU, 0, NULL);
    if (st != FV_OK) {
      fprintf (stderr, "plan: %s: %s\n", fv_status_string (st), fv_last_error ());
      return 1;
    }
    const fv_detection *d = NULL;
    int n = 0;
    fv_image in = *im;
    if (cuda && !device) {   /* pinned, as the element's buffer pools are */
      void *pin = fv_cuda_host_alloc ((size_t) im->width * im->height);
      if (pin) {
        memcpy (pin, im->data, (size_t) im->width * im->height);
        in.data = pin;
        in.stride = im->width;
      }
    }
    if (device) {
      void *dev = fv_cuda_malloc ((size_t) im->width * im->height);
      if (!dev || fv_cuda_memcpy (dev, im->data, (size_t) im->width * im->height) != FV_OK) {
        fprintf (stderr, "device copy failed\n");
        return 1;
      }
      in = fv_image_make (dev, im->width, im->width, im->height, 1, FV_U8, FV_MEM_DEVICE);
    }
    double *t = malloc (sizeof (double) * (iters + 1));
    fv_vj_execute (plan, &in, &d, &n);   /* warm-up */
    for (int k = 0; k < iters; k++) {
      double t0 = now_ms ();
      st = fv_vj_execute (plan, &in, &d, &n);
      t[k] = now_ms () - t0;
      if (st != FV_OK) {
        fprintf (stderr, "execute: %s\n", fv_last_error ());
        return 1;
      }
    }
    const char *name = strrchr (argv[f], '/') ? strrchr (argv[f], '/') + 1 : argv[f];
    int nraw;
    const fv_rect *r = fv_vj_raw (plan, &nraw);
    printf ("# %s %dx%d: %d boxes, %d raw windows, %.3f ms (median of %d, %s)\n", name,
        im->width, im->height, n, nraw, median (t, iters), iters, cuda ? "cuda" : "cpu");
    if (print)
      for (int k = 0; k < n; k++)
        printf ("%s %d %d %d %d %d\n", name, d[k].box.x, d[k].box.y, d[k].box.width,
            d[k].box.height, d[k].neighbors);
    if (raw)
      for (int k = 0; k < nraw; k++)
        printf ("%d %d %d %d\n", r[k].x, r[k].y, r[k].width, r[k].height);
    free (t);
    fv_vj_plan_destroy (plan);
    if (device)
      fv_cuda_free (in.data);
    else if (cuda && in.data != im->data)
      fv_cuda_host_free (in.data);
    fvt_image_free (im);
    free (im);
  }
  fv_cascade_free (c);
  return 0;
}
