/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* satfilter in GstHarness: every format against the reference, property
 * changes and a resolution change mid-stream, roi-type, padded strides,
 * the pool it proposes, controllers, bad caps and backend errors. */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/controller/controller.h>
#include <gst/video/video.h>
#include <gst/base/gstbasetransform.h>
#include "fvtest-gst.h"
#include "fv_cuda.h"

/* What each format must look like to the kernel, written out by hand so the
 * element's own mapping is checked too: per plane, channels, the channel
 * mask of colour samples, and the subsampling shifts. */
typedef struct { int channels; unsigned mask; int wsub, hsub; } PlaneSpec;
typedef struct { const char *format; int n; PlaneSpec pl[3]; int bits; } FormatSpec;

static const FormatSpec formats[] = {
  {"GRAY8", 1, {{1, 0x1, 0, 0}}, 8},
  {"GRAY16_LE", 1, {{1, 0x1, 0, 0}}, 16},
  {"RGB", 1, {{3, 0x7, 0, 0}}, 8},
  {"BGR", 1, {{3, 0x7, 0, 0}}, 8},
  {"RGBA", 1, {{4, 0x7, 0, 0}}, 8},
  {"BGRA", 1, {{4, 0x7, 0, 0}}, 8},
  {"RGBx", 1, {{4, 0x7, 0, 0}}, 8},
  {"BGRx", 1, {{4, 0x7, 0, 0}}, 8},
  {"ARGB", 1, {{4, 0xE, 0, 0}}, 8},
  {"ABGR", 1, {{4, 0xE, 0, 0}}, 8},
  {"I420", 3, {{1, 0x1, 0, 0}, {1, 0x1, 1, 1}, {1, 0x1, 1, 1}}, 8},
  {"NV12", 2, {{1, 0x1, 0, 0}, {2, 0x3, 1, 1}}, 8},
  {"Y444", 3, {{1, 0x1, 0, 0}, {1, 0x1, 0, 0}, {1, 0x1, 0, 0}}, 8},
};

/* CUDA must not be touched before check forks each test, so the GPU is
 * looked for inside the tests. */
static gboolean have_gpu;

static void
setup (void)
{
  have_gpu = fv_cuda_device_count () > 0;
}

#define random_buffer(info, seed) fvt_random_buffer ((info), 0x1234567ull + (seed))

static const FormatSpec *
spec_for (const char *format)
{
  for (guint i = 0; i < G_N_ELEMENTS (formats); i++)
    if (!strcmp (formats[i].format, format))
      return &formats[i];
  return NULL;
}

/* Checks out against the reference filter of in; inside (x,y,w,h) only
 * when w > 0, elsewhere out must equal in. Returns mismatching samples. */
static long
check_output (const GstVideoInfo *in_info, GstBuffer *in, GstBuffer *out, guint radius,
    fv_box_mode mode, fv_border border, double sens, int rx0, int ry0, int rw, int rh)
{
  const FormatSpec *fs = spec_for (gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (in_info)));
  GstVideoFrame fi, fo;
  long bad = 0;
  fail_unless (fs != NULL);
  fail_unless (gst_video_frame_map (&fi, (GstVideoInfo *) in_info, in, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fo, (GstVideoInfo *) in_info, out, GST_MAP_READ));
  fail_unless_equals_int (GST_VIDEO_FRAME_N_PLANES (&fi), fs->n);
  for (int p = 0; p < fs->n; p++) {
    const PlaneSpec *ps = &fs->pl[p];
    fv_box_params bp = { 0 };
    bp.frame.width = GST_VIDEO_FRAME_COMP_WIDTH (&fi, p == 0 ? 0 : (fs->n == 2 ? 1 : p));
    bp.frame.height = GST_VIDEO_FRAME_COMP_HEIGHT (&fi, p == 0 ? 0 : (fs->n == 2 ? 1 : p));
    bp.frame.channels = ps->channels;
    bp.channel_mask = ps->mask;
    bp.frame.sample = fs->bits == 16 ? FV_U16 : FV_U8;
    bp.radius_x = ps->wsub ? (radius + 1) >> 1 : radius;
    bp.radius_y = ps->hsub ? (radius + 1) >> 1 : radius;
    bp.mode = mode; bp.border = border; bp.sensitivity = sens;
    fv_image a = fv_image_make (GST_VIDEO_FRAME_PLANE_DATA (&fi, p),
        GST_VIDEO_FRAME_PLANE_STRIDE (&fi, p), bp.frame.width, bp.frame.height, bp.frame.channels,
            bp.frame.sample,
        FV_MEM_HOST);
    fv_image b = a;
    b.data = GST_VIDEO_FRAME_PLANE_DATA (&fo, p);
    b.stride = GST_VIDEO_FRAME_PLANE_STRIDE (&fo, p);
    for (int y = 0; y < bp.frame.height; y++)
      for (int x = 0; x < bp.frame.width; x++) {
        int fx = x << ps->wsub, fy = y << ps->hsub;
        int in_roi = rw <= 0 || (fx + (1 << ps->wsub) > rx0 && fx < rx0 + rw
            && fy + (1 << ps->hsub) > ry0 && fy < ry0 + rh);
        for (int c = 0; c < bp.frame.channels; c++) {
          uint32_t want = in_roi && (ps->mask >> c & 1) ? fvt_ref_box (&bp, &a, x, y, c)
              : fvt_get (&a, x, y, c);
          uint32_t got = fvt_get (&b, x, y, c);
          if (want != got && bad++ < 3)
            GST_ERROR ("%s plane %d (%d,%d,c%d): got %u want %u", fs->format, p, x, y, c,
                got, want);
        }
      }
  }
  gst_video_frame_unmap (&fi);
  gst_video_frame_unmap (&fo);
  return bad;
}

