/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* vjdetect's kernel against OpenCV 4.6, whose results are stored in
 * tests/data/faces (make-expected.py wrote them with python3-opencv):
 *  - raw windows (no grouping) equal, window for window, on crops of the
 *    photos at odd sizes and offsets (so padded strides), for HAAR stumps,
 *    trees, tilted features and LBP, several scale factors and size limits;
 *  - grouped boxes on the photos, with the agreement at IoU >= 0.5 printed
 *    both ways (at least 95% each is the contract);
 *  - frames smaller than the window, 1x1, 3x7: no detection and no error;
 *  - the scalar, AVX2 and (where the CPU has it) AVX-512 CPU scans, one and
 *    several threads, equal on noise;
 *  - each pyramid level cut into bands of window rows (one row, three,
 *    half), the bands' raw windows appended: the whole plan's list, in order;
 *  - the pyramid's horizontal resize (byte shuffles) against the plain
 *    formula, on every level of frames 1 to 1280 wide;
 *  - (turned scans: test_vj_turned.c);
 *  - bad parameters refused (grouping: test_vj_group.c).
 * With --cuda every comparison runs on the GPU plan too, with host and
 * device frames, and the GPU must equal the CPU on random frames; and the GPU's
 * pyramid sums equal the CPU level builder's, element for element. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include "fvtest.h"
#include "fv_vj.h"
#include "fv_vj_plan.h"   /* a plan's levels and rows, to cut it in bands */
#include "fv_vj_turned.h"
#include "fv_cuda.h"
#include "fv_config.h"   /* FV_HAVE_CUDA: the GPU pyramid's sums */
#include "vjcases.h"

/* A copy of a crop of im with a padded stride; on the device too when asked. */
static fv_image
crop (const fv_image *im, int x, int y, int w, int h, int pad)
{
  fv_image c = fvt_image_new (w, h, 1, FV_U8, pad, NULL);
  for (int j = 0; j < h; j++)
    memcpy ((uint8_t *) c.data + j * c.stride, (uint8_t *) im->data + (y + j) * im->stride + x, w);
  return c;
}

/* Runs a plan on the frame (host, and for CUDA device memory as well) and
 * returns the raw windows sorted, or NULL with *n = -1 on failure. */
static fv_rect *
detect (const fv_cascade *c, const fv_vj_params *p, const fv_image *im, fv_backend be, int *n,
    fv_detection **grouped, int *ngrouped)
{
  fv_vj_plan *plan;
  *n = -1;
  fv_status st = fv_vj_plan_create (&plan, c, p, be, 0, NULL);
  FVT_CHECK (st == FV_OK, "plan: %s", fv_last_error ());
  if (st != FV_OK)
    return NULL;
  fv_rect *out = NULL;
  for (int pass = 0; pass < (be == FV_BACKEND_CUDA ? 2 : 1); pass++) {
    fv_image in = *im;
    void *dev = NULL;
    if (pass == 1) {   /* the same frame from device memory, compact */
      uint8_t *tight = malloc ((size_t) im->width * im->height);
      for (int y = 0; y < im->height; y++)
        memcpy (tight + (size_t) y * im->width, (uint8_t *) im->data + y * im->stride, im->width);
      dev = fv_cuda_malloc ((size_t) im->width * im->height);
      fv_cuda_memcpy (dev, tight, (size_t) im->width * im->height);
      free (tight);
      in = fv_image_make (dev, im->width, im->width, im->height, 1, FV_U8, FV_MEM_DEVICE);
    }
    const fv_detection *d;
    int nd;
    for (int rep = 0; rep < 2; rep++) {   /* plans are reused frame after frame */
      st = fv_vj_execute (plan, &in, &d, &nd);
      FVT_CHECK (st == FV_OK, "execute: %s", fv_last_error ());
    }
    if (dev)
      fv_cuda_free (dev);
    if (st != FV_OK)
      break;
    int nr;
    const fv_rect *r = fv_vj_raw (plan, &nr);
    fv_rect *copy = malloc (sizeof *copy * (nr + 1));
    memcpy (copy, r, sizeof *copy * nr);
    sort_rects (copy, nr);
    if (pass == 0) {
      out = copy;
      *n = nr;
      if (grouped) {
        *grouped = malloc (sizeof **grouped * (nd + 1));
        memcpy (*grouped, d, sizeof **grouped * nd);
        *ngrouped = nd;
      }
    } else {
      FVT_CHECK (nr == *n && !memcmp (copy, out, sizeof *copy * nr),
          "device frame: %d raw windows where the host frame gave %d", nr, *n);
      free (copy);
    }
  }
  fv_vj_plan_destroy (plan);
  return out;
}

