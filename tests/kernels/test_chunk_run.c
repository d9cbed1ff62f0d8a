/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Chunked and multi-device CUDA plans (fv_chunk_run.h) against their
 * definitions: the box filter bit for bit against the CPU (the CPU is
 * checked against the reference elsewhere), the convolution within its
 * bound of a double-precision direct sum, for 2, 3 and many chunks, tiles
 * from budgets too small for a band, chunks narrower than the halo,
 * several entries on device 0 (and on every GPU present), host and device
 * frames with padded strides, every border; the runner's choice between
 * spreading and one device. The fill and the detector:
 * test_chunk_run_fill.c. Skipped (77) without a GPU. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "fvtest.h"
#include "fv_box.h"
#include "fv_conv.h"
#include "fv_fill.h"
#include "fv_vj.h"
#include "fv_cuda.h"
#include "fv_chunk_run.h"
#include "chunkcases.h"

/* ---- box filter ---- */

static void
box_case (fvt_rng *rng, int w, int h, int ch, fv_sample s, int r, fv_box_mode mode,
    fv_border border, const fv_spread *sp, const char *name, int device)
{
  fv_box_params p = { 0 };
  p.frame.width = w; p.frame.height = h; p.frame.channels = ch; p.channel_mask = ch == 4 ? 0x7
      : (1u << ch) - 1;
  p.frame.sample = s; p.radius_x = r; p.radius_y = r + 1; p.mode = mode; p.border = border;
  p.sensitivity = 0.15;
  char what[200];
  snprintf (what, sizeof what, "box %dx%dx%d %d-bit r=%d mode %d border %d, %s, %s", w, h, ch,
      s * 8, r, mode, border, name, device ? "device" : "host");
  fv_image src = fvt_image_new (w, h, ch, s, 3, rng);
  fv_box_plan *cpu, *gpu;
  FVT_CHECK (fv_box_plan_create (&cpu, &p, FV_BACKEND_CPU, 0, NULL) == FV_OK, "cpu plan");
  p.frame.spread = *sp;
  fv_status st = fv_box_plan_create (&gpu, &p, FV_BACKEND_CUDA, 0, NULL);
  FVT_CHECK (st == FV_OK, "%s: plan: %s", what, fv_last_error ());
  if (st == FV_OK) {
    fv_image want = run_on (box_exec, cpu, &src, 0, what);
    fv_image got = run_on (box_exec, gpu, &src, device, what);
    long bad = rows_differ (&want, &got);
    FVT_CHECK (bad == 0, "%s: %ld rows differ from the CPU", what, bad);
    fvt_image_free (&want);
    fvt_image_free (&got);
    fv_box_plan_destroy (gpu);
  }
  fv_box_plan_destroy (cpu);
  fvt_image_free (&src);
}

/* fv_box_execute_rows: a window of rows of the whole-frame result, into
 * host and device memory, equals those rows of the CPU's; CPU plans refuse. */
static void
box_rows (fvt_rng *rng)
{
  fv_box_params p = { 0 };
  p.frame.width = 301; p.frame.height = 203; p.frame.channels = 3; p.channel_mask = 0x5;
  p.frame.sample = FV_U16;
  p.radius_x = 9; p.radius_y = 14; p.mode = FV_BOX_THRESHOLD; p.border = FV_BORDER_MIRROR;
  p.sensitivity = 0.1;
  fv_image src = fvt_image_new (p.frame.width, p.frame.height, 3, FV_U16, 3, rng);
  fv_box_plan *cpu, *gpu;
  fv_box_plan_create (&cpu, &p, FV_BACKEND_CPU, 0, NULL);
  FVT_CHECK (fv_box_plan_create (&gpu, &p, FV_BACKEND_CUDA, 0, NULL) == FV_OK, "plan");
  fv_image want = run_on (box_exec, cpu, &src, 0, "box rows, whole");
  static const int windows[][2] = { { 0, 203 }, { 37, 50 }, { 202, 1 }, { 0, 1 } };
  for (int w = 0; w < 4; w++)
    for (int device = 0; device <= 1; device++) {
      const int row0 = windows[w][0], rows = windows[w][1];
      fv_image got = fvt_image_new (p.frame.width, rows, 3, FV_U16, 2, NULL);
      fv_image d = device ? to_device (&got) : got;
      fv_image s = device ? to_device (&src) : src;
      FVT_CHECK (fv_box_execute_rows (gpu, &s, &d, row0, rows) == FV_OK, "rows %d+%d: %s",
          row0, rows, fv_last_error ());
      if (device) {
        fv_cuda_memcpy (got.data, d.data, got.stride * rows);
        fv_cuda_free (d.data);
        fv_cuda_free (s.data);
      }
      long bad = 0;
      for (int y = 0; y < rows; y++)
        bad += memcmp ((char *) got.data + y * got.stride, (char *) want.data
            + (size_t) (row0 + y) * want.stride, fv_image_row_bytes (&got)) != 0;
      FVT_CHECK (bad == 0, "box rows %d+%d (%s): %ld rows differ", row0, rows,
          device ? "device" : "host", bad);
      fvt_image_free (&got);
    }
  fv_image one = fvt_image_new (p.frame.width, 1, 3, FV_U16, 0, NULL);
  FVT_CHECK (fv_box_execute_rows (cpu, &src, &one, 5, 1) == FV_ERR_INVALID, "CPU rows taken");
  FVT_CHECK (fv_box_execute_rows (gpu, &src, &one, 203, 1) == FV_ERR_INVALID,
      "rows past the frame taken");
  fvt_image_free (&one);
  fvt_image_free (&want);
  fvt_image_free (&src);
  fv_box_plan_destroy (cpu);
  fv_box_plan_destroy (gpu);
}