static GstHarness *
new_harness (const char *format, int w, int h, const char *props, GstVideoInfo *info)
{
  GstHarness *hh = gst_harness_new ("satfilter");
  gchar **kv = g_strsplit (props ? props : "", " ", -1);
  for (gchar **p = kv; *p; p++) {
    gchar *eq = strchr (*p, '=');
    if (!eq)
      continue;
    *eq = '\0';
    gst_util_set_object_arg (G_OBJECT (hh->element), *p, eq + 1);
  }
  g_strfreev (kv);
  gst_video_info_set_format (info, gst_video_format_from_string (format), w, h);
  GstCaps *caps = gst_video_info_to_caps (info);
  gst_harness_set_src_caps (hh, caps);
  return hh;
}

static long
push_and_check (GstHarness *hh, const GstVideoInfo *info, guint32 seed, guint radius,
    fv_box_mode mode, fv_border border, double sens)
{
  GstBuffer *in = random_buffer (info, seed);
  GstBuffer *out = gst_harness_push_and_pull (hh, gst_buffer_ref (in));
  fail_unless (out != NULL);
  long bad = check_output (info, in, out, radius, mode, border, sens, 0, 0, 0, 0);
  gst_buffer_unref (in);
  gst_buffer_unref (out);
  return bad;
}

GST_START_TEST (test_every_format)
{
  const char *backends[] = { "cpu", "cuda" };
  for (int b = 0; b < (have_gpu ? 2 : 1); b++)
    for (guint i = 0; i < G_N_ELEMENTS (formats); i++) {
      GstVideoInfo info;
      gchar *props = g_strdup_printf ("radius=3 backend=%s", backends[b]);
      GstHarness *hh = new_harness (formats[i].format, 37, 23, props, &info);
      long bad = push_and_check (hh, &info, i, 3, FV_BOX_MEAN, FV_BORDER_RENORMALIZE, 0);
      fail_unless (bad == 0, "%s (%s): %ld samples wrong", formats[i].format, backends[b], bad);
      gst_harness_teardown (hh);
      g_free (props);
    }
}
GST_END_TEST;

GST_START_TEST (test_modes_and_borders)
{
  for (int mode = 0; mode <= FV_BOX_THRESHOLD; mode++)
    for (int border = 0; border <= FV_BORDER_ZERO; border++) {
      GstVideoInfo info;
      GstHarness *hh = new_harness ("I420", 33, 17, "backend=cpu", &info);
      GEnumClass *mc = g_type_class_ref (g_type_from_name ("GstSatFilterMode"));
      GEnumClass *bc = g_type_class_ref (g_type_from_name ("GstSatFilterBorder"));
      g_object_set (hh->element, "radius", 5, "sensitivity", 0.1, NULL);
      gst_util_set_object_arg (G_OBJECT (hh->element), "mode",
          g_enum_get_value (mc, mode)->value_nick);
      gst_util_set_object_arg (G_OBJECT (hh->element), "border",
          g_enum_get_value (bc, border)->value_nick);
      fail_unless (push_and_check (hh, &info, mode * 7 + border, 5, mode, border, 0.1) == 0,
          "mode %d border %d", mode, border);
      g_type_class_unref (mc);
      g_type_class_unref (bc);
      gst_harness_teardown (hh);
    }
}
GST_END_TEST;

