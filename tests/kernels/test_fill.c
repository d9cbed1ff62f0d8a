/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* autofill's kernel against a plain breadth-first fill from the border,
 * pixel for pixel: random blobs, the real binary images, and the hard
 * shapes (spirals, snaking corridors, one-pixel gaps, contours on the
 * border, nested rings, checkerboards, empty and full frames, 1xN, Nx1,
 * odd widths, padded strides), both connectivities, both outputs, on the
 * CPU with one and several threads and, with --cuda, on the GPU. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "fvtest.h"
#include "fv_fill.h"
#include "fv_cuda.h"
#include "fv_fill_plan.h"

static fv_backend backend = FV_BACKEND_CPU;

/* Every field of every region, in order, against the reference's. */
static void
same_regions (const char *name, const char *what, const fv_image *src, int conn,
    const fv_fill_region *got, int n, const fvt_region *ref, int nref)
{
  FVT_CHECK (n == nref, "%s %dx%d conn %d: %d %s, want %d", name, src->width, src->height,
      conn, n, what, nref);
  int bad = 0;
  for (int i = 0; i < n && i < nref; i++)
    if (memcmp (&got[i], &ref[i], sizeof got[i]) && bad++ < 3) {
      fprintf (stderr, "  %s %s %d:\n", name, what, i);
      fvt_print_region ("got ", &got[i]);
      fvt_print_region ("want", &ref[i]);
    }
  FVT_CHECK (bad == 0, "%s %dx%d conn %d: %d %s differ", name, src->width, src->height, conn,
      bad, what);
}

/* The plan's holes (and parts) of the frame just filled against the
 * reference's. */
static void
check_regions (const char *name, fv_fill_plan *plan, const fv_image *src, unsigned thr,
    int conn, const uint8_t *want, int measure)
{
  fvt_region *ref, *ref_parts = NULL;
  const int nref = fvt_ref_regions (src, thr, conn, want, &ref);
  const int nparts = measure & FV_FILL_MEASURE_PARTS
      ? fvt_ref_parts (src, thr, conn, want, ref, nref, &ref_parts) : 0;
  const fv_fill_region *got;
  int n = -1;
  fv_status st = fv_fill_regions (plan, &got, &n);
  FVT_CHECK (st == FV_OK, "%s: regions: %s", name, fv_last_error ());
  if (st == FV_OK)
    same_regions (name, "holes", src, conn, got, n, ref, nref);
  st = fv_fill_parts (plan, &got, &n);
  FVT_CHECK ((st == FV_OK) == !!(measure & FV_FILL_MEASURE_PARTS), "%s: parts: %s", name,
      fv_last_error ());
  if (st == FV_OK)
    same_regions (name, "parts", src, conn, got, n, ref_parts, nparts);
  free (ref);
  free (ref_parts);
}

/* ---- regions of chunks joined across their seams ----
 * What a chunked CUDA plan does (fv_fill_chunked.c), with the chunks'
 * regions from the reference instead of the GPU, so that the join
 * (fv_fill_chunk_measure.c) is tested everywhere: each chunk of a grid
 * labelled as a frame of its own from the whole frame's fill, joined, and
 * every field of every hole and part compared with the whole frame's. */

/* Chunk (x, y, w, h)'s pieces from the reference (want: the whole frame's
 * fill, on where filled) */