static void
box_tests (fvt_rng *rng)
{
  box_rows (rng);
  for (size_t i = 0; i < NSPREADS; i++)
    for (int b = FV_BORDER_RENORMALIZE; b <= FV_BORDER_ZERO; b++) {
      const fv_spread *sp = &spreads[i].s;
      box_case (rng, 301, 203, 1, FV_U8, 7, FV_BOX_MEAN, b, sp, spreads[i].name, 0);
      box_case (rng, 97, 64, 3, FV_U16, 20, FV_BOX_STDDEV, b, sp, spreads[i].name, 1);
      box_case (rng, 45, 130, 4, FV_U8, 2, FV_BOX_THRESHOLD, b, sp, spreads[i].name, i & 1);
    }
  /* 1 x 1, 3 x 7, a radius past the frame: chunks of one row */
  box_case (rng, 1, 1, 1, FV_U8, 3, FV_BOX_MEAN, FV_BORDER_MIRROR, &spreads[3].s, "1x1", 0);
  box_case (rng, 3, 7, 1, FV_U8, 9, FV_BOX_MEAN, FV_BORDER_RENORMALIZE, &spreads[2].s, "3x7",
      1);
  /* a budget too small for a band of full rows: tiles, narrower than the halo */
  fv_spread tiles = { (size_t) 1300 << 10, { 0 }, 0, 0 };
  box_case (rng, 6000, 40, 1, FV_U8, 12, FV_BOX_MEAN, FV_BORDER_REPLICATE, &tiles, "tiles", 0);
  box_case (rng, 6000, 40, 1, FV_U8, 12, FV_BOX_STDDEV, FV_BORDER_MIRROR, &tiles, "tiles", 1);
  /* every GPU present, when there are several */
  int n = fv_cuda_device_count ();
  if (n > 1) {
    fv_spread all = { 0, { 0 }, 0, 0 };
    for (int d = 0; d < n && d < FV_MAX_DEVICE_ENTRIES; d++)
      all.devices[all.ndevices++] = d;
    box_case (rng, 1001, 777, 1, FV_U8, 15, FV_BOX_MEAN, FV_BORDER_RENORMALIZE, &all, "all", 0);
    box_case (rng, 1001, 777, 4, FV_U8, 15, FV_BOX_MEAN, FV_BORDER_MIRROR, &all, "all", 1);
  }
}

/* ---- convolution ---- */