GST_START_TEST (test_property_change_midstream)
{
  GstVideoInfo info;
  GstHarness *hh = new_harness ("RGBA", 40, 30, "radius=1", &info);
  fail_unless (push_and_check (hh, &info, 1, 1, FV_BOX_MEAN, FV_BORDER_RENORMALIZE, 0) == 0);
  g_object_set (hh->element, "radius", 6, NULL);
  fail_unless (push_and_check (hh, &info, 2, 6, FV_BOX_MEAN, FV_BORDER_RENORMALIZE, 0) == 0);
  gst_util_set_object_arg (G_OBJECT (hh->element), "mode", "threshold");
  g_object_set (hh->element, "sensitivity", 0.3, NULL);
  fail_unless (push_and_check (hh, &info, 3, 6, FV_BOX_THRESHOLD, FV_BORDER_RENORMALIZE, 0.3) == 0);
  gst_util_set_object_arg (G_OBJECT (hh->element), "border", "mirror");
  gst_util_set_object_arg (G_OBJECT (hh->element), "mode", "stddev");
  g_object_set (hh->element, "radius", 50, NULL);   /* larger than the frame */
  fail_unless (push_and_check (hh, &info, 4, 50, FV_BOX_STDDEV, FV_BORDER_MIRROR, 0) == 0);
  gst_harness_teardown (hh);
}
GST_END_TEST;

GST_START_TEST (test_resolution_change)
{
  GstVideoInfo info;
  GstHarness *hh = new_harness ("NV12", 32, 24, "radius=2", &info);
  fail_unless (push_and_check (hh, &info, 5, 2, FV_BOX_MEAN, FV_BORDER_RENORMALIZE, 0) == 0);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_NV12, 47, 31);
  gst_harness_set_src_caps (hh, gst_video_info_to_caps (&info));
  fail_unless (push_and_check (hh, &info, 6, 2, FV_BOX_MEAN, FV_BORDER_RENORMALIZE, 0) == 0);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY16_LE, 9, 5);
  gst_harness_set_src_caps (hh, gst_video_info_to_caps (&info));
  fail_unless (push_and_check (hh, &info, 7, 2, FV_BOX_MEAN, FV_BORDER_RENORMALIZE, 0) == 0);
  gst_harness_teardown (hh);
}
GST_END_TEST;

GST_START_TEST (test_roi_type)
{
  GstVideoInfo info;
  GstHarness *hh = new_harness ("I420", 64, 48, "radius=4 roi-type=face", &info);
  GstBuffer *in = random_buffer (&info, 8);
  gst_buffer_add_video_region_of_interest_meta (in, "face", 10, 9, 21, 15);
  gst_buffer_add_video_region_of_interest_meta (in, "car", 40, 30, 10, 10);
  GstBuffer *out = gst_harness_push_and_pull (hh, gst_buffer_ref (in));
  fail_unless (check_output (&info, in, out, 4, FV_BOX_MEAN, FV_BORDER_RENORMALIZE, 0,
          10, 9, 21, 15) == 0);
  /* the metas travel on */
  guint n = 0;
  gpointer state = NULL;
  while (gst_buffer_iterate_meta_filtered (out, &state, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))
    n++;
  fail_unless_equals_int (n, 2);
  gst_buffer_unref (in);
  gst_buffer_unref (out);

  /* no matching rectangle: the frame passes unchanged */
  in = random_buffer (&info, 9);
  out = gst_harness_push_and_pull (hh, gst_buffer_ref (in));
  GstMapInfo a, b;
  gst_buffer_map (in, &a, GST_MAP_READ);
  gst_buffer_map (out, &b, GST_MAP_READ);
  fail_unless (a.size == b.size && memcmp (a.data, b.data, a.size) == 0);
  gst_buffer_unmap (in, &a);
  gst_buffer_unmap (out, &b);
  gst_buffer_unref (in);
  gst_buffer_unref (out);
  gst_harness_teardown (hh);
}
GST_END_TEST;

/* Pushes in through a fresh satfilter with props; the output buffer. */
static GstBuffer *
filter_once (const char *format, gint w, gint h, const char *props, GstBuffer *in)
{
  GstVideoInfo info;
  GstHarness *hh = new_harness (format, w, h, props, &info);
  GstBuffer *out = gst_harness_push_and_pull (hh, gst_buffer_ref (in));
  fail_unless (out != NULL);
  gst_harness_teardown (hh);
  return out;
}

/* roi-type: inside every region (the samples of each plane it touches) the
 * output equals the whole-frame filter's, elsewhere the input; regions at
 * the edges, overlapping, 1x1, past the frame, windows wider than the
 * frame, every border, mode and plane layout. */