static void
ref_pieces (const fv_image *src, unsigned thr, int conn, const uint8_t *want, int x0, int y0,
    int w, int h, fv_fill_pieces *pc)
{
  *pc = (fv_fill_pieces) { .x = x0, .y = y0, .w = w, .h = h };
  uint8_t *in = malloc ((size_t) w * h);
  int *label[2] = { malloc (sizeof (int) * w * h), malloc (sizeof (int) * w * h) };
  for (int k = 0; k < 2; k++) {
    for (int y = 0; y < h; y++)
      for (int x = 0; x < w; x++) {
        const int c = fvt_get (src, x0 + x, y0 + y, 0) > thr;
        const int on = want[(size_t) (y0 + y) * src->width + x0 + x] != 0;
        in[(size_t) y * w + x] = k ? c || on : !c && on;
      }
    pc->n[k] = fvt_ref_label (w, h, in, k ? 12 - conn : conn, label[k], &pc->rows[k]);
    pc->first[k] = malloc (sizeof (int) * (pc->n[k] + 1));
    for (int i = w * h - 1; i >= 0; i--)   /* the first pixel of each, last written */
      if (label[k][i] >= 0)
        pc->first[k][label[k][i]] = i;
    pc->edge[k] = malloc (sizeof (int) * 2 * (w + h));
    for (int i = 0; i < w; i++) {
      pc->edge[k][i] = label[k][i];
      pc->edge[k][w + i] = label[k][(size_t) (h - 1) * w + i];
    }
    for (int i = 0; i < h; i++) {
      pc->edge[k][2 * w + i] = label[k][(size_t) i * w];
      pc->edge[k][2 * w + h + i] = label[k][(size_t) i * w + w - 1];
    }
  }
  for (int i = 0; i < pc->n[0]; i++)   /* a hole's part: the one under its first pixel */
    pc->rows[0][i].part = label[1][pc->first[0][i]];
  /* the kind joined 4-ways: diagonal pixels of two of its regions with
   * neither other pixel of their 2x2 block set (every one, not only those
   * of regions on the chunk's edge: the join must ignore the rest) */
  const int *L = label[conn == 4 ? 0 : 1];
  pc->contacts = malloc (sizeof (int) * 3 * (size_t) w * h + 1);
  for (int y = 0; y + 1 < h; y++)
    for (int x = 0; x + 1 < w; x++) {
      const int p = L[(size_t) y * w + x], q = L[(size_t) (y + 1) * w + x + 1];
      const int r = L[(size_t) y * w + x + 1], t = L[(size_t) (y + 1) * w + x];
      int *c = &pc->contacts[3 * pc->ncontacts];
      if (p >= 0 && q >= 0 && r < 0 && t < 0 && p != q) {
        c[0] = p; c[1] = q; c[2] = 2;
        pc->ncontacts++;
      } else if (r >= 0 && t >= 0 && p < 0 && q < 0 && r != t) {
        c[0] = r; c[1] = t; c[2] = 3;
        pc->ncontacts++;
      }
    }
  free (in);
  free (label[0]);
  free (label[1]);
}

static void
pieces_free (fv_fill_pieces *pc)
{
  for (int k = 0; k < 2; k++) {
    free (pc->rows[k]);
    free (pc->first[k]);
    free (pc->edge[k]);
  }
  free (pc->contacts);
}

/* The grid's cuts: columns (or rows) starting at cut[0] = 0 < cut[1] < ...,
 * n of them */
static void
joined_grid (const char *name, const fv_image *src, unsigned thr, int conn, int measure,
    const int *xs, int cols, const int *ys, int rows)
{
  const int W = src->width, H = src->height;
  uint8_t *want = malloc ((size_t) W * H);
  fvt_ref_fill (src, thr, conn, FV_FILL_FILLED, 255, want);
  fv_fill_pieces *pc = calloc ((size_t) cols * rows, sizeof *pc);
  for (int r = 0; r < rows; r++)
    for (int i = 0; i < cols; i++) {
      const int x1 = i + 1 < cols ? xs[i + 1] : W, y1 = r + 1 < rows ? ys[r + 1] : H;
      ref_pieces (src, thr, conn, want, xs[i], ys[r], x1 - xs[i], y1 - ys[r], &pc[r * cols + i]);
    }
  fv_fill_params p = { .frame.width = W, .frame.height = H, .threshold = thr, .fill_value = 255,
      .connectivity = conn, .output = FV_FILL_FILLED, .frame.threads = 1 };
  p.measure = measure;
  fv_fill_plan *plan;
  FVT_CHECK (fv_fill_plan_create (&plan, &p, FV_BACKEND_CPU, 0, NULL) == FV_OK, "plan");
  char what[160];
  snprintf (what, sizeof what, "%s, %dx%d chunks joined, measure %d", name, cols, rows,
      measure);
  fv_status st = fv_fill_pieces_join (plan, cols, rows, pc);
  FVT_CHECK (st == FV_OK, "%s: %s", what, fv_last_error ());
  if (st == FV_OK)
    check_regions (what, plan, src, thr, conn, want, measure);
  /* chunks that do not tile the frame: refused */
  if (cols > 1) {
    pc[1].x++;
    FVT_CHECK (fv_fill_pieces_join (plan, cols, rows, pc) == FV_ERR_INVALID
        && strstr (fv_last_error (), "tile"), "%s: a gap between chunks: %s", what,
        fv_last_error ());
    pc[1].x--;
  }
  fv_fill_plan_destroy (plan);
  for (int c = 0; c < cols * rows; c++)
    pieces_free (&pc[c]);
  free (pc);
  free (want);
}