static void
raw_cases (void)
{
  char path[1024];
  snprintf (path, sizeof path, "%s/faces/expected-raw.txt", data_dir);
  FILE *f = fopen (path, "r");
  FVT_CHECK (f != NULL, "cannot open %s", path);
  if (!f)
    return;
  char line[512], cname[128], pgm[128];
  int ncases = 0;
  while (fgets (line, sizeof line, f)) {
    int x, y, w, h, mn, mx, n;
    double sf;
    if (sscanf (line, "case %127s %127s %d %d %d %d %lf %d %d %d", cname, pgm, &x, &y, &w, &h, &sf,
            &mn, &mx, &n) != 10)
      continue;
    fv_rect *want = malloc (sizeof *want * (n + 1));
    for (int i = 0; i < n; i++)
      if (!fgets (line, sizeof line, f)
          || sscanf (line, "%d %d %d %d", &want[i].x, &want[i].y, &want[i].width, &want[i].height) != 4)
        FVT_CHECK (0, "%s: short case", path);
    sort_rects (want, n);
    snprintf (path, sizeof path, "%s/faces/%s", data_dir, pgm);
    fv_image *im = fvt_load_pnm (path);
    fv_cascade *c = fv_cascade_load (cascade_path (cname));
    FVT_CHECK (im && c, "%s or %s: %s", path, cname, fv_last_error ());
    if (im && c) {
      fv_image cr = crop (im, x, y, w, h, 3 + ncases);
      fv_vj_params p = { .frame.width = w, .frame.height = h, .scale_factor = sf, .min_width = mn,
          .min_height = mn, .max_width = mx, .max_height = mx };
      int got;
      fv_rect *r = detect (c, &p, &cr, backend, &got, NULL, NULL);
      int same = r && got == n && !memcmp (r, want, sizeof *r * n);
      FVT_CHECK (same, "%s on %s %dx%d+%d+%d, scale %g: %d raw windows, OpenCV %d%s", cname, pgm,
          w, h, x, y, sf, got, n, got == n ? " (different ones)" : "");
      printf ("raw windows %-40s %-28s %4dx%-4d %s (%d)\n", cname, pgm, w, h,
          same ? "equal" : "DIFFER", n);
      free (r);
      fvt_image_free (&cr);
    }
    fv_cascade_free (c);
    if (im) {
      fvt_image_free (im);
      free (im);
    }
    free (want);
    ncases++;
  }
  fclose (f);
  FVT_CHECK (ncases >= 10, "only %d raw cases read", ncases);
}

static double
iou (const fv_rect *a, const fv_rect *b)
{
  int x0 = a->x > b->x ? a->x : b->x, y0 = a->y > b->y ? a->y : b->y;
  int x1 = a->x + a->width < b->x + b->width ? a->x + a->width : b->x + b->width;
  int y1 = a->y + a->height < b->y + b->height ? a->y + a->height : b->y + b->height;
  double inter = x1 > x0 && y1 > y0 ? (double) (x1 - x0) * (y1 - y0) : 0;
  return inter / ((double) a->width * a->height + (double) b->width * b->height - inter);
}

