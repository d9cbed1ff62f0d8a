/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The chunk planner against its definition, on random and awkward sizes:
 * outputs cover every pixel exactly once; each input is its output grown
 * by the halo and clipped to the frame; every chunk fits the budget;
 * bands of whole rows whenever a band fits, and then the fewest; every
 * device gets work when the frame allows; a budget that holds nothing is
 * refused with the figures; and the order every kernel's planner keeps
 * (fv_plan_choose). */
#include <stdlib.h>
#include <string.h>
#include "fvtest.h"
#include "fv_window.h"
#include "fv_chunk.h"
#include "fv_planner.h"
#include "fv_config.h"
#include <glib.h>

static void
check_plan (const fv_chunk_params *p, const char *what)
{
  fv_chunk_plan plan;
  fv_status st = fv_chunk_plan_make (p, &plan);
  FVT_CHECK (st == FV_OK, "%s: %s", what, fv_last_error ());
  if (st != FV_OK)
    return;
  const int W = p->width, H = p->height;
  unsigned char *hits = calloc ((size_t) W * H, 1);
  int *per_device = calloc (p->ndevices, sizeof (int));
  long bad_in = 0, over = 0, twice = 0;
  for (int k = 0; k < plan.n; k++) {
    const fv_chunk *c = &plan.chunk[k];
    for (int y = c->out.y; y < c->out.y + c->out.h; y++)
      for (int x = c->out.x; x < c->out.x + c->out.w; x++)
        twice += hits[(size_t) y * W + x]++ != 0;
    int x0 = c->out.x - p->halo_x < 0 ? 0 : c->out.x - p->halo_x;
    int y0 = c->out.y - p->halo_y < 0 ? 0 : c->out.y - p->halo_y;
    int x1 = c->out.x + c->out.w + p->halo_x > W ? W : c->out.x + c->out.w + p->halo_x;
    int y1 = c->out.y + c->out.h + p->halo_y > H ? H : c->out.y + c->out.h + p->halo_y;
    bad_in += c->in.x != x0 || c->in.y != y0 || c->in.w != x1 - x0 || c->in.h != y1 - y0;
    over += fv_chunk_bytes (p, &c->in) > p->budget;
    if (c->device >= 0 && c->device < p->ndevices)
      per_device[c->device]++;
    else
      over++;
  }
  long missed = 0;
  for (size_t i = 0; i < (size_t) W * H; i++)
    missed += hits[i] == 0;
  FVT_CHECK (!missed && !twice, "%s: %ld pixels missed, %ld covered twice", what, missed, twice);
  FVT_CHECK (!bad_in, "%s: %ld inputs are not the output grown by the halo", what, bad_in);
  FVT_CHECK (!over, "%s: %ld chunks over the budget or on no device", what, over);
  /* whole rows when one band of some height fits: full-width bands, and
   * no fewer would do (one band less would need taller ones) */
  size_t row_bytes = (size_t) W * p->bytes_per_pixel;
  int h_fit = p->budget > p->fixed_bytes ? (int) ((p->budget - p->fixed_bytes) / row_bytes) : 0;
  /* align_y: bands start on whole blocks, the blocks split as evenly as
   * can be, unless there are fewer blocks than bands or no block fits */
  const int A = p->align_y;
  if (A > 1 && plan.cols == 1) {
    const int units = (H + A - 1) / A, fit = h_fit >= H ? H : h_fit - 2 * p->halo_y;
    int off = 0, lo = units, hi = 0;
    for (int k = 0; k < plan.n; k++) {
      const fv_chunk *c = &plan.chunk[k];
      off += c->out.y % A != 0;
      const int u = (c->out.h + A - 1) / A;
      lo = k < plan.n - 1 && u < lo ? u : lo;
      hi = u > hi ? u : hi;
    }
    FVT_CHECK (!off || plan.n > units || fit < A, "%s: %d bands off the %d-row blocks", what,
        off, A);
    FVT_CHECK (off || plan.n < 2 || hi - lo <= 1, "%s: bands of %d to %d blocks", what, lo, hi);
  }
  if ((h_fit >= H || h_fit - 2 * p->halo_y >= 1) && A <= 1) {
    FVT_CHECK (plan.cols == 1, "%s: a band fits, yet %d columns", what, plan.cols);
    int band = h_fit >= H ? H : h_fit - 2 * p->halo_y;
    int fewest = (H + band - 1) / band;
    if (p->ndevices > 1)   /* the same number of bands each */
      fewest = (fewest + p->ndevices - 1) / p->ndevices * p->ndevices < H
          ? (fewest + p->ndevices - 1) / p->ndevices * p->ndevices : H;
    FVT_CHECK (plan.n == fewest, "%s: %d bands where %d do", what, plan.n, fewest);
  }
  if (plan.n >= p->ndevices)
    for (int d = 0; d < p->ndevices; d++)
      FVT_CHECK (per_device[d] > 0, "%s: device %d has nothing", what, d);
  FVT_CHECK (plan.redundancy >= 0, "%s: redundancy %g", what, plan.redundancy);
  free (hits);
  free (per_device);
  fv_chunk_plan_free (&plan);
}

