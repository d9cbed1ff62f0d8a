/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Many streams in one process (issue #24): N copies of BRANCH, each ending
 * in a fakesink this program names, in one pipeline. Per stream: the time
 * from PLAYING to its first frame, and its frames per second over the
 * middle of the run (frames WARMUP..last, each stream timed from its own
 * WARMUP-th frame to its last). Prints N, the sum of the streams' fps, the
 * slowest and the mean stream, and the slowest first frame.
 *   bench_streams [-w WARMUP] N BRANCH
 * BRANCH is a launch line without its sink, e.g.
 *   "filesrc location=clip.mp4 ! qtdemux ! h264parse ! nvh264dec ! vjdetect ! satfilter" */
#include <stdlib.h>
#include <string.h>
#include <gst/gst.h>

typedef struct {
  guint frames, warmup;
  gint64 t_play, t_first, t_warm, t_last;
} Stream;

static void
on_handoff (GstElement *sink, GstBuffer *buf, GstPad *pad, gpointer user)
{
  Stream *s = user;
  const gint64 now = g_get_monotonic_time ();
  if (s->frames == 0)
    s->t_first = now;
  s->frames++;
  if (s->frames == s->warmup)
    s->t_warm = now;
  s->t_last = now;
}

int
main (int argc, char **argv)
{
  gst_init (&argc, &argv);
  guint warmup = 30;
  int a = 1;
  if (argc > 2 && !strcmp (argv[1], "-w")) {
    warmup = (guint) atoi (argv[2]);
    a = 3;
  }
  if (argc - a != 2) {
    g_printerr ("usage: bench_streams [-w WARMUP] N BRANCH\n");
    return 2;
  }
  const guint n = (guint) atoi (argv[a]);
  const gchar *branch = argv[a + 1];
  if (n < 1 || n > 1024) {
    g_printerr ("N must be 1 to 1024\n");
    return 2;
  }
  GString *line = g_string_new (NULL);
  for (guint i = 0; i < n; i++)
    g_string_append_printf (line, "%s ! fakesink name=s%u sync=false signal-handoffs=true  ",
        branch, i);
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch (line->str, &err);
  g_string_free (line, TRUE);
  if (!pipe) {
    g_printerr ("%s\n", err->message);
    return 1;
  }
  Stream *st = g_new0 (Stream, n);
  for (guint i = 0; i < n; i++) {
    gchar name[16];
    g_snprintf (name, sizeof name, "s%u", i);
    GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), name);
    st[i].warmup = warmup;
    g_signal_connect (sink, "handoff", G_CALLBACK (on_handoff), &st[i]);
    gst_object_unref (sink);
  }
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  const gint64 t_play = g_get_monotonic_time ();
  GstBus *bus = gst_element_get_bus (pipe);
  GstMessage *msg = gst_bus_timed_pop_filtered (bus, 600 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  int rc = 0;
  if (!msg || GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError *e = NULL;
    if (msg)
      gst_message_parse_error (msg, &e, NULL);
    g_printerr ("N=%u: %s\n", n, e ? e->message : "no end within 600 s");
    g_clear_error (&e);
    rc = 1;
  }
  if (msg)
    gst_message_unref (msg);
  gst_element_set_state (pipe, GST_STATE_NULL);
  double sum = 0, slowest = 1e30, first = 0;
  guint counted = 0;
  for (guint i = 0; i < n; i++) {
    if (st[i].frames)
      first = MAX (first, (st[i].t_first - t_play) / 1000.0);
    if (st[i].frames <= warmup + 1 || st[i].t_last <= st[i].t_warm)
      continue;
    const double fps = (st[i].frames - warmup) * 1e6 / (double) (st[i].t_last - st[i].t_warm);
    sum += fps;
    slowest = MIN (slowest, fps);
    counted++;
  }
  if (counted < n) {
    g_printerr ("N=%u: %u streams ran too few frames to time\n", n, n - counted);
    rc = 1;
  }
  g_print ("N=%-4u total %8.1f fps  slowest %7.1f  mean %7.1f  (slowest/mean %.2f)  "
      "first frame within %.0f ms\n", n, sum, counted ? slowest : 0, counted ? sum / counted : 0,
      counted ? slowest / (sum / counted) : 0, first);
  g_free (st);
  gst_object_unref (bus);
  gst_object_unref (pipe);
  return rc;
}
