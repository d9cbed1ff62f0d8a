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
 *  - turned scans steered to windows: the raw windows of a window's scan
 *    equal the whole turned scan's raw windows inside the window (a
 *    reference of the definition), for random windows and sizes; a turned
 *    face is found on every frame, whether its angle's whole scan is due
 *    or only a window; the stagger of whole scans; merging turns;
 *  - bad parameters refused (grouping: test_vj_group.c).
 * With --cuda every comparison runs on the GPU plan too, with host and
 * device frames, and the GPU must equal the CPU on random frames (the
 * steered scans and the turned boxes of a sequence too); and the GPU's
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

static const char *data_dir;
static fv_backend backend = FV_BACKEND_CPU;

static int
cmp_rect (const void *a, const void *b)
{
  return memcmp (a, b, sizeof (fv_rect)) > 0 ? 1 : memcmp (a, b, sizeof (fv_rect)) < 0 ? -1 : 0;
}

static void
sort_rects (fv_rect *r, int n)
{
  qsort (r, n, sizeof *r, cmp_rect);
}

static const char *
cascade_path (const char *name)
{
  static char path[512];
  const char *dir = getenv ("FV_CASCADES");   /* where opencv-data is not installed */
  snprintf (path, sizeof path, "%s/%s/%s", dir ? dir : "/usr/share/opencv4",
      strncmp (name, "lbp", 3) ? "haarcascades" : "lbpcascades", name);
  return path;
}

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
      fv_vj_params p = { w, h, sf, 0, mn, mn, mx, mx, 0 };
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
        fv_vj_params p = { im->width, im->height, 1.1, 3, 24, 24, 0, 0, 0 };
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
    fv_vj_params p = { im.width, im.height, 1.1, 3, 0, 0, 0, 0, 0 };
    int n;
    fv_rect *r = detect (c, &p, &im, backend, &n, NULL, NULL);
    FVT_CHECK (n == 0, "%dx%d frame: %d windows", im.width, im.height, n);
    free (r);
    fvt_image_free (&im);
  }
  fv_cascade_free (c);
}

/* Noise with a photo pasted in: many windows pass early stages. */
static fv_image
mixed_frame (int w, int h, fvt_rng *rng, const fv_image *photo)
{
  fv_image im = fvt_image_new (w, h, 1, FV_U8, 7, rng);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      uint32_t v = fvt_next (rng) % 256;
      if (photo && x >= w / 4 && y >= h / 5 && x - w / 4 < photo->width && y - h / 5 < photo->height)
        v = ((uint8_t *) photo->data)[(y - h / 5) * photo->stride + x - w / 4];
      fvt_set (&im, x, y, 0, v);
    }
  return im;
}

/* The four kinds of cascade (HAAR stumps, trees with tilted features, LBP,
 * HAAR with tilted features), each called on frames of noise with the
 * astronaut's face in them. */
typedef void (*cascade_fn) (const fv_cascade *c, const char *name, size_t k,
    const fv_image *photo, fvt_rng *rng);

static void
with_cascades (uint64_t seed, cascade_fn fn)
{
  char path[1024];
  snprintf (path, sizeof path, "%s/faces/astronaut.pgm", data_dir);
  fv_image *photo = fvt_load_pnm (path);
  const char *names[] = { "haarcascade_frontalface_default.xml", "haarcascade_eye_tree_eyeglasses.xml",
    "lbpcascade_frontalface_improved.xml", "haarcascade_upperbody.xml" };
  fvt_rng rng = { seed };
  for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
    fv_cascade *c = fv_cascade_load (cascade_path (names[k]));
    FVT_CHECK (c != NULL, "%s", fv_last_error ());
    if (c)
      fn (c, names[k], k, photo, &rng);
    fv_cascade_free (c);
  }
  if (photo) {
    fvt_image_free (photo);
    free (photo);
  }
}