/* Boxes of `from` with a box of `to` at IoU >= 0.5. */
static int
matched (const fv_rect *from, int nf, const fv_rect *to, int nt)
{
  int m = 0;
  for (int i = 0; i < nf; i++)
    for (int j = 0; j < nt; j++)
      if (iou (&from[i], &to[j]) >= 0.5) {
        m++;
        break;
      }
  return m;
}

static void
photo_agreement (void)
{
  char path[1024], line[512], name[256];
  snprintf (path, sizeof path, "%s/faces/expected-frontalface-default.txt", data_dir);
  FILE *f = fopen (path, "r");
  FVT_CHECK (f != NULL, "cannot open %s", path);
  if (!f)
    return;
  fv_cascade *c = fv_cascade_load (cascade_path ("haarcascade_frontalface_default.xml"));
  FVT_CHECK (c != NULL, "%s", fv_last_error ());
  fv_rect want[64];
  int nwant = 0, photos = 0;
  long ours_total = 0, ours_matched = 0, cv_total = 0, cv_matched = 0;
  char current[256] = "";
  int more = 1;
  while (more && c) {
    more = fgets (line, sizeof line, f) != NULL;
    int w, h, n;
    fv_rect r;
    if (more && sscanf (line, "%255s %d %d %d %d", name, &r.x, &r.y, &r.width, &r.height) == 5
        && line[0] != '#') {
      if (nwant < 64)
        want[nwant++] = r;
      continue;
    }
    if (more && sscanf (line, "# %255[^:]: %dx%d, %d boxes", name, &w, &h, &n) != 4)
      continue;
    if (current[0]) {   /* the previous photo is complete */
      char pgm[512];
      snprintf (pgm, sizeof pgm, "%s/faces/%.*s.pgm", data_dir,
          (int) (strrchr (current, '.') - current), current);
      fv_image *im = fvt_load_pnm (pgm);
      FVT_CHECK (im != NULL, "cannot load %s", pgm);
      if (im) {
        fv_vj_params p = { .frame.width = im->width, .frame.height = im->height,
            .scale_factor = 1.1, .min_neighbors = 3, .min_width = 24, .min_height = 24 };
        fv_detection *d = NULL;
        int nd = 0, nr;
        fv_rect *raw = detect (c, &p, im, backend, &nr, &d, &nd);
        fv_rect ours[64];
        for (int i = 0; i < nd && i < 64; i++)
          ours[i] = d[i].box;
        int a = matched (ours, nd, want, nwant), b = matched (want, nwant, ours, nd);
        printf ("photo %-40s ours %d (%d matched), OpenCV %d (%d matched)\n", current, nd, a,
            nwant, b);
        ours_total += nd;
        ours_matched += a;
        cv_total += nwant;
        cv_matched += b;
        photos++;
        free (raw);
        free (d);
        fvt_image_free (im);
        free (im);
      }
    }
    snprintf (current, sizeof current, "%s", more ? name : "");
    nwant = 0;
  }
  fclose (f);
  fv_cascade_free (c);
  double a = ours_total ? 100.0 * ours_matched / ours_total : 100.0;
  double b = cv_total ? 100.0 * cv_matched / cv_total : 100.0;
  printf ("agreement on %d photos: %.1f%% of our %ld boxes matched by OpenCV's, "
      "%.1f%% of OpenCV's %ld matched by ours (IoU >= 0.5)\n", photos, a, ours_total, b, cv_total);
  FVT_CHECK (photos == 4, "%d photos read", photos);
  FVT_CHECK (a >= 95.0 && b >= 95.0, "agreement %.1f%% / %.1f%% below 95%%", a, b);
}

