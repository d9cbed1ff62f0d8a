/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The detector's turned scans (fv_vj_turned.h): scans steered to windows
 * give the raw windows of the whole turned scan inside the window (a
 * reference of the definition), for random windows and sizes and the four
 * kinds of cascade; a turned face is found on every frame of a sequence,
 * whether its angle's whole scan is due or only a window; the stagger of
 * whole scans; a turned face at the frame's edge found on the first frame
 * with bands along the edges (turned-edge) and not without; the CPU's
 * column runs starting just before each raw window of the whole scan (the
 * walk along a row as the whole scan's); merging turns. With --cuda the same on the GPU plan, which
 * must equal the CPU's (steered scans and the turned boxes of a sequence).
 *
 *   test_vj_turned [--cuda] DATA_DIR */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "vjcases.h"
#include "fv_vj_plan.h"
#include "fv_vj_turned.h"
#include "fv_cuda.h"

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
  fv_vj_params p = { .frame.width = im->width, .frame.height = im->height, .scale_factor = 1.1,
      .min_neighbors = 3, .frame.threads = 2 };
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

/* A window starting at each column just before a raw window of the whole
 * upright scan: the CPU scans only the window's columns, from a window
 * whose visit does not depend on those before it (OpenCV skips the window
 * after one that fails the first stage), so each such raw window is found
 * as the whole scan finds it, and nothing the whole scan does not. */
static void
column_starts_case (const fv_cascade *c, const char *name, const fv_image *im, int *total)
{
  fv_vj_params p = { .frame.width = im->width, .frame.height = im->height, .scale_factor = 1.1,
      .min_neighbors = 3, .frame.threads = 2 };
  fv_vj_plan *plan;
  FVT_CHECK (fv_vj_plan_create (&plan, c, &p, FV_BACKEND_CPU, 0, NULL) == FV_OK, "plan: %s",
      fv_last_error ());
  fv_vj_turn_params tp = { 1, { 0 }, 0, 4, 1 };
  fv_vj_turns *t;
  FVT_CHECK (fv_vj_turns_create (&t, plan, &tp, 0, NULL) == FV_OK, "turns: %s", fv_last_error ());
  const fv_rect *raw;
  int nwhole;
  FVT_CHECK (fv_vj_turns_scan (t, im, 0, NULL, 0, &raw, &nwhole) == FV_OK, "whole: %s",
      fv_last_error ());
  fv_rect *whole = copy_sorted (raw, nwhole);
  for (int i = 0; i < nwhole && i < 400; i += 1 + nwhole / 400) {
    const fv_rect *q = &whole[i];
    for (int d = 0; d < 9; d++) {
      /* columns from just before the window to the frame's right edge, its
       * rows and size only */
      const fv_vj_turn_window w = { { q->x - d, q->y, im->width - (q->x - d), q->height },
        q->width, q->width };
      const fv_rect *got;
      int n;
      FVT_CHECK (fv_vj_turns_scan (t, im, 0, &w, 1, &got, &n) == FV_OK, "part: %s",
          fv_last_error ());
      int nref = 0, found = 0, extra = 0;
      for (int j = 0; j < nwhole; j++)
        nref += whole[j].width == q->width && whole[j].y == q->y && whole[j].x >= q->x - d;
      for (int j = 0; j < n; j++) {
        found |= !memcmp (&got[j], q, sizeof *q);
        int in_whole = 0;
        for (int k = 0; k < nwhole && !in_whole; k++)
          in_whole = !memcmp (&got[j], &whole[k], sizeof *q);
        extra += !in_whole;
      }
      FVT_CHECK (found && extra == 0 && n == nref, "%s %dx%d: columns from x %d: the whole "
          "scan's window %d,%d %dx%d %s, %d raw windows not the whole scan's, %d of %d", name,
          im->width, im->height, q->x - d, q->x, q->y, q->width, q->height,
          found ? "found" : "missed", extra, n, nref);
      *total += 1;
    }
  }
  free (whole);
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
  int starts = 0;
  column_starts_case (c, name, &im, &starts);
  FVT_CHECK (starts > 0, "%s: no upright raw window to start columns at", name);
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

/* The surest turned box of n, the test frames' face (-1: none). */
static int
surest_turned (const fv_vj_turned_det *d, int n)
{
  int face = -1;
  for (int i = 0; i < n; i++)
    if (d[i].angle != 0 && (face < 0 || d[i].neighbors > d[face].neighbors))
      face = i;
  return face;
}

/* The turned face moved to the frame's left edge (the frame shifted, grey
 * where it came in), as a face entering: with K = 4 only -30 is due on the
 * first frame, so the steered scans find it there only with bands along
 * the edges (turned-edge) at least its size wide, and not with none. The
 * boxes of that frame go to out (CPU and CUDA compared by the caller). */
static void
edge_case (fv_vj_plan *plan, const fv_image *im, const fv_vj_turn_params *stag,
    const char *be, fv_vj_turned_det *out, int *nout)
{
  fv_vj_turn_params every = *stag;
  every.interval = 1;
  fv_vj_turns *te;
  FVT_CHECK (fv_vj_turns_create (&te, plan, &every, 0, NULL) == FV_OK, "edge: turns");
  const fv_vj_turned_det *d;
  int n;
  FVT_CHECK (fv_vj_turns_execute (te, im, &d, &n) == FV_OK, "edge: %s", fv_last_error ());
  const int face = surest_turned (d, n);
  FVT_CHECK (face >= 0, "%s edges: no turned face to move", be);
  if (face < 0) {
    fv_vj_turns_destroy (te);
    return;
  }
  const fv_rect f = d[face].box;
  const int shift = f.x - 6;
  fv_image sh = fvt_image_new (im->width, im->height, 1, FV_U8, 0, NULL);
  for (int y = 0; y < im->height; y++)   /* im is on the host (CUDA plans upload it) */
    for (int x = 0; x < im->width; x++)
      ((uint8_t *) sh.data)[(size_t) y * sh.stride + x] = x + shift < im->width
          ? ((const uint8_t *) im->data)[(size_t) y * im->stride + x + shift] : 128;
  const fv_rect moved = { 6, f.y, f.width, f.height };
  const int size = f.width > f.height ? f.width : f.height;
  const int shorter = im->width < im->height ? im->width : im->height;
  for (int with = 0; with < 2; with++) {
    fv_vj_turn_params tp = *stag;
    tp.edge = with ? fmin (FV_VJ_MAX_EDGE, 1.6 * size / shorter) : 0;
    fv_vj_turns *ts;
    FVT_CHECK (fv_vj_turns_create (&ts, plan, &tp, 0, NULL) == FV_OK, "edge: %s",
        fv_last_error ());
    FVT_CHECK (fv_vj_turns_execute (ts, &sh, &d, &n) == FV_OK, "edge: %s", fv_last_error ());
    const fv_vj_turn_stats st = fv_vj_turns_stats (ts);
    int found = 0;
    for (int i = 0; i < n; i++)
      found |= d[i].angle != 0 && overlaps_half (&d[i].box, &moved);
    FVT_CHECK (found == with && (st.edge_windows > 0) == with && st.whole_scans == 2,
        "%s, face %dx%d at the left edge, bands of %g: %s on the first frame (%d whole "
        "scans, %d steered, %d edge windows)", be, f.width, f.height, tp.edge,
        found ? "found" : "not found", st.whole_scans, st.steered_scans, st.edge_windows);
    if (with) {
      *nout = n < 16 ? n : 16;
      memcpy (out, d, sizeof *d * *nout);
    }
    fv_vj_turns_destroy (ts);
  }
  fv_vj_turns_destroy (te);
  fvt_image_free (&sh);
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
  fv_vj_params p = { .frame.width = 640, .frame.height = 480, .scale_factor = 1.1,
      .min_neighbors = 3, .frame.threads = 2 };
  const fv_backend bes[] = { FV_BACKEND_CPU, FV_BACKEND_CUDA };
  fv_vj_turned_det first[2][8][16], edge_boxes[2][16];
  int nfirst[2][8], nedge[2] = { 0, 0 };
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
      const int face = surest_turned (de, ne);
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
    edge_case (plan, &im, &stag, b ? "CUDA" : "CPU", edge_boxes[b], &nedge[b]);
    fv_vj_turns_reset (ts);
    fv_vj_turns_destroy (te);
    fv_vj_turns_destroy (ts);
    fv_vj_plan_destroy (plan);
  }
  if (backend == FV_BACKEND_CUDA) {
    int same = nedge[0] == nedge[1];
    for (int i = 0; same && i < nedge[0]; i++)
      same = !memcmp (&edge_boxes[0][i].box, &edge_boxes[1][i].box, sizeof (fv_rect))
          && edge_boxes[0][i].neighbors == edge_boxes[1][i].neighbors;
    FVT_CHECK (same, "edges: CUDA %d boxes, CPU %d, or other boxes", nedge[1], nedge[0]);
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
    fv_vj_turn_params bad[6] = { { 0, { 0 }, 8, 1, 1 }, { 1, { 91 }, 8, 1, 1 },
      { 1, { 10 }, 8, 0, 1 }, { 1, { 10 }, 8, 1, 0 }, { 1, { 10 }, 8, 4, 1, -0.1 },
      { 1, { 10 }, 8, 4, 1, NAN } };
    for (int i = 0; i < 6; i++) {
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


int
main (int argc, char **argv)
{
  const int st = vjc_args (argc, argv, "test_vj_turned");
  if (st)
    return st;
  turned_windows ();
  return fvt_summary (backend == FV_BACKEND_CUDA ? "turned scans (CUDA)" : "turned scans (CPU)");
}
