/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Per-frame cost of elements in a running pipeline: the steady-state time
 * between frames at the sink of PIPELINE, minus the same for BASELINE (the
 * pipeline without the elements measured). Each pipeline must end in
 * "fakesink name=sink"; start-up (plans, FFTW wisdom, the first frames) is
 * left out: the clock starts at frame WARMUP. The median of RUNS runs.
 *   bench_pipeline [-r RUNS] [-w WARMUP] LABEL PIPELINE [BASELINE]
 * prints: LABEL  frames  ms/frame  baseline ms/frame  cost ms/frame  fps */
#include <stdlib.h>
#include <string.h>
#include <gst/gst.h>

typedef struct {
  guint frames, warmup;
  gint64 t_first, t_last;
} Clock;

static void
on_handoff (GstElement *sink, GstBuffer *buf, GstPad *pad, gpointer user)
{
  Clock *c = user;
  c->frames++;
  if (c->frames == c->warmup)
    c->t_first = g_get_monotonic_time ();
  c->t_last = g_get_monotonic_time ();
}

/* Milliseconds per frame after warm-up, or -1 when the pipeline failed. */
static double
time_pipeline (const gchar *desc, guint warmup, guint *frames)
{
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch (desc, &err);
  if (!pipe) {
    g_printerr ("%s: %s\n", desc, err->message);
    g_error_free (err);
    return -1;
  }
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  if (!sink) {
    g_printerr ("%s: no element named sink\n", desc);
    gst_object_unref (pipe);
    return -1;
  }
  Clock c = { 0, warmup, 0, 0 };
  g_object_set (sink, "signal-handoffs", TRUE, "sync", FALSE, NULL);
  g_signal_connect (sink, "handoff", G_CALLBACK (on_handoff), &c);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  GstBus *bus = gst_element_get_bus (pipe);
  GstMessage *m = gst_bus_timed_pop_filtered (bus, 600 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  double ms = -1;
  if (m && GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR) {
    GError *e;
    gchar *dbg;
    gst_message_parse_error (m, &e, &dbg);
    g_printerr ("%s: %s (%s)\n", desc, e->message, dbg ? dbg : "");
    g_error_free (e);
    g_free (dbg);
  } else if (c.frames > warmup + 1) {
    ms = (c.t_last - c.t_first) / 1000.0 / (c.frames - warmup);
  }
  if (m)
    gst_message_unref (m);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  *frames = c.frames;
  return ms;
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

static double
median_time (const gchar *desc, guint runs, guint warmup, guint *frames)
{
  double t[32];
  runs = MIN (runs, G_N_ELEMENTS (t));
  for (guint i = 0; i < runs; i++) {
    t[i] = time_pipeline (desc, warmup, frames);
    if (t[i] < 0)
      return -1;
  }
  qsort (t, runs, sizeof t[0], cmp_double);
  return t[runs / 2];
}

int
main (int argc, char **argv)
{
  gst_init (&argc, &argv);
  guint runs = 3, warmup = 10;
  int a = 1;
  while (a + 1 < argc && argv[a][0] == '-') {
    if (!strcmp (argv[a], "-r"))
      runs = atoi (argv[a + 1]);
    else if (!strcmp (argv[a], "-w"))
      warmup = atoi (argv[a + 1]);
    a += 2;
  }
  if (argc - a < 2) {
    g_printerr ("usage: %s [-r RUNS] [-w WARMUP] LABEL PIPELINE [BASELINE]\n", argv[0]);
    return 2;
  }
  const gchar *label = argv[a], *pipe = argv[a + 1], *base = argc - a > 2 ? argv[a + 2] : NULL;
  guint frames = 0, bframes = 0;
  double t = median_time (pipe, runs, warmup, &frames);
  double b = base ? median_time (base, runs, warmup, &bframes) : 0;
  if (t < 0 || b < 0)
    return 1;
  g_print ("%-44s %5u frames  %8.3f ms/frame  baseline %8.3f  cost %8.3f ms  (%.0f fps)\n",
      label, frames, t, b, t - b, 1000.0 / t);
  return 0;
}
