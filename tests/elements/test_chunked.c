/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* max-device-memory and cuda-device-ids on every element that chunks:
 * frames beyond a small budget, spread over device 0 twice, and both,
 * against the same element unchunked (the CPU for the exact filters, the
 * GPU by direct sums for the convolution, the CPU within the bound by
 * FFT); device lists that do not parse, or name a missing device, fail the
 * start naming the cause. Skipped (77) without a GPU. */
#include <stdlib.h>
#include <string.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include "fvtest-gst.h"
#include "fvgstcheck.h"
#include "fv_cuda.h"

#define random_buffer(info, seed) fvt_random_buffer ((info), 0x2468aceull + (seed))

static GstBuffer *run_buffer (const gchar *element, const gchar *props, GstVideoInfo *info,
    GstBuffer *in);

/* One random frame through `element` with `props`; NULL when it failed. */
static GstBuffer *
run (const gchar *element, const gchar *props, const gchar *format, int w, int h,
    guint32 seed, GstVideoInfo *info)
{
  gst_video_info_set_format (info, gst_video_format_from_string (format), w, h);
  return run_buffer (element, props, info, random_buffer (info, seed));
}

/* `in` through `element` with `props`; NULL when it failed. */
static GstBuffer *
run_buffer (const gchar *element, const gchar *props, GstVideoInfo *info, GstBuffer *in)
{
  /* properties before the harness starts it: vjdetect needs its cascade to start */
  GstElement *e = gst_object_ref_sink (gst_element_factory_make (element, NULL));
  gchar **kv = g_strsplit (props, " ", -1);
  for (gchar **p = kv; *p; p++) {
    gchar *eq = strchr (*p, '=');
    if (!eq)
      continue;
    *eq = '\0';
    gst_util_set_object_arg (G_OBJECT (e), *p, eq + 1);
  }
  g_strfreev (kv);
  GstHarness *hh = gst_harness_new_with_element (e, "sink", "src");
  gst_object_unref (e);
  GstCaps *caps = gst_video_info_to_caps (info);
  gst_harness_set_src_caps (hh, caps);
  GstBuffer *out = NULL;
  if (gst_harness_push (hh, in) == GST_FLOW_OK)
    out = gst_harness_pull (hh);
  gint active = -1;
  g_object_get (hh->element, "active-backend", &active, NULL);
  fail_unless (!strstr (props, "backend=cuda") || active == 1, "%s %s: not on CUDA", element,
      props);
  gst_harness_teardown (hh);
  return out;
}

/* Largest sample difference between two frames, every plane. */
static guint
worst (const GstVideoInfo *info, GstBuffer *a, GstBuffer *b)
{
  GstVideoFrame fa, fb;
  guint w = 0;
  gst_video_frame_map (&fa, info, a, GST_MAP_READ);
  gst_video_frame_map (&fb, info, b, GST_MAP_READ);
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (&fa); p++)
    for (int y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT (&fa, p); y++) {
      const guint8 *ra = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fa, p)
          + y * GST_VIDEO_FRAME_PLANE_STRIDE (&fa, p);
      const guint8 *rb = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fb, p)
          + y * GST_VIDEO_FRAME_PLANE_STRIDE (&fb, p);
      for (int i = 0; i < GST_VIDEO_FRAME_COMP_WIDTH (&fa, p) * GST_VIDEO_FRAME_COMP_PSTRIDE (&fa, p); i++)
        w = MAX (w, (guint) abs (ra[i] - rb[i]));
    }
  gst_video_frame_unmap (&fa);
  gst_video_frame_unmap (&fb);
  return w;
}

static const gchar *chunkings[] = {
  "max-device-memory=3000000",
  "cuda-device-ids=0,0",
  "cuda-device-ids=0,0,0 max-device-memory=16000000",   /* shared by six lanes */
  "cuda-device-ids=all",   /* every GPU: on a host with several, peer copies */
  "cuda-device-ids=all max-device-memory=2000000",
};

typedef struct {
  const gchar *element, *settings, *format, *reference;   /* reference: backend props */
  guint bound;        /* largest difference allowed from the reference */
} Case;