static void
conv_case (fvt_rng *rng, int w, int h, int ch, fv_sample s, int kw, int kh,
    fv_conv_method method, fv_border border, int convolve, const fv_spread *sp,
    const char *name, int device)
{
  float *k = malloc (sizeof (float) * kw * kh);
  for (int i = 0; i < kw * kh; i++)
    k[i] = (float) (fvt_next (rng) % 1000) / 1000.0f - 0.2f;
  fv_conv_params p = { 0 };
  p.frame.width = w; p.frame.height = h; p.frame.channels = ch; p.channel_mask = ch == 4 ? 0x7
      : (1u << ch) - 1;
  p.frame.sample = s; p.kernel = k; p.kernel_width = kw; p.kernel_height = kh; p.normalize = 1;
  p.border = border; p.method = method; p.convolve = convolve; p.frame.spread = *sp;
  char what[200];
  snprintf (what, sizeof what, "conv %dx%dx%d %d-bit %dx%d method %d border %d%s, %s, %s", w, h,
      ch, s * 8, kw, kh, method, border, convolve ? " convolve" : "", name,
      device ? "device" : "host");
  fv_image src = fvt_image_new (w, h, ch, s, 3, rng);
  fv_conv_plan *plan;
  fv_status st = fv_conv_plan_create (&plan, &p, FV_BACKEND_CUDA, 0, NULL);
  FVT_CHECK (st == FV_OK, "%s: plan: %s", what, fv_last_error ());
  if (st == FV_OK) {
    FVT_CHECK (fv_conv_plan_chunks (plan) != NULL, "%s: not chunked", what);
    fv_image got = run_on (conv_exec, plan, &src, device, what);
    const double tol = s == FV_U8 ? 1.0 : 2.0;
    long bad = 0;
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++)
        for (int c = 0; c < ch; c++) {
          double want = (p.channel_mask >> c & 1) ? fvt_ref_conv (&p, &src, x, y, c)
              : fvt_get (&src, x, y, c);
          if (fabs (fvt_get (&got, x, y, c) - want) > tol && bad++ < 3)
            fprintf (stderr, "  %s (%d,%d,%d): got %u want %.3f\n", what, x, y, c,
                fvt_get (&got, x, y, c), want);
        }
    FVT_CHECK (bad == 0, "%s: %ld samples beyond the bound", what, bad);
    fvt_image_free (&got);
    fv_conv_plan_destroy (plan);
  }
  fvt_image_free (&src);
  free (k);
}

/* fv_conv_execute_rows: a window of rows of the whole-frame result on
 * device frames, by FFT (all tiles at once, and a row of tiles at a time,
 * batch_rows 1, as the chunks' sub-plans run) and by direct sums, each
 * sample within the bound of the double-precision definition, the direct
 * sums equal to the whole frame's bit for bit; the padding of the rows'
 * image untouched; host frames, CPU plans and rows past the frame refused. */