/* fv_window.h against its definition, every case of small axes: the
 * length is that of [lo - r, hi + r) inside [0, size); a window of any
 * length from that up to size starts where it holds those samples, lies
 * inside the axis, and is the nearest such start to lo - r. */
static void
check_windows (void)
{
  for (int size = 1; size <= 12; size++)
    for (int lo = 0; lo < size; lo++)
      for (int hi = lo + 1; hi <= size; hi++)
        for (int r = 0; r <= 14; r++) {
          int need0 = lo - r < 0 ? 0 : lo - r, need1 = hi + r > size ? size : hi + r;
          const int len = fv_window_length (lo, hi, r, size);
          FVT_CHECK (len == need1 - need0, "length of [%d,%d)+%d in %d: %d", lo, hi, r, size,
              len);
          for (int w = len; w <= size; w++) {
            const int s = fv_window_start (lo, r, w, size);
            int best = -1;   /* the valid start nearest lo - r, by search */
            for (int c = 0; c + w <= size; c++)
              if (c <= need0 && c + w >= need1
                  && (best < 0 || abs (c - (lo - r)) < abs (best - (lo - r))))
                best = c;
            FVT_CHECK (s == best, "start of %d samples for [%d,%d)+%d in %d: %d, wanted %d", w,
                lo, hi, r, size, s, best);
          }
        }
}

/* fv_plan_choose, the one order of every kernel's planner (fv_planner.h):
 * a back end not in the build or unknown is refused; chunks only for a
 * CUDA plan of a whole frame whose spread asks for them (forced chunks,
 * several devices) or whose device bytes pass the budget; the host bytes
 * of the row chosen against FASTVISION_MAX_MEMORY_MB, refused naming the
 * plan. No device is asked: every case here decides without one. */
static void
plan_choose (void)
{
  static const int leaf = 1;   /* a table entry that exists */
  fv_frame forced = { 0 };
  forced.width = forced.height = 64;
  forced.spread.min_chunks = 2;
  int chunked = -1;
  fv_plan_choice c = { FV_BACKEND_CPU, &leaf, &forced, 0, { 1000, 1000 }, "a test plan" };
  FVT_CHECK (fv_plan_choose (&c, 0, &chunked) == FV_OK && chunked == 0,
      "CPU: %d chunked, %s", chunked, fv_last_error ());
  c.backend = (fv_backend) 7;
  FVT_CHECK (fv_plan_choose (&c, 0, &chunked) == FV_ERR_INVALID, "backend 7 accepted");
  c.backend = FV_BACKEND_CUDA;
  c.leaf_init = NULL;
  FVT_CHECK (fv_plan_choose (&c, 0, &chunked) == FV_ERR_NO_CUDA, "CUDA absent, not refused");
#if FV_HAVE_CUDA
  fv_frame none = forced, two = forced, never = forced, window = forced;
  none.spread.min_chunks = never.spread.min_chunks = 0;
  two.spread.ndevices = 2;
  two.spread.devices[1] = 1;
  never.spread.max_device_bytes = (size_t) -1;
  window.roi_width = window.roi_height = 8;   /* a window of the frame */
  c.leaf_init = &leaf;
  g_setenv ("FASTVISION_MAX_MEMORY_MB", "1", TRUE);
  c.host_bytes[0] = 1e12;   /* the whole-frame plan would not fit; its chunked row does */
  FVT_CHECK (fv_plan_choose (&c, 0, &chunked) == FV_OK && chunked == 1,
      "forced chunks: %d chunked, %s", chunked, fv_last_error ());
  c.frame = &two;
  FVT_CHECK (fv_plan_choose (&c, 0, &chunked) == FV_OK && chunked == 1, "two devices: %d",
      chunked);
  c.frame = &window;   /* a window, chunks forced: the leaf, whose host bytes pass the limit */
  FVT_CHECK (fv_plan_choose (&c, 0, &chunked) == FV_ERR_INVALID && chunked == 0
      && strstr (fv_last_error (), "a test plan") && strstr (fv_last_error (), "more than the 1 MB"),
      "a window over the limit: %s", fv_last_error ());
  c.frame = &never;
  c.device_bytes = (size_t) 1 << 50;   /* never chunked, however large */
  c.host_bytes[0] = 1000;
  FVT_CHECK (fv_plan_choose (&c, 0, &chunked) == FV_OK && chunked == 0, "never: %d chunked",
      chunked);
  c.frame = &none;
  c.device_bytes = 0;   /* no device bytes: chunks only where the spread asks */
  FVT_CHECK (fv_plan_choose (&c, 0, &chunked) == FV_OK && chunked == 0, "none: %d chunked",
      chunked);
  g_unsetenv ("FASTVISION_MAX_MEMORY_MB");
#endif
}