static const Case cases[] = {
  { "satfilter", "radius=13 border=mirror", "RGBA", "backend=cpu", 0 },
  { "satfilter", "radius=40 mode=threshold border=renormalize", "I420", "backend=cpu", 0 },
  { "satfilter", "radius=2 mode=stddev border=zero", "GRAY16_LE", "backend=cpu", 0 },
  { "fftconvolve", "gaussian-sigma=1 border=wrap method=direct", "RGB", "backend=cuda", 0 },   /* direct sums: bit for bit */
  { "fftconvolve", "gaussian-sigma=5 border=renormalize", "I420", "backend=cpu", 2 },
  { "fftconvolve", "gaussian-sigma=3 border=mirror correlate=true", "GRAY8", "backend=cpu", 2 },
  { "autofill", "connectivity=8", "GRAY8", "backend=cpu", 0 },
  { "autofill", "connectivity=4 output=holes threshold=128", "GRAY8", "backend=cpu", 0 },
};

GST_START_TEST (test_chunked_equals_whole)
{
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    for (guint c = 0; c < G_N_ELEMENTS (chunkings); c++) {
      const Case *k = &cases[i];
      GstVideoInfo info;
      gchar *ref = g_strdup_printf ("%s %s", k->settings, k->reference);
      gchar *chk = g_strdup_printf ("%s backend=cuda %s", k->settings, chunkings[c]);
      GstBuffer *want = run (k->element, ref, k->format, 1001, 601, i, &info);
      GstBuffer *got = run (k->element, chk, k->format, 1001, 601, i, &info);
      fail_unless (want && got, "%s %s %s: no output", k->element, chk, k->format);
      guint w = worst (&info, want, got);
      fail_unless (w <= k->bound, "%s %s %s: off by %u from %s (bound %u)", k->element, chk,
          k->format, w, k->reference, k->bound);
      gst_buffer_unref (want);
      gst_buffer_unref (got);
      g_free (ref);
      g_free (chk);
    }
}
GST_END_TEST;

/* The region metas of a frame, in order: type, box, id and params of each. */
static GString *
roi_list (GstBuffer *b)
{
  GString *s = g_string_new (NULL);
  gpointer state = NULL;
  for (GstVideoRegionOfInterestMeta *r; (r = fvt_next_roi (b, &state));) {
    g_string_append_printf (s, "%s %u,%u %ux%u #%d", g_quark_to_string (r->roi_type), r->x,
        r->y, r->w, r->h, r->id);
    for (GList *l = r->params; l; l = l->next) {   /* the features, every digit */
      gchar *t = gst_structure_to_string (l->data);
      g_string_append_printf (s, " %s", t);
      g_free (t);
    }
    g_string_append_c (s, '\n');
  }
  return s;
}

/* autofill measuring over devices 0,0, and in chunks under a memory
 * budget: each chunk measured on its GPU and the regions joined across
 * the seams, so the same frame and the same part and hole metas (every
 * feature in their params) as the CPU. */
GST_START_TEST (test_autofill_measure_over_devices)
{
  GstVideoInfo info;
  GstBuffer *want = run ("autofill", "measure=both backend=cpu", "GRAY8", 1001, 601, 7, &info);
  static const gchar *ways[] = { "cuda-device-ids=0,0", "max-device-memory=3000000" };
  for (guint w = 0; w < G_N_ELEMENTS (ways); w++) {
    gchar *props = g_strdup_printf ("measure=both backend=cuda %s", ways[w]);
    GstBuffer *got = run ("autofill", props, "GRAY8", 1001, 601, 7, &info);
    fail_unless (want && got, "autofill %s: no output", props);
    fail_unless_equals_int (worst (&info, want, got), 0);
    GString *a = roi_list (want), *b = roi_list (got);
    fail_unless (a->len > 0 && !strcmp (a->str, b->str), "%s: metas differ:\n%.300s\nCPU:\n%.300s",
        props, b->str, a->str);
    g_string_free (a, TRUE);
    g_string_free (b, TRUE);
    gst_buffer_unref (got);
    g_free (props);
  }
  gst_buffer_unref (want);
}
GST_END_TEST;

