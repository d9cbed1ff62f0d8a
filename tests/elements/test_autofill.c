/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* autofill in GstHarness: output against the breadth-first reference,
 * property changes and a resolution change mid-stream, refused caps, the
 * backend choice and the proposed pool; measure (holes against the
 * reference, parts along a belt with their ids, scale and unit), draw, and
 * the measure property's values. */
#include <dlfcn.h>
#include <math.h>
#include <string.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include "fvtest.h"
#include "fv_cuda.h"
#include "fvgstcheck.h"

static gboolean have_gpu;

static void
setup (void)
{
  have_gpu = fv_cuda_device_count () > 0;   /* after check's fork, never before */
}

/* Rings and random specks on a padded-stride frame. */
static GstBuffer *
shapes_buffer (GstVideoInfo *info, guint seed)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (info), NULL);
  GstVideoFrame f;
  fvt_rng rng = { 77 + seed };
  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_FORMAT_GRAY8,
      GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info), 1, info->offset, info->stride);
  fail_unless (gst_video_frame_map (&f, info, buf, GST_MAP_WRITE));
  guint8 *d = GST_VIDEO_FRAME_PLANE_DATA (&f, 0);
  int w = GST_VIDEO_FRAME_WIDTH (&f), h = GST_VIDEO_FRAME_HEIGHT (&f);
  int s = GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      int r = (x - w / 2) * (x - w / 2) + (y - h / 2) * (y - h / 2);
      int ring = (r / 40) % 3 == 0;
      d[y * s + x] = ring || fvt_next (&rng) % 23 == 0 ? 180 + seed % 50 : 20;
    }
  gst_video_frame_unmap (&f);
  return buf;
}

/* The reference fill of in (mapped into *fi, seen as *src; unmap fi after). */
static guint8 *
reference_fill (GstVideoInfo *info, GstBuffer *in, GstVideoFrame *fi, fv_image *src,
    unsigned thr, int conn, int output, unsigned fv)
{
  fail_unless (gst_video_frame_map (fi, info, in, GST_MAP_READ));
  const int w = GST_VIDEO_FRAME_WIDTH (fi), h = GST_VIDEO_FRAME_HEIGHT (fi);
  *src = fv_image_make (GST_VIDEO_FRAME_PLANE_DATA (fi, 0), GST_VIDEO_FRAME_PLANE_STRIDE (fi, 0),
      w, h, 1, FV_U8, FV_MEM_HOST);
  guint8 *want = g_malloc ((gsize) w * h);
  fvt_ref_fill (src, thr, conn, output, fv, want);
  return want;
}

static long
compare (GstVideoInfo *info, GstBuffer *in, GstBuffer *out, unsigned thr, int conn, int output,
    unsigned fv)
{
  GstVideoFrame fi, fo;
  fv_image src;
  guint8 *want = reference_fill (info, in, &fi, &src, thr, conn, output, fv);
  fail_unless (gst_video_frame_map (&fo, info, out, GST_MAP_READ));
  const int w = src.width, h = src.height;
  long bad = 0;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      bad += ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fo, 0))[y * GST_VIDEO_FRAME_PLANE_STRIDE (&fo, 0) + x]
          != want[y * w + x];
  g_free (want);
  gst_video_frame_unmap (&fi);
  gst_video_frame_unmap (&fo);
  return bad;
}

static GstHarness *
harness (const char *backend, int w, int h, GstVideoInfo *info)
{
  GstHarness *hh = gst_harness_new ("autofill");
  gst_util_set_object_arg (G_OBJECT (hh->element), "backend", backend);
  gst_video_info_set_format (info, GST_VIDEO_FORMAT_GRAY8, w, h);
  gst_harness_set_src_caps (hh, gst_video_info_to_caps (info));
  return hh;
}

static long
push_check (GstHarness *hh, GstVideoInfo *info, guint seed, unsigned thr, int conn, int output,
    unsigned fv)
{
  GstBuffer *in = shapes_buffer (info, seed);
  GstBuffer *out = gst_harness_push_and_pull (hh, gst_buffer_ref (in));
  fail_unless (out != NULL);
  long bad = compare (info, in, out, thr, conn, output, fv);
  gst_buffer_unref (in);
  gst_buffer_unref (out);
  return bad;
}

