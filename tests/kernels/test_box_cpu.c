/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* CPU box filter against the direct-summation reference. */
#include <stdlib.h>
#include <string.h>
#include "box_cases.h"
#include "../../kernels/sat/fv_box_plan.h"
#include "../../kernels/sat/fv_box_regions.h"

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

/* fv_box_rect_union against its definition: the rectangles it gives are
 * disjoint, inside the frame, and cover exactly the pixels some input
 * rectangle covers (rectangles past the edges, empty and nested ones
 * included). */
static void
rect_union (fvt_rng *rng)
{
  const int W = 97, H = 61;
  unsigned char *want = malloc ((size_t) W * H), *got = malloc ((size_t) W * H);
  for (int round = 0; round < 60; round++) {
    const int n = round == 0 ? 0 : (int) (fvt_next (rng) % 12) + 1;
    fv_box_rect in[12];
    memset (want, 0, (size_t) W * H);
    for (int i = 0; i < n; i++) {
      in[i].x = (int) (fvt_next (rng) % (W + 40)) - 20;
      in[i].y = (int) (fvt_next (rng) % (H + 40)) - 20;
      in[i].width = (int) (fvt_next (rng) % 50) - 2;   /* some empty or negative */
      in[i].height = (int) (fvt_next (rng) % 40) - 2;
      if (round % 7 == 1 && i > 0) {   /* nested and equal rectangles */
        in[i] = in[i - 1];
        in[i].width /= 2;
      }
      for (int y = in[i].y; y < in[i].y + in[i].height; y++)
        for (int x = in[i].x; x < in[i].x + in[i].width; x++)
          if (x >= 0 && y >= 0 && x < W && y < H)
            want[(size_t) y * W + x] = 1;
    }
    fv_box_rect *u = NULL;
    int nu = -1;
    FVT_CHECK (fv_box_rect_union (in, n, W, H, &u, &nu) == FV_OK, "union: %s", fv_last_error ());
    memset (got, 0, (size_t) W * H);
    long overlap = 0, outside = 0;
    for (int i = 0; i < nu; i++) {
      const fv_box_rect *r = &u[i];
      outside += r->x < 0 || r->y < 0 || r->width < 1 || r->height < 1
          || r->x + r->width > W || r->y + r->height > H;
      for (int y = r->y; y < r->y + r->height && y < H; y++)
        for (int x = r->x; x < r->x + r->width && x < W; x++)
          if (x >= 0 && y >= 0)
            overlap += got[(size_t) y * W + x]++ != 0;
    }
    FVT_CHECK (outside == 0, "union round %d: %ld rectangles not inside the frame", round,
        outside);
    FVT_CHECK (overlap == 0, "union round %d: %ld pixels covered twice", round, overlap);
    FVT_CHECK (memcmp (want, got, (size_t) W * H) == 0,
        "union round %d: the pixels differ from the rectangles'", round);
    free (u);
  }
  free (want);
  free (got);
}

/* fv_box_windows: windows of many sizes filtered through kept plans equal
 * the whole-frame filter inside each window and leave the rest alone;
 * plans are reused for windows of one size and at most 16 are kept. */
static void
box_windows (fvt_rng *rng)
{
  fv_box_params p = { 0 };
  p.width = 90; p.height = 70; p.channels = 3; p.channel_mask = 7; p.sample = FV_U8;
  p.radius_x = 3; p.radius_y = 5; p.mode = FV_BOX_MEAN; p.border = FV_BORDER_MIRROR;
  fv_image src = fvt_image_new (p.width, p.height, 3, FV_U8, 2, rng);
  fv_image whole = fvt_image_new (p.width, p.height, 3, FV_U8, 0, NULL);
  fv_image dst = fvt_image_new (p.width, p.height, 3, FV_U8, 1, NULL);
  fv_box_plan *plan;
  FVT_CHECK (fv_box_plan_create (&plan, &p, FV_BACKEND_CPU, 0, NULL) == FV_OK, "whole plan");
  FVT_CHECK (fv_box_execute (plan, &src, &whole) == FV_OK, "whole frame");
  fv_box_plan_destroy (plan);
  fv_box_windows *c;
  FVT_CHECK (fv_box_windows_create (&c, &p, FV_BACKEND_CPU, 0, NULL) == FV_OK, "windows");
  for (int k = 0; k < 40; k++) {
    const int w = 1 + (int) (fvt_next (rng) % 60), h = 1 + (int) (fvt_next (rng) % 50);
    const int x = (int) (fvt_next (rng) % (unsigned) (p.width - w + 1));
    const int y = (int) (fvt_next (rng) % (unsigned) (p.height - h + 1));
    for (int r = 0; r < p.height; r++)   /* dst starts as src */
      memcpy ((char *) dst.data + (size_t) r * dst.stride, (char *) src.data
          + (size_t) r * src.stride, (size_t) p.width * 3);
    FVT_CHECK (fv_box_windows_filter (c, &src, &dst, x, y, w, h) == FV_OK,
        "window %dx%d at (%d, %d): %s", w, h, x, y, fv_last_error ());
    long bad = 0;
    for (int yy = 0; yy < p.height; yy++)
      for (int xx = 0; xx < p.width; xx++)
        for (int ch = 0; ch < 3; ch++) {
          const int in = xx >= x && xx < x + w && yy >= y && yy < y + h;
          bad += fvt_get (&dst, xx, yy, ch) != fvt_get (in ? &whole : &src, xx, yy, ch);
        }
    FVT_CHECK (bad == 0, "window %dx%d at (%d, %d): %ld samples differ", w, h, x, y, bad);
    const int kept = fv_box_windows_kept (c);
    FVT_CHECK (fv_box_windows_filter (c, &src, &dst, x, y, w, h) == FV_OK
        && fv_box_windows_kept (c) == kept, "the same window made a plan more");
    FVT_CHECK (kept <= 16, "%d plans kept", kept);
  }
  fv_box_windows_destroy (c);
  fvt_image_free (&src);
  fvt_image_free (&whole);
  fvt_image_free (&dst);
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
  rect_union (&rng);
  box_windows (&rng);
  return fvt_summary ("test_box_cpu");
}
