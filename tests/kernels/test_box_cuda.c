/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The CUDA box filter must equal the CPU one bit for bit (the CPU one is
 * checked against the reference in test_box_cpu), for host and device
 * images, on both of its paths: two passes of window sums (the mean and the
 * threshold where sums fit 32 bits) and the summed-area table, each forced
 * with FASTVISION_BOX_PATH as well as chosen by the plan. Skipped (77) without a
 * GPU. */
#include <stdlib.h>
#include <string.h>
#include "box_cases.h"
#include "fv_cuda.h"

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
run_case (const fv_box_params *p, int src_pad, int dst_pad, void *user)
{
  fvt_rng *rng = user;
  fv_image src = fvt_image_new (p->width, p->height, p->channels, p->sample, src_pad, rng);
  fv_image want = fvt_image_new (p->width, p->height, p->channels, p->sample, dst_pad, NULL);
  fv_image got = fvt_image_new (p->width, p->height, p->channels, p->sample, dst_pad, NULL);
  fv_box_plan *cpu, *gpu;
  char label[160];
  snprintf (label, sizeof label, "%dx%dx%d %d-bit r=%d,%d mode=%d border=%d mask=%x",
      p->width, p->height, p->channels, p->sample * 8, p->radius_x, p->radius_y, p->mode,
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
    if (p->width * p->height <= 4096)   /* window plans on host frames */
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
  p.spread.max_device_bytes = budget;
  p.width = w; p.height = h; p.channels = ch; p.channel_mask = ch == 4 ? 0x7 : (1u << ch) - 1;
  p.sample = s; p.radius_x = p.radius_y = radius; p.mode = mode; p.sensitivity = 0.15;
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
    p.width = cases[i].w; p.height = cases[i].h; p.channels = cases[i].ch;
    p.channel_mask = p.channels == 4 ? 0x7 : (1u << p.channels) - 1;
    p.sample = cases[i].bits == 16 ? FV_U16 : FV_U8;
    p.radius_x = p.radius_y = cases[i].r;
    p.mode = cases[i].mode;
    p.border = cases[i].border;
    p.sensitivity = 0.15;
    run_case (&p, 3, 5, rng);
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
    p.width = cases[i].w; p.height = cases[i].h; p.channels = cases[i].ch;
    p.channel_mask = p.channels == 4 ? 0x7 : (1u << p.channels) - 1;
    p.sample = cases[i].bits == 16 ? FV_U16 : FV_U8;
    p.radius_x = p.radius_y = cases[i].r;
    p.mode = cases[i].mode; p.border = cases[i].border; p.sensitivity = 0.15;
    p.spread.max_device_bytes = cases[i].budget;
    run_case (&p, 1, 2, rng);
  }
  device_images_budget (rng, 1920, 1080, 4, FV_U8, 15, FV_BOX_MEAN, 6u << 20);
  device_images_budget (rng, 3840, 2160, 1, FV_U16, 100, FV_BOX_THRESHOLD, 48u << 20);
  device_images_budget (rng, 7680, 4320, 1, FV_U8, 15, FV_BOX_STDDEV, 64u << 20);
  fv_box_params p = { 0 };
  p.width = 7680; p.height = 4320; p.channels = 1; p.channel_mask = 1; p.sample = FV_U8;
  p.radius_x = p.radius_y = 500; p.mode = FV_BOX_MEAN;
  p.spread.max_device_bytes = 1u << 20;
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
        p.width = 2049; p.height = 37; p.channels = 4; p.channel_mask = 0xb;
        p.sample = FV_U8; p.radius_x = radii[r]; p.radius_y = (int) r * 3;
        p.mode = (fv_box_mode) mode; p.border = (fv_border) border; p.sensitivity = 0.1;
        run_case (&p, 5, 3, rng);
      }
}

int
main (void)
{
  if (fv_cuda_device_count () == 0) {
    printf ("test_box_cuda: no GPU, skipped\n");
    return FVTEST_SKIP;
  }
  fvt_rng rng = { 0xC0FFEE };
  box_for_each_case (run_case, &rng);
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
    box_for_each_case (run_case, &rng);
    segments (&rng);
    device_images (&rng, 1920, 1080, 1, FV_U8, 15, FV_BOX_MEAN);
    device_images (&rng, 7680, 4320, 1, FV_U8, 15, FV_BOX_THRESHOLD);
  }
  unsetenv ("FASTVISION_BOX_PATH");
  return fvt_summary ("test_box_cuda");
}
