/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Chunked and multi-device CUDA plans (fv_chunk_run.h) against their
 * definitions: the box filter and the fill bit for bit against the CPU (the
 * CPU is checked against the reference elsewhere; the fill here against the
 * reference too), the convolution within its bound of a double-precision
 * direct sum, for 2, 3 and many chunks, tiles from budgets too small for a
 * band, chunks narrower than the halo, several entries on device 0 (and on
 * every GPU present), host and device frames with padded strides, every
 * border. Skipped (77) without a GPU. */
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

typedef struct {
  const char *name;
  fv_spread s;
} Spread;

static Spread spreads[] = {
  { "2 chunks", { 0, { 0 }, 0, 2 } },
  { "3 chunks", { 0, { 0 }, 0, 3 } },
  { "13 chunks", { 0, { 0 }, 0, 13 } },
  { "devices 0,0", { 0, { 0, 0 }, 2, 0 } },
  { "devices 0,0,0 x 7 chunks", { 0, { 0, 0, 0 }, 3, 7 } },
};
#define NSPREADS (sizeof spreads / sizeof spreads[0])

/* Copies a host image to device memory (same stride) or back. */
static fv_image
to_device (const fv_image *h)
{
  fv_image d = *h;
  d.data = fv_cuda_malloc (h->stride * h->height);
  fv_cuda_memcpy (d.data, h->data, h->stride * h->height);
  d.mem = FV_MEM_DEVICE;
  return d;
}

static long
rows_differ (const fv_image *a, const fv_image *b)
{
  long bad = 0;
  const size_t row = fv_image_row_bytes (a);
  for (int y = 0; y < a->height; y++)
    bad += memcmp ((char *) a->data + y * a->stride, (char *) b->data + y * b->stride, row) != 0;
  return bad;
}

/* Runs `plan` on src into a fresh image, on host or device memory. */
typedef fv_status (*ExecFn) (void *plan, const fv_image *src, const fv_image *dst);

static fv_image
run_on (ExecFn exec, void *plan, const fv_image *src, int device, const char *what)
{
  fv_image out = fvt_image_new (src->width, src->height, src->channels, src->sample, 7, NULL);
  if (!device) {
    FVT_CHECK (exec (plan, src, &out) == FV_OK, "%s: execute: %s", what, fv_last_error ());
  } else {
    fv_image ds = to_device (src), dd = to_device (&out);
    FVT_CHECK (exec (plan, &ds, &dd) == FV_OK, "%s: execute (device): %s", what,
        fv_last_error ());
    fv_cuda_memcpy (out.data, dd.data, out.stride * out.height);
    fv_cuda_free (ds.data);
    fv_cuda_free (dd.data);
  }
  long pad = 0;   /* chunks write their rectangles only: the padding survives */
  for (int y = 0; y < out.height; y++)
    for (size_t i = fv_image_row_bytes (&out); i < out.stride; i++)
      pad += ((uint8_t *) out.data)[(size_t) y * out.stride + i] != 0xA5;
  FVT_CHECK (pad == 0, "%s: %ld padding bytes overwritten", what, pad);
  return out;
}

static fv_status
box_exec (void *p, const fv_image *s, const fv_image *d)
{
  return fv_box_execute (p, s, d);
}

static fv_status
conv_exec (void *p, const fv_image *s, const fv_image *d)
{
  return fv_conv_execute (p, s, d);
}

static fv_status
fill_exec (void *p, const fv_image *s, const fv_image *d)
{
  return fv_fill_execute (p, s, d);
}

/* ---- box filter ---- */

