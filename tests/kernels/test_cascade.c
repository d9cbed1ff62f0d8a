/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The cascade parser on every cascade Debian's opencv-data ships: counts
 * checked against plain counts of the XML's elements, known values of the
 * frontal-face cascades checked by hand from the files, the old format
 * refused with a message that says so, and broken files refused. Skipped
 * (77) where opencv-data is not installed. */
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include "fvtest.h"
#include "fv_cascade.h"

static int
count (const char *text, const char *what)
{
  int n = 0;
  for (const char *p = text; (p = strstr (p, what)); p += strlen (what))
    n++;
  return n;
}

static void
check_file (const char *path)
{
  gchar *xml = NULL;
  g_file_get_contents (path, &xml, NULL, NULL);
  fv_cascade *c = fv_cascade_load (path);
  if (strstr (xml, "opencv-haar-classifier")) {
    FVT_CHECK (c == NULL && strstr (fv_last_error (), "old opencv-haar-classifier format"),
        "%s: old format not refused clearly (%s)", path, fv_last_error ());
    fv_cascade_free (c);
    g_free (xml);
    return;
  }
  FVT_CHECK (c != NULL, "%s: %s", path, fv_last_error ());
  if (c) {
    int lbp = strstr (xml, "<featureType>LBP") != NULL;
    FVT_CHECK (c->type == (lbp ? FV_FEATURE_LBP : FV_FEATURE_HAAR), "%s: feature type", path);
    FVT_CHECK (c->nweak == count (xml, "<internalNodes>"), "%s: %d weak classifiers, %d in the file",
        path, c->nweak, count (xml, "<internalNodes>"));
    FVT_CHECK (c->nfeatures == count (xml, lbp ? "<rect>" : "<rects>"), "%s: %d features", path,
        c->nfeatures);
    int leaves = 0, nodes = 0;
    for (int s = 0; s < c->nstages; s++)
      for (int w = 0; w < c->stages[s].nweak; w++) {
        const fv_cascade_weak *wk = &c->weak[c->stages[s].first_weak + w];
        leaves += wk->nleaves;
        nodes += wk->nnodes;
        FVT_CHECK (wk->nleaves == wk->nnodes + 1, "%s: a tree of %d nodes with %d leaves", path,
            wk->nnodes, wk->nleaves);
      }
    FVT_CHECK (leaves == c->nleaves && nodes == c->nnodes, "%s: stage bookkeeping", path);
    FVT_CHECK (c->width >= 8 && c->height >= 8, "%s: window %dx%d", path, c->width, c->height);
    fv_cascade_free (c);
  }
  g_free (xml);
}


/* A small HAAR cascade (24x24, one stage of one stump, one feature) with
 * parts replaced: the crafted files of the hardening review. */
#define HAAR_HEAD "<?xml version=\"1.0\"?><opencv_storage><cascade><stageType>BOOST</stageType>" \
  "<featureType>%s</featureType><height>24</height><width>24</width>" \
  "<featureParams><maxCatCount>%s</maxCatCount></featureParams><stageNum>1</stageNum>"
static gchar *
haar (const char *nodes, const char *leaves, const char *thr, const char *rects,
    const char *tilted)
{
  return g_strdup_printf (HAAR_HEAD "<stages><_><maxWeakCount>1</maxWeakCount>"
      "<stageThreshold>%s</stageThreshold><weakClassifiers><_><internalNodes>%s"
      "</internalNodes><leafValues>%s</leafValues></_></weakClassifiers></_></stages>"
      "<features><_><rects>%s</rects><tilted>%s</tilted></_></features></cascade>"
      "</opencv_storage>", "HAAR", "0", thr, nodes, leaves, rects, tilted);
}

static gchar *
lbp (const char *rect)
{
  return g_strdup_printf (HAAR_HEAD "<stages><_><maxWeakCount>1</maxWeakCount>"
      "<stageThreshold>-0.5</stageThreshold><weakClassifiers><_><internalNodes>0 -1 0 "
      "-1 -1 -1 -1 -1 -1 -1 -1</internalNodes><leafValues>-1 1</leafValues></_>"
      "</weakClassifiers></_></stages><features><_><rect>%s</rect></_></features></cascade>"
      "</opencv_storage>", "LBP", "256", rect);
}

/* Parses text as a cascade: refused, with the reason holding expect, the
 * name given, and the message valid UTF-8 (or accepted when expect is NULL). */
static void
crafted (const char *label, gchar *text, const char *expect)
{
  fv_cascade *c = fv_cascade_parse (text, strlen (text), "crafted.xml");
  const char *e = fv_last_error ();
  if (!expect) {
    FVT_CHECK (c != NULL, "%s: refused: %s", label, e);
  } else {
    FVT_CHECK (c == NULL, "%s: accepted", label);
    FVT_CHECK (c != NULL || (strstr (e, "crafted.xml") && strstr (e, expect)),
        "%s: \"%s\" does not say \"%s\"", label, e, expect);
    FVT_CHECK (g_utf8_validate (e, -1, NULL), "%s: message not UTF-8", label);
  }
  fv_cascade_free (c);
  g_free (text);
}