static void
joined (const char *name, const fv_image *src, unsigned thr)
{
  const int W = src->width, H = src->height;
  /* cuts at a third, one pixel after it (a chunk one pixel wide), and two
   * thirds, where the frame allows */
  int xs[4] = { 0 }, ys[4] = { 0 }, cols = 1, rows = 1;
  const int xc[] = { W / 3, W / 3 + 1, 2 * W / 3 }, yc[] = { H / 3, H / 3 + 1, 2 * H / 3 };
  for (int i = 0; i < 3; i++) {
    if (xc[i] > xs[cols - 1] && xc[i] < W)
      xs[cols++] = xc[i];
    if (yc[i] > ys[rows - 1] && yc[i] < H)
      ys[rows++] = yc[i];
  }
  const int zero = 0;
  for (int conn = 4; conn <= 8; conn += 4) {
    joined_grid (name, src, thr, conn, FV_FILL_MEASURE_BOTH, xs, cols, ys, rows);
    joined_grid (name, src, thr, conn, FV_FILL_MEASURE_HOLES, xs, cols, ys, rows);
    joined_grid (name, src, thr, conn, FV_FILL_MEASURE_BOTH, &zero, 1, ys, rows);   /* bands */
    joined_grid (name, src, thr, conn, FV_FILL_MEASURE_BOTH, xs, cols, &zero, 1);
  }
}

static void
check (const char *name, const fv_image *src, unsigned thr)
{
  if (backend == FV_BACKEND_CPU)
    joined (name, src, thr);
  const int W = src->width, H = src->height;
  uint8_t *want = malloc ((size_t) W * H);
  for (int conn = 4; conn <= 8; conn += 4)
    for (int output = 0; output <= 1; output++)
      for (int threads = 1; threads <= 5; threads += 2) {
        fv_fill_params p = { .frame.width = W, .frame.height = H, .threshold = thr,
            .fill_value = 200 + output, .connectivity = conn, .output = output,
            .seeds = threads == 1 ? 0 : 7, .frame.threads = threads };
        /* every plan also measures, checked below: holes and parts, or
         * holes; on the CPU several threads measure in bands of rows whose
         * seams join after (3 and 5 bands: regions across every seam) */
        p.measure = threads < 5 ? FV_FILL_MEASURE_BOTH : FV_FILL_MEASURE_HOLES;
        /* CUDA: threads 3 stands for device images one byte off a word
         * (the kernels' byte loads and stores; host frames are staged
         * aligned, which takes the word paths) */
        const int odd_device = backend == FV_BACKEND_CUDA && threads > 1;
        fvt_ref_fill (src, thr, conn, output, p.fill_value, want);
        fv_fill_plan *plan;
        fv_status st = fv_fill_plan_create (&plan, &p, backend, 0, NULL);
        FVT_CHECK (st == FV_OK, "%s: plan: %s", name, fv_last_error ());
        if (st != FV_OK)
          continue;
        fv_image dst = fvt_image_new (W, H, 1, FV_U8, 9, NULL);
        const size_t dpitch = (size_t) W + 3;
        uint8_t *dev = odd_device ? fv_cuda_malloc (2 * dpitch * H + 2) : NULL;
        fv_image dsrc = fv_image_make (dev ? dev + 1 : NULL, dpitch, W, H, 1, FV_U8,
            FV_MEM_DEVICE), ddst = dsrc;
        ddst.data = dev ? dev + 2 + dpitch * H : NULL;
        FVT_CHECK (!odd_device || dev, "%s: no device memory", name);
        if (dev)
          fv_cuda_copy_rows (dsrc.data, dpitch, src->data, src->stride, W, H, NULL);
        for (int rep = 0; rep < 2; rep++) {   /* plans are reused frame after frame */
          st = dev ? fv_fill_execute (plan, &dsrc, &ddst) : fv_fill_execute (plan, src, &dst);
          if (dev)
            fv_cuda_copy_rows (dst.data, dst.stride, ddst.data, dpitch, W, H, NULL);
          FVT_CHECK (st == FV_OK, "%s: execute: %s", name, fv_last_error ());
          long bad = 0;
          for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
              uint8_t g = ((uint8_t *) dst.data)[(size_t) y * dst.stride + x];
              if (g != want[(size_t) y * W + x] && bad++ < 3)
                fprintf (stderr, "  %s %dx%d conn %d output %d threads %d: (%d,%d) got %u want %u\n",
                    name, W, H, conn, output, threads, x, y, g, want[(size_t) y * W + x]);
            }
          for (int y = 0; y < H; y++)
            for (size_t i = W; i < dst.stride; i++)
              bad += ((uint8_t *) dst.data)[(size_t) y * dst.stride + i] != 0xA5;
          FVT_CHECK (bad == 0, "%s %dx%d conn %d output %d threads %d: %ld wrong", name, W, H,
              conn, output, threads, bad);
          if (st == FV_OK)
            check_regions (name, plan, src, thr, conn, want, p.measure);
        }
        fvt_image_free (&dst);
        fv_cuda_free (dev);
        fv_fill_plan_destroy (plan);
      }
  free (want);
}