static void
small_frames (void)
{
  fv_cascade *c = fv_cascade_load (cascade_path ("haarcascade_frontalface_default.xml"));
  const int sizes[][2] = { { 1, 1 }, { 3, 7 }, { 23, 24 }, { 24, 23 }, { 24, 24 }, { 25, 24 } };
  fvt_rng rng = { 99 };
  for (size_t i = 0; c && i < sizeof sizes / sizeof sizes[0]; i++) {
    fv_image im = fvt_image_new (sizes[i][0], sizes[i][1], 1, FV_U8, 5, &rng);
    fv_vj_params p = { .frame.width = im.width, .frame.height = im.height, .scale_factor = 1.1,
        .min_neighbors = 3 };
    int n;
    fv_rect *r = detect (c, &p, &im, backend, &n, NULL, NULL);
    FVT_CHECK (n == 0, "%dx%d frame: %d windows", im.width, im.height, n);
    free (r);
    fvt_image_free (&im);
  }
  fv_cascade_free (c);
}

static void
equal_paths_one (const fv_cascade *c, const char *name, size_t k, const fv_image *photo,
    fvt_rng *rng)
{
  (void) k;
  for (int t = 0; t < 2; t++) {
    int w = t ? 331 : 640, h = t ? 207 : 480;
    fv_image im = mixed_frame (w, h, rng, photo);
    fv_vj_params p = { .frame.width = w, .frame.height = h, .scale_factor = 1.1,
        .frame.threads = 1 };
    int n1, n2, n3;
    setenv ("FASTVISION_VJ_NO_SIMD", "1", 1);
    fv_rect *a = detect (c, &p, &im, FV_BACKEND_CPU, &n1, NULL, NULL);
    unsetenv ("FASTVISION_VJ_NO_SIMD");
    p.frame.threads = 3;
    fv_rect *b = detect (c, &p, &im, FV_BACKEND_CPU, &n2, NULL, NULL);
    FVT_CHECK (n1 == n2 && n1 >= 0 && !memcmp (a, b, sizeof *a * n1),
        "%s %dx%d: scalar one thread %d windows, SIMD three threads %d", name, w, h, n1, n2);
    /* where the CPU has AVX-512 that was its scan: AVX2's must agree too */
    int n4;
    setenv ("FASTVISION_VJ_NO_AVX512", "1", 1);
    fv_rect *v = detect (c, &p, &im, FV_BACKEND_CPU, &n4, NULL, NULL);
    unsetenv ("FASTVISION_VJ_NO_AVX512");
    FVT_CHECK (n1 == n4 && n4 >= 0 && !memcmp (a, v, sizeof *a * n1),
        "%s %dx%d: scalar %d windows, AVX2 %d", name, w, h, n1, n4);
    free (v);
    if (backend == FV_BACKEND_CUDA) {
      /* room for 8 raw windows at first: the plan must grow it and rerun */
      setenv ("FASTVISION_VJ_KEY_CAP", "8", 1);
      fv_rect *g = detect (c, &p, &im, FV_BACKEND_CUDA, &n3, NULL, NULL);
      unsetenv ("FASTVISION_VJ_KEY_CAP");
      FVT_CHECK (n1 == n3 && n3 >= 0 && !memcmp (a, g, sizeof *a * n1),
          "%s %dx%d: CPU %d windows, CUDA %d", name, w, h, n1, n3);
      printf ("CUDA equals CPU: %-40s %dx%d, %d windows\n", name, w, h, n3);
      free (g);
    }
    free (a);
    free (b);
    fvt_image_free (&im);
  }
}

static void
equal_paths (void)
{
  with_cascades (1234, equal_paths_one);
}

/* Appends the raw windows of plan p on im to *out (grown as needed). */
static int
append_raw (const fv_cascade *c, const fv_vj_params *p, const fv_vj_part *part,
    const fv_image *im, fv_backend be, fv_rect **out, int *n, int *cap)
{
  fv_vj_plan *plan;
  if (fv_vj_plan_create_part (&plan, c, p, part, be, 0, NULL) != FV_OK)
    return 0;
  const fv_detection *d;
  int nd, nr;
  int ok = fv_vj_execute (plan, im, &d, &nd) == FV_OK;
  const fv_rect *raw = fv_vj_raw (plan, &nr);
  if (ok && *n + nr > *cap) {
    *cap = (*n + nr) * 2 + 64;
    *out = realloc (*out, sizeof **out * *cap);
  }
  if (ok && nr > 0) {
    memcpy (*out + *n, raw, sizeof *raw * nr);
    *n += nr;
  }
  fv_vj_plan_destroy (plan);
  return ok;
}