static void
conv_rows (fvt_rng *rng)
{
  /* rows 203 high (variant 1: 2,100, two rows of its 1,014-row tiles) */
  static const int windows[][2] = { { 0, 203 }, { 37, 50 }, { 202, 1 }, { 0, 1 }, { 60, 143 } };
  static const int tall[][2] = { { 0, 2100 }, { 1000, 50 }, { 2099, 1 }, { 0, 1 }, { 900, 1200 } };
  for (int variant = 0; variant < 3; variant++) {
    const int kw = variant == 2 ? 5 : 15, kh = variant == 2 ? 5 : 11;
    float *k = malloc (sizeof (float) * kw * kh);
    for (int i = 0; i < kw * kh; i++)
      k[i] = (float) (fvt_next (rng) % 1000) / 1000.0f - 0.2f;
    fv_conv_params p = { 0 };
    p.frame.width = 301; p.frame.height = variant == 1 ? 2100
        : 203; p.frame.channels = 3; p.channel_mask = 0x5;
    p.frame.sample = FV_U16; p.kernel = k; p.kernel_width = kw; p.kernel_height = kh;
    p.normalize = 1;
    p.border = variant == 1 ? FV_BORDER_RENORMALIZE : FV_BORDER_MIRROR;
    p.method = variant == 2 ? FV_CONV_DIRECT : FV_CONV_FFT;
    p.batch_rows = variant == 1;
    p.tile = variant == 0 ? 40 : 0;   /* tiles 40 high: windows cut through them */
    fv_image src = fvt_image_new (p.frame.width, p.frame.height, 3, FV_U16, 3, rng);
    fv_conv_plan *gpu = NULL, *cpu = NULL;
    FVT_CHECK (fv_conv_plan_create (&gpu, &p, FV_BACKEND_CUDA, 0, NULL) == FV_OK,
        "conv rows %d: plan: %s", variant, fv_last_error ());
    fv_conv_plan_create (&cpu, &p, FV_BACKEND_CPU, 0, NULL);
    fv_image whole = gpu ? run_on (conv_exec, gpu, &src, 1, "conv rows, whole")
        : fvt_image_new (1, 1, 3, FV_U16, 0, NULL);
    fv_image s = to_device (&src);
    for (int w = 0; gpu && w < 5; w++) {
      const int row0 = (variant == 1 ? tall : windows)[w][0];
      const int rows = (variant == 1 ? tall : windows)[w][1];
      fv_image got = fvt_image_new (p.frame.width, rows, 3, FV_U16, 7, NULL);
      fv_image d = to_device (&got);
      FVT_CHECK (fv_conv_execute_rows (gpu, &s, &d, row0, rows) == FV_OK, "conv rows %d, "
          "%d+%d: %s", variant, row0, rows, fv_last_error ());
      fv_cuda_memcpy (got.data, d.data, got.stride * rows);
      fv_cuda_free (d.data);
      long bad = 0, differ = 0, pad = 0;
      for (int y = 0; y < rows; y++) {
        for (int x = 0; x < p.frame.width; x++)
          for (int c = 0; c < 3; c++) {
            const double want = (p.channel_mask >> c & 1)
                ? fvt_ref_conv (&p, &src, x, row0 + y, c) : fvt_get (&src, x, row0 + y, c);
            bad += fabs (fvt_get (&got, x, y, c) - want) > 2.0;
            differ += fvt_get (&got, x, y, c) != fvt_get (&whole, x, row0 + y, c);
          }
        for (size_t i = fv_image_row_bytes (&got); i < got.stride; i++)
          pad += ((uint8_t *) got.data)[(size_t) y * got.stride + i] != 0xA5;
      }
      FVT_CHECK (!bad && !pad && (variant != 2 || !differ), "conv rows %d, %d+%d: %ld samples "
          "beyond the bound, %ld padding bytes written, %ld samples off the whole frame's",
          variant, row0, rows, bad, pad, differ);
      fvt_image_free (&got);
    }
    fv_image one = fvt_image_new (p.frame.width, 1, 3, FV_U16, 0, NULL);
    fv_image done = to_device (&one);
    FVT_CHECK (!gpu || fv_conv_execute_rows (gpu, &src, &one, 5, 1) == FV_ERR_INVALID,
        "conv rows: host frames taken");
    FVT_CHECK (!gpu || fv_conv_execute_rows (gpu, &s, &done, p.frame.height, 1) == FV_ERR_INVALID,
        "conv rows: rows past the frame taken");
    FVT_CHECK (!cpu || fv_conv_execute_rows (cpu, &s, &done, 5, 1) == FV_ERR_INVALID,
        "conv rows: a CPU plan took rows");
    fv_cuda_free (done.data);
    fv_cuda_free (s.data);
    fvt_image_free (&one);
    fvt_image_free (&whole);
    fvt_image_free (&src);
    fv_conv_plan_destroy (gpu);
    fv_conv_plan_destroy (cpu);
    free (k);
  }
}

/* Chunks cut for a budget as the convolution asks (fv_conv_planner.c):
 * sub-plans that hold one row of 1024-sample tiles (about 88 MB at this
 * width) in bands of whole tile rows (994 rows for 31 taps): in 120 MB,
 * where the whole plan needs ~310 MB, bands of one tile row each, every
 * band starting on one; the result equals the whole-frame plan's within
 * one level, and the definition at sampled pixels (every chunk's edges
 * among them) within the bound. */
