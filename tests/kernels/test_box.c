/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The box filter, as every kernel's test: `test_box [DATA]` checks the CPU
 * back end against the direct-summation reference; `test_box --cuda`
 * checks that the CUDA back end equals the CPU one bit for bit, for host
 * and device images, on both of its paths (two passes of window sums, the
 * mean and the threshold where sums fit 32 bits, and the summed-area
 * table), each forced with FASTVISION_BOX_PATH as well as chosen by the
 * plan; skipped (77) without a GPU. */
#include <stdlib.h>
#include <string.h>
#include "box_cases.h"
#include "fv_cuda.h"
#include "../../kernels/sat/fv_box_plan.h"
#include "../../kernels/sat/fv_box_regions.h"

static int threads_to_use = 0;

static void
run_cpu_case (const fv_box_params *pp, int src_pad, int dst_pad, void *user)
{
  fvt_rng *rng = user;
  fv_box_params p = *pp;
  p.frame.threads = threads_to_use;
  fv_image src = fvt_image_new (p.frame.width, p.frame.height, p.frame.channels, p.frame.sample,
      src_pad, rng);
  fv_image dst = fvt_image_new (p.frame.width, p.frame.height, p.frame.channels, p.frame.sample,
      dst_pad, NULL);
  fv_box_plan *plan;
  char label[160];
  snprintf (label, sizeof label, "%dx%dx%d %d-bit r=%d,%d mode=%d border=%d mask=%x",
      p.frame.width, p.frame.height, p.frame.channels, p.frame.sample * 8, p.radius_x, p.radius_y,
          p.mode,
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
      p.frame.width = im->width; p.frame.height = im->height; p.frame.channels = im->channels;
      p.channel_mask = (1u << im->channels) - 1; p.frame.sample = FV_U8;
      p.radius_x = p.radius_y = 4 + mode;
      p.mode = mode; p.border = border; p.sensitivity = 0.15;
      fv_image dst = fvt_image_new (p.frame.width, p.frame.height, p.frame.channels,
          p.frame.sample, 3, NULL);
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
  p.frame.width = 0; p.frame.height = 5; p.frame.channels = 1; p.channel_mask = 1;
  p.frame.sample = FV_U8;
  FVT_CHECK (fv_box_plan_create (&plan, &p, FV_BACKEND_CPU, 0, NULL) == FV_ERR_INVALID
      && plan == NULL, "zero width accepted");
  p.frame.width = 5; p.radius_x = FV_BOX_MAX_RADIUS + 1;
  FVT_CHECK (fv_box_plan_create (&plan, &p, FV_BACKEND_CPU, 0, NULL) == FV_ERR_INVALID,
      "radius beyond the maximum accepted");
  p.radius_x = 1; p.sensitivity = 2.0;
  FVT_CHECK (fv_box_plan_create (&plan, &p, FV_BACKEND_CPU, 0, NULL) == FV_ERR_INVALID,
      "sensitivity 2 accepted");
  p.sensitivity = 0.5;
  p.frame.roi_x = 2; p.frame.roi_width = 4; p.frame.roi_height = 1;
  FVT_CHECK (fv_box_plan_create (&plan, &p, FV_BACKEND_CPU, 0, NULL) == FV_ERR_INVALID
      && strstr (fv_last_error (), "outside the 5x5 frame"), "a window past the frame accepted");
  p.frame.roi_x = 0; p.frame.roi_width = 0; p.frame.roi_height = 0;
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
  fv_box_params p = { .frame = { .width = 90, .height = 70, .channels = 3, .sample = FV_U8 },
      .channel_mask = 7, .radius_x = 3, .radius_y = 5, .mode = FV_BOX_MEAN,
      .border = FV_BORDER_MIRROR };
  fv_image src = fvt_image_new (p.frame.width, p.frame.height, 3, FV_U8, 2, rng);
  fv_image whole = fvt_image_new (p.frame.width, p.frame.height, 3, FV_U8, 0, NULL);
  fv_image dst = fvt_image_new (p.frame.width, p.frame.height, 3, FV_U8, 1, NULL);
  fv_box_plan *plan;
  FVT_CHECK (fv_box_plan_create (&plan, &p, FV_BACKEND_CPU, 0, NULL) == FV_OK, "whole plan");
  FVT_CHECK (fv_box_execute (plan, &src, &whole) == FV_OK, "whole frame");
  fv_box_plan_destroy (plan);
  fv_box_windows *c;
  FVT_CHECK (fv_box_windows_create (&c, &p, FV_BACKEND_CPU, 0, NULL) == FV_OK, "windows");
  for (int k = 0; k < 40; k++) {
    const int w = 1 + (int) (fvt_next (rng) % 60), h = 1 + (int) (fvt_next (rng) % 50);
    const int x = (int) (fvt_next (rng) % (unsigned) (p.frame.width - w + 1));
    const int y = (int) (fvt_next (rng) % (unsigned) (p.frame.height - h + 1));
    for (int r = 0; r < p.frame.height; r++)   /* dst starts as src */
      memcpy ((char *) dst.data + (size_t) r * dst.stride, (char *) src.data
          + (size_t) r * src.stride, (size_t) p.frame.width * 3);
    FVT_CHECK (fv_box_windows_filter (c, &src, &dst, x, y, w, h) == FV_OK,
        "window %dx%d at (%d, %d): %s", w, h, x, y, fv_last_error ());
    long bad = 0;
    for (int yy = 0; yy < p.frame.height; yy++)
      for (int xx = 0; xx < p.frame.width; xx++)
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

static long
compare (const fv_image *a, const fv_image *b)
{
  long bad = 0;
  size_t row = fv_image_row_bytes (a);
  for (int y = 0; y < a->height; y++)
    if (memcmp ((char *) a->data + y * a->stride, (char *) b->data + y * b->stride, row))
      bad++;
  return bad;
}

static void
run_cuda_case (const fv_box_params *p, int src_pad, int dst_pad, void *user)
{
  fvt_rng *rng = user;
  fv_image src = fvt_image_new (p->frame.width, p->frame.height, p->frame.channels,
      p->frame.sample, src_pad, rng);
  fv_image want = fvt_image_new (p->frame.width, p->frame.height, p->frame.channels,
      p->frame.sample, dst_pad, NULL);
  fv_image got = fvt_image_new (p->frame.width, p->frame.height, p->frame.channels,
      p->frame.sample, dst_pad, NULL);
  fv_box_plan *cpu, *gpu;
  char label[160];
  snprintf (label, sizeof label, "%dx%dx%d %d-bit r=%d,%d mode=%d border=%d mask=%x",
      p->frame.width, p->frame.height, p->frame.channels, p->frame.sample * 8, p->radius_x,
          p->radius_y, p->mode,
      p->border, p->channel_mask);
  FVT_CHECK (fv_box_plan_create (&cpu, p, FV_BACKEND_CPU, 0, NULL) == FV_OK, "cpu plan");
  fv_status st = fv_box_plan_create (&gpu, p, FV_BACKEND_CUDA, 0, NULL);
  FVT_CHECK (st == FV_OK, "%s: cuda plan: %s", label, fv_last_error ());
  if (st == FV_OK) {
    fv_box_execute (cpu, &src, &want);
    st = fv_box_execute (gpu, &src, &got);
    FVT_CHECK (st == FV_OK, "%s: cuda execute: %s", label, fv_last_error ());
    long bad = compare (&want, &got);
    FVT_CHECK (bad == 0, "%s: %ld rows differ from the CPU", label, bad);
    fv_box_plan_destroy (gpu);
    if (p->frame.width * p->frame.height <= 4096)   /* window plans on host frames */
      FVT_CHECK (box_check_windows (p, FV_BACKEND_CUDA, &src, dst_pad, label) == 0,
          "%s: window plans", label);
  }
  fv_box_plan_destroy (cpu);
  fvt_image_free (&src);
  fvt_image_free (&want);
  fvt_image_free (&got);
}

/* Device images in and out, at a size that spans many tiles; with a
 * device-memory budget (bytes, 0: none) that may force bands. */
static void
device_images_budget (fvt_rng *rng, int w, int h, int ch, fv_sample s, int radius,
    fv_box_mode mode, size_t budget)
{
  fv_box_params p = { 0 };
  p.frame.spread.max_device_bytes = budget;
  p.frame.width = w; p.frame.height = h; p.frame.channels = ch; p.channel_mask = ch == 4 ? 0x7
      : (1u << ch) - 1;
  p.frame.sample = s; p.radius_x = p.radius_y = radius; p.mode = mode; p.sensitivity = 0.15;
  fv_image src = fvt_image_new (w, h, ch, s, 0, rng);
  fv_image want = fvt_image_new (w, h, ch, s, 0, NULL), got = want;
  got.data = malloc (want.stride * h);
  size_t bytes = src.stride * h;
  void *dsrc = fv_cuda_malloc (bytes), *ddst = fv_cuda_malloc (bytes);
  fv_cuda_memcpy (dsrc, src.data, bytes);
  fv_image dsrc_im = src, ddst_im = want;
  dsrc_im.data = dsrc; dsrc_im.mem = FV_MEM_DEVICE;
  ddst_im.data = ddst; ddst_im.mem = FV_MEM_DEVICE;
  fv_box_plan *cpu, *gpu;
  fv_box_plan_create (&cpu, &p, FV_BACKEND_CPU, 0, NULL);
  FVT_CHECK (fv_box_plan_create (&gpu, &p, FV_BACKEND_CUDA, 0, NULL) == FV_OK, "plan");
  fv_box_execute (cpu, &src, &want);
  FVT_CHECK (fv_box_execute (gpu, &dsrc_im, &ddst_im) == FV_OK, "exec: %s", fv_last_error ());
  fv_cuda_memcpy (got.data, ddst, bytes);
  FVT_CHECK (compare (&want, &got) == 0, "device images %dx%dx%d r=%d mode=%d budget %zu differ",
      w, h, ch, radius, mode, budget);
  fv_box_plan_destroy (cpu);
  fv_box_plan_destroy (gpu);
  fv_cuda_free (dsrc);
  fv_cuda_free (ddst);
  fvt_image_free (&src);
  fvt_image_free (&want);
  free (got.data);
}

/* Host frames in bands over several streams (fv_box_cuda.cu): the chosen
 * path and forced band counts, bands narrower than their halo included,
 * against the CPU. */
static void
banded_host_frames (fvt_rng *rng)
{
  static const struct {
    const char *bands;   /* FASTVISION_BOX_BANDS; NULL: the automatic choice */
    int w, h, ch, bits, r, mode, border;
  } cases[] = {
    { NULL, 1920, 1080, 4, 8, 15, FV_BOX_MEAN, FV_BORDER_RENORMALIZE },
    { NULL, 1920, 1080, 1, 16, 3, FV_BOX_STDDEV, FV_BORDER_MIRROR },
    { NULL, 3840, 2160, 1, 8, 15, FV_BOX_THRESHOLD, FV_BORDER_REPLICATE },
    { "16", 333, 1001, 1, 16, 40, FV_BOX_THRESHOLD, FV_BORDER_ZERO },
    { "16", 333, 1001, 3, 8, 40, FV_BOX_MEAN, FV_BORDER_REPLICATE },
    { "16", 333, 1001, 1, 8, 1, FV_BOX_STDDEV, FV_BORDER_RENORMALIZE },
    { "5", 640, 481, 3, 8, 0, FV_BOX_MEAN, FV_BORDER_MIRROR },
    { "5", 640, 481, 4, 8, 120, FV_BOX_STDDEV, FV_BORDER_ZERO },
    { "7", 97, 300, 2, 16, 2, FV_BOX_MEAN, FV_BORDER_MIRROR },
    { "300", 97, 300, 1, 8, 4, FV_BOX_MEAN, FV_BORDER_REPLICATE },   /* one row a band */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    if (cases[i].bands)
      setenv ("FASTVISION_BOX_BANDS", cases[i].bands, 1);
    else
      unsetenv ("FASTVISION_BOX_BANDS");
    fv_box_params p = { 0 };
    p.frame.width = cases[i].w; p.frame.height = cases[i].h; p.frame.channels = cases[i].ch;
    p.channel_mask = p.frame.channels == 4 ? 0x7 : (1u << p.frame.channels) - 1;
    p.frame.sample = cases[i].bits == 16 ? FV_U16 : FV_U8;
    p.radius_x = p.radius_y = cases[i].r;
    p.mode = cases[i].mode;
    p.border = cases[i].border;
    p.sensitivity = 0.15;
    run_cuda_case (&p, 3, 5, rng);
  }
  unsetenv ("FASTVISION_BOX_BANDS");
}

static void
device_images (fvt_rng *rng, int w, int h, int ch, fv_sample s, int radius, fv_box_mode mode)
{
  device_images_budget (rng, w, h, ch, s, radius, mode, 0);
}

/* Frames whose buffers exceed max_device_bytes: bands of whole rows with
 * their halo on three streams, for host and device frames, against the CPU;
 * bands narrower than the halo; and a budget too small for even one row
 * refused with the figures. */
static void
chunked (fvt_rng *rng)
{
  static const struct { int w, h, ch, bits, r, mode, border; size_t budget; } cases[] = {
    { 1920, 1080, 4, 8, 15, FV_BOX_MEAN, FV_BORDER_RENORMALIZE, 6u << 20 },
    { 1920, 1080, 1, 16, 40, FV_BOX_STDDEV, FV_BORDER_MIRROR, 20u << 20 },
    { 1001, 777, 3, 8, 60, FV_BOX_THRESHOLD, FV_BORDER_ZERO, 9u << 20 },
    { 1001, 777, 1, 8, 2, FV_BOX_MEAN, FV_BORDER_REPLICATE, 4u << 20 },
    { 333, 2049, 2, 16, 7, FV_BOX_STDDEV, FV_BORDER_RENORMALIZE, 4u << 20 },
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    fv_box_params p = { 0 };
    p.frame.width = cases[i].w; p.frame.height = cases[i].h; p.frame.channels = cases[i].ch;
    p.channel_mask = p.frame.channels == 4 ? 0x7 : (1u << p.frame.channels) - 1;
    p.frame.sample = cases[i].bits == 16 ? FV_U16 : FV_U8;
    p.radius_x = p.radius_y = cases[i].r;
    p.mode = cases[i].mode; p.border = cases[i].border; p.sensitivity = 0.15;
    p.frame.spread.max_device_bytes = cases[i].budget;
    run_cuda_case (&p, 1, 2, rng);
  }
  device_images_budget (rng, 1920, 1080, 4, FV_U8, 15, FV_BOX_MEAN, 6u << 20);
  device_images_budget (rng, 3840, 2160, 1, FV_U16, 100, FV_BOX_THRESHOLD, 48u << 20);
  device_images_budget (rng, 7680, 4320, 1, FV_U8, 15, FV_BOX_STDDEV, 64u << 20);
  fv_box_params p = { 0 };
  p.frame.width = 7680; p.frame.height = 4320; p.frame.channels = 1; p.channel_mask = 1;
  p.frame.sample = FV_U8;
  p.radius_x = p.radius_y = 500; p.mode = FV_BOX_MEAN;
  p.frame.spread.max_device_bytes = 1u << 20;
  fv_box_plan *plan = NULL;
  FVT_CHECK (fv_box_plan_create (&plan, &p, FV_BACKEND_CUDA, 0, NULL) == FV_ERR_NOMEM
      && strstr (fv_last_error (), "budget"), "a 1 MB budget for 8K r=500 was not refused: %s",
      fv_last_error ());
  fv_box_plan_destroy (plan);
}

/* Rows wider than one block's segment (1024 pixels of four channels), and
 * horizontal radii at the two-pass path's limit for four channels (992:
 * its shared memory) and just past it (993: the table). */
static void
segments (fvt_rng *rng)
{
  static const int radii[] = { 1, 15, 991, 992, 993 };
  for (size_t r = 0; r < sizeof radii / sizeof radii[0]; r++)
    for (int mode = FV_BOX_MEAN; mode <= FV_BOX_THRESHOLD; mode += FV_BOX_THRESHOLD - FV_BOX_MEAN)
      for (int border = 0; border <= FV_BORDER_ZERO; border++) {
        fv_box_params p = { 0 };
        p.frame.width = 2049; p.frame.height = 37; p.frame.channels = 4; p.channel_mask = 0xb;
        p.frame.sample = FV_U8; p.radius_x = radii[r]; p.radius_y = (int) r * 3;
        p.mode = (fv_box_mode) mode; p.border = (fv_border) border; p.sensitivity = 0.1;
        run_cuda_case (&p, 5, 3, rng);
      }
}

static void
cpu_tests (const char *data)
{
  fvt_rng rng = { 0x9E3779B97F4A7C15ull };
  char path[512];
  for (int t = 1; t <= 3; t += 2) {   /* one thread, then several strips */
    threads_to_use = t;
    box_for_each_case (run_cpu_case, &rng);
  }
  threads_to_use = 0;
  snprintf (path, sizeof path, "%s/astronaut-160x120.pgm", data);
  real_image (path, &rng);
  snprintf (path, sizeof path, "%s/astronaut-160x120.ppm", data);
  real_image (path, &rng);
  bad_input ();
  rect_union (&rng);
  box_windows (&rng);
}

static int
cuda_tests (void)
{
  if (fv_cuda_device_count () == 0) {
    printf ("test_box --cuda: no GPU, skipped\n");
    return FVTEST_SKIP;
  }
  fvt_rng rng = { 0xC0FFEE };
  box_for_each_case (run_cuda_case, &rng);
  banded_host_frames (&rng);
  chunked (&rng);
  device_images (&rng, 1920, 1080, 1, FV_U8, 15, FV_BOX_MEAN);
  device_images (&rng, 1920, 1080, 4, FV_U8, 7, FV_BOX_STDDEV);
  device_images (&rng, 3840, 2160, 1, FV_U16, 100, FV_BOX_THRESHOLD);
  device_images (&rng, 7680, 4320, 1, FV_U8, 100, FV_BOX_MEAN);
  device_images (&rng, 7680, 4320, 4, FV_U8, 15, FV_BOX_MEAN);
  segments (&rng);
  /* each path forced wherever it can run, so that both stay tested */
  static const char *paths[] = { "two-pass", "table" };
  for (int i = 0; i < 2; i++) {
    setenv ("FASTVISION_BOX_PATH", paths[i], 1);
    box_for_each_case (run_cuda_case, &rng);
    segments (&rng);
    device_images (&rng, 1920, 1080, 1, FV_U8, 15, FV_BOX_MEAN);
    device_images (&rng, 7680, 4320, 1, FV_U8, 15, FV_BOX_THRESHOLD);
  }
  unsetenv ("FASTVISION_BOX_PATH");
  return fvt_summary ("test_box --cuda");
}

int
main (int argc, char **argv)
{
  const int cuda = argc > 1 && !strcmp (argv[1], "--cuda");
  if (cuda)
    return cuda_tests ();
  cpu_tests (argc > 1 ? argv[1] : "tests/data");
  return fvt_summary ("test_box");
}