/* Levels cut into bands of window rows (what the CUDA plan does beyond
 * its device budget): the bands' raw windows, appended level by level and
 * band by band, are the whole plan's list in its order. */
static void
bands_case (const fv_cascade *c, const char *name, const fv_image *im, fv_backend be)
{
  fv_vj_params p = { .frame.width = im->width, .frame.height = im->height, .scale_factor = 1.1,
      .frame.threads = 1 };
  fv_vj_plan *whole;
  FVT_CHECK (fv_vj_plan_create (&whole, c, &p, be, 0, NULL) == FV_OK, "plan: %s", fv_last_error ());
  const fv_detection *d;
  int nd, nw;
  FVT_CHECK (fv_vj_execute (whole, im, &d, &nd) == FV_OK, "execute: %s", fv_last_error ());
  const fv_rect *ref = fv_vj_raw (whole, &nw);
  const int levels = whole->py.nlevels;
  for (int cut = 0; cut < 3; cut++) {
    fv_rect *got = NULL;
    int n = 0, cap = 0, ok = 1;
    for (int l = 0; l < levels && ok; l++) {
      const int rows = whole->py.lv[l].rows;
      /* one-row bands only at the first and last levels: many plans */
      int each = cut == 0 && (l == 0 || l == levels - 1) ? 1 : cut < 2 ? 3 : rows / 2 + 1;
      fv_vj_part q = { .first_level = l, .levels = 1, .band_rows = each };
      for (q.band_first = 0; q.band_first < (rows > 0 ? rows : 1) && ok; q.band_first += each)
        ok = append_raw (c, &p, &q, im, be, &got, &n, &cap);
    }
    FVT_CHECK (ok, "%s bands: %s", name, fv_last_error ());
    FVT_CHECK (n == nw && (n == 0 || !memcmp (got, ref, sizeof *ref * n)),
        "%s %dx%d (%s), bands of %s rows: %d raw windows, whole plan %d", name, im->width,
        im->height, be == FV_BACKEND_CUDA ? "CUDA" : "CPU", cut == 0 ? "1 or 3" : cut == 1 ? "3"
        : "half the", n, nw);
    free (got);
  }
  FVT_CHECK (nw > 0, "%s: the frame has no raw windows to compare", name);
  fv_vj_plan_destroy (whole);
}

static void
bands_one (const fv_cascade *c, const char *name, size_t k, const fv_image *photo, fvt_rng *rng)
{
  fv_image im = mixed_frame (k & 1 ? 331 : 481, k & 1 ? 207 : 359, rng, photo);
  bands_case (c, name, &im, FV_BACKEND_CPU);
  if (backend == FV_BACKEND_CUDA)
    bands_case (c, name, &im, FV_BACKEND_CUDA);
  fvt_image_free (&im);
}

static void
bands (void)
{
  with_cascades (99, bands_one);
}


/* The pyramid's horizontal resize (shuffle blocks where they apply) against
 * the plain formula over the axis's weights, row by row, for every level of
 * a window of 1x1 (so scale factors from 1 up to the frame's width) on
 * widths around the 16-byte loads. Rows are allocated to their exact width,
 * so a load past the end shows under ASan or valgrind. */