int
main (void)
{
  plan_choose ();
  /* the whole frame fits: one chunk, no redundancy */
  fv_chunk_params p = { 640, 480, 5, 0, 15, 15, (size_t) 640 * 480 * 5, 1 };
  fv_chunk_plan plan;
  FVT_CHECK (fv_chunk_plan_make (&p, &plan) == FV_OK && plan.n == 1 && plan.redundancy == 0
      && plan.chunk[0].in.w == 640 && plan.chunk[0].in.h == 480, "whole frame: %d chunks", plan.n);
  fv_chunk_plan_free (&plan);
  /* 8K GRAY8 with a 64 MB budget, r = 15: bands */
  fv_chunk_params k8 = { 7680, 4320, 9, 1 << 20, 15, 15, 64u << 20, 1 };
  check_plan (&k8, "8K in 64 MB");
  FVT_CHECK (fv_chunk_plan_make (&k8, &plan) == FV_OK && plan.cols == 1 && plan.n >= 2,
      "8K: %d x %d", plan.cols, plan.rows);
  printf ("8K GRAY8, 9 bytes a pixel, 64 MB: %d bands, %.2f%% read twice\n", plan.n,
      100 * plan.redundancy);
  fv_chunk_plan_free (&plan);
  /* 32768^2 in 1 GB; the same on two devices, and the same GPU twice */
  fv_chunk_params g = { 32768, 32768, 9, 0, 100, 100, 1u << 30, 1 };
  check_plan (&g, "32768^2 in 1 GB");
  g.ndevices = 2;
  check_plan (&g, "32768^2 on two devices");
  /* rows too wide for the budget: tiles, chunks narrower than the halo */
  fv_chunk_params t = { 5000, 300, 4, 0, 40, 7, 12000, 1 };
  check_plan (&t, "tiles with a wide halo");
  FVT_CHECK (fv_chunk_plan_make (&t, &plan) == FV_OK && plan.cols > 1, "tiles: %d columns",
      plan.cols);
  fv_chunk_plan_free (&plan);
  /* awkward sizes, random budgets and halos, one to four devices */
  fvt_rng rng = { 42 };
  int sizes[][2] = { {1, 1}, {3, 7}, {7, 3}, {1, 999}, {999, 1}, {257, 129}, {1001, 63} };
  for (unsigned s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
    for (int trial = 0; trial < 40; trial++) {
      fv_chunk_params r = { sizes[s][0], sizes[s][1], 1 + fvt_next (&rng) % 12,
        fvt_next (&rng) % 3 ? 0 : fvt_next (&rng) % 500, (int) (fvt_next (&rng) % 40),
        (int) (fvt_next (&rng) % 40), 0, 1 + (int) (fvt_next (&rng) % 4) };
      size_t one = r.fixed_bytes + (size_t) ((2 * r.halo_x + 1) < r.width ? 2 * r.halo_x + 1
          : r.width) * ((2 * r.halo_y + 1) < r.height ? 2 * r.halo_y + 1 : r.height)
          * r.bytes_per_pixel;
      r.budget = one + fvt_next (&rng) % (1 + (size_t) r.width * r.height * r.bytes_per_pixel);
      char what[96];
      snprintf (what, sizeof what, "%dx%d halo %d,%d budget %zu on %d", r.width, r.height,
          r.halo_x, r.halo_y, r.budget, r.ndevices);
      check_plan (&r, what);
    }
  /* align_y (the convolution's rows of tiles): 32768^2 over two devices
   * in 12 bands of whole 994-row blocks, 33 blocks (9 bands of 3, 3 of 2,
   * the last one short), every band's output starting on a block; in a
   * budget that holds bands of 2,500 rows, bands of 2 blocks (1,988 rows);
   * random frames and blocks */
  fv_chunk_params a0 = { 32768, 32768, 4, 1 << 20, 15, 15, (size_t) 64 << 30, 2, 994 };
  fv_status ast = fv_chunk_plan_make (&a0, &plan);
  int off = 0, blocks = 0;
  for (int k = 0; ast == FV_OK && k < plan.n; k++) {
    off += plan.chunk[k].out.y % 994 != 0;
    blocks += (plan.chunk[k].out.h + 993) / 994;
  }
  FVT_CHECK (ast == FV_OK && plan.n == 2 && !off && blocks == 33,
      "32768^2 on 2 devices, 994-row blocks: %d bands, %d off, %d blocks", plan.n, off, blocks);
  fv_chunk_plan_free (&plan);
  a0.ndevices = 12;   /* as the runner asks for 6 an entry over two */
  ast = fv_chunk_plan_make (&a0, &plan);
  off = blocks = 0;
  for (int k = 0; ast == FV_OK && k < plan.n; k++) {
    off += plan.chunk[k].out.y % 994 != 0;
    blocks += (plan.chunk[k].out.h + 993) / 994;
  }
  FVT_CHECK (ast == FV_OK && plan.n == 12 && !off && blocks == 33,
      "32768^2 in 12 bands of 994-row blocks: %d bands, %d off, %d blocks", plan.n, off, blocks);
  check_plan (&a0, "32768^2, 12 bands of 994-row blocks");
  fv_chunk_plan_free (&plan);
  a0.ndevices = 1;
  a0.budget = (1 << 20) + (size_t) 4 * 32768 * (2500 + 30);
  check_plan (&a0, "32768^2 in bands of 2500 rows, 994-row blocks");
  ast = fv_chunk_plan_make (&a0, &plan);
  FVT_CHECK (ast == FV_OK && plan.cols == 1 && plan.chunk[0].out.h == 1988
      && plan.chunk[1].out.y == 1988, "bands of 2500 rows fit: the first %d high, %d bands",
      ast == FV_OK ? plan.chunk[0].out.h : -1, plan.n);
  fv_chunk_plan_free (&plan);
  for (int trial = 0; trial < 300; trial++) {
    fv_chunk_params r = { 1 + (int) (fvt_next (&rng) % 3000), 1 + (int) (fvt_next (&rng) % 3000),
      1 + fvt_next (&rng) % 12, 0, (int) (fvt_next (&rng) % 40), (int) (fvt_next (&rng) % 40),
      0, 1 + (int) (fvt_next (&rng) % 4), (int) (fvt_next (&rng) % 600) };
    r.budget = (size_t) (2 * r.halo_x + 1) * (2 * r.halo_y + 1) * r.bytes_per_pixel
        + fvt_next (&rng) % (1 + (size_t) r.width * r.height * r.bytes_per_pixel);
    char what[120];
    snprintf (what, sizeof what, "%dx%d halo %d,%d budget %zu on %d, blocks of %d rows",
        r.width, r.height, r.halo_x, r.halo_y, r.budget, r.ndevices, r.align_y);
    check_plan (&r, what);
  }
  /* too small a budget: refused, saying how much one pixel needs */
  fv_chunk_params tiny = { 100, 100, 4, 0, 10, 10, 100, 1 };
  FVT_CHECK (fv_chunk_plan_make (&tiny, &plan) == FV_ERR_NOMEM
      && strstr (fv_last_error (), "holds no chunk"), "tiny budget: %s", fv_last_error ());
  fv_chunk_params bad = { 0, 10, 4, 0, 1, 1, 1000, 1 };
  FVT_CHECK (fv_chunk_plan_make (&bad, &plan) == FV_ERR_INVALID, "a 0-wide frame accepted");
  check_windows ();
  return fvt_summary ("test_chunk");
}
