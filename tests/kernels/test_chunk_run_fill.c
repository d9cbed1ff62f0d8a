/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Chunked and multi-device CUDA plans of the kernels with passes of their
 * own: the fill (two passes and the seams settled between them) bit for
 * bit against the CPU and the reference, and the detector's groups of
 * pyramid levels (the same boxes as one plan), over the spreads of
 * test_chunk_run.c, host and device frames. Skipped (77) without a GPU. */
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

/* The measured holes and parts of a GPU plan against a CPU plan's on the
 * same frame, every field of every region */
static void
same_measure (fv_fill_plan *gpu, const fv_image *src, const fv_fill_params *p, const char *what)
{
  fv_fill_params q = *p;
  memset (&q.frame.spread, 0, sizeof q.frame.spread);
  fv_fill_plan *cpu;
  FVT_CHECK (fv_fill_plan_create (&cpu, &q, FV_BACKEND_CPU, 0, NULL) == FV_OK, "%s: cpu plan",
      what);
  fv_image host = run_on (fill_exec, cpu, src, 0, what);
  for (int parts = 0; parts < 2; parts++) {
    if (parts && !(p->measure & FV_FILL_MEASURE_PARTS))
      continue;
    const fv_fill_region *a, *b;
    int na = -1, nb = -2;
    fv_status st;
    if (parts) {
      fv_fill_parts (cpu, &a, &na);
      st = fv_fill_parts (gpu, &b, &nb);
    } else {
      fv_fill_regions (cpu, &a, &na);
      st = fv_fill_regions (gpu, &b, &nb);
    }
    FVT_CHECK (st == FV_OK, "%s: %s: %s", what, parts ? "parts" : "holes", fv_last_error ());
    int bad = na != nb;
    for (int i = 0; !bad && i < na; i++)
      if (memcmp (&a[i], &b[i], sizeof *a)) {
        fprintf (stderr, "  %s %d:\n", parts ? "part" : "hole", i);
        fvt_print_region ("GPU", &b[i]);
        fvt_print_region ("CPU", &a[i]);
        bad = 1;
      }
    FVT_CHECK (st == FV_OK && !bad, "%s: %d %s, the CPU %d (or a field differs)", what, nb,
        parts ? "parts" : "holes", na);
  }
  fvt_image_free (&host);
  fv_fill_plan_destroy (cpu);
}

