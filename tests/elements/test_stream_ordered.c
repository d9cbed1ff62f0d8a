/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Stream-ordered CUDA memory (GStreamer 1.24+): a producer pushes frames
 * whose writing is still queued on its own GstCudaStream (a 25 ms spin,
 * then the copy), as 1.24 allows, from a pool of two buffers that it
 * writes again as soon as they come back. Chains of our elements must
 * give exactly what the same chains give from system memory (no stale or
 * half-written input, no input overwritten while we read it), and frames
 * must leave our elements while that work is still queued (the element
 * does not wait for the GPU where its neighbours order on streams).
 * Exit 77 (skip) on GStreamer 1.22, without a GPU or nvcodec's
 * cudadownload, or in a build without GStreamer's CUDA library. */
#include <string.h>
#include <gst/gst.h>
#include <gst/app/gstappsrc.h>
#include <gst/app/gstappsink.h>
#include <gst/video/video.h>
#include "fvtest.h"

#if !GST_CHECK_VERSION(1, 24, 0) || !FV_TEST_GST_CUDA
int
main (void)
{
  g_print ("SKIP: GStreamer %d.%d's CUDA memory carries no stream (1.24+), or no CUDA build\n",
      GST_VERSION_MAJOR, GST_VERSION_MINOR);
  return 77;
}
#else
#include <gst/cuda/gstcuda.h>
#include "fvtest_slowwrite.h"

/* RGBA: GStreamer's CUDA memory takes no GRAY8 */
#define W 320
#define H 240
#define ROW (W * 4)
#define FRAMES 8
#define SPIN_MS 25

static int failures;
#define CHECK(cond, ...) do { if (!(cond)) { failures++; g_printerr ("FAIL %s:%d: ", __FILE__, \
    __LINE__); g_printerr (__VA_ARGS__); g_printerr ("\n"); } } while (0)

static const gchar *data_dir;
static GstCudaContext *ctx;

/* How many frames left the element "f" with their writing still queued
 * on the GPU: the element returned without waiting for it. */
typedef struct {
  guint left, left_early;
} Early;

static GstPadProbeReturn
on_leave (GstPad *pad, GstPadProbeInfo *info, gpointer user)
{
  Early *e = user;
  GstBuffer *b = GST_PAD_PROBE_INFO_BUFFER (info);
  GstMemory *m = gst_buffer_n_memory (b) ? gst_buffer_peek_memory (b, 0) : NULL;
  GstCudaStream *s = m && gst_is_cuda_memory (m)
      ? gst_cuda_memory_get_stream (GST_CUDA_MEMORY_CAST (m)) : NULL;
  /* the stream the consumer orders on: busy while the frame's writing
   * (the producer's, then ours) is still queued */
  gst_cuda_context_push (ctx);
  e->left_early += s && fvtest_stream_busy (gst_cuda_stream_get_handle (s));
  gst_cuda_context_pop (NULL);
  e->left++;
  return GST_PAD_PROBE_OK;
}

/* The frames: random bytes, or a face (vjdetect finds one) plus noise. */
static guint8 *
frame_bytes (guint i, gboolean face)
{
  guint8 *f = g_malloc (ROW * H);
  fvt_rng rng = { 1000 + i };
  for (gint k = 0; k < ROW * H; k++)
    f[k] = fvt_next (&rng) & 0xff;
  if (face) {
    gchar *path = g_build_filename (data_dir, "faces", "grace_hopper_matplotlib.pgm", NULL);
    fv_image *im = fvt_load_pnm (path);
    g_free (path);
    CHECK (im != NULL, "no test face in %s", data_dir);
    for (gint y = 0; im && y < MIN (H, im->height); y++)
      for (gint x = 0; x < MIN (W, im->width); x++)
        for (gint c = 0; c < 4; c++)
          f[y * ROW + 4 * x + c] = c == 3 ? 255 : fvt_get (im, (x + i) % im->width, y, 0);
    if (im)
      fvt_image_free (im);
  }
  return f;
}

/* Runs "appsrc ! DESC ! appsink": cuda, frames from the slow producer in
 * CUDA memory; else the same bytes in system memory. The output frames'
 * bytes and ROI boxes, joined. */