GST_START_TEST (test_matches_reference_and_changes)
{
  const char *backends[] = { "cpu", "cuda" };
  for (int b = 0; b < (have_gpu ? 2 : 1); b++) {
    GstVideoInfo info;
    GstHarness *hh = harness (backends[b], 97, 61, &info);
    fail_unless (push_check (hh, &info, 1, 127, 4, 0, 255) == 0);
    g_object_set (hh->element, "threshold", 200, "fill-value", 9, NULL);
    gst_util_set_object_arg (G_OBJECT (hh->element), "connectivity", "8");
    gst_util_set_object_arg (G_OBJECT (hh->element), "output", "holes");
    fail_unless (push_check (hh, &info, 30, 200, 8, 1, 9) == 0);
    gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 33, 129);
    gst_harness_set_src_caps (hh, gst_video_info_to_caps (&info));
    fail_unless (push_check (hh, &info, 31, 200, 8, 1, 9) == 0);
    gint active;
    g_object_get (hh->element, "active-backend", &active, NULL);
    fail_unless_equals_int (active, b);
    gst_harness_teardown (hh);
  }
}
GST_END_TEST;

GST_START_TEST (test_refuses_colour)
{
  GstHarness *hh = gst_harness_new ("autofill");
  gst_harness_set_src_caps_str (hh, "video/x-raw,format=RGB,width=16,height=16,framerate=30/1");
  fail_unless_equals_int (gst_harness_push (hh, gst_buffer_new_allocate (NULL, 768, NULL)),
      GST_FLOW_NOT_NEGOTIATED);
  gst_harness_teardown (hh);
}
GST_END_TEST;

GST_START_TEST (test_backend_errors)
{
  GstElement *pipe = gst_parse_launch ("videotestsrc num-buffers=2 ! "
      "video/x-raw,format=GRAY8,width=32,height=16 ! autofill backend=cuda ! fakesink", NULL);
  GstStateChangeReturn ret = gst_element_set_state (pipe, GST_STATE_PAUSED);
  if (have_gpu) {
    fail_unless (ret != GST_STATE_CHANGE_FAILURE);
  } else {
    fail_unless_equals_int (ret, GST_STATE_CHANGE_FAILURE);
    GstMessage *m = gst_bus_pop_filtered (GST_ELEMENT_BUS (pipe), GST_MESSAGE_ERROR);
    fail_unless (m != NULL);
    GError *err = NULL;
    gst_message_parse_error (m, &err, NULL);
    fail_unless (strstr (err->message, "GPU") != NULL);
    /* the reason, whatever the build: no CUDA in it, or no driver on the machine */
    void *driver = dlopen ("libcuda.so.1", RTLD_LAZY);
    if (!fv_cuda_built ())
      fail_unless (strstr (err->message, "built without CUDA") != NULL, "%s", err->message);
    else if (!driver)
      fail_unless (strstr (err->message, "no NVIDIA driver") != NULL, "%s", err->message);
    if (driver)
      dlclose (driver);
    g_error_free (err);
    gst_message_unref (m);
  }
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pipe);
}
GST_END_TEST;

/* backend=hybrid: frames alternate between GPU and CPU and come out one
 * frame late, in order, all exact; EOS brings out the last one. Without a
 * GPU it fails the state change like cuda. */
GST_START_TEST (test_hybrid)
{
  if (!have_gpu) {
    GstElement *pipe = gst_parse_launch ("videotestsrc num-buffers=2 ! "
        "video/x-raw,format=GRAY8,width=32,height=16 ! autofill backend=hybrid ! fakesink", NULL);
    fail_unless_equals_int (gst_element_set_state (pipe, GST_STATE_PAUSED),
        GST_STATE_CHANGE_FAILURE);
    gst_element_set_state (pipe, GST_STATE_NULL);
    gst_object_unref (pipe);
    return;
  }
  GstVideoInfo info;
  GstHarness *hh = harness ("hybrid", 203, 117, &info);
  GstBuffer *in[5];
  for (int i = 0; i < 5; i++) {
    in[i] = shapes_buffer (&info, 40 + i);
    GST_BUFFER_PTS (in[i]) = i * GST_SECOND / 30;
    fail_unless_equals_int (gst_harness_push (hh, gst_buffer_ref (in[i])), GST_FLOW_OK);
  }
  fail_unless_equals_int (gst_harness_buffers_received (hh), 4);
  fail_unless (gst_harness_push_event (hh, gst_event_new_eos ()));
  for (int i = 0; i < 5; i++) {
    GstBuffer *out = gst_harness_pull (hh);
    fail_unless (out != NULL);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (out), GST_BUFFER_PTS (in[i]));
    fail_unless (compare (&info, in[i], out, 127, 4, 0, 255) == 0, "frame %d", i);
    gst_buffer_unref (out);
    gst_buffer_unref (in[i]);
  }
  gint active;
  g_object_get (hh->element, "active-backend", &active, NULL);
  fail_unless_equals_int (active, 2);
  gst_harness_teardown (hh);
}
GST_END_TEST;