static void
conv_tall_chunks (fvt_rng *rng)
{
  const int w = 4000, h = 2300, kw = 31;
  float *k = malloc (sizeof (float) * kw * kw);
  for (int i = 0; i < kw * kw; i++)
    k[i] = (float) (fvt_next (rng) % 1000) / 1000.0f;
  fv_conv_params p = { 0 };
  p.frame.width = w; p.frame.height = h; p.frame.channels = 1; p.channel_mask = 1;
  p.frame.sample = FV_U8;
  p.kernel = k; p.kernel_width = p.kernel_height = kw; p.normalize = 1;
  p.border = FV_BORDER_MIRROR; p.method = FV_CONV_FFT;
  fv_conv_plan *whole = NULL, *chunked = NULL;
  fv_image src = fvt_image_new (w, h, 1, FV_U8, 3, rng);
  FVT_CHECK (fv_conv_plan_create (&whole, &p, FV_BACKEND_CUDA, 0, NULL) == FV_OK,
      "tall chunks: whole plan: %s", fv_last_error ());
  p.frame.spread.max_device_bytes = (size_t) 120 << 20;   /* the whole plan needs ~310 MB */
  FVT_CHECK (fv_conv_plan_create (&chunked, &p, FV_BACKEND_CUDA, 0, NULL) == FV_OK,
      "tall chunks: chunked plan: %s", fv_last_error ());
  const fv_chunk_plan *cp = chunked ? fv_conv_plan_chunks (chunked) : NULL;
  FVT_CHECK (cp && cp->n > 1 && cp->cols == 1, "tall chunks: %d x %d chunks",
      cp ? cp->cols : 0, cp ? cp->rows : 0);
  if (whole && cp) {
    int misplaced = 0;
    for (int c = 0; c < cp->n; c++)
      misplaced += cp->chunk[c].out.y % 994 != 0;
    FVT_CHECK (!misplaced, "tall chunks: %d of %d bands off the 994-row tile rows", misplaced,
        cp->n);
    fv_image a = run_on (conv_exec, whole, &src, 1, "tall chunks, whole");
    fv_image b = run_on (conv_exec, chunked, &src, 1, "tall chunks, chunked");
    long off = 0, bad = 0, seen = 0;
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++)
        off += abs ((int) fvt_get (&a, x, y, 0) - (int) fvt_get (&b, x, y, 0)) > 1;
    for (int c = 0; c < cp->n; c++) {   /* each chunk's corners and edge midpoints */
      const fv_chunk_rect *o = &cp->chunk[c].out;
      const int xs[] = { o->x, o->x + o->w / 2, o->x + o->w - 1 };
      const int ys[] = { o->y, o->y + o->h / 2, o->y + o->h - 1 };
      for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++, seen++)
          bad += fabs (fvt_get (&b, xs[i], ys[j], 0) - fvt_ref_conv (&p, &src, xs[i], ys[j], 0))
              > 1.0;
    }
    for (int i = 0; i < 2000; i++, seen++) {
      const int x = (int) (fvt_next (rng) % w), y = (int) (fvt_next (rng) % h);
      bad += fabs (fvt_get (&b, x, y, 0) - fvt_ref_conv (&p, &src, x, y, 0)) > 1.0;
    }
    FVT_CHECK (!off && !bad, "tall chunks (%d x %d): %ld pixels off the whole plan by more "
        "than 1, %ld of %ld sampled beyond the bound", cp->cols, cp->rows, off, bad, seen);
    fvt_image_free (&a);
    fvt_image_free (&b);
  }
  fv_conv_plan_destroy (whole);
  fv_conv_plan_destroy (chunked);
  fvt_image_free (&src);
  free (k);
}

static void
conv_tests (fvt_rng *rng)
{
  conv_rows (rng);
  conv_tall_chunks (rng);
  for (size_t i = 0; i < NSPREADS; i++)
    for (int b = FV_BORDER_RENORMALIZE; b <= FV_BORDER_WRAP; b++) {
      const fv_spread *sp = &spreads[i].s;
      conv_case (rng, 211, 157, 1, FV_U8, 15, 11, FV_CONV_FFT, b, 1, sp, spreads[i].name, i & 1);
      conv_case (rng, 64, 91, 3, FV_U8, 5, 5, FV_CONV_DIRECT, b, 0, sp, spreads[i].name,
          !(i & 1));
      conv_case (rng, 77, 40, 1, FV_U16, 8, 6, FV_CONV_FFT, b, 1, sp, spreads[i].name, 1);
    }
  conv_case (rng, 1, 1, 1, FV_U8, 3, 3, FV_CONV_FFT, FV_BORDER_WRAP, 0, &spreads[3].s, "1x1", 0);
  conv_case (rng, 3, 7, 1, FV_U8, 9, 9, FV_CONV_FFT, FV_BORDER_MIRROR, 1, &spreads[2].s, "3x7", 1);
  fv_spread tiles = { (size_t) 3 << 20, { 0 }, 0, 0 };
  conv_case (rng, 3000, 50, 1, FV_U8, 21, 21, FV_CONV_FFT, FV_BORDER_WRAP, 1, &tiles, "tiles", 0);
  conv_case (rng, 3000, 50, 1, FV_U8, 21, 21, FV_CONV_FFT, FV_BORDER_RENORMALIZE, 0, &tiles,
      "tiles", 1);
  int n = fv_cuda_device_count ();
  if (n > 1) {
    fv_spread all = { 0, { 0 }, 0, 0 };
    for (int d = 0; d < n && d < FV_MAX_DEVICE_ENTRIES; d++)
      all.devices[all.ndevices++] = d;
    conv_case (rng, 400, 300, 1, FV_U8, 31, 31, FV_CONV_FFT, FV_BORDER_WRAP, 1, &all, "all", 1);
  }
}