static GString *
run (const gchar *desc, gboolean cuda, gboolean face, Early *early)
{
  gchar *caps_s = g_strdup_printf ("video/x-raw%s,format=RGBA,width=%d,height=%d,"
      "framerate=25/1", cuda ? "(memory:CUDAMemory)" : "", W, H);
  gchar *line = g_strdup_printf ("appsrc name=src format=time caps=\"%s\" ! %s ! "
      "appsink name=sink sync=false", caps_s, desc);
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch (line, &err);
  g_free (line);
  GString *out = g_string_new (NULL);
  if (!pipe) {
    CHECK (FALSE, "%s: %s", desc, err->message);
    g_error_free (err);
    g_free (caps_s);
    return out;
  }
  GstContext *c = gst_context_new_cuda_context (ctx);
  gst_element_set_context (pipe, c);
  gst_context_unref (c);
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipe), "src");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  GstElement *f = gst_bin_get_by_name (GST_BIN (pipe), "f");
  GstCudaStream *stream = gst_cuda_stream_new (ctx);
  GstBufferPool *pool = NULL;
  if (cuda) {
    GstCaps *caps = gst_caps_from_string (caps_s);
    pool = gst_cuda_buffer_pool_new (ctx);
    GstStructure *config = gst_buffer_pool_get_config (pool);
    gst_buffer_pool_config_set_params (config, caps, ROW * H, 2, 2);   /* reused at once */
    gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
    gst_buffer_pool_config_set_cuda_stream (config, stream);
    if (!gst_buffer_pool_set_config (pool, config)) {   /* the pool's pitch: take its sizes */
      config = gst_buffer_pool_get_config (pool);
      CHECK (gst_buffer_pool_set_config (pool, config), "pool config");
    }
    gst_buffer_pool_set_active (pool, TRUE);
    gst_caps_unref (caps);
    if (early && f) {
      GstPad *pad = gst_element_get_static_pad (f, "src");
      gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, on_leave, early, NULL);
      gst_object_unref (pad);
    }
  }
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  guint8 *pinned = NULL;
  if (cuda) {
    gst_cuda_context_push (ctx);
    pinned = fvtest_host_alloc (ROW * H * FRAMES);
    CHECK (pinned != NULL, "pinned");
    gst_cuda_context_pop (NULL);
  }
  for (guint i = 0; i < FRAMES; i++) {
    guint8 *bytes = frame_bytes (i, face);
    GstBuffer *b = NULL;
    if (!cuda) {
      b = gst_buffer_new_wrapped (bytes, ROW * H);
      bytes = NULL;
    } else {
      memcpy (pinned + i * ROW * H, bytes, ROW * H);
      CHECK (gst_buffer_pool_acquire_buffer (pool, &b, NULL) == GST_FLOW_OK, "acquire");
      GstVideoInfo info;
      gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, W, H);
      GstVideoFrame vf;
      CHECK (gst_video_frame_map (&vf, &info, b, GST_MAP_WRITE | GST_MAP_CUDA), "map");
      gst_cuda_context_push (ctx);
      CHECK (fvtest_slow_copy (GST_VIDEO_FRAME_PLANE_DATA (&vf, 0),
              GST_VIDEO_FRAME_PLANE_STRIDE (&vf, 0), pinned + i * ROW * H, ROW, ROW, H,
              gst_cuda_stream_get_handle (stream), SPIN_MS) == 0, "slow copy");
      gst_cuda_context_pop (NULL);
      gst_video_frame_unmap (&vf);   /* NEED_SYNC is set: the memory has a stream */
    }
    g_free (bytes);
    GST_BUFFER_PTS (b) = i * GST_SECOND / 25;
    GST_BUFFER_DURATION (b) = GST_SECOND / 25;
    gst_app_src_push_buffer (GST_APP_SRC (src), b);
  }
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  guint n = 0;
  GstSample *s;
  while ((s = gst_app_sink_try_pull_sample (GST_APP_SINK (sink), 20 * GST_SECOND))) {
    GstBuffer *b = gst_sample_get_buffer (s);
    GstVideoInfo info;
    gst_video_info_from_caps (&info, gst_sample_get_caps (s));
    GstVideoFrame vf;
    if (gst_video_frame_map (&vf, &info, b, GST_MAP_READ)) {
      for (gint y = 0; y < H; y++)
        g_string_append_len (out, (const gchar *) GST_VIDEO_FRAME_PLANE_DATA (&vf, 0)
            + y * GST_VIDEO_FRAME_PLANE_STRIDE (&vf, 0), ROW);
      gst_video_frame_unmap (&vf);
    }
    gpointer st = NULL;
    GstMeta *m;
    while ((m = gst_buffer_iterate_meta_filtered (b, &st,
                GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
      GstVideoRegionOfInterestMeta *r = (GstVideoRegionOfInterestMeta *) m;
      g_string_append_printf (out, "[%u,%u,%u,%u]", r->x, r->y, r->w, r->h);
    }
    gst_sample_unref (s);
    n++;
  }
  CHECK (n == FRAMES, "%s (%s memory): %u frames of %d", desc, cuda ? "CUDA" : "system", n,
      FRAMES);
  GstBus *bus = gst_element_get_bus (pipe);
  GstMessage *em = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  if (em) {
    GError *e;
    gchar *dbg;
    gst_message_parse_error (em, &e, &dbg);
    CHECK (FALSE, "%s: error %s (%s)", desc, e->message, dbg ? dbg : "");
    g_error_free (e);
    g_free (dbg);
    gst_message_unref (em);
  }
  gst_object_unref (bus);
  gst_element_set_state (pipe, GST_STATE_NULL);
  if (pool) {
    gst_buffer_pool_set_active (pool, FALSE);
    gst_object_unref (pool);
  }
  if (pinned) {
    gst_cuda_context_push (ctx);
    fvtest_host_free (pinned);
    gst_cuda_context_pop (NULL);
  }
  gst_cuda_stream_unref (stream);
  gst_clear_object (&f);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  g_free (caps_s);
  return out;
}

/* vjdetect's cascade: the tests' copy where FV_CASCADES says (the GPU host
 * has no opencv-data), else the element's default. */
static gchar *
with_cascade (const gchar *desc)
{
  const gchar *dir = g_getenv ("FV_CASCADES");
  if (!dir || !strstr (desc, "vjdetect "))
    return g_strdup (desc);
  gchar **parts = g_strsplit (desc, "vjdetect ", 2);
  gchar *s = g_strdup_printf ("%svjdetect cascade=%s/haarcascades/"
      "haarcascade_frontalface_default.xml %s", parts[0], dir, parts[1]);
  g_strfreev (parts);
  return s;
}

static void
check_chain (const gchar *desc, gboolean face, gboolean expect_early)
{
  Early early = { 0 };
  gchar *line = with_cascade (desc);
  GString *want = run (line, FALSE, face, NULL);
  GString *got = run (line, TRUE, face, &early);
  g_free (line);
  gsize differ = 0, first = 0;
  for (gsize k = 0; k < MIN (want->len, got->len); k++)
    if (want->str[k] != got->str[k] && !differ++)
      first = k;
  CHECK (want->len > 0 && want->len == got->len && differ == 0,
      "%s: from the slow producer's CUDA memory the output differs from system memory's "
      "(%" G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT " bytes, from byte %" G_GSIZE_FORMAT
      " of frame %" G_GSIZE_FORMAT ")", desc, differ, want->len, first % (ROW * H),
      first / (ROW * H));
  g_print ("%s: %u of %u frames left f with their writing still queued\n", desc,
      early.left_early, early.left);
  if (expect_early)
    CHECK (early.left_early > 0, "%s: f waited for the GPU on every frame", desc);
  g_string_free (want, TRUE);
  g_string_free (got, TRUE);
}

int
main (int argc, char **argv)
{
  gst_init (&argc, &argv);
  data_dir = g_getenv ("FV_TEST_DATA");
  if (!data_dir)
    data_dir = argc > 1 ? argv[1] : "tests/data";
  GstElementFactory *fac = gst_element_factory_find ("cudadownload");
  if (!fac || !gst_cuda_load_library ()) {
    g_print ("SKIP: no cudadownload or CUDA library\n");
    return 77;
  }
  gst_object_unref (fac);
  ctx = gst_cuda_context_new (0);
  if (!ctx) {
    g_print ("SKIP: no usable GPU\n");
    return 77;
  }
  gst_cuda_memory_init_once ();
  /* one element, CUDA in and out; two in a chain; in place with drawing;
   * CUDA in, system out (the element must finish before a host consumer) */
  check_chain ("satfilter name=f backend=cuda radius=3 ! cudadownload", FALSE, TRUE);
  check_chain ("satfilter name=f backend=cuda radius=3 ! satfilter backend=cuda mode=stddev "
      "radius=2 ! cudadownload", FALSE, TRUE);
  check_chain ("fftconvolve name=f backend=cuda gaussian-sigma=2 ! cudadownload", FALSE, TRUE);
  check_chain ("satfilter name=f backend=cuda mode=threshold radius=5 ! cudadownload", FALSE,
      TRUE);
  check_chain ("fftconvolve name=f backend=cuda gaussian-sigma=2 ! "
      "satfilter backend=cuda mode=threshold radius=5 ! cudadownload", FALSE, TRUE);
  check_chain ("vjdetect name=f backend=cuda draw=true min-size-width=40 min-size-height=40 ! "
      "satfilter backend=cuda roi-type=face radius=6 ! cudadownload", TRUE, FALSE);
  check_chain ("satfilter name=f backend=cuda radius=3 ! video/x-raw", FALSE, FALSE);
  gst_object_unref (ctx);
  if (failures)
    g_printerr ("%d failure(s)\n", failures);
  else
    g_print ("all stream-ordered checks passed\n");
  return failures ? 1 : 0;
}
#endif