GST_START_TEST (test_roi_regions_exact)
{
  const char *formats[] = { "I420", "NV12", "RGBA", "GRAY16_LE", "Y444", "RGB" };
  const char *borders[] = { "renormalize", "replicate", "mirror", "zero" };
  const char *modes[] = { "mean", "stddev", "threshold" };
  const guint rects[][4] = { {10, 9, 21, 15}, {0, 0, 7, 5}, {50, 37, 100, 100}, {20, 12, 1, 1},
    {15, 10, 30, 20}, {63, 0, 1, 47} };
  for (guint f = 0; f < G_N_ELEMENTS (formats); f++)
    for (guint b = 0; b < G_N_ELEMENTS (borders); b++) {
      const guint radius = (f + b) % 2 ? 3 : 30;   /* 30: wider than the frame */
      GstVideoInfo info;
      gst_video_info_set_format (&info, gst_video_format_from_string (formats[f]), 64, 48);
      GstBuffer *in = random_buffer (&info, 100 + f * 4 + b);
      for (guint r = 0; r < G_N_ELEMENTS (rects); r++)
        gst_buffer_add_video_region_of_interest_meta (in, r == 2 ? "car" : "face", rects[r][0],
            rects[r][1], rects[r][2], rects[r][3]);
      gchar *props = g_strdup_printf ("backend=%s radius=%u border=%s mode=%s",
          have_gpu && b % 2 ? "cuda" : "cpu", radius, borders[b], modes[(f + b) % 3]);
      gchar *roi_props = g_strdup_printf ("%s roi-type=face", props);
      GstBuffer *whole = filter_once (formats[f], 64, 48, props, in);
      GstBuffer *out = filter_once (formats[f], 64, 48, roi_props, in);
      GstVideoFrame fi, fw, fo;
      fail_unless (gst_video_frame_map (&fi, &info, in, GST_MAP_READ));
      fail_unless (gst_video_frame_map (&fw, &info, whole, GST_MAP_READ));
      fail_unless (gst_video_frame_map (&fo, &info, out, GST_MAP_READ));
      long bad = 0;
      for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (&fi); p++) {
        const GstVideoFormatInfo *fmt = info.finfo;
        gint comp = p == 0 ? 0 : (GST_VIDEO_FRAME_N_PLANES (&fi) == 2 ? 1 : (gint) p);
        gint ws = GST_VIDEO_FORMAT_INFO_W_SUB (fmt, comp), hs = GST_VIDEO_FORMAT_INFO_H_SUB (fmt, comp);
        gint pw = GST_VIDEO_FRAME_COMP_WIDTH (&fi, comp), ph = GST_VIDEO_FRAME_COMP_HEIGHT (&fi, comp);
        gint px = GST_VIDEO_FRAME_COMP_PSTRIDE (&fi, comp);
        for (gint y = 0; y < ph; y++)
          for (gint x = 0; x < pw; x++) {
            gboolean inside = FALSE;
            for (guint r = 0; r < G_N_ELEMENTS (rects); r++)
              inside |= r != 2 && (gint) ((x + 1) << ws) > (gint) rects[r][0]
                  && (x << ws) < (gint) (rects[r][0] + rects[r][2])
                  && (gint) ((y + 1) << hs) > (gint) rects[r][1]
                  && (y << hs) < (gint) (rects[r][1] + rects[r][3]);
            const guint8 *want = (inside ? (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fw, p)
                : (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fi, p))
                + y * GST_VIDEO_FRAME_PLANE_STRIDE (&fi, p) + x * px;
            const guint8 *got = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fo, p)
                + y * GST_VIDEO_FRAME_PLANE_STRIDE (&fo, p) + x * px;
            if (memcmp (want, got, px) && bad++ < 3)
              GST_ERROR ("%s %s: plane %u (%d,%d) %s", formats[f], props, p, x, y,
                  inside ? "inside" : "outside");
          }
      }
      fail_unless (bad == 0, "%s %s: %ld samples differ", formats[f], props, bad);
      gst_video_frame_unmap (&fi);
      gst_video_frame_unmap (&fw);
      gst_video_frame_unmap (&fo);
      gst_buffer_unref (in);
      gst_buffer_unref (whole);
      gst_buffer_unref (out);
      g_free (props);
      g_free (roi_props);
    }
}
GST_END_TEST;

/* Overlapping regions are filtered once, as their union: 100 full-frame
 * regions give exactly the whole-frame filter, and 40 random overlapping
 * ones the whole-frame filter on their union and the input elsewhere. The
 * times (printed, not asserted: docs/benchmarks.md) show the cost
 * following the union's area. */