/* I420, NV12 and Y444: the Y plane filled as GRAY8 would be, the chroma
 * planes passed through untouched; odd sizes; every backend there is. */
GST_START_TEST (test_yuv_formats)
{
  const char *formats[] = { "I420", "NV12", "Y444" };
  const char *backends[] = { "cpu", "cuda" };
  for (guint f = 0; f < G_N_ELEMENTS (formats); f++)
    for (int b = 0; b < (have_gpu ? 2 : 1); b++) {
      GstVideoInfo info;
      GstHarness *hh = gst_harness_new ("autofill");
      gst_util_set_object_arg (G_OBJECT (hh->element), "backend", backends[b]);
      gst_video_info_set_format (&info, gst_video_format_from_string (formats[f]), 37, 23);
      gst_harness_set_src_caps (hh, gst_video_info_to_caps (&info));
      GstBuffer *in = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (&info), NULL);
      GstVideoFrame fi, fo;
      fvt_rng rng = { 5 + f };
      fail_unless (gst_video_frame_map (&fi, &info, in, GST_MAP_WRITE));
      for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (&fi); p++) {
        guint8 *d = GST_VIDEO_FRAME_PLANE_DATA (&fi, p);
        gint st = GST_VIDEO_FRAME_PLANE_STRIDE (&fi, p);
        gint h = GST_VIDEO_FRAME_COMP_HEIGHT (&fi, p == 0 ? 0 : (p == 1 ? 1 : 2));
        for (gint y = 0; y < h; y++)
          for (gint x = 0; x < st; x++) {
            gint r = (x - 18) * (x - 18) + (y - 11) * (y - 11);
            d[y * st + x] = p ? fvt_next (&rng) & 0xff : (r / 30) % 3 == 0 ? 200 : 20;
          }
      }
      gst_video_frame_unmap (&fi);
      GstBuffer *out = gst_harness_push_and_pull (hh, gst_buffer_ref (in));
      fail_unless (out != NULL, "%s", formats[f]);
      fail_unless (compare (&info, in, out, 127, 4, 0, 255) == 0, "%s %s: luma",
          formats[f], backends[b]);
      fail_unless (gst_video_frame_map (&fi, &info, in, GST_MAP_READ));
      fail_unless (gst_video_frame_map (&fo, &info, out, GST_MAP_READ));
      for (guint p = 1; p < GST_VIDEO_FRAME_N_PLANES (&fi); p++) {
        gint h = GST_VIDEO_FRAME_COMP_HEIGHT (&fi, p), w = GST_VIDEO_FRAME_COMP_WIDTH (&fi, p)
            * GST_VIDEO_FRAME_COMP_PSTRIDE (&fi, p);
        for (gint y = 0; y < h; y++)
          fail_unless (memcmp ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fi, p)
                  + y * GST_VIDEO_FRAME_PLANE_STRIDE (&fi, p),
                  (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fo, p)
                  + y * GST_VIDEO_FRAME_PLANE_STRIDE (&fo, p), w) == 0,
              "%s %s: chroma plane %u row %d changed", formats[f], backends[b], p, y);
      }
      gst_video_frame_unmap (&fi);
      gst_video_frame_unmap (&fo);
      gst_buffer_unref (in);
      gst_buffer_unref (out);
      gst_harness_teardown (hh);
    }
}
GST_END_TEST;

/* The frame's enclosed regions by the reference, as measure reports them
 * (min-area applied). */
static int
ref_regions_of (GstVideoInfo *info, GstBuffer *in, guint64 min_area, fvt_region **list)
{
  GstVideoFrame fi;
  fv_image src;
  guint8 *want = reference_fill (info, in, &fi, &src, 127, 4, 0, 255);
  fvt_region *all;
  int n = fvt_ref_regions (&src, 127, 4, want, &all), k = 0;
  for (int i = 0; i < n; i++)
    if ((guint64) all[i].area >= min_area)
      all[k++] = all[i];
  *list = all;
  g_free (want);
  gst_video_frame_unmap (&fi);
  return k;
}