/* ---- one device or several: the runner's choice ---- */

static int notes;

static void
count_note (void *user, const char *message)
{
  (void) user;
  FVT_CHECK (strstr (message, "running on CUDA device 0 alone") != NULL, "note: %s", message);
  notes++;
}

/* Over every GPU present, as users get it: the first frame spread over
 * all of them, every frame equal to the CPU's, and the runner settled on
 * one way after its timed frames, told when that is one device; the chunks
 * run add up to the plan's each frame. */
static void
choice_tests (fvt_rng *rng)
{
  int n = fv_cuda_device_count ();
  if (n < 2)
    return;
  fv_box_params p = { 0 };
  p.frame.width = 1500; p.frame.height = 900; p.frame.channels = 1; p.channel_mask = 1;
  p.frame.sample = FV_U8;
  p.radius_x = p.radius_y = 9; p.mode = FV_BOX_MEAN; p.border = FV_BORDER_MIRROR;
  fv_image src = fvt_image_new (p.frame.width, p.frame.height, 1, FV_U8, 3, rng);
  fv_box_plan *cpu, *gpu;
  FVT_CHECK (fv_box_plan_create (&cpu, &p, FV_BACKEND_CPU, 0, NULL) == FV_OK, "cpu plan");
  for (int d = 0; d < n && d < FV_MAX_DEVICE_ENTRIES; d++)
    p.frame.spread.devices[p.frame.spread.ndevices++] = d;
  p.frame.spread.note = count_note;
  notes = 0;
  FVT_CHECK (fv_box_plan_create (&gpu, &p, FV_BACKEND_CUDA, 0, NULL) == FV_OK, "plan: %s",
      fv_last_error ());
  fv_image want = run_on (box_exec, cpu, &src, 0, "choice: cpu");
  int home = -1, spread_devices = 0;
  for (int f = 0; f < 9; f++) {
    fv_image got = run_on (box_exec, gpu, &src, f & 1, "choice");
    const fv_chunk_run_stats *st = fv_chunk_run_last ();
    int chunks = 0, used = 0;
    double share = 0;
    for (int i = 0; i < st->entries; i++) {
      chunks += st->chunks[i];
      share += st->share[i];
      used |= st->chunks[i] ? 1 << st->device[i] : 0;
    }
    FVT_CHECK (chunks == st->todo && st->todo >= st->entries, "frame %d: %d chunks run of %d",
        f, chunks, st->todo);
    FVT_CHECK (fabs (share - 1) < 1e-9, "frame %d: the entries' shares add up to %g", f, share);
    FVT_CHECK (rows_differ (&want, &got) == 0, "frame %d differs from the CPU", f);
    if (f == 0)
      spread_devices = __builtin_popcount (used);
    if (f >= 6) {   /* settled */
      FVT_CHECK (home < 0 || home == st->home_only, "frame %d: the way changed", f);
      home = st->home_only;
      FVT_CHECK (!home || used == 1, "frame %d: one device chosen, %x used", f, used);
      FVT_CHECK (home == (st->home_ms < st->spread_ms) && st->spread_ms > 0, "frame %d: %s "
          "chosen, timed %.3f ms on one device and %.3f spread", f, home ? "one device" : "spread",
          st->home_ms, st->spread_ms);
    }
    fvt_image_free (&got);
  }
  FVT_CHECK (spread_devices >= 2, "the first frame ran on %d devices", spread_devices);
  FVT_CHECK (notes == (home == 1), "%d notes for %s", notes, home ? "one device" : "spread");
  printf ("choice over %d GPUs: %s\n", n, home ? "one device" : "spread");
  fvt_image_free (&want);
  fvt_image_free (&src);
  fv_box_plan_destroy (gpu);
  fv_box_plan_destroy (cpu);
}

int
main (int argc, char **argv)
{
  (void) argc;
  (void) argv;
  if (!have_gpu ())
    return FVTEST_SKIP;
  fvt_rng rng = { 0x5eed2026 };
  box_tests (&rng);
  conv_tests (&rng);
  choice_tests (&rng);
  return fvt_summary ("chunked CUDA plans");
}
