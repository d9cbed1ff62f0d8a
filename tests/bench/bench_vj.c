/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* vjdetect's kernel on PGM images: prints the boxes (--print) or the raw
 * windows (--raw), and the median time per frame over --iters runs.
 *
 * With --streams N (and --device), N host threads each run their own plan
 * on their own stream over the frame, --iters times, at once, and the
 * frames per second of them all are printed: the kernels of many cameras
 * without a decoder or GStreamer in the way (issue #24).
 *
 *   bench_vj [--cuda|--device] [--threads N] [--iters N] [--print|--raw]
 *            [--scale F] [--min-neighbors N] [--min-size N] [--streams N]
 *            [--angles A,B,... [--turned-interval K] [--turned-agreement N]
 *             [--turned-edge E]]
 *            [--turn DEG]
 *            CASCADE IMAGE.pgm...
 *
 * With --angles the frame is searched at each angle (fv_vj_turned.h, as
 * vjdetect's angles and turned-interval): the mean and the largest time a
 * frame over --iters frames in a row (the stagger makes frames differ), and
 * the scans a frame (whole, steered, windows). --turn DEG turns the image
 * first (its faces turned clockwise by DEG). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include "fvtest.h"
#include "fv_vj.h"
#include "fv_vj_turned.h"
#include "fv_cuda.h"
#include "bench_time.h"

typedef struct {
  fv_vj_plan *plan;
  fv_image in;
  int iters;
  fv_status st;
} Stream;

static void *
run_stream (void *arg)
{
  Stream *s = arg;
  const fv_detection *d;
  int n;
  for (int k = 0; k < s->iters && s->st == FV_OK; k++)
    s->st = fv_vj_execute (s->plan, &s->in, &d, &n);
  return NULL;
}

/* N plans on N threads over one device frame: frames per second of all. */
static int
many_streams (const fv_cascade *c, const fv_vj_params *p, const fv_image *in, int nstreams,
    int iters)
{
  Stream *s = calloc ((size_t) nstreams, sizeof *s);
  pthread_t *th = calloc ((size_t) nstreams, sizeof *th);
  for (int k = 0; k < nstreams; k++) {
    s[k].in = *in;
    s[k].iters = iters;
    if (fv_vj_plan_create (&s[k].plan, c, p, FV_BACKEND_CUDA, 0, NULL) != FV_OK) {
      fprintf (stderr, "plan %d: %s\n", k, fv_last_error ());
      return 1;
    }
    const fv_detection *d;
    int n;
    fv_vj_execute (s[k].plan, in, &d, &n);   /* warm-up */
  }
  const double t0 = now_ms ();
  for (int k = 0; k < nstreams; k++)
    pthread_create (&th[k], NULL, run_stream, &s[k]);
  int rc = 0;
  for (int k = 0; k < nstreams; k++) {
    pthread_join (th[k], NULL);
    if (s[k].st != FV_OK) {
      fprintf (stderr, "stream %d: %s\n", k, fv_last_error ());
      rc = 1;
    }
    fv_vj_plan_destroy (s[k].plan);
  }
  const double ms = now_ms () - t0;
  printf ("# %d streams x %d frames %dx%d: %.1f fps in all\n", nstreams, iters, in->width,
      in->height, nstreams * iters * 1000.0 / ms);
  free (s);
  free (th);
  return rc;
}

/* --angles: the frame searched at each angle, turned scans steered as
 * asked, iters frames in a row. */
static int
bench_turned (fv_vj_plan *plan, const fv_vj_turn_params *tp, const fv_image *in, int iters,
    const char *name, int cuda)
{
  fv_vj_turns *tu;
  if (fv_vj_turns_create (&tu, plan, tp, 0, NULL) != FV_OK) {
    fprintf (stderr, "turns: %s\n", fv_last_error ());
    return 1;
  }
  const fv_vj_turned_det *td;
  int n = 0;
  double sum = 0, worst = 0, whole = 0, steered = 0, windows = 0;
  for (int k = 0; k < 2 * tp->interval; k++)   /* warm-up: the steered plans made */
    fv_vj_turns_execute (tu, in, &td, &n);
  for (int k = 0; k < iters; k++) {
    const double t0 = now_ms ();
    if (fv_vj_turns_execute (tu, in, &td, &n) != FV_OK) {
      fprintf (stderr, "execute: %s\n", fv_last_error ());
      fv_vj_turns_destroy (tu);
      return 1;
    }
    const double dt = now_ms () - t0;
    const fv_vj_turn_stats ts = fv_vj_turns_stats (tu);
    sum += dt;
    worst = dt > worst ? dt : worst;
    whole += ts.whole_scans;
    steered += ts.steered_scans;
    windows += ts.windows;
  }
  printf ("# %s %dx%d: %d angles, turned-interval %d, turned-edge %g: %d boxes, %.3f ms a "
      "frame (mean of %d), %.3f ms at most, %.2f whole scans, %.2f steered to %.2f windows a "
      "frame (%s)\n",
      name, in->width, in->height, tp->nangles, tp->interval, tp->edge, n, sum / iters, iters,
      worst,
      whole / iters, steered / iters, windows / iters, cuda ? "cuda" : "cpu");
  fv_vj_turns_destroy (tu);
  return 0;
}

int
main (int argc, char **argv)
{
  fv_vj_params p = { 0 };
  p.scale_factor = 1.1;
  p.min_neighbors = 3;
  int cuda = 0, iters = 1, print = 0, raw = 0, device = 0, streams = 0, i = 1;
  fv_vj_turn_params tp = { 0 };
  tp.interval = 1;
  tp.agreement = 1;
  tp.turned_min_neighbors = 8;
  double turn = 0;
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
      p.frame.threads = atoi (argv[++i]);
    else if (i + 1 < argc && !strcmp (a, "--iters"))
      iters = atoi (argv[++i]);
    else if (i + 1 < argc && !strcmp (a, "--scale"))
      p.scale_factor = atof (argv[++i]);
    else if (i + 1 < argc && !strcmp (a, "--min-neighbors"))
      p.min_neighbors = atoi (argv[++i]);
    else if (i + 1 < argc && !strcmp (a, "--streams"))
      streams = atoi (argv[++i]);
    else if (i + 1 < argc && !strcmp (a, "--angles")) {
      char *e = argv[++i];
      while (*e && tp.nangles < FV_VJ_MAX_ANGLES) {
        tp.angles[tp.nangles++] = strtod (e, &e);
        e += *e == ',';
      }
    } else if (i + 1 < argc && !strcmp (a, "--turn"))
      turn = atof (argv[++i]);
    else if (i + 1 < argc && !strcmp (a, "--turned-agreement"))
      tp.agreement = atoi (argv[++i]);
    else if (i + 1 < argc && !strcmp (a, "--turned-interval"))
      tp.interval = atoi (argv[++i]);
    else if (i + 1 < argc && !strcmp (a, "--turned-edge"))
      tp.edge = atof (argv[++i]);
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
    if (turn != 0) {
      fv_image *tu = malloc (sizeof *tu);
      *tu = fvt_image_new (im->width, im->height, 1, FV_U8, 0, NULL);
      fv_rotate_u8 (im, tu, fv_rotation_of (-turn), 0, NULL);
      fvt_image_free (im);
      free (im);
      im = tu;
    }
    p.frame.width = im->width;
    p.frame.height = im->height;
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
    if (streams > 0 && device) {
      const int rc = many_streams (c, &p, &in, streams, iters);
      fv_vj_plan_destroy (plan);
      fv_cuda_free (in.data);
      fvt_image_free (im);
      free (im);
      if (rc)
        return rc;
      continue;
    }
    const char *name = strrchr (argv[f], '/') ? strrchr (argv[f], '/') + 1 : argv[f];
    if (tp.nangles > 0 && bench_turned (plan, &tp, &in, iters, name, cuda))
      return 1;
    if (tp.nangles > 0)
      goto done;
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
done:
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