GST_START_TEST (test_roi_overlaps_once)
{
  GstVideoInfo info;
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 1280, 720);
  GstBuffer *in = random_buffer (&info, 11);
  GstBuffer *many = gst_buffer_copy (in), *scattered = gst_buffer_copy (in);
  for (gint i = 0; i < 100; i++)
    gst_buffer_add_video_region_of_interest_meta (many, "face", 0, 0, 1280, 720);
  fvt_rng rng = { 99 };
  guint rects[40][4];
  for (gint i = 0; i < 40; i++) {
    rects[i][0] = fvt_next (&rng) % 1200;
    rects[i][1] = fvt_next (&rng) % 650;
    rects[i][2] = 1 + fvt_next (&rng) % 300;
    rects[i][3] = 1 + fvt_next (&rng) % 200;
    gst_buffer_add_video_region_of_interest_meta (scattered, "face", rects[i][0], rects[i][1],
        rects[i][2], rects[i][3]);
  }
  const char *props = "backend=cpu radius=7 mode=mean";
  GstBuffer *whole = filter_once ("GRAY8", 1280, 720, props, in);
  gint64 t0 = g_get_monotonic_time ();
  GstBuffer *a = filter_once ("GRAY8", 1280, 720, "backend=cpu radius=7 mode=mean roi-type=face",
      many);
  gint64 t1 = g_get_monotonic_time ();
  GstBuffer *b = filter_once ("GRAY8", 1280, 720, "backend=cpu radius=7 mode=mean roi-type=face",
      scattered);
  g_print ("satfilter 1280x720 r=7: 100 full-frame regions in %.1f ms (with planning)\n",
      (t1 - t0) / 1e3);
  GstMapInfo mi, mw, ma, mb;
  fail_unless (gst_buffer_map (in, &mi, GST_MAP_READ) && gst_buffer_map (whole, &mw, GST_MAP_READ)
      && gst_buffer_map (a, &ma, GST_MAP_READ) && gst_buffer_map (b, &mb, GST_MAP_READ));
  fail_unless (memcmp (ma.data, mw.data, 1280 * 720) == 0, "100 full-frame regions differ "
      "from the whole frame");
  long bad = 0;
  for (gint y = 0; y < 720; y++)
    for (gint x = 0; x < 1280; x++) {
      gboolean inside = FALSE;
      for (gint i = 0; i < 40 && !inside; i++)
        inside = x >= (gint) rects[i][0] && x < (gint) (rects[i][0] + rects[i][2])
            && y >= (gint) rects[i][1] && y < (gint) (rects[i][1] + rects[i][3]);
      bad += mb.data[y * 1280 + x] != (inside ? mw.data : mi.data)[y * 1280 + x];
    }
  fail_unless (bad == 0, "%ld pixels differ with 40 overlapping regions", bad);
  gst_buffer_unmap (in, &mi);
  gst_buffer_unmap (whole, &mw);
  gst_buffer_unmap (a, &ma);
  gst_buffer_unmap (b, &mb);
  gst_buffer_unref (in);
  gst_buffer_unref (many);
  gst_buffer_unref (scattered);
  gst_buffer_unref (whole);
  gst_buffer_unref (a);
  gst_buffer_unref (b);
}
GST_END_TEST;

/* roi-type's cost follows the regions' area: one small region of a 4K
 * frame costs a small fraction of filtering the frame (was all of it). */
GST_START_TEST (test_roi_cost_follows_area)
{
  GstVideoInfo info;
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 3840, 2160);
  GstBuffer *in = random_buffer (&info, 7);
  gst_buffer_add_video_region_of_interest_meta (in, "face", 1000, 900, 48, 48);
  gdouble t[2];
  for (gint roi = 0; roi < 2; roi++) {
    GstHarness *hh = new_harness ("GRAY8", 3840, 2160, roi ? "backend=cpu threads=1 "
        "radius=50 mode=stddev roi-type=face" : "backend=cpu threads=1 radius=50 mode=stddev",
        &info);
    gst_buffer_unref (gst_harness_push_and_pull (hh, gst_buffer_ref (in)));   /* plans */
    gint64 t0 = g_get_monotonic_time ();
    for (gint i = 0; i < 3; i++)
      gst_buffer_unref (gst_harness_push_and_pull (hh, gst_buffer_ref (in)));
    t[roi] = (g_get_monotonic_time () - t0) / 3e3;
    gst_harness_teardown (hh);
  }
  g_print ("satfilter 4K stddev r=50, one thread: whole frame %.1f ms, a 48x48 region %.1f ms "
      "a frame\n", t[0], t[1]);
  fail_unless (t[1] < t[0] / 5, "a 48x48 region took %.1f ms, the whole frame %.1f", t[1], t[0]);
  gst_buffer_unref (in);
}
GST_END_TEST;