/* vjdetect split by pyramid levels, and levels by bands of rows: the same
 * boxes, drawn into the frame, as one plan, on a real photo. */
GST_START_TEST (test_vjdetect_chunked)
{
  const gchar *cdir = g_getenv ("FV_CASCADES");
  gchar *cascade = g_strdup_printf ("%s/haarcascades/haarcascade_frontalface_default.xml",
      cdir ? cdir : "/usr/share/opencv4");
  gchar *photo = g_build_filename (g_getenv ("FV_TEST_DATA") ? g_getenv ("FV_TEST_DATA")
      : "tests/data", "faces", "grace_hopper_matplotlib.pgm", NULL);
  fv_image *im = fvt_load_pnm (photo);
  fail_unless (im != NULL, "cannot read %s", photo);
  static const gchar *splits[] = {
    "max-device-memory=8000000", "max-device-memory=3000000", "cuda-device-ids=0,0",
    "cuda-device-ids=all",
  };
  GstVideoInfo info;
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, im->width, im->height);
  GstBuffer *frames[G_N_ELEMENTS (splits) + 1];
  for (guint s = 0; s <= G_N_ELEMENTS (splits); s++) {
    GstBuffer *in = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (&info), NULL);
    GstVideoFrame f;
    gst_video_frame_map (&f, &info, in, GST_MAP_WRITE);
    for (int y = 0; y < im->height; y++)
      memcpy ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, 0) + y * GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0),
          (guint8 *) im->data + y * im->stride, im->width);
    gst_video_frame_unmap (&f);
    gchar *props = g_strdup_printf ("backend=cuda draw=true scale-factor=1.1 cascade=%s %s",
        cascade, s ? splits[s - 1] : "");
    frames[s] = run_buffer ("vjdetect", props, &info, in);
    fail_unless (frames[s] != NULL, "vjdetect %s: no output", props);
    g_free (props);
  }
  for (guint s = 1; s <= G_N_ELEMENTS (splits); s++) {
    fail_unless (worst (&info, frames[0], frames[s]) == 0, "vjdetect %s: other boxes drawn",
        splits[s - 1]);
    GstVideoRegionOfInterestMeta *m0 = NULL, *m1 = NULL;
    gpointer i0 = NULL, i1 = NULL;
    int n = 0;
    while ((m0 = (GstVideoRegionOfInterestMeta *) gst_buffer_iterate_meta_filtered (frames[0],
                &i0, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
      m1 = (GstVideoRegionOfInterestMeta *) gst_buffer_iterate_meta_filtered (frames[s], &i1,
          GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE);
      fail_unless (m1 && m0->x == m1->x && m0->y == m1->y && m0->w == m1->w && m0->h == m1->h,
          "vjdetect %s: box %d differs", splits[s - 1], n);
      n++;
    }
    fail_unless (n > 0 && !gst_buffer_iterate_meta_filtered (frames[s], &i1,
            GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE), "vjdetect %s: %d boxes, or more",
        splits[s - 1], n);
  }
  for (guint s = 0; s <= G_N_ELEMENTS (splits); s++)
    gst_buffer_unref (frames[s]);
  fvt_image_free (im);
  free (im);
  g_free (photo);
  g_free (cascade);
}
GST_END_TEST;

/* Device lists that do not parse or name a missing device: an error at
 * start naming the cause, for every element. */
GST_START_TEST (test_bad_device_lists)
{
  static const gchar *elements[] = { "satfilter", "fftconvolve", "autofill" };   /* vjdetect: its cascade first */
  static const gchar *bad[] = { "0,x", "0,,1", "-1", "99" };
  for (guint e = 0; e < G_N_ELEMENTS (elements); e++)
    for (guint b = 0; b < G_N_ELEMENTS (bad); b++) {
      GstHarness *hh = gst_harness_new (elements[e]);
      g_object_set (hh->element, "backend", 1, "cuda-device-ids", bad[b], NULL);
      if (!strcmp (elements[e], "fftconvolve"))
        g_object_set (hh->element, "gaussian-sigma", 2.0, NULL);
      if (!strcmp (elements[e], "satfilter"))   /* radius 0 passes frames through untouched */
        g_object_set (hh->element, "radius", 3, NULL);
      GstBus *bus = gst_bus_new ();
      gst_element_set_bus (hh->element, bus);
      GstVideoInfo info;
      gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, 64, 48);
      if (!strcmp (elements[e], "autofill"))
        gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 64, 48);
      gst_harness_set_src_caps (hh, gst_video_info_to_caps (&info));
      GstFlowReturn ret = gst_harness_push (hh, random_buffer (&info, b));
      GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
      fail_unless (ret != GST_FLOW_OK && msg, "%s cuda-device-ids=%s: accepted (flow %s, %s)",
          elements[e], bad[b], gst_flow_get_name (ret), msg ? "an error" : "no error");
      GError *err = NULL;
      gchar *dbg = NULL;
      gst_message_parse_error (msg, &err, &dbg);
      fail_unless (strstr (err->message, "cuda-device-ids") != NULL, "%s: %s", elements[e],
          err->message);
      g_clear_error (&err);
      g_free (dbg);
      gst_message_unref (msg);
      gst_element_set_bus (hh->element, NULL);
      gst_object_unref (bus);
      gst_harness_teardown (hh);
    }
}
GST_END_TEST;