static void
fill_case (const fv_image *src, int conn, int output, unsigned value, const fv_spread *sp,
    const char *name, int device, int measure)
{
  const int w = src->width, h = src->height;
  fv_fill_params p = { 0 };
  p.frame.width = w; p.frame.height = h; p.threshold = 100; p.fill_value = value;
  p.connectivity = conn;
  p.output = output; p.frame.spread = *sp; p.measure = measure;
  char what[200];
  snprintf (what, sizeof what, "fill %dx%d conn %d output %d value %u measure %d, %s, %s", w,
      h, conn, output, value, measure, name, device ? "device" : "host");
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
    if (measure)
      same_measure (plan, src, &p, what);
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
        fill_case (ims[m], conn, (int) (i + m) & 1, 255, &spreads[i].s, name, (int) m & 1, 0);
        /* measured too: each chunk on its GPU, the regions joined across the
         * seams (holes, parts, or both, by turns) */
        fill_case (ims[m], conn, (int) (i + m) & 1, 255, &spreads[i].s, name, (int) m & 1,
            (int) (i + m + conn / 4) % 3 + 1);
      }
  fill_case (&sp1, 8, FV_FILL_HOLES, 0, &spreads[1].s, "spiral, value 0", 0, 3);
  fill_case (&sp1, 4, FV_FILL_FILLED, 77, &spreads[2].s, "spiral, value 77", 1, 3);
  /* tiles: a frame whose rows do not fit the budget */
  fv_image wide = fvt_image_new (60000, 24, 1, FV_U8, 0, NULL);
  spiral (&wide, 2);
  fv_spread tiles = { (size_t) 2 << 20, { 0 }, 0, 0 };
  fill_case (&wide, 8, FV_FILL_FILLED, 255, &tiles, "wide spiral, tiles", 0, 0);
  fill_case (&wide, 4, FV_FILL_HOLES, 255, &tiles, "wide spiral, tiles", 1, 0);
  fill_case (&wide, 8, FV_FILL_FILLED, 255, &tiles, "wide spiral, tiles", 0, 3);
  fill_case (&wide, 4, FV_FILL_HOLES, 255, &tiles, "wide spiral, tiles", 1, 3);
  /* a grid of tiles (109 x 2 of 147x64 under this budget, where a row of
   * the frame does not fit): seams across and down, and with 8-way
   * background the diagonal pairs at the tiles' corners */
  fv_image grid_noise = fvt_image_new (16000, 128, 1, FV_U8, 0, rng);
  fv_image grid_spiral = fvt_image_new (16000, 128, 1, FV_U8, 0, NULL);
  spiral (&grid_spiral, 2);
  fv_spread grid = { (size_t) 1411284, { 0 }, 0, 0 };
  for (int conn = 4; conn <= 8; conn += 4) {
    for (int measure = 0; measure <= 3; measure += 3) {
      /* measuring, a chunk holds its labels too: a larger budget for a grid
       * of about as many tiles */
      fv_spread g = grid;
      g.max_device_bytes += measure ? 700000 : 0;
      fill_case (&grid_noise, conn, FV_FILL_FILLED, 255, &g, "noise, grid of tiles",
          conn == 8, measure);
      fprintf (stderr, "grid of tiles, measure %d: %d chunks\n", measure,
          fv_chunk_run_last ()->todo);
      FVT_CHECK (fv_chunk_run_last ()->todo >= 50, "grid of tiles: %d chunks",
          fv_chunk_run_last ()->todo);
      fill_case (&grid_spiral, conn, FV_FILL_HOLES, 255, &g, "spiral, grid of tiles",
          conn == 4, measure);
    }
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
    fill_case (im, 8, FV_FILL_FILLED, 255, &spreads[2].s, files[f], 0, f == 2 ? 3 : 0);
    fill_case (im, 4, FV_FILL_HOLES, 255, &spreads[4].s, files[f], 1, 3);
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
    fill_case (&sp1, 4, FV_FILL_FILLED, 255, &all, "spiral, all GPUs", 1, 3);
    fill_case (&sp2, 8, FV_FILL_HOLES, 255, &all, "tall spiral, all GPUs", 1, 0);
    fill_case (&noise, 8, FV_FILL_FILLED, 255, &all, "noise, all GPUs", 0, 3);
    /* as users get it: a small frame (which one GPU's whole-frame plan
     * usually fills faster than two GPUs' chunks with their seams) settles
     * after the timed frames on the way that the runner timed faster, and
     * keeps it; on one device, that is the whole-frame plan (no chunks
     * run); every frame exact. Which way wins is the machine's to say:
     * with other work on device 0 the spread can be faster. */
    {
      fv_fill_params p = { 0 };
      p.frame.width = sp1.width; p.frame.height = sp1.height; p.threshold = 100; p.fill_value = 255;
      p.connectivity = 8; p.frame.spread = all;
      p.frame.spread.keep_spread = 0;
      uint8_t *want = malloc ((size_t) p.frame.width * p.frame.height);
      fvt_ref_fill (&sp1, p.threshold, 8, FV_FILL_FILLED, 255, want);
      fv_fill_plan *plan;
      FVT_CHECK (fv_fill_plan_create (&plan, &p, FV_BACKEND_CUDA, 0, NULL) == FV_OK,
          "fill over all GPUs: plan: %s", fv_last_error ());
      for (int f = 0; f < 8; f++) {
        fv_image got = run_on (fill_exec, plan, &sp1, f & 1, "fill over all GPUs, chosen");
        const fv_chunk_run_stats *st = fv_chunk_run_last ();
        long bad = 0;
        for (int y = 0; y < p.frame.height; y++)
          for (int x = 0; x < p.frame.width; x++)
            bad += fvt_get (&got, x, y, 0) != want[(size_t) y * p.frame.width + x];
        FVT_CHECK (bad == 0, "fill over all GPUs, frame %d: %ld pixels differ", f, bad);
        if (f >= 6) {   /* settled */
          FVT_CHECK (st->home_ms > 0 && st->spread_ms > 0, "fill over all GPUs, frame %d: "
              "no timings (%g, %g ms)", f, st->home_ms, st->spread_ms);
          FVT_CHECK (st->home_only == (st->home_ms < st->spread_ms), "fill over all GPUs, "
              "frame %d: %s chosen, timed %.3f ms on one device and %.3f spread", f,
              st->home_only ? "one device" : "spread", st->home_ms, st->spread_ms);
          FVT_CHECK (!st->home_only || st->todo == 0, "fill over all GPUs, frame %d: chunks on "
              "one device, not the whole-frame plan", f);
          FVT_CHECK (st->home_only || st->todo > 1, "fill over all GPUs, frame %d: spread, %d "
              "chunks", f, st->todo);
          if (f == 7)
            printf ("fill over all GPUs, the 257x251 spiral: %s (%.3f ms on one device, %.3f "
                "spread)\n", st->home_only ? "one device" : "spread", st->home_ms,
                st->spread_ms);
        }
        fvt_image_free (&got);
      }
      fv_fill_plan_destroy (plan);
      free (want);
    }
    setenv ("FASTVISION_CHUNK_PEER_DIRECT", "0", 1);
    fill_case (&sp2, 4, FV_FILL_FILLED, 255, &all, "tall spiral, all GPUs, staged", 1, 3);
    unsetenv ("FASTVISION_CHUNK_PEER_DIRECT");
    /* the others' bands read and written in place (no bits from the
     * frame's GPU), and sent as bits in three pieces (the default: 4) */
    setenv ("FASTVISION_FILL_PIECES", "0", 1);
    fill_case (&sp1, 8, FV_FILL_FILLED, 255, &all, "spiral, all GPUs, read in place", 0, 3);
    setenv ("FASTVISION_FILL_PIECES", "3", 1);
    fill_case (&sp2, 8, FV_FILL_HOLES, 255, &all, "tall spiral, all GPUs, bits in 3 pieces",
        1, 3);
    fill_case (&noise, 4, FV_FILL_FILLED, 255, &all, "noise, all GPUs, bits in 3 pieces",
        0, 0);
    unsetenv ("FASTVISION_FILL_PIECES");
  }
  /* the way of a band whose device frame lies on another GPU, on one GPU
   * (FASTVISION_FILL_HOME_HERE): the frame's GPU packs each chunk into bits
   * on a stream of its own, the chunk's plan labels the pieces as they
   * come and the frame's GPU writes the pixels back from the bits; as many
   * pieces as by default, 1, 3, and more than the chunks have tile rows;
   * spread, in chunks, more chunks than entries (first passes run again),
   * tiles of a grid, measured; a host frame's chunks staged on the GPU
   * take it too */
  setenv ("FASTVISION_FILL_HOME_HERE", "1", 1);
  {
    fv_spread two = spreads[3].s;
    two.keep_spread = 1;
    fill_case (&sp1, 4, FV_FILL_FILLED, 255, &two, "spiral, 0,0 spread, through the home", 1,
        3);
    fill_case (&sp1, 8, FV_FILL_HOLES, 255, &two, "spiral, 0,0 spread, host frame, staged "
        "through the home", 0, 3);
    fill_case (&noise, 8, FV_FILL_FILLED, 255, &spreads[2].s, "noise, 13 chunks, through the "
        "home", 1, 2);
    fill_case (&sp2, 8, FV_FILL_HOLES, 255, &spreads[4].s, "tall spiral, 0,0,0 x 7, through "
        "the home", 1, 0);
    const char *pieces[] = { "1", "3", "64" };
    for (int k = 0; k < 3; k++) {
      setenv ("FASTVISION_FILL_PIECES", pieces[k], 1);
      char name[120];
      snprintf (name, sizeof name, "tall spiral, 0,0 spread, through the home in %s pieces",
          pieces[k]);
      fill_case (&sp2, 4 + 4 * (k & 1), FV_FILL_FILLED, 77, &two, name, 1, k + 1);
      snprintf (name, sizeof name, "noise, 3 chunks, through the home in %s pieces", pieces[k]);
      fill_case (&noise, 8 - 4 * (k & 1), FV_FILL_HOLES, 255, &spreads[1].s, name, 1, 3);
      snprintf (name, sizeof name, "3x7, 2 chunks, through the home in %s pieces", pieces[k]);
      fill_case (&tiny, 4, FV_FILL_FILLED, 255, &spreads[0].s, name, 1, 3);
    }
    unsetenv ("FASTVISION_FILL_PIECES");
    fv_image grid_noise = fvt_image_new (16000, 128, 1, FV_U8, 0, rng);
    fv_spread grid = { (size_t) 1411284 + 700000, { 0 }, 0, 0 };
    fill_case (&grid_noise, 8, FV_FILL_FILLED, 255, &grid, "noise, grid of tiles, through the "
        "home", 1, 3);
    fvt_image_free (&grid_noise);
    char path[1024];
    snprintf (path, sizeof path, "%s/%s", data, "pic3.pgm");
    fv_image *im = fvt_load_pnm (path);
    FVT_CHECK (im != NULL, "cannot read %s", path);
    if (im) {
      fill_case (im, 4, FV_FILL_HOLES, 255, &two, "pic3.pgm, 0,0 spread, through the home", 1,
          3);
      fvt_image_free (im);
      free (im);
    }
  }
  unsetenv ("FASTVISION_FILL_HOME_HERE");
  fvt_image_free (&sp1);
  fvt_image_free (&sp2);
  fvt_image_free (&noise);
  fvt_image_free (&tiny);
  fvt_image_free (&wide);
}