GST_START_TEST (test_padded_strides)
{
  GstVideoInfo info, padded;
  GstHarness *hh = new_harness ("I420", 50, 20, "radius=3", &info);
  /* the same frame laid out with wide rows, described by its video meta */
  padded = info;
  gsize off = 0;
  for (guint p = 0; p < 3; p++) {
    padded.stride[p] = GST_ROUND_UP_16 (info.stride[p]) + 48;
    padded.offset[p] = off;
    off += (gsize) padded.stride[p] * (p ? 10 : 20) + 16;
  }
  padded.size = off;
  GstBuffer *in = random_buffer (&padded, 10);
  GstBuffer *out = gst_harness_push_and_pull (hh, gst_buffer_ref (in));
  fail_unless (check_output (&padded, in, out, 3, FV_BOX_MEAN, FV_BORDER_RENORMALIZE, 0,
          0, 0, 0, 0) == 0);
  gst_buffer_unref (in);
  gst_buffer_unref (out);
  gst_harness_teardown (hh);
}
GST_END_TEST;

/* GRAY16_LE rows an odd number of bytes apart, from an odd offset (a video
 * meta may say so; the docs promise any stride): filtered like any other,
 * on every backend. */
GST_START_TEST (test_odd_byte_stride)
{
  const char *backends[] = { "backend=cpu radius=1", "backend=cuda radius=1" };
  for (int b = 0; b < (have_gpu ? 2 : 1); b++) {
    GstVideoInfo info, odd;
    GstHarness *hh = new_harness ("GRAY16_LE", 9, 5, backends[b], &info);
    odd = info;
    odd.stride[0] = 2 * 9 + 3;
    odd.offset[0] = 1;
    odd.size = 1 + (gsize) odd.stride[0] * 5;
    GstBuffer *in = random_buffer (&odd, 20 + b), *plain = random_buffer (&info, 0);
    GstVideoFrame fo, fp;
    fail_unless (gst_video_frame_map (&fo, &odd, in, GST_MAP_READ));
    fail_unless (gst_video_frame_map (&fp, &info, plain, GST_MAP_WRITE));
    gst_video_frame_copy (&fp, &fo);   /* the same pixels, rows 18 bytes apart */
    gst_video_frame_unmap (&fo);
    gst_video_frame_unmap (&fp);
    GstBuffer *want = gst_harness_push_and_pull (hh, gst_buffer_ref (plain));
    fail_unless (check_output (&info, plain, want, 1, FV_BOX_MEAN, FV_BORDER_RENORMALIZE, 0,
            0, 0, 0, 0) == 0);
    GstBuffer *got = gst_harness_push_and_pull (hh, gst_buffer_ref (in));
    fail_unless (got != NULL, "%s: an odd stride refused", backends[b]);
    fail_unless (gst_video_frame_map (&fo, &info, got, GST_MAP_READ));
    fail_unless (gst_video_frame_map (&fp, &info, want, GST_MAP_READ));
    for (gint y = 0; y < 5; y++)
      fail_unless (memcmp ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fo, 0)
              + y * GST_VIDEO_FRAME_PLANE_STRIDE (&fo, 0), (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fp, 0)
              + y * GST_VIDEO_FRAME_PLANE_STRIDE (&fp, 0), 18) == 0, "%s: row %d differs",
          backends[b], y);
    gst_video_frame_unmap (&fo);
    gst_video_frame_unmap (&fp);
    gst_buffer_unref (in);
    gst_buffer_unref (plain);
    gst_buffer_unref (want);
    gst_buffer_unref (got);
    gst_harness_teardown (hh);
  }
}
GST_END_TEST;

GST_START_TEST (test_proposed_pool)
{
  const char *backends[] = { "cpu", "cuda" };
  for (int b = 0; b < (have_gpu ? 2 : 1); b++) {
    GstVideoInfo info;
    gchar *props = g_strdup_printf ("backend=%s", backends[b]);
    GstHarness *hh = new_harness ("RGBA", 64, 32, props, &info);
    g_free (props);
    GstCaps *caps = gst_video_info_to_caps (&info);
    GstQuery *q = gst_query_new_allocation (caps, TRUE);
    fail_unless (gst_pad_peer_query (hh->srcpad, q));
    fail_unless (gst_query_get_n_allocation_pools (q) >= 1);
    fail_unless (gst_query_find_allocation_meta (q, GST_VIDEO_META_API_TYPE, NULL));
    GstBufferPool *pool = NULL;
    guint size;
    gst_query_parse_nth_allocation_pool (q, 0, &pool, &size, NULL, NULL);
    fail_unless (pool != NULL);
    fail_unless (size >= GST_VIDEO_INFO_SIZE (&info));
    if (b == 1) {   /* on the GPU path: page-locked memory */
      GstStructure *config = gst_buffer_pool_get_config (pool);
      GstAllocator *alloc = NULL;
      gst_buffer_pool_config_get_allocator (config, &alloc, NULL);
      fail_unless (alloc != NULL);
      fail_unless (g_str_has_prefix (G_OBJECT_TYPE_NAME (alloc), "FvPinned"));
      gst_structure_free (config);
      fail_unless (gst_buffer_pool_set_active (pool, TRUE));
      GstBuffer *buf = NULL;
      fail_unless (gst_buffer_pool_acquire_buffer (pool, &buf, NULL) == GST_FLOW_OK);
      gst_buffer_unref (buf);
      gst_buffer_pool_set_active (pool, FALSE);
    }
    gst_object_unref (pool);
    gst_query_unref (q);
    gst_caps_unref (caps);
    gst_harness_teardown (hh);
  }
}
GST_END_TEST;