/* measure=true on every backend there is: the message's count, area and
 * list and the frame's ROI metas equal the reference's regions, min-area
 * and max-regions applied, ids unique beside another producer's metas;
 * measure=false adds nothing. */
GST_START_TEST (test_measure)
{
  const char *backends[] = { "cpu", "cuda", "hybrid" };
  for (int b = 0; b < (have_gpu ? 3 : 1); b++) {
    GstVideoInfo info;
    GstHarness *hh = harness (backends[b], 211, 97, &info);
    GstBus *bus = gst_bus_new ();
    gst_element_set_bus (hh->element, bus);
    const guint max_regions = 5;
    const guint64 min_area = 3;
    g_object_set (hh->element, "measure", TRUE, "min-area", min_area, "max-regions",
        max_regions, "roi-type", "hole", NULL);
    GstBuffer *in[4];
    for (int i = 0; i < 4; i++) {
      in[i] = shapes_buffer (&info, 60 + i);
      /* another producer's meta already there: our ids go above its */
      gst_buffer_add_video_region_of_interest_meta (in[i], "face", 0, 0, 4, 4)->id = 7;
      fail_unless_equals_int (gst_harness_push (hh, gst_buffer_ref (in[i])), GST_FLOW_OK);
    }
    gst_harness_push_event (hh, gst_event_new_eos ());
    for (int i = 0; i < 4; i++) {
      GstBuffer *out = gst_harness_pull (hh);
      fail_unless (out != NULL);
      fvt_region *ref;
      const int nref = ref_regions_of (&info, in[i], min_area, &ref);
      fail_unless (nref > (int) max_regions, "the frames have more regions than listed");
      guint64 ref_area = 0;
      for (int k = 0; k < nref; k++)
        ref_area += ref[k].area;
      GstMessage *m = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT);
      fail_unless (m != NULL, "%s: no message for frame %d", backends[b], i);
      const GstStructure *s = gst_message_get_structure (m);
      fail_unless (gst_structure_has_name (s, "autofill"));
      guint count, unlisted;
      guint64 area;
      fail_unless (gst_structure_get (s, "count", G_TYPE_UINT, &count, "area", G_TYPE_UINT64,
              &area, "unlisted", G_TYPE_UINT, &unlisted, NULL));
      fail_unless_equals_int (count, nref);
      fail_unless_equals_uint64 (area, ref_area);
      fail_unless_equals_int (unlisted, nref - max_regions);
      const GValue *list = gst_structure_get_value (s, "regions");
      fail_unless_equals_int (gst_value_list_get_size (list), max_regions);
      /* metas: the other producer's, then ours in list order */
      gpointer state = NULL;
      GstMeta *meta;
      guint k = 0;
      while ((meta = gst_buffer_iterate_meta_filtered (out, &state,
                  GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
        GstVideoRegionOfInterestMeta *r = (GstVideoRegionOfInterestMeta *) meta;
        if (r->id == 7)
          continue;
        fail_unless (k < max_regions);
        fail_unless_equals_string (g_quark_to_string (r->roi_type), "hole");
        fail_unless_equals_int (r->id, 8 + k);
        fail_unless (r->x == (guint) ref[k].x && r->y == (guint) ref[k].y
            && r->w == (guint) ref[k].width && r->h == (guint) ref[k].height,
            "%s frame %d region %u: box (%u,%u %ux%u), want (%d,%d %dx%d)", backends[b], i, k,
            r->x, r->y, r->w, r->h, ref[k].x, ref[k].y, ref[k].width, ref[k].height);
        guint64 a = 0;
        fail_unless (gst_structure_get_uint64 (gst_video_region_of_interest_meta_get_param (r,
                    "region"), "area", &a));
        fail_unless_equals_uint64 (a, ref[k].area);
        const GstStructure *e = gst_value_get_structure (gst_value_list_get_value (list, k));
        guint x, y;
        gint id;
        fail_unless (gst_structure_get (e, "id", G_TYPE_INT, &id, "x", G_TYPE_UINT, &x,
                "y", G_TYPE_UINT, &y, "area", G_TYPE_UINT64, &a, NULL));
        fail_unless (id == r->id && x == r->x && y == r->y && a == (guint64) ref[k].area);
        k++;
      }
      fail_unless_equals_int (k, max_regions);
      g_free (ref);
      gst_message_unref (m);
      gst_buffer_unref (out);
      gst_buffer_unref (in[i]);
    }
    /* off: no message, no metas but what came in */
    g_object_set (hh->element, "measure", FALSE, NULL);
    fail_unless (fvt_harness_flush (hh));
    GstBuffer *out = gst_harness_push_and_pull (hh, shapes_buffer (&info, 9));
    if (b == 2)   /* hybrid holds a frame back: EOS brings it */
      gst_harness_push_event (hh, gst_event_new_eos ());
    if (!out)
      out = gst_harness_pull (hh);
    fail_unless (out != NULL);
    fail_unless (gst_buffer_get_meta (out, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE) == NULL);
    fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT) == NULL);
    gst_buffer_unref (out);
    gst_element_set_bus (hh->element, NULL);
    gst_object_unref (bus);
    gst_harness_teardown (hh);
  }
}
GST_END_TEST;