static void
crafted_cascades (void)
{
  const char *rects = "<_>6 4 12 9 -1.</_><_>6 7 12 3 3.</_>";
  crafted ("the template", haar ("0 -1 0 0.5", "-1 1", "-0.5", rects, "0"), NULL);
  crafted ("LBP template", lbp ("0 0 2 2"), NULL);
  /* structure out of order: a weak classifier before any stage */
  crafted ("weak before stage", g_strdup_printf (HAAR_HEAD "<weakClassifiers><_><internalNodes>"
      "0 -1 0 0.5</internalNodes><leafValues>-1 1</leafValues></_></weakClassifiers>"
      "<stages><_><stageThreshold>0</stageThreshold><weakClassifiers><_><internalNodes>0 -1 0 0.5"
      "</internalNodes><leafValues>-1 1</leafValues></_></weakClassifiers></_></stages>"
      "<features><_><rects>%s</rects></_></features></cascade></opencv_storage>", "HAAR", "0",
      rects), "<weakClassifiers> out of place");
  crafted ("weak directly under stages", g_strdup_printf (HAAR_HEAD "<stages><weakClassifiers><_>"
      "<internalNodes>0 -1 0 0.5</internalNodes></_></weakClassifiers></stages></cascade>"
      "</opencv_storage>", "HAAR", "0"), "out of place");
  crafted ("stages before the feature type", g_strdup ("<opencv_storage><cascade><stages><_>"
      "</_></stages></cascade></opencv_storage>"), "<stages> before <featureType>");
  crafted ("two cascades", g_strdup ("<opencv_storage><cascade></cascade><cascade></cascade>"
      "</opencv_storage>"), "a second <cascade>");
  /* rectangles whose sums overflow in 32 bits */
  crafted ("x = 2^31-1", haar ("0 -1 0 0.5", "-1 1", "0", "<_>2147483647 0 4 4 -1.</_>"
      "<_>0 0 2 4 2.</_>", "0"), "feature 0: a position or size");
  crafted ("w = 2^31-1", haar ("0 -1 0 0.5", "-1 1", "0", "<_>4 0 2147483647 4 -1.</_>", "0"),
      "a position or size");
  crafted ("tilted, x+w past", haar ("0 -1 0 0.5", "-1 1", "0", "<_>20 0 8 4 -1.</_>", "1"),
      "outside the 24x24 window");
  crafted ("LBP w*3 wraps", lbp ("0 0 1431655766 2"), "a position or size");
  crafted ("LBP past the window", lbp ("0 0 9 2"), "outside the 24x24 window");
  /* tree children */
  crafted ("child -2^31", haar ("0 -2147483648 0 0.5", "-1 1", "0", rects, "0"),
      "child index");
  crafted ("child 2^31-1", haar ("2147483647 -1 0 0.5", "-1 1", "0", rects, "0"),
      "child index");
  crafted ("child to a missing leaf", haar ("0 -5 0 0.5", "-1 1", "0", rects, "0"),
      "points outside its tree");
  crafted ("feature -1", haar ("0 -1 -1 0.5", "-1 1", "0", rects, "0"), "feature index");
  crafted ("feature 7 of 1", haar ("0 -1 7 0.5", "-1 1", "0", rects, "0"), "feature 7 of 1");
  /* numbers that are not finite or do not fit */
  const char *bad_numbers[] = { "nan", "inf", "-inf", "1e10", "0.5" };
  for (unsigned i = 0; i < G_N_ELEMENTS (bad_numbers); i++) {
    const char *b = bad_numbers[i];
    gchar *n = g_strdup_printf ("%s -1 0 0.5", b), *f = g_strdup_printf ("0 -1 %s 0.5", b);
    gchar *r = g_strdup_printf ("<_>%s 0 4 4 -1.</_>", b);
    crafted (b, haar (n, "-1 1", "0", rects, "0"), "child index");
    crafted (b, haar (f, "-1 1", "0", rects, "0"), "feature index");
    crafted (b, haar ("0 -1 0 0.5", "-1 1", "0", r, "0"), "a position or size");
    g_free (n);
    g_free (f);
    g_free (r);
  }
  const char *not_finite[] = { "nan", "inf", "1e39" };
  for (unsigned i = 0; i < G_N_ELEMENTS (not_finite); i++) {
    const char *b = not_finite[i];
    gchar *n = g_strdup_printf ("0 -1 0 %s", b), *l = g_strdup_printf ("-1 %s", b);
    gchar *r = g_strdup_printf ("<_>6 4 12 9 %s</_>", b);
    crafted (b, haar (n, "-1 1", "0", rects, "0"), "threshold that is not a finite float");
    crafted (b, haar ("0 -1 0 0.5", l, "0", rects, "0"), "leaf value");
    crafted (b, haar ("0 -1 0 0.5", "-1 1", b, rects, "0"), "stage threshold");
    crafted (b, haar ("0 -1 0 0.5", "-1 1", "0", r, "0"), "weight");
    g_free (n);
    g_free (l);
    g_free (r);
  }
  crafted ("trailing garbage", haar ("0 -1 0 0.5x", "-1 1", "0", rects, "0"), "not a number");
  crafted ("window 2^31", g_strdup ("<opencv_storage><cascade><width>2147483648</width>"
      "</cascade></opencv_storage>"), "window size");
  crafted ("LBP without maxCatCount", g_strdup_printf (HAAR_HEAD "<stages><_><weakClassifiers><_>"
      "<internalNodes>0 -1 0 1 1 1 1 1 1 1 1</internalNodes></_></weakClassifiers></_></stages>"
      "</cascade></opencv_storage>", "LBP", "0"), "maxCatCount");
  /* bytes that are not UTF-8: the message stays valid */
  crafted ("not UTF-8", g_strdup ("<opencv_storage><cascade><featureType>H\xff\xfe"
      "</featureType></cascade></opencv_storage>"), "crafted.xml");
}