GST_START_TEST (test_controller)
{
  GstVideoInfo info;
  GstHarness *hh = new_harness ("GRAY8", 30, 20, "radius=1", &info);
  GstControlSource *cs = gst_interpolation_control_source_new ();
  g_object_set (cs, "mode", GST_INTERPOLATION_MODE_NONE, NULL);
  gst_object_add_control_binding (GST_OBJECT (hh->element),
      gst_direct_control_binding_new_absolute (GST_OBJECT (hh->element), "radius", cs));
  gst_timed_value_control_source_set (GST_TIMED_VALUE_CONTROL_SOURCE (cs), 0, 7);
  fail_unless (push_and_check (hh, &info, 11, 7, FV_BOX_MEAN, FV_BORDER_RENORMALIZE, 0) == 0);
  guint r;
  g_object_get (hh->element, "radius", &r, NULL);
  fail_unless_equals_int (r, 7);
  gst_object_unref (cs);
  gst_harness_teardown (hh);
}
GST_END_TEST;

GST_START_TEST (test_refuses_other_caps)
{
  GstHarness *hh = gst_harness_new ("satfilter");
  GstBus *bus = gst_bus_new ();
  gst_element_set_bus (hh->element, bus);
  gst_harness_set_src_caps_str (hh, "video/x-raw,format=YUY2,width=16,height=16,framerate=30/1");
  GstBuffer *buf = gst_buffer_new_allocate (NULL, 16 * 16 * 2, NULL);
  fail_unless_equals_int (gst_harness_push (hh, buf), GST_FLOW_NOT_NEGOTIATED);
  /* and a warning that names what it takes */
  GstMessage *m = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
  fail_unless (m != NULL);
  GError *err = NULL;
  gst_message_parse_warning (m, &err, NULL);
  fail_unless (strstr (err->message, "GRAY8") && strstr (err->message, "videoconvert"),
      "%s", err->message);
  g_error_free (err);
  gst_message_unref (m);
  gst_element_set_bus (hh->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (hh);
}
GST_END_TEST;

/* backend=cuda on a machine without a usable GPU fails the state change
 * with a message that says why; auto falls back to the CPU. */
GST_START_TEST (test_backend_choice)
{
  GstElement *pipe = gst_parse_launch ("videotestsrc num-buffers=2 ! "
      "video/x-raw,format=GRAY8,width=32,height=16 ! satfilter name=f backend=cuda ! fakesink", NULL);
  GstElement *f = gst_bin_get_by_name (GST_BIN (pipe), "f");
  GstStateChangeReturn ret = gst_element_set_state (pipe, GST_STATE_PAUSED);
  if (!have_gpu) {
    fail_unless_equals_int (ret, GST_STATE_CHANGE_FAILURE);
    GstMessage *m = gst_bus_pop_filtered (GST_ELEMENT_BUS (pipe), GST_MESSAGE_ERROR);
    fail_unless (m != NULL);
    GError *err = NULL;
    gchar *dbg = NULL;
    gst_message_parse_error (m, &err, &dbg);
    fail_unless (strstr (err->message, "GPU") != NULL, "%s", err->message);
    fail_unless (strstr (err->message, "backend=cuda") != NULL, "%s", err->message);
    g_error_free (err);
    g_free (dbg);
    gst_message_unref (m);
  } else {
    fail_unless (ret != GST_STATE_CHANGE_FAILURE);
    gst_element_get_state (pipe, NULL, NULL, GST_CLOCK_TIME_NONE);
  }
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_util_set_object_arg (G_OBJECT (f), "backend", "auto");
  fail_unless (gst_element_set_state (pipe, GST_STATE_PAUSED) != GST_STATE_CHANGE_FAILURE);
  gst_element_get_state (pipe, NULL, NULL, GST_CLOCK_TIME_NONE);
  gint active;
  g_object_get (f, "active-backend", &active, NULL);
  fail_unless_equals_int (active, have_gpu ? 1 : 0);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (f);
  gst_object_unref (pipe);
}
GST_END_TEST;

/* The two outputs res[0] (CPU) and res[1] (CUDA) equal row by row, every
 * plane; both are released. */
static void
assert_frames_equal (const GstVideoInfo *info, GstBuffer *res[2], const gchar *format, int mode,
    const gchar *how)
{
  GstVideoFrame fa, fb;
  gst_video_frame_map (&fa, info, res[0], GST_MAP_READ);
  gst_video_frame_map (&fb, info, res[1], GST_MAP_READ);
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (&fa); p++)
    for (int y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT (&fa, p); y++)
      fail_unless (memcmp ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fa, p) + y * GST_VIDEO_FRAME_PLANE_STRIDE (&fa, p),
              (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fb, p) + y * GST_VIDEO_FRAME_PLANE_STRIDE (&fb, p),
              GST_VIDEO_FRAME_COMP_WIDTH (&fa, p) * GST_VIDEO_FRAME_COMP_PSTRIDE (&fa, p)) == 0,
          "%s mode %d plane %u row %d differs%s", format, mode, p, y, how);
  gst_video_frame_unmap (&fa);
  gst_video_frame_unmap (&fb);
  gst_buffer_unref (res[0]);
  gst_buffer_unref (res[1]);
}

