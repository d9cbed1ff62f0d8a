/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* CPU box filter against the direct-summation reference. */
#include <stdlib.h>
#include <string.h>
#include "box_cases.h"
#include "../../kernels/sat/fv_box_plan.h"

static int threads_to_use = 0;

static void
run_case (const fv_box_params *pp, int src_pad, int dst_pad, void *user)
{
  fvt_rng *rng = user;
  fv_box_params p = *pp;
  p.threads = threads_to_use;
  fv_image src = fvt_image_new (p.width, p.height, p.channels, p.sample, src_pad, rng);
  fv_image dst = fvt_image_new (p.width, p.height, p.channels, p.sample, dst_pad, NULL);
  fv_box_plan *plan;
  char label[160];
  snprintf (label, sizeof label, "%dx%dx%d %d-bit r=%d,%d mode=%d border=%d mask=%x",
      p.width, p.height, p.channels, p.sample * 8, p.radius_x, p.radius_y, p.mode,
      p.border, p.channel_mask);
  fv_status st = fv_box_plan_create (&plan, &p, FV_BACKEND_CPU, 0, NULL);
  FVT_CHECK (st == FV_OK, "%s: plan: %s", label, fv_last_error ());
  if (st == FV_OK) {
    FVT_CHECK (fv_box_execute (plan, &src, &dst) == FV_OK, "%s: execute", label);
    FVT_CHECK (fvt_check_box (&p, &src, &dst, label) == 0, "%s: wrong output", label);
    fv_box_plan_destroy (plan);
  }
  if (threads_to_use == 1)
    FVT_CHECK (box_check_windows (&p, FV_BACKEND_CPU, &src, dst_pad, label) == 0,
        "%s: window plans", label);
  fvt_image_free (&src);
  fvt_image_free (&dst);
}

static void
real_image (const char *path, fvt_rng *rng)
{
  fv_image *im = fvt_load_pnm (path);
  FVT_CHECK (im != NULL, "cannot read %s", path);
  if (!im)
    return;
  for (int mode = 0; mode <= FV_BOX_THRESHOLD; mode++)
    for (int border = 0; border <= FV_BORDER_ZERO; border++) {
      fv_box_params p = { 0 };
      p.width = im->width; p.height = im->height; p.channels = im->channels;
      p.channel_mask = (1u << im->channels) - 1; p.sample = FV_U8;
      p.radius_x = p.radius_y = 4 + mode;
      p.mode = mode; p.border = border; p.sensitivity = 0.15;
      fv_image dst = fvt_image_new (p.width, p.height, p.channels, p.sample, 3, NULL);
      fv_box_plan *plan;
      FVT_CHECK (fv_box_plan_create (&plan, &p, FV_BACKEND_CPU, 0, NULL) == FV_OK, "plan");
      FVT_CHECK (fv_box_execute (plan, im, &dst) == FV_OK, "execute");
      FVT_CHECK (fvt_check_box (&p, im, &dst, path) == 0, "%s mode %d border %d", path,
          mode, border);
      fv_box_plan_destroy (plan);
      fvt_image_free (&dst);
    }
  fvt_image_free (im);
  free (im);
  (void) rng;
}

static void
bad_input (void)
{
  fv_box_params p = { 0 };
  fv_box_plan *plan = (fv_box_plan *) 1;
  p.width = 0; p.height = 5; p.channels = 1; p.channel_mask = 1; p.sample = FV_U8;
  FVT_CHECK (fv_box_plan_create (&plan, &p, FV_BACKEND_CPU, 0, NULL) == FV_ERR_INVALID
      && plan == NULL, "zero width accepted");
  p.width = 5; p.radius_x = FV_BOX_MAX_RADIUS + 1;
  FVT_CHECK (fv_box_plan_create (&plan, &p, FV_BACKEND_CPU, 0, NULL) == FV_ERR_INVALID,
      "radius beyond the maximum accepted");
  p.radius_x = 1; p.sensitivity = 2.0;
  FVT_CHECK (fv_box_plan_create (&plan, &p, FV_BACKEND_CPU, 0, NULL) == FV_ERR_INVALID,
      "sensitivity 2 accepted");
  p.sensitivity = 0.5;
  p.roi_x = 2; p.roi_width = 4; p.roi_height = 1;
  FVT_CHECK (fv_box_plan_create (&plan, &p, FV_BACKEND_CPU, 0, NULL) == FV_ERR_INVALID
      && strstr (fv_last_error (), "outside the 5x5 frame"), "a window past the frame accepted");
  p.roi_x = 0; p.roi_width = 0; p.roi_height = 0;
  FVT_CHECK (fv_box_plan_create (&plan, &p, FV_BACKEND_CPU, 0, NULL) == FV_OK, "valid plan");
  fv_image c = fvt_image_new (5, 5, 1, FV_U8, 0, NULL);
  FVT_CHECK (fv_box_execute_roi (plan, &c, &c, 0, 0, 1, 1) == FV_ERR_INVALID,
      "a window on a whole-frame plan accepted");
  fvt_image_free (&c);
  fv_image a = fvt_image_new (6, 5, 1, FV_U8, 0, NULL);
  fv_image b = fvt_image_new (5, 5, 1, FV_U8, 0, NULL);
  FVT_CHECK (fv_box_execute (plan, &a, &b) == FV_ERR_INVALID, "size mismatch accepted");
  fv_box_plan_destroy (plan);
  fvt_image_free (&a);
  fvt_image_free (&b);
}

int
main (int argc, char **argv)
{
  fvt_rng rng = { 0x9E3779B97F4A7C15ull };
  const char *data = argc > 1 ? argv[1] : "tests/data";
  char path[512];
  for (int t = 1; t <= 3; t += 2) {   /* one thread, then several strips */
    threads_to_use = t;
    box_for_each_case (run_case, &rng);
  }
  threads_to_use = 0;
  snprintf (path, sizeof path, "%s/astronaut-160x120.pgm", data);
  real_image (path, &rng);
  snprintf (path, sizeof path, "%s/astronaut-160x120.ppm", data);
  real_image (path, &rng);
  bad_input ();
  return fvt_summary ("test_box_cpu");
}