static fv_image
blank (int w, int h, int pad)
{
  fv_image im = fvt_image_new (w, h, 1, FV_U8, pad, NULL);
  for (int y = 0; y < h; y++)
    memset ((uint8_t *) im.data + (size_t) y * im.stride, 0, w);
  return im;
}

static void
put (fv_image *im, int x, int y)
{
  if (x >= 0 && y >= 0 && x < im->width && y < im->height)
    fvt_set (im, x, y, 0, 255);
}

static void
rect (fv_image *im, int x0, int y0, int x1, int y1)
{
  for (int x = x0; x <= x1; x++) { put (im, x, y0); put (im, x, y1); }
  for (int y = y0; y <= y1; y++) { put (im, x0, y); put (im, x1, y); }
}

static void
circle (fv_image *im, int cx, int cy, int r)
{
  /* one-pixel outline, 8-connected (diagonal steps let 8-connected
   * background through, 4-connected not) */
  int x = r, y = 0, e = 1 - r;
  while (x >= y) {
    int pts[8][2] = { {x, y}, {y, x}, {-y, x}, {-x, y}, {-x, -y}, {-y, -x}, {y, -x}, {x, -y} };
    for (int i = 0; i < 8; i++)
      put (im, cx + pts[i][0], cy + pts[i][1]);
    y++;
    if (e < 0) e += 2 * y + 1; else { x--; e += 2 * (y - x) + 1; }
  }
}