GST_START_TEST (test_cuda_equals_cpu)
{
  if (!have_gpu)
    return;
  for (guint i = 0; i < G_N_ELEMENTS (formats); i++)
    for (int mode = 0; mode <= FV_BOX_THRESHOLD; mode++) {
      GstVideoInfo info;
      GstBuffer *res[2];
      for (int b = 0; b < 2; b++) {
        gchar *props = g_strdup_printf ("radius=9 backend=%s", b ? "cuda" : "cpu");
        GstHarness *hh = new_harness (formats[i].format, 333, 221, props, &info);
        g_object_set (hh->element, "mode", mode, NULL);
        res[b] = gst_harness_push_and_pull (hh, random_buffer (&info, 100 + i));
        gst_harness_teardown (hh);
        g_free (props);
      }
      assert_frames_equal (&info, res, formats[i].format, mode, "");
    }
}
GST_END_TEST;

/* max-device-memory below what a 1080p frame's plan takes: the CUDA filter
 * runs in bands of rows and still equals the CPU bit for bit. */
GST_START_TEST (test_cuda_bands_equal_cpu)
{
  if (!have_gpu)
    return;
  static const gchar *fmts[] = { "RGBA", "I420", "GRAY16_LE" };
  for (guint i = 0; i < G_N_ELEMENTS (fmts); i++)
    for (int mode = 0; mode <= FV_BOX_THRESHOLD; mode++) {
      GstVideoInfo info;
      GstBuffer *res[2];
      for (int b = 0; b < 2; b++) {
        const gchar *props = b ? "radius=13 border=mirror backend=cuda max-device-memory=12000000"
            : "radius=13 border=mirror backend=cpu";
        GstHarness *hh = new_harness (fmts[i], 1920, 1080, props, &info);
        g_object_set (hh->element, "mode", mode, NULL);
        res[b] = gst_harness_push_and_pull (hh, random_buffer (&info, 200 + i));
        gst_harness_teardown (hh);
      }
      fail_unless (res[0] && res[1], "%s mode %d: no output", fmts[i], mode);
      assert_frames_equal (&info, res, fmts[i], mode, " in bands");
    }
}
GST_END_TEST;

static Suite *
satfilter_suite (void)
{
  Suite *s = suite_create ("satfilter");
  TCase *tc = tcase_create ("general");
  tcase_add_checked_fixture (tc, setup, NULL);
  tcase_set_timeout (tc, 300);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_every_format);
  tcase_add_test (tc, test_modes_and_borders);
  tcase_add_test (tc, test_property_change_midstream);
  tcase_add_test (tc, test_resolution_change);
  tcase_add_test (tc, test_roi_type);
  tcase_add_test (tc, test_roi_regions_exact);
  tcase_add_test (tc, test_roi_cost_follows_area);
  tcase_add_test (tc, test_roi_overlaps_once);
  tcase_add_test (tc, test_padded_strides);
  tcase_add_test (tc, test_odd_byte_stride);
  tcase_add_test (tc, test_proposed_pool);
  tcase_add_test (tc, test_controller);
  tcase_add_test (tc, test_refuses_other_caps);
  tcase_add_test (tc, test_backend_choice);
  tcase_add_test (tc, test_cuda_equals_cpu);
  tcase_add_test (tc, test_cuda_bands_equal_cpu);
  return s;
}

GST_CHECK_MAIN (satfilter);