static void
resize_rows (void)
{
  const int widths[] = { 1, 2, 3, 7, 15, 16, 17, 31, 33, 100, 641, 1280 };
  const double factors[] = { 1.05, 1.1, 1.5, 1.9, 2.0, 2.5 };
  fv_cascade c = { .width = 1, .height = 1 };
  fvt_rng rng = { 99 };
  int blocks = 0, levels = 0;
  for (size_t i = 0; i < sizeof widths / sizeof *widths; i++)
    for (size_t j = 0; j < sizeof factors / sizeof *factors; j++) {
      const int W = widths[i];
      fv_vj_params p = { .frame.width = W, .frame.height = 3, .scale_factor = factors[j] };
      fv_vj_pyramid py;
      FVT_CHECK (fv_vj_pyramid_init (&py, &c, &p, NULL, 1) == FV_OK, "pyramid %d: %s", W,
          fv_last_error ());
      uint8_t *row = malloc (W);
      for (int x = 0; x < W; x++)
        row[x] = (uint8_t) fvt_next (&rng);
      for (int l = 0; l < py.nlevels; l++) {
        const fv_vj_axis *a = &py.lv[l].ax;
        const int dst = py.lv[l].w;
        uint16_t *got = malloc (sizeof *got * dst);
        fv_vj_hline (a, row, dst, got);
        int bad = -1;
        for (int x = 0; x < dst && bad < 0; x++) {
          const int k = x < a->lo ? 0 : a->ofs[x];
          const uint32_t want = x < a->lo || x >= a->hi ? (uint32_t) row[k] << 8
              : (uint32_t) (row[k] * a->coef[2 * x] + row[k + 1] * a->coef[2 * x + 1]);
          if (got[x] != want)
            bad = x;
        }
        FVT_CHECK (bad < 0, "resize %d -> %d (factor %g): output %d differs", W, dst,
            py.lv[l].scale, bad);
        blocks += a->nblocks;
        levels++;
        free (got);
      }
      free (row);
      fv_vj_pyramid_clear (&py);
    }
  /* the shuffles must have run (where SSSE3 exists: every x86-64 CPU since 2006) */
  FVT_CHECK (levels > 100 && (blocks > 0 || !__builtin_cpu_supports ("ssse3")),
      "%d levels resized, %d shuffle blocks", levels, blocks);
}

static void
bad_input (void)
{
  fv_cascade *c = fv_cascade_load (cascade_path ("haarcascade_frontalface_default.xml"));
  fv_vj_params good = { .frame.width = 64, .frame.height = 48, .scale_factor = 1.1,
      .min_neighbors = 3 };
  fv_vj_params bad[8];
  for (int i = 0; i < 8; i++)
    bad[i] = good;
  bad[0].scale_factor = 1.0;
  bad[1].min_neighbors = -1;
  bad[2].frame.width = 0;
  bad[3].max_width = -5;
  bad[4].scale_factor = NAN;
  bad[5].frame.channels = 3;   /* the frame description: one 8-bit channel, no window */
  bad[6].frame.sample = FV_U16;
  bad[7].frame.roi_width = bad[7].frame.roi_height = 16;
  for (int i = 0; c && i < 8; i++) {
    fv_vj_plan *plan = (fv_vj_plan *) 1;
    FVT_CHECK (fv_vj_plan_create (&plan, c, &bad[i], FV_BACKEND_CPU, 0, NULL) == FV_ERR_INVALID
        && plan == NULL, "bad parameters %d accepted", i);
  }
  fv_vj_plan *plan;
  if (c && fv_vj_plan_create (&plan, c, &good, FV_BACKEND_CPU, 0, NULL) == FV_OK) {
    fv_image im = fvt_image_new (65, 48, 1, FV_U8, 0, NULL);
    const fv_detection *d;
    int n;
    FVT_CHECK (fv_vj_execute (plan, &im, &d, &n) == FV_ERR_INVALID, "wrong size accepted");
    fvt_image_free (&im);
    fv_vj_plan_destroy (plan);
  }
  fv_cascade_free (c);
}