static void
shapes (void)
{
  char name[64];
  /* nested rings: a ring inside a hole inside a ring, several levels */
  fv_image im = blank (61, 47, 3);
  for (int k = 0; k < 6; k++)
    rect (&im, 2 + 4 * k, 2 + 3 * k, 58 - 4 * k, 44 - 3 * k);
  check ("nested rings", &im, 127);
  fvt_image_free (&im);
  /* circles, some cut open by one pixel, some touching the border */
  im = blank (200, 150, 0);
  circle (&im, 40, 40, 30); circle (&im, 40, 40, 12); circle (&im, 130, 70, 45);
  circle (&im, 195, 140, 20); circle (&im, 5, 120, 25);
  fvt_set (&im, 130 + 45, 70, 0, 0);   /* a one-pixel gap */
  check ("circles", &im, 127);
  fvt_image_free (&im);
  /* a square spiral with a one-pixel corridor, closed and open */
  for (int open = 0; open <= 1; open++) {
    im = blank (101, 99, 1);
    int x0 = 0, y0 = 0, x1 = 100, y1 = 98;
    while (x1 - x0 > 4 && y1 - y0 > 4) {
      for (int x = x0; x <= x1; x++) put (&im, x, y0);
      for (int y = y0; y <= y1; y++) put (&im, x1, y);
      for (int x = x0; x <= x1; x++) put (&im, x, y1);
      for (int y = y0 + 2; y <= y1; y++) put (&im, x0, y);
      x0 += 2; y0 += 2; x1 -= 2; y1 -= 2;
      put (&im, x0 - 1, y0 - 1 + 1);
    }
    if (open)
      fvt_set (&im, 50, 0, 0, 0);
    snprintf (name, sizeof name, "spiral%s", open ? " (open)" : "");
    check (name, &im, 127);
    fvt_image_free (&im);
  }
  /* a snaking corridor: walls every other row, alternating openings */
  im = blank (257, 64, 5);
  for (int y = 1; y < 63; y += 2)
    for (int x = 0; x < 257; x++)
      if (y % 4 == 1 ? x != 255 : x != 1)
        put (&im, x, y);
  rect (&im, 0, 0, 256, 63);
  fvt_set (&im, 255, 63, 0, 0);   /* the corridor opens on the border at one end */
  check ("snake", &im, 127);
  fvt_image_free (&im);
  /* checkerboards: 4-connected background is all enclosed, 8 leaks */
  im = blank (33, 31, 2);
  for (int y = 0; y < 31; y++)
    for (int x = 0; x < 33; x++)
      if ((x + y) & 1)
        put (&im, x, y);
  check ("checkerboard", &im, 127);
  fvt_image_free (&im);
  /* empty, full, and thin frames */
  int sizes[][2] = { {1, 1}, {1, 40}, {40, 1}, {2, 2}, {3, 3}, {5, 4} };
  for (unsigned i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
    for (int v = 0; v <= 255; v += 255) {
      im = blank (sizes[i][0], sizes[i][1], 1);
      for (int y = 0; y < im.height; y++)
        for (int x = 0; x < im.width; x++)
          fvt_set (&im, x, y, 0, v);
      if (sizes[i][0] >= 3 && sizes[i][1] >= 3 && !v)
        rect (&im, 0, 0, im.width - 1, im.height - 1);
      snprintf (name, sizeof name, "flat %d", v);
      check (name, &im, 127);
      fvt_image_free (&im);
    }
}

/* The features against geometry: filled ellipses and rings of known axes
 * and turns, drawn on the plan's back end. The pixels only approximate the
 * figure, so the bounds are the digitisation's, not the code's: a feature
 * computed wrongly (a swapped axis, the sign of the turn, a perimeter
 * missing its diagonals) is off by far more. */
static void
geometry (void)
{
  const double turns[] = { 0, 30, 90, -45, 75 };
  for (int k = 0; k < 5; k++)
    for (int ring = 0; ring <= 1; ring++) {
      const int W = 301, H = 257;
      const double a = k == 0 ? 60 : 90, b = k == 0 ? 60 : 40, t = turns[k] * M_PI / 180;
      const double cx = 150.25, cy = 128.5;
      fv_image im = blank (W, H, 3);
      for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
          /* the figure's own axes: y points down on screen, the turn is
           * counter-clockwise as shown */
          const double dx = x - cx, dy = -(y - cy);
          const double u = dx * cos (t) + dy * sin (t), v = -dx * sin (t) + dy * cos (t);
          const double q = u * u / (a * a) + v * v / (b * b);
          if (q <= 1 && (!ring || q >= 0.5 * 0.5))
            fvt_set (&im, x, y, 0, 255);
        }
      fv_fill_params p = { .frame.width = W, .frame.height = H, .threshold = 127,
          .fill_value = 255, .connectivity = 4, .output = FV_FILL_FILLED, .frame.threads = 1 };
      p.measure = FV_FILL_MEASURE_BOTH;
      fv_fill_plan *plan;
      if (fv_fill_plan_create (&plan, &p, backend, 0, NULL) != FV_OK) {
        FVT_CHECK (0, "geometry: plan: %s", fv_last_error ());
        continue;
      }
      fv_image dst = fvt_image_new (W, H, 1, FV_U8, 0, NULL);
      const fv_fill_region *parts, *holes;
      int np = 0, nh = 0;
      FVT_CHECK (fv_fill_execute (plan, &im, &dst) == FV_OK, "geometry: %s", fv_last_error ());
      fv_fill_parts (plan, &parts, &np);
      fv_fill_regions (plan, &holes, &nh);
      FVT_CHECK (np == 1 && nh == ring, "geometry %d ring %d: %d parts, %d holes", k, ring, np,
          nh);
      for (int i = 0; i < np + nh && np == 1 && nh == ring; i++) {
        const double scale = i == 0 ? 1 : 0.5;   /* the hole is the half-size ellipse */
        fv_fill_shape s;
        fv_fill_region_shape (i == 0 ? &parts[0] : &holes[0], &s);
        const double A = a * scale, B = b * scale;
        const double h = (A - B) * (A - B) / ((A + B) * (A + B));
        const double perim = M_PI * (A + B) * (1 + 3 * h / (10 + sqrt (4 - 3 * h)));
        double dturn = fabs (s.orientation - turns[k]);
        dturn = dturn > 90 ? 180 - dturn : dturn;
        FVT_CHECK (fabs (s.cx - cx) < 0.05 && fabs (s.cy - cy) < 0.05,
            "geometry %d ring %d region %d: centroid %.3f,%.3f want %.2f,%.2f", k, ring, i,
            s.cx, s.cy, cx, cy);
        FVT_CHECK (fabs (s.major - 2 * A) < 0.01 * 2 * A + 0.5
            && fabs (s.minor - 2 * B) < 0.01 * 2 * B + 0.5,
            "geometry %d ring %d region %d: axes %.2f %.2f want %.1f %.1f", k, ring, i, s.major,
            s.minor, 2 * A, 2 * B);
        FVT_CHECK (A == B || dturn < 0.5, "geometry %d ring %d region %d: turned %.2f want %.0f",
            k, ring, i, s.orientation, turns[k]);
        FVT_CHECK (fabs (s.perimeter - perim) < 0.03 * perim,
            "geometry %d ring %d region %d: perimeter %.2f want %.2f", k, ring, i, s.perimeter,
            perim);
        FVT_CHECK (fabs (s.equivalent_diameter - 2 * sqrt (A * B)) < 0.01 * 2 * sqrt (A * B),
            "geometry %d ring %d region %d: equivalent diameter %.2f", k, ring, i,
            s.equivalent_diameter);
        FVT_CHECK (A != B || fabs (s.circularity - 1) < 0.04,
            "geometry %d ring %d region %d: circularity of a disc %.3f", k, ring, i,
            s.circularity);
      }
      /* the part's area includes its hole's; the hole names its part */
      if (ring && np == 1 && nh == 1)
        FVT_CHECK (parts[0].holes == 1 && parts[0].hole_area == holes[0].area
            && holes[0].part == 0, "geometry %d: the ring's hole and part do not name each other",
            k);
      fvt_image_free (&dst);
      fvt_image_free (&im);
      fv_fill_plan_destroy (plan);
    }
  /* a square of side 100: (pi/8)(400 + 796/sqrt 2) = 378.11, the estimate's
   * known bias for edges along the axes (-5%, docs/autofill.md) */
  fv_fill_region sq = { 0, 0, 100, 100, 10000, .cross_h = 200, .cross_v = 200,
    .cross_d = 398, .cross_a = 398 };
  fv_fill_shape s;
  fv_fill_region_shape (&sq, &s);
  FVT_CHECK (fabs (s.perimeter - 378.11) < 0.01, "square of 100: perimeter %.2f", s.perimeter);
}

