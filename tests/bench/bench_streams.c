/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Many streams in one process (issue #24): N copies of BRANCH, each ending
 * in a fakesink this program names, in one pipeline. Per stream: the time
 * from PLAYING to its first frame, and its frames per second over the
 * middle of the run (frames WARMUP..last, each stream timed from its own
 * WARMUP-th frame to its last). Prints N, the sum of the streams' fps, the
 * slowest and the mean stream, the slowest first frame, and the CPU cores
 * the process kept busy (its user and system time over the wall time from
 * PLAYING to the end: 16 on a 16-core host means the host threads, not the
 * GPU, set the pace). With -j, one
 * more branch joins the running pipeline once every stream has passed
 * WARMUP frames (an RTSP client connecting while N run), and the time from
 * its joining to its first frame is printed too.
 *   bench_streams [-w WARMUP] [-j] N BRANCH
 * BRANCH is a launch line without its sink, e.g.
 *   "filesrc location=clip.mp4 ! qtdemux ! h264parse ! nvh264dec ! vjdetect ! satfilter" */
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <gst/gst.h>

typedef struct {
  guint frames, warmup;
  gint64 t_play, t_first, t_warm, t_last;
} Stream;

/* user and system CPU time of the process so far, in µs */
static gint64
cpu_us (void)
{
  struct rusage u;
  getrusage (RUSAGE_SELF, &u);
  return (gint64) (u.ru_utime.tv_sec + u.ru_stime.tv_sec) * G_USEC_PER_SEC + u.ru_utime.tv_usec
      + u.ru_stime.tv_usec;
}

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
  gboolean join = FALSE;
  int a = 1;
  for (;;) {
    if (argc > a + 1 && !strcmp (argv[a], "-w")) {
      warmup = (guint) atoi (argv[a + 1]);
      a += 2;
    } else if (argc > a && !strcmp (argv[a], "-j")) {
      join = TRUE;
      a++;
    } else {
      break;
    }
  }
  if (argc - a != 2) {
    g_printerr ("usage: bench_streams [-w WARMUP] [-j] N BRANCH\n");
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
  const gint64 cpu0 = cpu_us ();
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  const gint64 t_play = g_get_monotonic_time ();
  GstBus *bus = gst_element_get_bus (pipe);
  Stream joined = { .warmup = warmup };
  gint64 t_join = 0;
  GstMessage *msg = NULL;
  while (!msg && g_get_monotonic_time () - t_play < 600 * G_USEC_PER_SEC) {
    msg = gst_bus_timed_pop_filtered (bus, 5 * GST_MSECOND, GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
    guint warm = 0;
    for (guint i = 0; i < n; i++)
      warm += st[i].frames >= warmup;
    if (join && !t_join && warm == n) {   /* the (N+1)-th joins the running ones */
      gchar *desc = g_strdup_printf ("%s ! fakesink sync=false signal-handoffs=true", branch);
      GstElement *bin = gst_parse_bin_from_description (desc, FALSE, NULL);
      g_free (desc);
      GstIterator *it = gst_bin_iterate_sinks (GST_BIN (bin));
      GValue v = G_VALUE_INIT;
      if (gst_iterator_next (it, &v) == GST_ITERATOR_OK)
        g_signal_connect (g_value_get_object (&v), "handoff", G_CALLBACK (on_handoff), &joined);
      g_value_unset (&v);
      gst_iterator_free (it);
      t_join = g_get_monotonic_time ();
      gst_bin_add (GST_BIN (pipe), bin);
      gst_element_sync_state_with_parent (bin);
    }
  }
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
  const double cores = (cpu_us () - cpu0) / (double) (g_get_monotonic_time () - t_play);
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
      "first frame within %.0f ms  cpu %.1f cores\n", n, sum, counted ? slowest : 0, counted ? sum / counted : 0,
      counted ? slowest / (sum / counted) : 0, first, cores);
  if (join)
    g_print ("       stream %u joined while %u ran: first frame after %.0f ms\n", n + 1, n,
        joined.frames ? (joined.t_first - t_join) / 1000.0 : -1.0);
  g_free (st);
  gst_object_unref (bus);
  gst_object_unref (pipe);
  return rc;
}