/* Washers on a belt: three rings (outer radius 12, inner 6) at different
 * heights, moving right `shift` pixels. */
static GstBuffer *
belt_buffer (GstVideoInfo *info, int shift)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (info), NULL);
  GstVideoFrame f;
  fail_unless (gst_video_frame_map (&f, info, buf, GST_MAP_WRITE));
  guint8 *d = GST_VIDEO_FRAME_PLANE_DATA (&f, 0);
  const int w = GST_VIDEO_FRAME_WIDTH (&f), h = GST_VIDEO_FRAME_HEIGHT (&f);
  const int s = GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      int on = 0;
      for (int k = 0; k < 3; k++) {
        const int dx = x - (20 + 45 * k + shift), dy = y - (16 + 30 * k), r2 = dx * dx + dy * dy;
        on |= r2 <= 12 * 12 && r2 >= 6 * 6;
      }
      d[y * s + x] = on ? 200 : 10;
    }
  gst_video_frame_unmap (&f);
  return buf;
}

static const GstStructure *
param_of (GstVideoRegionOfInterestMeta *r)
{
  return r->params ? r->params->data : NULL;
}

/* measure=both along a belt, on every backend there is: three parts (in
 * raster order) and three holes a frame; each part keeps its id while it
 * moves, the ids differ; each hole names its part (the part's id, its meta
 * as parent) and the part counts it; the frame meta and the message carry
 * the counts; scale and unit convert areas and lengths, not pixels. */