static void
box_case (fvt_rng *rng, int w, int h, int ch, fv_sample s, int r, fv_box_mode mode,
    fv_border border, const fv_spread *sp, const char *name, int device)
{
  fv_box_params p = { 0 };
  p.width = w; p.height = h; p.channels = ch; p.channel_mask = ch == 4 ? 0x7 : (1u << ch) - 1;
  p.sample = s; p.radius_x = r; p.radius_y = r + 1; p.mode = mode; p.border = border;
  p.sensitivity = 0.15;
  char what[200];
  snprintf (what, sizeof what, "box %dx%dx%d %d-bit r=%d mode %d border %d, %s, %s", w, h, ch,
      s * 8, r, mode, border, name, device ? "device" : "host");
  fv_image src = fvt_image_new (w, h, ch, s, 3, rng);
  fv_box_plan *cpu, *gpu;
  FVT_CHECK (fv_box_plan_create (&cpu, &p, FV_BACKEND_CPU, 0, NULL) == FV_OK, "cpu plan");
  p.spread = *sp;
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
  p.width = 301; p.height = 203; p.channels = 3; p.channel_mask = 0x5; p.sample = FV_U16;
  p.radius_x = 9; p.radius_y = 14; p.mode = FV_BOX_THRESHOLD; p.border = FV_BORDER_MIRROR;
  p.sensitivity = 0.1;
  fv_image src = fvt_image_new (p.width, p.height, 3, FV_U16, 3, rng);
  fv_box_plan *cpu, *gpu;
  fv_box_plan_create (&cpu, &p, FV_BACKEND_CPU, 0, NULL);
  FVT_CHECK (fv_box_plan_create (&gpu, &p, FV_BACKEND_CUDA, 0, NULL) == FV_OK, "plan");
  fv_image want = run_on (box_exec, cpu, &src, 0, "box rows, whole");
  static const int windows[][2] = { { 0, 203 }, { 37, 50 }, { 202, 1 }, { 0, 1 } };
  for (int w = 0; w < 4; w++)
    for (int device = 0; device <= 1; device++) {
      const int row0 = windows[w][0], rows = windows[w][1];
      fv_image got = fvt_image_new (p.width, rows, 3, FV_U16, 2, NULL);
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
  fv_image one = fvt_image_new (p.width, 1, 3, FV_U16, 0, NULL);
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
  p.width = w; p.height = h; p.channels = ch; p.channel_mask = ch == 4 ? 0x7 : (1u << ch) - 1;
  p.sample = s; p.kernel = k; p.kernel_width = kw; p.kernel_height = kh; p.normalize = 1;
  p.border = border; p.method = method; p.convolve = convolve; p.spread = *sp;
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
    p.width = 301; p.height = variant == 1 ? 2100 : 203; p.channels = 3; p.channel_mask = 0x5;
    p.sample = FV_U16; p.kernel = k; p.kernel_width = kw; p.kernel_height = kh; p.normalize = 1;
    p.border = variant == 1 ? FV_BORDER_RENORMALIZE : FV_BORDER_MIRROR;
    p.method = variant == 2 ? FV_CONV_DIRECT : FV_CONV_FFT;
    p.batch_rows = variant == 1;
    p.tile = variant == 0 ? 40 : 0;   /* tiles 40 high: windows cut through them */
    fv_image src = fvt_image_new (p.width, p.height, 3, FV_U16, 3, rng);
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
      fv_image got = fvt_image_new (p.width, rows, 3, FV_U16, 7, NULL);
      fv_image d = to_device (&got);
      FVT_CHECK (fv_conv_execute_rows (gpu, &s, &d, row0, rows) == FV_OK, "conv rows %d, "
          "%d+%d: %s", variant, row0, rows, fv_last_error ());
      fv_cuda_memcpy (got.data, d.data, got.stride * rows);
      fv_cuda_free (d.data);
      long bad = 0, differ = 0, pad = 0;
      for (int y = 0; y < rows; y++) {
        for (int x = 0; x < p.width; x++)
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
    fv_image one = fvt_image_new (p.width, 1, 3, FV_U16, 0, NULL);
    fv_image done = to_device (&one);
    FVT_CHECK (!gpu || fv_conv_execute_rows (gpu, &src, &one, 5, 1) == FV_ERR_INVALID,
        "conv rows: host frames taken");
    FVT_CHECK (!gpu || fv_conv_execute_rows (gpu, &s, &done, p.height, 1) == FV_ERR_INVALID,
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
  p.width = w; p.height = h; p.channels = 1; p.channel_mask = 1; p.sample = FV_U8;
  p.kernel = k; p.kernel_width = p.kernel_height = kw; p.normalize = 1;
  p.border = FV_BORDER_MIRROR; p.method = FV_CONV_FFT;
  fv_conv_plan *whole = NULL, *chunked = NULL;
  fv_image src = fvt_image_new (w, h, 1, FV_U8, 3, rng);
  FVT_CHECK (fv_conv_plan_create (&whole, &p, FV_BACKEND_CUDA, 0, NULL) == FV_OK,
      "tall chunks: whole plan: %s", fv_last_error ());
  p.spread.max_device_bytes = (size_t) 120 << 20;   /* the whole plan needs ~310 MB */
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

/* ---- fill ---- */

/* A rectangular spiral corridor whose centre joins the outside only along
 * its whole length: crosses every seam many times. */
static void
spiral (fv_image *im, int gap)
{
  const int w = im->width, h = im->height;
  for (int y = 0; y < h; y++)
    memset ((char *) im->data + y * im->stride, 0, w);
  int x0 = 1, y0 = 1, x1 = w - 2, y1 = h - 2;
  for (int turn = 0; x0 < x1 && y0 < y1; turn++) {
    for (int x = x0; x <= x1; x++)
      fvt_set (im, x, y0, 0, 255);
    for (int y = y0; y <= y1; y++)
      fvt_set (im, x1, y, 0, 255);
    for (int x = x0; x <= x1; x++)
      fvt_set (im, x, y1, 0, 255);
    for (int y = y0 + 2; y <= y1; y++)
      fvt_set (im, x0, y, 0, 255);
    if (turn == 0)
      fvt_set (im, x0, y0, 0, 0);   /* the corridor's mouth, to the outside */
    x0 += gap; y0 += gap; x1 -= gap; y1 -= gap;
  }
}

static void
fill_case (const fv_image *src, int conn, int output, unsigned value, const fv_spread *sp,
    const char *name, int device)
{
  const int w = src->width, h = src->height;
  fv_fill_params p = { 0 };
  p.width = w; p.height = h; p.threshold = 100; p.fill_value = value; p.connectivity = conn;
  p.output = output; p.spread = *sp;
  char what[200];
  snprintf (what, sizeof what, "fill %dx%d conn %d output %d value %u, %s, %s", w, h, conn,
      output, value, name, device ? "device" : "host");
  uint8_t *want = malloc ((size_t) w * h);
  fvt_ref_fill (src, p.threshold, conn, output, value, want);
  fv_fill_plan *plan;
  fv_status st = fv_fill_plan_create (&plan, &p, FV_BACKEND_CUDA, 0, NULL);
  FVT_CHECK (st == FV_OK, "%s: plan: %s", what, fv_last_error ());
  if (st == FV_OK) {
    fv_image got = run_on (fill_exec, plan, src, device, what);
    long bad = 0;
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++)
        bad += fvt_get (&got, x, y, 0) != want[(size_t) y * w + x];
    FVT_CHECK (bad == 0, "%s: %ld pixels differ from the definition", what, bad);
    fvt_image_free (&got);
    fv_fill_plan_destroy (plan);
  }
  free (want);
}

static void
fill_tests (fvt_rng *rng, const char *data)
{
  fv_image sp1 = fvt_image_new (257, 251, 1, FV_U8, 5, NULL);
  spiral (&sp1, 4);
  fv_image sp2 = fvt_image_new (64, 1000, 1, FV_U8, 0, NULL);
  spiral (&sp2, 3);
  fv_image noise = fvt_image_new (333, 211, 1, FV_U8, 3, rng);
  fv_image tiny = fvt_image_new (3, 7, 1, FV_U8, 1, rng);
  const fv_image *ims[] = { &sp1, &sp2, &noise, &tiny };
  const char *names[] = { "spiral", "tall spiral", "noise", "3x7" };
  for (size_t i = 0; i < NSPREADS; i++)
    for (size_t m = 0; m < 4; m++)
      for (int conn = 4; conn <= 8; conn += 4) {
        char name[80];
        snprintf (name, sizeof name, "%s, %s", names[m], spreads[i].name);
        fill_case (ims[m], conn, (int) (i + m) & 1, 255, &spreads[i].s, name, (int) m & 1);
      }
  fill_case (&sp1, 8, FV_FILL_HOLES, 0, &spreads[1].s, "spiral, value 0", 0);
  fill_case (&sp1, 4, FV_FILL_FILLED, 77, &spreads[2].s, "spiral, value 77", 1);
  /* tiles: a frame whose rows do not fit the budget */
  fv_image wide = fvt_image_new (60000, 24, 1, FV_U8, 0, NULL);
  spiral (&wide, 2);
  fv_spread tiles = { (size_t) 2 << 20, { 0 }, 0, 0 };
  fill_case (&wide, 8, FV_FILL_FILLED, 255, &tiles, "wide spiral, tiles", 0);
  fill_case (&wide, 4, FV_FILL_HOLES, 255, &tiles, "wide spiral, tiles", 1);
  /* a grid of tiles (109 x 2 of 147x64 under this budget, where a row of
   * the frame does not fit): seams across and down, and with 8-way
   * background the diagonal pairs at the tiles' corners */
  fv_image grid_noise = fvt_image_new (16000, 128, 1, FV_U8, 0, rng);
  fv_image grid_spiral = fvt_image_new (16000, 128, 1, FV_U8, 0, NULL);
  spiral (&grid_spiral, 2);
  fv_spread grid = { (size_t) 1411284, { 0 }, 0, 0 };
  for (int conn = 4; conn <= 8; conn += 4) {
    fill_case (&grid_noise, conn, FV_FILL_FILLED, 255, &grid, "noise, grid of tiles", conn == 8);
    FVT_CHECK (fv_chunk_run_last ()->todo >= 100, "grid of tiles: %d chunks",
        fv_chunk_run_last ()->todo);
    fill_case (&grid_spiral, conn, FV_FILL_HOLES, 255, &grid, "spiral, grid of tiles",
        conn == 4);
  }
  fvt_image_free (&grid_noise);
  fvt_image_free (&grid_spiral);
  const char *files[] = { "pic1.pgm", "pic3.pgm", "bw_text.pgm" };
  for (int f = 0; f < 3; f++) {
    char path[1024];
    snprintf (path, sizeof path, "%s/%s", data, files[f]);
    fv_image *im = fvt_load_pnm (path);
    FVT_CHECK (im != NULL, "cannot read %s", path);
    if (!im)
      continue;
    fill_case (im, 8, FV_FILL_FILLED, 255, &spreads[2].s, files[f], 0);
    fill_case (im, 4, FV_FILL_HOLES, 255, &spreads[4].s, files[f], 1);
    fvt_image_free (im);
    free (im);
  }
  int n = fv_cuda_device_count ();
  if (n > 1) {
    fv_spread all = { 0, { 0 }, 0, 0 };
    for (int d = 0; d < n && d < FV_MAX_DEVICE_ENTRIES; d++)
      all.devices[all.ndevices++] = d;
    /* device frames on device 0: the others read and write them in place
     * over peer access, or, with that off, through staging copies */
    fill_case (&sp1, 4, FV_FILL_FILLED, 255, &all, "spiral, all GPUs", 1);
    fill_case (&sp2, 8, FV_FILL_HOLES, 255, &all, "tall spiral, all GPUs", 1);
    fill_case (&noise, 8, FV_FILL_FILLED, 255, &all, "noise, all GPUs", 0);
    /* as users get it: a small frame, which one GPU's whole-frame plan
     * fills faster than two GPUs' chunks with their seams, settles on that
     * plan (no chunks run) after the timed frames, every frame exact */
    {
      fv_fill_params p = { 0 };
      p.width = sp1.width; p.height = sp1.height; p.threshold = 100; p.fill_value = 255;
      p.connectivity = 8; p.spread = all;
      p.spread.keep_spread = 0;
      uint8_t *want = malloc ((size_t) p.width * p.height);
      fvt_ref_fill (&sp1, p.threshold, 8, FV_FILL_FILLED, 255, want);
      fv_fill_plan *plan;
      FVT_CHECK (fv_fill_plan_create (&plan, &p, FV_BACKEND_CUDA, 0, NULL) == FV_OK,
          "fill over all GPUs: plan: %s", fv_last_error ());
      for (int f = 0; f < 8; f++) {
        fv_image got = run_on (fill_exec, plan, &sp1, f & 1, "fill over all GPUs, chosen");
        const fv_chunk_run_stats *st = fv_chunk_run_last ();
        long bad = 0;
        for (int y = 0; y < p.height; y++)
          for (int x = 0; x < p.width; x++)
            bad += fvt_get (&got, x, y, 0) != want[(size_t) y * p.width + x];
        FVT_CHECK (bad == 0, "fill over all GPUs, frame %d: %ld pixels differ", f, bad);
        if (f >= 6)
          FVT_CHECK (st->home_only && st->todo == 0, "fill over all GPUs, frame %d: %s", f,
              st->home_only ? "chunks on one device, not the whole-frame plan" : "spread");
        fvt_image_free (&got);
      }
      fv_fill_plan_destroy (plan);
      free (want);
    }
    setenv ("FASTVISION_CHUNK_PEER_DIRECT", "0", 1);
    fill_case (&sp2, 4, FV_FILL_FILLED, 255, &all, "tall spiral, all GPUs, staged", 1);
    unsetenv ("FASTVISION_CHUNK_PEER_DIRECT");
  }
  fvt_image_free (&sp1);
  fvt_image_free (&sp2);
  fvt_image_free (&noise);
  fvt_image_free (&tiny);
  fvt_image_free (&wide);
}

/* ---- detector: groups of pyramid levels ---- */

static void
vj_case (const fv_cascade *c, const fv_image *im, const fv_spread *sp, const char *name,
    int device, double sf)
{
  fv_vj_params p = { im->width, im->height, sf, 3, 0, 0, 0, 0, 0 };
  fv_vj_plan *whole, *split;
  FVT_CHECK (fv_vj_plan_create (&whole, c, &p, FV_BACKEND_CUDA, 0, NULL) == FV_OK, "vj plan");
  p.spread = *sp;
  /* the plan's own allocations (the device's free memory moves with the
   * other tests on the same GPU) */
  const size_t held0 = fv_cuda_allocated ();
  fv_status st = fv_vj_plan_create (&split, c, &p, FV_BACKEND_CUDA, 0, NULL);
  FVT_CHECK (st == FV_OK, "vj %s: plan: %s", name, fv_last_error ());
  /* the budget is each device's: fv_cuda_allocated counts them all */
  int devices = 0;
  for (int i = 0; i < sp->ndevices; i++) {
    int seen = 0;
    for (int j = 0; j < i; j++)
      seen |= sp->devices[j] == sp->devices[i];
    devices += !seen;
  }
  devices = devices ? devices : 1;
  const double used = (double) fv_cuda_allocated () - (double) held0;
  FVT_CHECK (!sp->max_device_bytes || used <= (double) sp->max_device_bytes * devices,
      "vj %s: the plan holds %.1f MB of device memory, over its budget of %.1f MB on each of "
      "%d devices", name, used / 1048576., sp->max_device_bytes / 1048576., devices);
  if (st != FV_OK) {
    fv_vj_plan_destroy (whole);
    return;
  }
  fv_image g = device ? to_device (im) : *im;
  const fv_detection *dw, *ds;
  int nw = 0, ns = 0, rw = 0, rs = 0;
  FVT_CHECK (fv_vj_execute (whole, &g, &dw, &nw) == FV_OK, "vj whole: %s", fv_last_error ());
  st = fv_vj_execute (split, &g, &ds, &ns);
  FVT_CHECK (st == FV_OK, "vj %s: execute: %s", name, fv_last_error ());
  const fv_rect *raw_w = fv_vj_raw (whole, &rw), *raw_s = fv_vj_raw (split, &rs);
  FVT_CHECK (rw > 0, "vj %s: no raw windows to compare", name);
  FVT_CHECK (rw == rs && !memcmp (raw_w, raw_s, sizeof (fv_rect) * rw),
      "vj %s (%s): %d raw windows against %d whole", name, device ? "device" : "host", rs, rw);
  FVT_CHECK (nw == ns && !memcmp (dw, ds, sizeof (fv_detection) * nw),
      "vj %s (%s): %d boxes against %d whole", name, device ? "device" : "host", ns, nw);
  if (device)
    fv_cuda_free (g.data);
  fv_vj_plan_destroy (split);
  fv_vj_plan_destroy (whole);
}

/* An 8K frame of the photo tiled (many faces) under a 64 MB budget. */
static void
big_vj (const fv_cascade *c, const fv_image *photo)
{
  fv_image big = fvt_image_new (7680, 4320, 1, FV_U8, 0, NULL);
  for (int y = 0; y < big.height; y++)
    for (int x = 0; x < big.width; x++)
      ((uint8_t *) big.data)[(size_t) y * big.stride + x] = ((const uint8_t *) photo->data)[
          (size_t) (y % photo->height) * photo->stride + x % photo->width];
  fv_spread mb64 = { (size_t) 64 << 20, { 0 }, 0, 0 };
  vj_case (c, &big, &mb64, "8K at 64 MB", 1, 1.1);
  vj_case (c, &big, &mb64, "8K at 64 MB", 0, 1.2);
  fvt_image_free (&big);
}

static void
vj_tests (const char *data)
{
  char path[1024];
  const char *dir = getenv ("FV_CASCADES");
  snprintf (path, sizeof path, "%s/haarcascades/haarcascade_frontalface_default.xml",
      dir ? dir : "/usr/share/opencv4");
  fv_cascade *c = fv_cascade_load (path);
  FVT_CHECK (c != NULL, "cannot load %s (FV_CASCADES)", path);
  snprintf (path, sizeof path, "%s/haarcascades/haarcascade_upperbody.xml",
      dir ? dir : "/usr/share/opencv4");
  fv_cascade *tilted = fv_cascade_load (path);   /* tilted features */
  FVT_CHECK (tilted != NULL, "cannot load %s (FV_CASCADES)", path);
  snprintf (path, sizeof path, "%s/faces/grace_hopper_matplotlib.pgm", data);
  fv_image *im = fvt_load_pnm (path);
  FVT_CHECK (im != NULL, "cannot read %s", path);
  if (c && tilted && im) {
    /* budgets below one level: levels in bands of window rows */
    fv_spread bands = { (size_t) 3 << 20, { 0 }, 0, 0 };
    vj_case (c, im, &bands, "3 MB budget (bands)", 1, 1.1);
    vj_case (c, im, &bands, "3 MB budget (bands)", 0, 1.2);
    vj_case (tilted, im, &bands, "3 MB budget, tilted features", 0, 1.1);
    fv_spread tight = { (size_t) 6 << 20, { 0, 0 }, 2, 0 };
    vj_case (tilted, im, &tight, "6 MB budget on devices 0,0", 1, 1.1);
    big_vj (c, im);
  }
  if (c && im) {
    for (size_t i = 0; i < NSPREADS; i++) {
      vj_case (c, im, &spreads[i].s, spreads[i].name, (int) i & 1, 1.1);
      vj_case (c, im, &spreads[i].s, spreads[i].name, !(i & 1), 1.3);
    }
    fv_spread small = { (size_t) 8 << 20, { 0 }, 0, 0 };   /* a level or a few a group */
    vj_case (c, im, &small, "8 MB budget", 1, 1.05);
    vj_case (c, im, &small, "8 MB budget", 0, 1.1);
    int n = fv_cuda_device_count ();
    if (n > 1) {
      fv_spread all = { 0, { 0 }, 0, 0 };
      for (int d = 0; d < n && d < FV_MAX_DEVICE_ENTRIES; d++)
        all.devices[all.ndevices++] = d;
      vj_case (c, im, &all, "all GPUs", 1, 1.1);
      vj_case (c, im, &all, "all GPUs", 0, 1.2);
      all.max_device_bytes = (size_t) 3 << 20;
      vj_case (tilted, im, &all, "all GPUs, 3 MB budget", 1, 1.1);
    }
  }
  if (im) {
    fvt_image_free (im);
    free (im);
  }
  fv_cascade_free (c);
  fv_cascade_free (tilted);
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
  p.width = 1500; p.height = 900; p.channels = 1; p.channel_mask = 1; p.sample = FV_U8;
  p.radius_x = p.radius_y = 9; p.mode = FV_BOX_MEAN; p.border = FV_BORDER_MIRROR;
  fv_image src = fvt_image_new (p.width, p.height, 1, FV_U8, 3, rng);
  fv_box_plan *cpu, *gpu;
  FVT_CHECK (fv_box_plan_create (&cpu, &p, FV_BACKEND_CPU, 0, NULL) == FV_OK, "cpu plan");
  for (int d = 0; d < n && d < FV_MAX_DEVICE_ENTRIES; d++)
    p.spread.devices[p.spread.ndevices++] = d;
  p.spread.note = count_note;
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
  char why[256];
  if (fv_cuda_check_device (0, why, sizeof why) != FV_OK) {
    printf ("SKIP: %s\n", why);
    return FVTEST_SKIP;
  }
  fvt_rng rng = { 0x5eed2026 };
  const char *data = argc > 1 ? argv[1] : "tests/data";
  box_tests (&rng);
  conv_tests (&rng);
  fill_tests (&rng, data);
  vj_tests (data);
  choice_tests (&rng);
  return fvt_summary ("chunked CUDA plans");
}