static void
equal_paths_one (const fv_cascade *c, const char *name, size_t k, const fv_image *photo,
    fvt_rng *rng)
{
  (void) k;
  for (int t = 0; t < 2; t++) {
    int w = t ? 331 : 640, h = t ? 207 : 480;
    fv_image im = mixed_frame (w, h, rng, photo);
    fv_vj_params p = { w, h, 1.1, 0, 0, 0, 0, 0, 1 };
    int n1, n2, n3;
    setenv ("FASTVISION_VJ_NO_SIMD", "1", 1);
    fv_rect *a = detect (c, &p, &im, FV_BACKEND_CPU, &n1, NULL, NULL);
    unsetenv ("FASTVISION_VJ_NO_SIMD");
    p.threads = 3;
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
  fv_vj_params p = { im->width, im->height, 1.1, 0, 0, 0, 0, 0, 1 };
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


/* The reference of a window (fv_vj_turned.h), from its definition: the
 * frame rectangle's corners turned back onto the canvas, in doubles. */
static int
ref_in_window (const fv_vj_turn_window *w, double deg, int fw, int fh, const fv_rect *r)
{
  const fv_rotation q = fv_rotation_of (deg);
  const double c = q.c / 65536.0, s = q.s / 65536.0;
  double x0 = 1e30, y0 = 1e30, x1 = -1e30, y1 = -1e30;
  for (int k = 0; k < 4; k++) {
    const double fx = w->frame.x + (k & 1) * w->frame.width - fw / 2.0;
    const double fy = w->frame.y + (k >> 1) * w->frame.height - fh / 2.0;
    const double cx = c * fx + s * fy + fw / 2.0, cy = -s * fx + c * fy + fh / 2.0;
    x0 = fmin (x0, cx); y0 = fmin (y0, cy); x1 = fmax (x1, cx); y1 = fmax (y1, cy);
  }
  return r->width >= w->min_w && r->width <= w->max_w && r->x >= floor (x0)
      && r->y >= floor (y0) && r->x + r->width <= ceil (x1) && r->y + r->height <= ceil (y1);
}

static fv_rect *
copy_sorted (const fv_rect *r, int n)
{
  fv_rect *c = malloc (sizeof *c * (n + 1));
  memcpy (c, r, sizeof *c * n);
  sort_rects (c, n);
  return c;
}

/* A window's scan against the whole turned scan filtered by the
 * reference, on random windows; returns the steered raw windows of the
 * last case (sorted) for the CPU/CUDA comparison. */
static void
turned_windows_case (const fv_cascade *c, const char *name, const fv_image *im, fv_backend be,
    uint64_t seed, int *total)
{
  fv_vj_params p = { im->width, im->height, 1.1, 3, 0, 0, 0, 0, 2 };
  fv_vj_plan *plan;
  FVT_CHECK (fv_vj_plan_create (&plan, c, &p, be, 0, NULL) == FV_OK, "plan: %s", fv_last_error ());
  fv_vj_turn_params tp = { 2, { -25, 20 }, 0, 4, 1 };
  fv_vj_turns *t;
  FVT_CHECK (fv_vj_turns_create (&t, plan, &tp, 0, NULL) == FV_OK, "turns: %s", fv_last_error ());
  fvt_rng rng = { seed };
  for (int a = 0; a < 2; a++) {
    const double deg = tp.angles[a];
    const fv_rect *raw;
    int nwhole, nst;
    FVT_CHECK (fv_vj_turns_scan (t, im, deg, NULL, 0, &raw, &nwhole) == FV_OK, "whole: %s",
        fv_last_error ());
    fv_rect *whole = copy_sorted (raw, nwhole);
    for (int rep = 0; rep < 6; rep++) {
      fv_vj_turn_window w[3];
      const int nw = 1 + rep % 3;
      for (int k = 0; k < nw; k++) {
        const int x = fvt_next (&rng) % im->width, y = fvt_next (&rng) % im->height;
        w[k].frame = (fv_rect) { x, y, 1 + fvt_next (&rng) % (im->width - x),
          1 + fvt_next (&rng) % (im->height - y) };
        w[k].min_w = 20 + fvt_next (&rng) % 60;
        w[k].max_w = w[k].min_w + fvt_next (&rng) % 120;
      }
      if (rep == 0)   /* the whole frame, every size: the whole scan */
        w[0] = (fv_vj_turn_window) { { 0, 0, im->width, im->height }, 1, 1 << 20 };
      if (rep == 4)   /* reaching past the top left corner, as steered windows may */
        w[1].frame = (fv_rect) { -40, -30, im->width / 2, im->height / 2 };
      if (rep == 5)   /* and past the bottom right */
        w[2].frame = (fv_rect) { im->width / 2, im->height / 3, im->width, im->height };
      FVT_CHECK (fv_vj_turns_scan (t, im, deg, w, nw, &raw, &nst) == FV_OK, "steered: %s",
          fv_last_error ());
      fv_rect *got = copy_sorted (raw, nst), *ref = malloc (sizeof *ref * (nwhole + 1));
      int nref = 0;
      for (int i = 0; i < nwhole; i++) {
        int in = 0;
        for (int k = 0; k < nw && !in; k++)
          in = ref_in_window (&w[k], deg, im->width, im->height, &whole[i]);
        if (in)
          ref[nref++] = whole[i];
      }
      FVT_CHECK (nst == nref && !memcmp (got, ref, sizeof *ref * nref),
          "%s %dx%d %s angle %g, %d windows (%d..%d wide): %d raw windows steered, %d of the "
          "whole scan's %d inside", name, im->width, im->height,
          be == FV_BACKEND_CUDA ? "CUDA" : "CPU", deg, nw, w[0].min_w, w[0].max_w, nst, nref,
          nwhole);
      *total += nref;
      free (got);
      free (ref);
    }
    free (whole);
  }
  fv_vj_turns_destroy (t);
  fv_vj_plan_destroy (plan);
}

static void
turned_windows_one (const fv_cascade *c, const char *name, size_t k, const fv_image *photo,
    fvt_rng *rng)
{
  fv_image im = mixed_frame (k & 1 ? 331 : 481, k & 1 ? 207 : 359, rng, photo);
  int total = 0;
  turned_windows_case (c, name, &im, FV_BACKEND_CPU, 5 + k, &total);
  FVT_CHECK (total > 0, "%s: no raw window inside any window: nothing compared", name);
  if (backend == FV_BACKEND_CUDA) {
    int cuda_total = 0;
    turned_windows_case (c, name, &im, FV_BACKEND_CUDA, 5 + k, &cuda_total);
    FVT_CHECK (cuda_total == total, "%s: CUDA %d raw windows in windows, CPU %d", name,
        cuda_total, total);
  }
  fvt_image_free (&im);
}

static int
overlaps_half (const fv_rect *a, const fv_rect *b)
{
  const int ix = fmin (a->x + a->width, b->x + b->width) - fmax (a->x, b->x);
  const int iy = fmin (a->y + a->height, b->y + b->height) - fmax (a->y, b->y);
  return ix > 0 && iy > 0 && 2.0 * ix * iy >= fmin ((double) a->width * a->height,
      (double) b->width * b->height);
}

/* A face turned by 20 degrees (the upright scan misses it) on a still
 * frame: whole turned scans every frame (K = 1) find it on every frame;
 * staggered over K = 4 (angles -30, -15, 15, 30 whole on frames 0, 3, 2,
 * 1 of every 4), the first frame misses it (only -30 is due) and from the
 * second on it is there on every frame, found between its angles' whole
 * scans by the window around it; each frame scans upright and one turned
 * angle whole; CUDA gives the CPU's boxes frame for frame. */
static void
turned_sequence (void)
{
  char path[1024];
  snprintf (path, sizeof path, "%s/faces/astronaut.pgm", data_dir);
  fv_image *photo = fvt_load_pnm (path);
  fv_cascade *c = fv_cascade_load (cascade_path ("haarcascade_frontalface_default.xml"));
  FVT_CHECK (photo && c, "astronaut or cascade missing");
  if (!photo || !c)
    return;
  fvt_rng rng = { 77 };
  fv_image up = mixed_frame (640, 480, &rng, photo);
  fv_image im = fvt_image_new (640, 480, 1, FV_U8, 3, NULL);
  FVT_CHECK (fv_rotate_u8 (&up, &im, fv_rotation_of (-20), 1, NULL) == FV_OK, "rotate");
  fv_vj_params p = { 640, 480, 1.1, 3, 0, 0, 0, 0, 2 };
  const fv_backend bes[] = { FV_BACKEND_CPU, FV_BACKEND_CUDA };
  fv_vj_turned_det first[2][8][16];
  int nfirst[2][8];
  for (int b = 0; b < (backend == FV_BACKEND_CUDA ? 2 : 1); b++) {
    fv_vj_plan *plan;
    FVT_CHECK (fv_vj_plan_create (&plan, c, &p, bes[b], 0, NULL) == FV_OK, "plan: %s",
        fv_last_error ());
    fv_vj_turn_params every = { 5, { -30, -15, 0, 15, 30 }, 8, 1, 1 }, stag = every;
    stag.interval = 4;
    fv_vj_turns *te, *ts;
    FVT_CHECK (fv_vj_turns_create (&te, plan, &every, 0, NULL) == FV_OK
        && fv_vj_turns_create (&ts, plan, &stag, 0, NULL) == FV_OK, "turns");
    for (int f = 0; f < 8; f++) {
      const fv_vj_turned_det *de, *ds;
      int ne, ns;
      FVT_CHECK (fv_vj_turns_execute (te, &im, &de, &ne) == FV_OK, "every: %s", fv_last_error ());
      /* the face: the surest box */
      int face = -1;
      for (int i = 0; i < ne; i++)
        if (de[i].angle != 0 && (face < 0 || de[i].neighbors > de[face].neighbors))
          face = i;
      FVT_CHECK (face >= 0, "%s frame %d: the turned face not found by whole scans",
          b ? "CUDA" : "CPU", f);
      const fv_vj_turn_stats se = fv_vj_turns_stats (te);
      FVT_CHECK (se.whole_scans == 5 && se.steered_scans == 0, "K = 1: %d whole, %d steered",
          se.whole_scans, se.steered_scans);
      FVT_CHECK (fv_vj_turns_execute (ts, &im, &ds, &ns) == FV_OK, "staggered: %s",
          fv_last_error ());
      const fv_vj_turn_stats ss = fv_vj_turns_stats (ts);
      int found = 0;
      for (int i = 0; face >= 0 && i < ns; i++)
        found |= overlaps_half (&ds[i].box, &de[face].box);
      FVT_CHECK (found == (f > 0), "%s frame %d: K = 4 %s the turned face (%d whole scans, "
          "%d steered, %d windows)", b ? "CUDA" : "CPU", f, found ? "found" : "did not find",
          ss.whole_scans, ss.steered_scans, ss.windows);
      /* upright, and one turned angle whole a frame (4 turned angles, K = 4) */
      FVT_CHECK (ss.whole_scans == 2, "frame %d: %d whole scans, not 2", f, ss.whole_scans);
      if (f > 1)
        FVT_CHECK (ss.steered_scans == 3 && ss.windows >= 1, "frame %d: %d steered scans, %d "
            "windows", f, ss.steered_scans, ss.windows);
      nfirst[b][f] = ns < 16 ? ns : 16;
      memcpy (first[b][f], ds, sizeof *ds * nfirst[b][f]);
      int same = b == 1 && nfirst[1][f] == nfirst[0][f];
      for (int i = 0; same && i < nfirst[0][f]; i++)
        same = !memcmp (&first[1][f][i].box, &first[0][f][i].box, sizeof (fv_rect))
            && first[1][f][i].neighbors == first[0][f][i].neighbors
            && first[1][f][i].angle == first[0][f][i].angle;
      if (b == 1)
        FVT_CHECK (same,
            "frame %d: CUDA %d turned boxes, CPU %d, or other boxes", f, nfirst[1][f],
            nfirst[0][f]);
    }
    /* agreement of two angles: the face (seen at 15 and 30) comes one
     * frame after its first whole scan, when the window around it has
     * looked at every angle; a box no two angles see never comes */
    fv_vj_turn_params agree = stag;
    agree.agreement = 2;
    fv_vj_turns *ta;
    FVT_CHECK (fv_vj_turns_create (&ta, plan, &agree, 0, NULL) == FV_OK, "agree");
    for (int f = 0; f < 6; f++) {
      const fv_vj_turned_det *da, *de;
      int na, ne;
      FVT_CHECK (fv_vj_turns_execute (ta, &im, &da, &na) == FV_OK
          && fv_vj_turns_execute (te, &im, &de, &ne) == FV_OK, "agree: %s", fv_last_error ());
      int found = 0, single = 0;
      for (int i = 0; i < na; i++) {
        single += da[i].nangles < 2 && da[i].angle != 0;
        for (int j = 0; j < ne; j++)
          found |= de[j].nangles >= 2 && overlaps_half (&da[i].box, &de[j].box);
      }
      FVT_CHECK (found == (f > 1) && single == 0, "%s agreement, frame %d: face %s, %d boxes "
          "of one angle", b ? "CUDA" : "CPU", f, found ? "found" : "not found", single);
    }
    fv_vj_turns_destroy (ta);
    fv_vj_turns_reset (ts);
    fv_vj_turns_destroy (te);
    fv_vj_turns_destroy (ts);
    fv_vj_plan_destroy (plan);
  }
  /* merging: two turns of one face become their bounding box, the angle of the surer */
  fv_vj_turned_det in[] = { { { 10, 10, 40, 40 }, 5, -15 }, { { 20, 12, 40, 44 }, 9, 15 },
    { { 200, 10, 30, 30 }, 4, 0 }, { { 40, 30, 30, 30 }, 3, 30 } }, out[4];
  const int m = fv_vj_merge_turns (in, 4, out);
  FVT_CHECK (m == 2 && out[0].box.x == 10 && out[0].box.y == 10 && out[0].box.width == 60
      && out[0].box.height == 50 && out[0].neighbors == 17 && out[0].angle == 15
      && out[0].nangles == 3 && out[1].box.x == 200 && out[1].nangles == 1, "merge: %d boxes, first %d,%d %dx%d n=%d angle %g", m,
      out[0].box.x, out[0].box.y, out[0].box.width, out[0].box.height, out[0].neighbors,
      out[0].angle);
  /* bad parameters */
  fv_vj_plan *plan;
  if (fv_vj_plan_create (&plan, c, &p, FV_BACKEND_CPU, 0, NULL) == FV_OK) {
    fv_vj_turn_params bad[4] = { { 0, { 0 }, 8, 1, 1 }, { 1, { 91 }, 8, 1, 1 },
      { 1, { 10 }, 8, 0, 1 }, { 1, { 10 }, 8, 1, 0 } };
    for (int i = 0; i < 4; i++) {
      fv_vj_turns *t = (fv_vj_turns *) 1;
      FVT_CHECK (fv_vj_turns_create (&t, plan, &bad[i], 0, NULL) == FV_ERR_INVALID && !t,
          "bad turn parameters %d accepted", i);
    }
    fv_vj_plan_destroy (plan);
  }
  fvt_image_free (&up);
  fvt_image_free (&im);
  fvt_image_free (photo);
  free (photo);
  fv_cascade_free (c);
}

static void
turned_windows (void)
{
  with_cascades (4321, turned_windows_one);
  turned_sequence ();
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
      fv_vj_params p = { .width = W, .height = 3, .scale_factor = factors[j] };
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
  fv_vj_params good = { 64, 48, 1.1, 3, 0, 0, 0, 0, 0 };
  fv_vj_params bad[5];
  for (int i = 0; i < 5; i++)
    bad[i] = good;
  bad[0].scale_factor = 1.0;
  bad[1].min_neighbors = -1;
  bad[2].width = 0;
  bad[3].max_width = -5;
  bad[4].scale_factor = NAN;
  for (int i = 0; c && i < 5; i++) {
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
    fv_vj_params p = { .width = im.width, .height = im.height, .scale_factor = 1.1,
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
  for (int i = 1; i < argc; i++) {
    if (!strcmp (argv[i], "--cuda"))
      backend = FV_BACKEND_CUDA;
    else
      data_dir = argv[i];
  }
  if (!data_dir)
    data_dir = getenv ("FV_TEST_DATA");
  if (!data_dir) {
    fprintf (stderr, "usage: test_vj [--cuda] DATA_DIR\n");
    return 2;
  }
  if (backend == FV_BACKEND_CUDA && fv_cuda_device_count () == 0) {
    printf ("no CUDA device: skipped\n");
    return 77;
  }
  raw_cases ();
  photo_agreement ();
  small_frames ();
  equal_paths ();
  bands ();
  turned_windows ();
  resize_rows ();
  bad_input ();
#if FV_HAVE_CUDA
  gpu_sums ();
#endif
  return fvt_summary (backend == FV_BACKEND_CUDA ? "vj (CUDA)" : "vj (CPU)");
}