#if FV_HAVE_CUDA
/* The GPU plan's sums, squared sums (and tilted sums) of every level
 * against the CPU's level builder on the same pyramid: equal everywhere,
 * zero rows and columns included, at sizes around the column scan's
 * blocks (32 columns) and segments (a 32nd of a level's rows), after two
 * executes of the plan. */
static void
gpu_sums_one (const fv_cascade *c, const char *name, size_t k, const fv_image *photo,
    fvt_rng *rng)
{
  /* at least the largest window (lbpcascade_frontalface_improved's 45) */
  static const int sizes[][2] = { { 46, 46 }, { 47, 49 }, { 256, 50 }, { 257, 64 },
    { 300, 513 }, { 513, 47 }, { 641, 479 }, { 1920, 1080 } };
  for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
    if (k > 0 && sizes[i][0] > 1000)   /* the large frame with one cascade */
      continue;
    fv_image im = mixed_frame (sizes[i][0], sizes[i][1], rng, photo);
    fv_vj_params p = { .frame.width = im.width, .frame.height = im.height, .scale_factor = 1.1,
        .min_neighbors = 3 };
    fv_vj_plan *pl;
    fv_status st = fv_vj_plan_create (&pl, c, &p, FV_BACKEND_CUDA, 0, NULL);
    FVT_CHECK (st == FV_OK, "%s plan: %s", name, fv_last_error ());
    if (st != FV_OK) {
      fvt_image_free (&im);
      continue;
    }
    const fv_detection *d;
    int nd;
    for (int rep = 0; rep < 2; rep++)
      FVT_CHECK (fv_vj_execute (pl, &im, &d, &nd) == FV_OK, "%s execute: %s", name,
          fv_last_error ());
    const fv_vj_pyramid *py = &pl->py;
    const int nplanes = pl->mh.has_tilted ? 3 : 2;
    const size_t n = (size_t) py->plane * nplanes;
    uint32_t *gpu = malloc (sizeof *gpu * n), *cpu = calloc (n, sizeof *cpu);
    uint8_t *tmp = malloc (fv_vj_scratch_bytes (py) + 64);
    FVT_CHECK (fv_vj_cuda_read_sums (pl, gpu, n) == FV_OK, "%s read sums: %s", name,
        fv_last_error ());
    long long bad = 0, checked = 0;
    int where[3] = { -1, -1, -1 };
    for (int l = 0; l < py->nlevels; l++) {
      const fv_vj_level *lv = &py->lv[l];
      fv_vj_level_build (py, l, im.data, im.stride, tmp, cpu, pl->mh.has_tilted, 0);
      for (int pln = 0; pln < nplanes; pln++)
        for (int y = 0; y <= lv->h; y++)
          for (int x = 0; x <= lv->w; x++) {
            const size_t o = (size_t) pln * py->plane + lv->origin + (size_t) y * py->stride + x;
            checked++;
            if (gpu[o] != cpu[o] && bad++ == 0) {
              where[0] = l;
              where[1] = y;
              where[2] = x;
            }
          }
    }
    FVT_CHECK (bad == 0 && checked > 0, "%s %dx%d: %lld of %lld sums differ (first: level "
        "%d, row %d, column %d)", name, im.width, im.height, bad, checked, where[0], where[1],
        where[2]);
    free (gpu);
    free (cpu);
    free (tmp);
    fv_vj_plan_destroy (pl);
    fvt_image_free (&im);
  }
}

static void
gpu_sums (void)
{
  if (backend == FV_BACKEND_CUDA)
    with_cascades (41, gpu_sums_one);
}
#endif


int
main (int argc, char **argv)
{
  const int st = vjc_args (argc, argv, "test_vj");
  if (st)
    return st;
  raw_cases ();
  photo_agreement ();
  small_frames ();
  equal_paths ();
  bands ();
  resize_rows ();
  bad_input ();
#if FV_HAVE_CUDA
  gpu_sums ();
#endif
  return fvt_summary (backend == FV_BACKEND_CUDA ? "vj (CUDA)" : "vj (CPU)");
}