/* Only regular files are read: a FIFO or a device fails at once. */
static void
special_files (void)
{
  gchar *dir = g_dir_make_tmp ("fvcascXXXXXX", NULL);
  gchar *fifo = g_build_filename (dir, "fifo.xml", NULL);
  FVT_CHECK (mkfifo (fifo, 0600) == 0, "mkfifo");
  gint64 t0 = g_get_monotonic_time ();
  fv_cascade *c = fv_cascade_load (fifo);
  FVT_CHECK (c == NULL && strstr (fv_last_error (), "not a regular file"), "FIFO: %s",
      fv_last_error ());
  FVT_CHECK (g_get_monotonic_time () - t0 < G_USEC_PER_SEC, "the FIFO stalled the load");
  c = fv_cascade_load ("/dev/zero");
  FVT_CHECK (c == NULL && strstr (fv_last_error (), "not a regular file"), "/dev/zero: %s",
      fv_last_error ());
  c = fv_cascade_load (dir);
  FVT_CHECK (c == NULL && strstr (fv_last_error (), "not a regular file"), "folder: %s",
      fv_last_error ());
  g_unlink (fifo);
  g_rmdir (dir);
  g_free (fifo);
  g_free (dir);
}

int
main (void)
{
  crafted_cascades ();
  special_files ();
  const char *dirs[] = { "/usr/share/opencv4/haarcascades", "/usr/share/opencv4/lbpcascades" };
  if (!g_file_test (dirs[0], G_FILE_TEST_IS_DIR)) {
    printf ("test_cascade: opencv-data not installed, its cascades not checked\n");
    return fvt_summary ("test_cascade");
  }
  int files = 0;
  for (int d = 0; d < 2; d++) {
    GDir *dir = g_dir_open (dirs[d], 0, NULL);
    const char *name;
    while (dir && (name = g_dir_read_name (dir)))
      if (g_str_has_suffix (name, ".xml")) {
        gchar *p = g_build_filename (dirs[d], name, NULL);
        check_file (p);
        g_free (p);
        files++;
      }
    if (dir)
      g_dir_close (dir);
  }
  FVT_CHECK (files >= 20, "only %d cascades found", files);

  /* values read off haarcascade_frontalface_default.xml by hand */
  fv_cascade *c = fv_cascade_load ("/usr/share/opencv4/haarcascades/haarcascade_frontalface_default.xml");
  FVT_CHECK (c && c->nstages == 25 && c->width == 24 && c->height == 24, "frontalface_default");
  if (c) {
    FVT_CHECK (fabsf (c->stages[0].threshold - (-5.0425500869750977f)) < 1e-6f, "stage 0 threshold");
    const fv_cascade_rect *r = c->features[0].rect;
    FVT_CHECK (c->features[0].nrects == 2 && r[0].x == 6 && r[0].y == 4 && r[0].w == 12
        && r[0].h == 9 && r[0].weight == -1.0f && r[1].y == 7 && r[1].weight == 3.0f, "feature 0");
    FVT_CHECK (c->weak[0].nnodes == 1 && c->nodes[0].left == 0 && c->nodes[0].right == -1,
        "stump 0");
    fv_cascade_free (c);
  }
  /* broken files */
  gchar *tmp = g_build_filename (g_get_tmp_dir (), "fv-bad-cascade.xml", NULL);
  const char *bad[] = {
    "<opencv_storage><cascade type_id=\"opencv-cascade-classifier\"><featureType>HAAR</featureType>",
    "<opencv_storage><cascade type_id=\"opencv-cascade-classifier\"><featureType>HOG</featureType>"
    "</cascade></opencv_storage>",
    "not xml at all",
  };
  for (unsigned i = 0; i < G_N_ELEMENTS (bad); i++) {
    g_file_set_contents (tmp, bad[i], -1, NULL);
    fv_cascade *b = fv_cascade_load (tmp);
    FVT_CHECK (b == NULL && strstr (fv_last_error (), "fv-bad-cascade.xml"), "bad file %u: %s", i,
        fv_last_error ());
    fv_cascade_free (b);
  }
  FVT_CHECK (fv_cascade_load ("/nonexistent/cascade.xml") == NULL, "missing file");
  g_unlink (tmp);
  g_free (tmp);
  return fvt_summary ("test_cascade");
}