int
main (int argc, char **argv)
{
  const char *data = "tests/data";
  for (int i = 1; i < argc; i++) {
    if (!strcmp (argv[i], "--cuda"))
      backend = FV_BACKEND_CUDA;
    else
      data = argv[i];
  }
  if (backend == FV_BACKEND_CUDA && fv_cuda_device_count () == 0) {
    printf ("test_fill --cuda: no GPU, skipped\n");
    return FVTEST_SKIP;
  }
  fvt_rng rng = { 4242 };
  shapes ();
  geometry ();
  /* random blobs at several densities and odd sizes */
  int sizes[][2] = { {1, 1}, {3, 7}, {17, 1}, {1, 17}, {127, 33}, {250, 131}, {641, 479} };
  for (unsigned i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
    for (int dens = 10; dens <= 70; dens += 20) {
      fv_image im = fvt_image_new (sizes[i][0], sizes[i][1], 1, FV_U8, (int) i % 3 * 4, NULL);
      for (int y = 0; y < im.height; y++)
        for (int x = 0; x < im.width; x++)
          fvt_set (&im, x, y, 0, (int) (fvt_next (&rng) % 100) < dens ? 200 : 30);
      char name[64];
      snprintf (name, sizeof name, "random %d%%", dens);
      check (name, &im, 127);
      check (name, &im, 199);   /* threshold just under the contour value */
      fvt_image_free (&im);
    }
  /* the real binary images, and their negatives */
  const char *files[] = { "pic3.pgm", "pic1.pgm", "bw_text.pgm", "horse.pgm" };
  for (int i = 0; i < 4; i++) {
    char path[512];
    snprintf (path, sizeof path, "%s/%s", data, files[i]);
    fv_image *im = fvt_load_pnm (path);
    FVT_CHECK (im != NULL, "cannot read %s", path);
    if (!im)
      continue;
    check (files[i], im, 127);
    for (int y = 0; y < im->height; y++)
      for (int x = 0; x < im->width; x++)
        fvt_set (im, x, y, 0, 255 - fvt_get (im, x, y, 0));
    check (files[i], im, 127);
    fvt_image_free (im);
    free (im);
  }
  /* bad parameters */
  fv_fill_params p = { .frame.width = 10, .frame.height = 10, .threshold = 255, .fill_value = 255,
      .connectivity = 4, .output = FV_FILL_FILLED };
  fv_fill_plan *plan;
  FVT_CHECK (fv_fill_plan_create (&plan, &p, backend, 0, NULL) == FV_ERR_INVALID, "threshold 255");
  p.threshold = 127; p.connectivity = 6;
  FVT_CHECK (fv_fill_plan_create (&plan, &p, backend, 0, NULL) == FV_ERR_INVALID, "connectivity 6");
  /* regions only from a plan that measures */
  p.connectivity = 4;
  if (fv_fill_plan_create (&plan, &p, backend, 0, NULL) == FV_OK) {
    const fv_fill_region *r;
    int n;
    FVT_CHECK (fv_fill_regions (plan, &r, &n) == FV_ERR_INVALID, "regions without measure");
    FVT_CHECK (fv_fill_parts (plan, &r, &n) == FV_ERR_INVALID, "parts without measure");
    fv_fill_plan_destroy (plan);
  }
  p.measure = 4;
  FVT_CHECK (fv_fill_plan_create (&plan, &p, backend, 0, NULL) == FV_ERR_INVALID, "measure 4");
  /* the frame description: one 8-bit channel, no window */
  p.measure = 0;
  p.frame.channels = 3;
  FVT_CHECK (fv_fill_plan_create (&plan, &p, backend, 0, NULL) == FV_ERR_INVALID
      && strstr (fv_last_error (), "one channel of 8 bits"), "3 channels: %s", fv_last_error ());
  p.frame.channels = 1;
  p.frame.sample = FV_U16;
  FVT_CHECK (fv_fill_plan_create (&plan, &p, backend, 0, NULL) == FV_ERR_INVALID, "16 bits");
  p.frame.sample = FV_U8;
  p.frame.roi_width = p.frame.roi_height = 4;
  FVT_CHECK (fv_fill_plan_create (&plan, &p, backend, 0, NULL) == FV_ERR_INVALID
      && strstr (fv_last_error (), "no window"), "a window: %s", fv_last_error ());
  p.frame.roi_width = p.frame.roi_height = 0;
  if (fv_fill_plan_create (&plan, &p, backend, 0, NULL) == FV_OK)
    fv_fill_plan_destroy (plan);
  else
    FVT_CHECK (0, "one channel of FV_U8 refused: %s", fv_last_error ());
  return fvt_summary (backend == FV_BACKEND_CUDA ? "test_fill --cuda" : "test_fill");
}
