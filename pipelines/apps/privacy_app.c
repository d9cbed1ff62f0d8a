/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Embedding fastvision in an application: the privacy filter
 * (vjdetect ! roitrack delay=4 ! satfilter roi-type=face) on a file, with the application
 *   - reading each frame's region-of-interest metas at an appsink,
 *   - reading roitrack's messages from the bus,
 *   - changing properties while PLAYING (a wider blur after 2 s of video),
 * and printing a summary every second of video.
 *   privacy_app FILE [SECONDS]   (stop after SECONDS of video; default all)
 * docs/embedding.md walks through it.
 *
 * Built against an installed plugin (meson install; with the default prefix
 * /usr/local the plugin is in /usr/local/lib/x86_64-linux-gnu/gstreamer-1.0 on
 * Debian's 64-bit PCs, and this file in /usr/local/share/doc/fastvision/examples):
 *   cc privacy_app.c -o privacy_app \
 *       $(pkg-config --cflags --libs gstreamer-1.0 gstreamer-app-1.0 gstreamer-video-1.0)
 *   GST_PLUGIN_PATH=/usr/local/lib/x86_64-linux-gnu/gstreamer-1.0 \
 *       ./privacy_app /usr/local/share/doc/fastvision/examples/data/sample-face.webm 4
 * (no GST_PLUGIN_PATH with --prefix=/usr: the plugin is then in GStreamer's
 * own folder). It needs only GStreamer's development packages
 * (libgstreamer1.0-dev, libgstreamer-plugins-base1.0-dev), not fastvision's
 * headers: it talks to the elements through properties, metas and messages. */
#include <stdio.h>
#include <stdlib.h>
#include <gst/gst.h>
#include <gst/app/gstappsink.h>
#include <gst/video/video.h>

typedef struct {
  GMainLoop *loop;
  GstElement *pipeline, *detect, *blur;
  guint64 frames, faces_in_metas, messages, faces_in_messages;
  guint64 second_frames, second_faces;
  GstClockTime next_report, stop_at;
  gboolean stopping;
  gboolean changed;
  gint exit_code;
} App;

/* Every processed frame: count the tracked faces (metas). */
static GstFlowReturn
on_sample (GstAppSink *sink, gpointer user)
{
  App *app = user;
  GstSample *sample = gst_app_sink_pull_sample (sink);
  if (!sample)
    return GST_FLOW_EOS;
  GstBuffer *buf = gst_sample_get_buffer (sample);
  GstClockTime pts = GST_BUFFER_PTS (buf);
  /* SECONDS of video, exactly: frames at or past it (some are already on
   * their way when the EOS goes out) are not counted */
  if (GST_CLOCK_TIME_IS_VALID (pts) && pts >= app->stop_at) {
    if (!app->stopping)
      gst_element_send_event (app->pipeline, gst_event_new_eos ());
    app->stopping = TRUE;
    gst_sample_unref (sample);
    return GST_FLOW_OK;
  }
  gpointer state = NULL;
  GstMeta *meta;
  guint faces = 0;
  while ((meta = gst_buffer_iterate_meta_filtered (buf, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    GstVideoRegionOfInterestMeta *roi = (GstVideoRegionOfInterestMeta *) meta;
    if (roi->roi_type == g_quark_from_static_string ("face"))
      faces++;
  }
  app->frames++;
  app->faces_in_metas += faces;
  app->second_frames++;
  app->second_faces += faces;
  if (GST_CLOCK_TIME_IS_VALID (pts) && pts >= app->next_report) {
    g_print ("%3" G_GUINT64_FORMAT " s: %" G_GUINT64_FORMAT " frames, %" G_GUINT64_FORMAT
        " faces; total %" G_GUINT64_FORMAT " frames, %" G_GUINT64_FORMAT " faces (metas), %"
        G_GUINT64_FORMAT " roitrack messages\n", pts / GST_SECOND, app->second_frames,
        app->second_faces, app->frames, app->faces_in_metas, app->messages);
    app->second_frames = app->second_faces = 0;
    app->next_report = (pts / GST_SECOND + 1) * GST_SECOND;
  }
  /* properties change while PLAYING: applied from the next frame */
  if (!app->changed && GST_CLOCK_TIME_IS_VALID (pts) && pts >= 2 * GST_SECOND) {
    g_object_set (app->blur, "radius", 20, NULL);
    g_object_set (app->detect, "min-neighbors", 4, NULL);
    g_print ("at %.2f s: satfilter radius=20, vjdetect min-neighbors=4\n", pts / 1e9);
    app->changed = TRUE;
  }
  gst_sample_unref (sample);
  return GST_FLOW_OK;
}

static gboolean
on_message (GstBus *bus, GstMessage *msg, gpointer user)
{
  App *app = user;
  switch (GST_MESSAGE_TYPE (msg)) {
    case GST_MESSAGE_ELEMENT: {
      const GstStructure *s = gst_message_get_structure (msg);
      guint64 ts = GST_CLOCK_TIME_NONE;
      gst_structure_get_uint64 (s, "timestamp", &ts);
      if (gst_structure_has_name (s, "roitrack") && !(GST_CLOCK_TIME_IS_VALID (ts)
              && ts >= app->stop_at)) {
        const GValue *faces = gst_structure_get_value (s, "faces");
        app->messages++;
        app->faces_in_messages += faces ? gst_value_list_get_size (faces) : 0;
      }
      break;
    }
    case GST_MESSAGE_ERROR: {
      GError *err = NULL;
      gst_message_parse_error (msg, &err, NULL);
      g_printerr ("error from %s: %s\n", GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)), err->message);
      g_error_free (err);
      app->exit_code = 1;
      g_main_loop_quit (app->loop);
      break;
    }
    case GST_MESSAGE_EOS:
      g_main_loop_quit (app->loop);
      break;
    default:
      break;
  }
  return TRUE;
}

int
main (int argc, char **argv)
{
  gst_init (&argc, &argv);
  if (argc < 2) {
    g_printerr ("usage: %s FILE [SECONDS]\n", argv[0]);
    return 2;
  }
  App app = { 0 };
  app.stop_at = argc > 2 ? (GstClockTime) (atof (argv[2]) * GST_SECOND) : GST_CLOCK_TIME_NONE;
  gchar *uri = gst_filename_to_uri (argv[1], NULL);
  gchar *desc = g_strdup_printf ("uridecodebin uri=%s ! videoconvert ! "
      "vjdetect name=detect ! roitrack delay=4 ! satfilter name=blur roi-type=face radius=12 ! "
      "appsink name=sink sync=false emit-signals=true", uri);
  GError *err = NULL;
  app.pipeline = gst_parse_launch (desc, &err);
  g_free (desc);
  g_free (uri);
  if (!app.pipeline) {
    g_printerr ("cannot build the pipeline: %s (is the plugin on GST_PLUGIN_PATH?)\n",
        err->message);
    g_error_free (err);
    return 1;
  }
  app.detect = gst_bin_get_by_name (GST_BIN (app.pipeline), "detect");
  app.blur = gst_bin_get_by_name (GST_BIN (app.pipeline), "blur");
  GstElement *sink = gst_bin_get_by_name (GST_BIN (app.pipeline), "sink");
  g_signal_connect (sink, "new-sample", G_CALLBACK (on_sample), &app);
  app.loop = g_main_loop_new (NULL, FALSE);
  GstBus *bus = gst_element_get_bus (app.pipeline);
  gst_bus_add_watch (bus, on_message, &app);
  gint64 t0 = g_get_monotonic_time ();
  if (gst_element_set_state (app.pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE)
    app.exit_code = 1;
  else
    g_main_loop_run (app.loop);
  gdouble secs = (g_get_monotonic_time () - t0) / 1e6;
  gst_element_set_state (app.pipeline, GST_STATE_NULL);
  g_print ("done: %" G_GUINT64_FORMAT " frames in %.1f s (%.0f fps), %" G_GUINT64_FORMAT
      " faces in metas, %" G_GUINT64_FORMAT " in %" G_GUINT64_FORMAT " roitrack messages\n",
      app.frames, secs, app.frames / secs, app.faces_in_metas, app.faces_in_messages,
      app.messages);
  /* every frame carried its message, and the metas told the same faces */
  if (!app.exit_code && (app.frames == 0 || app.messages < app.frames
          || app.faces_in_messages != app.faces_in_metas || !app.changed)) {
    g_printerr ("inconsistent: metas and messages disagree, or nothing ran\n");
    app.exit_code = 1;
  }
  gst_bus_remove_watch (bus);
  gst_object_unref (bus);
  gst_object_unref (sink);
  gst_object_unref (app.detect);
  gst_object_unref (app.blur);
  gst_object_unref (app.pipeline);
  g_main_loop_unref (app.loop);
  return app.exit_code;
}
