/* The cascade parser on every cascade Debian's opencv-data ships: counts
 * checked against plain counts of the XML's elements, known values of the
 * frontal-face cascades checked by hand from the files, the old format
 * refused with a message that says so, and broken files refused. Skipped
 * (77) where opencv-data is not installed. */
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
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

int
main (void)
{
  const char *dirs[] = { "/usr/share/opencv4/haarcascades", "/usr/share/opencv4/lbpcascades" };
  if (!g_file_test (dirs[0], G_FILE_TEST_IS_DIR)) {
    printf ("test_cascade: opencv-data not installed, skipped\n");
    return FVTEST_SKIP;
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