GST_START_TEST (test_parts_belt)
{
  const char *backends[] = { "cpu", "cuda", "hybrid" };
  for (int b = 0; b < (have_gpu ? 3 : 1); b++) {
    GstVideoInfo info;
    GstHarness *hh = harness (backends[b], 181, 100, &info);
    GstBus *bus = gst_bus_new ();
    gst_element_set_bus (hh->element, bus);
    gst_util_set_object_arg (G_OBJECT (hh->element), "measure", "both");
    g_object_set (hh->element, "scale", 0.5, "unit", "mm", NULL);
    guint first_ids[3] = { 0 };
    const int frames = 8;
    for (int f = 0; f < frames; f++)
      fail_unless_equals_int (gst_harness_push (hh, belt_buffer (&info, 3 * f)), GST_FLOW_OK);
    gst_harness_push_event (hh, gst_event_new_eos ());
    for (int f = 0; f < frames; f++) {
      GstBuffer *out = gst_harness_pull (hh);
      fail_unless (out != NULL);
      GstVideoRegionOfInterestMeta *part[3] = { 0 }, *hole[3] = { 0 };
      int np = 0, nh = 0;
      gpointer state = NULL;
      for (GstVideoRegionOfInterestMeta *r; (r = fvt_next_roi (out, &state));) {
        const gchar *type = g_quark_to_string (r->roi_type);
        if (!strcmp (type, "part") && np < 3)
          part[np++] = r;
        else if (!strcmp (type, "region") && nh < 3)
          hole[nh++] = r;
        else
          fail ("%s frame %d: a meta of type %s, or too many", backends[b], f, type);
      }
      fail_unless (np == 3 && nh == 3, "%s frame %d: %d parts, %d holes", backends[b], f, np, nh);
      for (int k = 0; k < 3; k++) {
        const GstStructure *ps = gst_video_region_of_interest_meta_get_param (part[k], "part");
        const GstStructure *hs = gst_video_region_of_interest_meta_get_param (hole[k], "region");
        fail_unless (ps && hs && ps == param_of (part[k]));
        guint id, holes, hole_part;
        guint64 area, hole_area, harea;
        gdouble unit_area, cx, cy;
        fail_unless (gst_structure_get (ps, "id", G_TYPE_UINT, &id, "holes", G_TYPE_UINT,
                &holes, "area", G_TYPE_UINT64, &area, "hole-area", G_TYPE_UINT64, &hole_area,
                "unit-area", G_TYPE_DOUBLE, &unit_area, "cx", G_TYPE_DOUBLE, &cx,
                "cy", G_TYPE_DOUBLE, &cy, NULL));
        fail_unless (gst_structure_get (hs, "part", G_TYPE_UINT, &hole_part, "area",
                G_TYPE_UINT64, &harea, NULL));
        fail_unless_equals_string (gst_structure_get_string (ps, "unit"), "mm");
        /* the washer: centred where drawn, its hole inside, areas in mm² */
        fail_unless (fabs (cx - (20 + 45 * k + 3 * f)) < 1e-9 && fabs (cy - (16 + 30 * k)) < 1e-9,
            "%s frame %d part %d: centroid %f,%f", backends[b], f, k, cx, cy);
        fail_unless (holes == 1 && hole_area == harea && harea > 90 && harea < 140,
            "%s frame %d part %d: %u holes of %" G_GUINT64_FORMAT, backends[b], f, k, holes,
            hole_area);
        fail_unless (unit_area == (gdouble) area * 0.25);
        fail_unless (hole_part == id && hole[k]->parent_id == part[k]->id,
            "%s frame %d hole %d: part %u (parent %d), want %u (%d)", backends[b], f, k,
            hole_part, hole[k]->parent_id, id, part[k]->id);
        if (f == 0)
          first_ids[k] = id;
        fail_unless (id == first_ids[k], "%s frame %d part %d: id %u, was %u", backends[b], f, k,
            id, first_ids[k]);
      }
      fail_unless (first_ids[0] != first_ids[1] && first_ids[1] != first_ids[2]
          && first_ids[0] != first_ids[2] && first_ids[0] > 0);
      GstCustomMeta *cm = gst_buffer_get_custom_meta (out, "FvMeasureMeta");
      const GstStructure *fm = cm ? gst_custom_meta_get_structure (cm) : NULL;
      guint count, part_count, unlisted, part_unlisted;
      fail_unless (fm && gst_structure_get (fm, "count", G_TYPE_UINT, &count, "part-count",
              G_TYPE_UINT, &part_count, "unlisted", G_TYPE_UINT, &unlisted, "part-unlisted",
              G_TYPE_UINT, &part_unlisted, NULL));
      fail_unless (count == 3 && part_count == 3 && unlisted == 0 && part_unlisted == 0);
      GstMessage *m = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT);
      fail_unless (m != NULL);
      const GstStructure *s = gst_message_get_structure (m);
      fail_unless_equals_int (gst_value_list_get_size (gst_structure_get_value (s, "parts")), 3);
      fail_unless_equals_int (gst_value_list_get_size (gst_structure_get_value (s, "regions")), 3);
      fail_unless (gst_structure_get (s, "part-count", G_TYPE_UINT, &part_count, NULL)
          && part_count == 3);
      gst_message_unref (m);
      gst_buffer_unref (out);
    }
    /* a flush starts the ids again */
    fail_unless (fvt_harness_flush (hh));
    GstBuffer *out = gst_harness_push_and_pull (hh, belt_buffer (&info, 40));
    if (b == 2)
      gst_harness_push_event (hh, gst_event_new_eos ());
    if (!out)
      out = gst_harness_pull (hh);
    fail_unless (out != NULL);
    GstVideoRegionOfInterestMeta *r = gst_buffer_get_video_region_of_interest_meta_id (out, 0);
    fail_unless (r && !strcmp (g_quark_to_string (r->roi_type), "part"));
    guint id = 0;
    gst_structure_get_uint (param_of (r), "id", &id);
    fail_unless_equals_int (id, 1);
    gst_buffer_unref (out);
    gst_element_set_bus (hh->element, NULL);
    gst_object_unref (bus);
    gst_harness_teardown (hh);
  }
}
GST_END_TEST;