/* ---- the fill measuring over several devices, and in chunks ---- */

/* Over devices 0,0 as users get it and always spread, in chunks, and over
 * devices 0,1 where there are two (the runner times spreading against the
 * whole frame on one device and keeps the faster: both ways run in the
 * first frames): every frame's holes and parts those of the CPU, every
 * field; the plan is reused frame after frame. */
static void
measure_over_devices (const char *data)
{
  char path[1024];
  snprintf (path, sizeof path, "%s/%s", data, "pic1.pgm");
  fv_image *im = fvt_load_pnm (path);
  FVT_CHECK (im != NULL, "cannot read %s", path);
  if (!im)
    return;
  fv_fill_params p = { .frame.width = im->width, .frame.height = im->height, .threshold = 127,
      .fill_value = 255, .connectivity = 4, .output = FV_FILL_FILLED,
      .measure = FV_FILL_MEASURE_BOTH };
  const int n = fv_cuda_device_count ();
  for (int way = 0; way < 3 + (n > 1); way++) {
    fv_fill_params q = p;
    const char *names[] = { "devices 0,0, chosen", "devices 0,0, spread", "in 6 chunks",
      "devices 0,1, chosen" };
    if (way != 2) {
      q.frame.spread.devices[0] = 0;
      q.frame.spread.devices[1] = way == 3 ? 1 : 0;
      q.frame.spread.ndevices = 2;
      q.frame.spread.keep_spread = way == 1;
    } else {
      q.frame.spread.min_chunks = 6;
    }
    q.connectivity = way == 1 ? 8 : 4;
    fv_fill_plan *gpu;
    fv_status st = fv_fill_plan_create (&gpu, &q, FV_BACKEND_CUDA, 0, NULL);
    FVT_CHECK (st == FV_OK, "measure %s: plan: %s", names[way], fv_last_error ());
    if (st != FV_OK)
      continue;
    int spread = 0, whole = 0;
    for (int f = 0; f < 8; f++) {
      char what[120];
      snprintf (what, sizeof what, "measure %s, frame %d", names[way], f);
      fv_image got = run_on (fill_exec, gpu, im, f & 1, what);
      const fv_chunk_run_stats *rs = fv_chunk_run_last ();
      spread += rs->todo > 0;
      whole += rs->todo == 0;
      same_measure (gpu, im, &q, what);
      fvt_image_free (&got);
    }
    /* the runner chooses between two GPUs, not between lanes of one */
    FVT_CHECK (way == 3 ? spread > 0 && whole > 0 : spread == 8,
        "measure %s: %d frames spread, %d whole", names[way], spread, whole);
    fv_fill_plan_destroy (gpu);
  }
  fvt_image_free (im);
  free (im);
}

/* ---- detector: groups of pyramid levels ---- */

static void
vj_case (const fv_cascade *c, const fv_image *im, const fv_spread *sp, const char *name,
    int device, double sf)
{
  fv_vj_params p = { .frame.width = im->width, .frame.height = im->height, .scale_factor = sf,
      .min_neighbors = 3 };
  fv_vj_plan *whole, *split;
  FVT_CHECK (fv_vj_plan_create (&whole, c, &p, FV_BACKEND_CUDA, 0, NULL) == FV_OK, "vj plan");
  p.frame.spread = *sp;
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

int
main (int argc, char **argv)
{
  if (!have_gpu ())
    return FVTEST_SKIP;
  fvt_rng rng = { 0x5eed2026 };
  const char *data = argc > 1 ? argv[1] : "tests/data";
  /* a third argument runs only the parts it names (fill, measure, vj:
   * under compute-sanitizer, say) */
  const char *only = argc > 2 ? argv[2] : "fill,measure,vj";
  if (strstr (only, "fill"))
    fill_tests (&rng, data);
  if (strstr (only, "measure"))
    measure_over_devices (data);
  if (strstr (only, "vj"))
    vj_tests (data);
  return fvt_summary ("chunked CUDA plans, fill and detector");
}