/* Host frames past the page-locked budget: ordinary memory, the same
 * output, and one warning naming the cause. */
GST_START_TEST (test_pageable_fallback)
{
  g_setenv ("FASTVISION_MAX_PINNED_MB", "1", TRUE);
  GstHarness *hh = gst_harness_new ("satfilter");
  g_object_set (hh->element, "backend", 1, "radius", 7, NULL);
  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (hh->element, bus);
  GstVideoInfo info;
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, 1920, 1080);
  gst_harness_set_src_caps (hh, gst_video_info_to_caps (&info));
  int warnings = 0;
  for (int i = 0; i < 3; i++) {
    fail_unless (gst_harness_push (hh, random_buffer (&info, 50 + i)) == GST_FLOW_OK);
    gst_buffer_unref (gst_harness_pull (hh));
    GstMessage *m;
    while ((m = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING))) {
      GError *err = NULL;
      gchar *dbg = NULL;
      gst_message_parse_warning (m, &err, &dbg);
      fail_unless (dbg && strstr (dbg, "FASTVISION_MAX_PINNED_MB"), "%s", dbg);
      warnings++;
      g_clear_error (&err);
      g_free (dbg);
      gst_message_unref (m);
    }
  }
  fail_unless_equals_int (warnings, 1);
  gst_element_set_bus (hh->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (hh);
  g_unsetenv ("FASTVISION_MAX_PINNED_MB");
  GstBuffer *want = run ("satfilter", "radius=7 backend=cpu", "RGBA", 1920, 1080, 50, &info);
  g_setenv ("FASTVISION_MAX_PINNED_MB", "1", TRUE);
  GstBuffer *got = run ("satfilter", "radius=7 backend=cuda", "RGBA", 1920, 1080, 50, &info);
  g_unsetenv ("FASTVISION_MAX_PINNED_MB");
  fail_unless (want && got && worst (&info, want, got) == 0, "pageable frames differ");
  gst_buffer_unref (want);
  gst_buffer_unref (got);
}
GST_END_TEST;

int
main (int argc, char **argv)
{
  /* CUDA does not survive fork(): the tests run in this process */
  g_setenv ("CK_FORK", "no", TRUE);
  gst_check_init (&argc, &argv);
  if (fv_cuda_device_count () == 0) {
    g_print ("no GPU: skipped\n");
    return 77;
  }
  Suite *s = suite_create ("chunked");
  TCase *tc = tcase_create ("general");
  tcase_set_timeout (tc, 600);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_chunked_equals_whole);
  tcase_add_test (tc, test_bad_device_lists);
  tcase_add_test (tc, test_pageable_fallback);
  tcase_add_test (tc, test_vjdetect_chunked);
  tcase_add_test (tc, test_autofill_measure_over_devices);
  return gst_check_run_suite (s, "chunked", __FILE__);
}