/* draw=true: each part's box outline in mid-grey around it (and its id
 * above), each hole's box in it; draw=false leaves the fill's 0 and 255. */
GST_START_TEST (test_draw)
{
  for (int draw = 0; draw <= 1; draw++) {
    GstVideoInfo info;
    GstHarness *hh = harness ("cpu", 181, 100, &info);
    gst_util_set_object_arg (G_OBJECT (hh->element), "measure", "both");
    g_object_set (hh->element, "draw", draw, NULL);
    GstBuffer *out = gst_harness_push_and_pull (hh, belt_buffer (&info, 0));
    fail_unless (out != NULL);
    GstVideoFrame fo;
    fail_unless (gst_video_frame_map (&fo, &info, out, GST_MAP_READ));
    const guint8 *d = GST_VIDEO_FRAME_PLANE_DATA (&fo, 0);
    const int s = GST_VIDEO_FRAME_PLANE_STRIDE (&fo, 0);
    long grey = 0, other = 0;
    for (int y = 0; y < 100; y++)
      for (int x = 0; x < 181; x++) {
        grey += d[y * s + x] == 128;
        other += d[y * s + x] != 128 && d[y * s + x] != 0 && d[y * s + x] != 255;
      }
    fail_unless_equals_int (other, 0);
    if (!draw) {
      fail_unless_equals_int (grey, 0);
    } else {
      /* the first washer (centre 20,16, radius 12): its box is x 8..32, y
       * 4..28, the outline one pixel outside it; its hole's box (radius
       * under 6) x 15..25, y 11..21, outlined on its edge */
      for (int x = 7; x <= 33; x++)
        fail_unless (d[3 * s + x] == 128 && d[29 * s + x] == 128, "part outline at x %d", x);
      for (int y = 3; y <= 29; y++)
        fail_unless (d[y * s + 7] == 128 && d[y * s + 33] == 128, "part outline at y %d", y);
      for (int x = 15; x <= 25; x++)
        fail_unless (d[11 * s + x] == 128 && d[21 * s + x] == 128, "hole outline at x %d", x);
      /* and nothing else but the ids: few grey pixels in all */
      fail_unless (grey < 3 * (2 * 27 + 2 * 27 + 4 * 13) + 3 * 15 * 4 + 200, "%ld grey", grey);
    }
    gst_video_frame_unmap (&fo);
    gst_buffer_unref (out);
    gst_harness_teardown (hh);
  }
}
GST_END_TEST;

/* measure takes the names, and the boolean values of earlier releases */
GST_START_TEST (test_measure_values)
{
  GstElement *e = gst_element_factory_make ("autofill", NULL);
  const char *nicks[] = { "none", "holes", "parts", "both", "false", "true" };
  const int want[] = { 0, 1, 2, 3, 0, 1 };
  for (int i = 0; i < 6; i++) {
    gst_util_set_object_arg (G_OBJECT (e), "measure", nicks[i]);
    gint v = -1;
    g_object_get (e, "measure", &v, NULL);
    fail_unless_equals_int (v, want[i]);
  }
  g_object_set (e, "measure", TRUE, NULL);   /* an application's boolean */
  gint v = -1;
  g_object_get (e, "measure", &v, NULL);
  fail_unless_equals_int (v, FV_FILL_MEASURE_HOLES);
  gdouble scale = 0;
  g_object_get (e, "scale", &scale, NULL);
  fail_unless (scale == 1.0);
  gchar *unit = NULL;
  g_object_get (e, "unit", &unit, NULL);
  fail_unless_equals_string (unit, "px");
  g_free (unit);
  gst_object_unref (e);
}
GST_END_TEST;

static Suite *
autofill_suite (void)
{
  Suite *s = suite_create ("autofill");
  TCase *tc = tcase_create ("general");
  tcase_add_checked_fixture (tc, setup, NULL);
  tcase_set_timeout (tc, 120);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_matches_reference_and_changes);
  tcase_add_test (tc, test_refuses_colour);
  tcase_add_test (tc, test_backend_errors);
  tcase_add_test (tc, test_hybrid);
  tcase_add_test (tc, test_yuv_formats);
  tcase_add_test (tc, test_measure);
  tcase_add_test (tc, test_parts_belt);
  tcase_add_test (tc, test_draw);
  tcase_add_test (tc, test_measure_values);
  return s;
}

GST_CHECK_MAIN (autofill);
