/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The base class's frames in flight (GstFvFilterClass's frames_in_flight,
 * submit, finish), on an element made here for the purpose: "fvtestpair"
 * adds `offset` to every pixel of a GRAY8 frame. Its submit only keeps a
 * copy of the input and writes a wrong pattern; its finish writes the
 * result. So a frame pushed before its finish, out of order, or with
 * another frame's settings shows in the pixels. The elements that use
 * this (autofill's backend=hybrid) need a GPU; this needs none. */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <string.h>
#include "gstfvfilter.h"
#include "../common/fvgstcheck.h"

typedef struct {
  GstFvFilter parent;
  guint depth, offset, fail_at;   /* properties */
  guint plan_depth, plan_offset;  /* what the plans were made with */
  guint submitted;
} FvTestPair;
typedef struct {
  GstFvFilterClass parent_class;
} FvTestPairClass;

/* what the element did, for the tests */
static guint rebuilds, processed, finished, dropped;

G_DEFINE_TYPE (FvTestPair, fv_test_pair, GST_TYPE_FV_FILTER);
#define PAIR(o) ((FvTestPair *) (o))

enum { PROP_0, PROP_DEPTH, PROP_OFFSET, PROP_FAIL_AT };

static void
set_property (GObject *o, guint id, const GValue *v, GParamSpec *ps)
{
  FvTestPair *self = PAIR (o);
  GST_OBJECT_LOCK (o);
  if (id == PROP_DEPTH)
    self->depth = g_value_get_uint (v);
  else if (id == PROP_OFFSET)
    self->offset = g_value_get_uint (v);
  else
    self->fail_at = g_value_get_uint (v);
  GST_OBJECT_UNLOCK (o);
  gst_fv_base_mark_changed (GST_FV_BASE (o));
}

static void
get_property (GObject *o, guint id, GValue *v, GParamSpec *ps)
{
  FvTestPair *self = PAIR (o);
  g_value_set_uint (v, id == PROP_DEPTH ? self->depth : id == PROP_OFFSET ? self->offset
      : self->fail_at);
}

static gboolean
rebuild (GstFvFilter *f, const GstFvRebuild *r)
{
  FvTestPair *self = PAIR (f);
  GST_OBJECT_LOCK (f);
  self->plan_depth = self->depth;
  self->plan_offset = self->offset;
  GST_OBJECT_UNLOCK (f);
  rebuilds++;
  return TRUE;
}

static void
release (GstFvFilter *f)
{
}

static void
add_offset (FvTestPair *self, GstVideoFrame *out, const guint8 *src, gint src_stride)
{
  for (gint y = 0; y < GST_VIDEO_FRAME_HEIGHT (out); y++)
    for (gint x = 0; x < GST_VIDEO_FRAME_WIDTH (out); x++)
      ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (out, 0))[y * GST_VIDEO_FRAME_PLANE_STRIDE (out, 0)
          + x] = (guint8) (src[y * src_stride + x] + self->plan_offset);
}

static GstFlowReturn
process (GstFvFilter *f, GstVideoFrame *in, GstVideoFrame *out)
{
  processed++;
  add_offset (PAIR (f), out, GST_VIDEO_FRAME_PLANE_DATA (in, 0),
      GST_VIDEO_FRAME_PLANE_STRIDE (in, 0));
  return GST_FLOW_OK;
}

static guint
frames_in_flight (GstFvFilter *f)
{
  return PAIR (f)->plan_depth;
}

/* Keeps a copy of the input (as a GPU would read it) and leaves the
 * output wrong until finish. */
static GstFlowReturn
submit (GstFvFilter *f, GstVideoFrame *in, GstVideoFrame *out, gpointer *job)
{
  FvTestPair *self = PAIR (f);
  if (++self->submitted == self->fail_at) {
    GST_ELEMENT_ERROR (f, STREAM, FAILED, ("Frame %u refused.", self->submitted), (NULL));
    return GST_FLOW_ERROR;
  }
  const gint w = GST_VIDEO_FRAME_WIDTH (in), h = GST_VIDEO_FRAME_HEIGHT (in);
  guint8 *copy = g_malloc (w * h);
  for (gint y = 0; y < h; y++)
    memcpy (copy + y * w, (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (in, 0)
        + y * GST_VIDEO_FRAME_PLANE_STRIDE (in, 0), w);
  for (gint y = 0; y < h; y++)
    memset ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (out, 0)
        + y * GST_VIDEO_FRAME_PLANE_STRIDE (out, 0), 0xEE, w);
  *job = copy;
  return GST_FLOW_OK;
}

static GstFlowReturn
finish (GstFvFilter *f, GstVideoFrame *out, gpointer job, gboolean drop)
{
  if (drop)
    dropped++;
  else
    finished++;
  if (!drop)
    add_offset (PAIR (f), out, job, GST_VIDEO_FRAME_WIDTH (out));
  g_free (job);
  return GST_FLOW_OK;
}

static void
fv_test_pair_class_init (FvTestPairClass *klass)
{
  GObjectClass *oc = G_OBJECT_CLASS (klass);
  GstFvFilterClass *fc = GST_FV_FILTER_CLASS (klass);
  oc->set_property = set_property;
  oc->get_property = get_property;
  g_object_class_install_property (oc, PROP_DEPTH, g_param_spec_uint ("depth", "", "",
          0, 8, 0, FV_PARAM_RW));
  g_object_class_install_property (oc, PROP_OFFSET, g_param_spec_uint ("offset", "", "",
          0, 255, 0, FV_PARAM_RW));
  g_object_class_install_property (oc, PROP_FAIL_AT, g_param_spec_uint ("fail-at", "", "",
          0, 1000, 0, FV_PARAM_RW));
  static GstStaticPadTemplate sink = GST_STATIC_PAD_TEMPLATE ("sink", GST_PAD_SINK,
      GST_PAD_ALWAYS, GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE ("GRAY8")));
  static GstStaticPadTemplate src = GST_STATIC_PAD_TEMPLATE ("src", GST_PAD_SRC,
      GST_PAD_ALWAYS, GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE ("GRAY8")));
  GST_FV_BASE_CLASS (klass)->has_cuda = FALSE;   /* auto: the CPU, with or without a GPU */
  fc->rebuild = rebuild;
  fc->release = release;
  fc->process = process;
  gst_element_class_add_static_pad_template (GST_ELEMENT_CLASS (klass), &sink);
  gst_element_class_add_static_pad_template (GST_ELEMENT_CLASS (klass), &src);
  gst_element_class_set_static_metadata (GST_ELEMENT_CLASS (klass), "test", "Filter/Video",
      "frames in flight", "fastvision");
  fc->frames_in_flight = frames_in_flight;
  fc->submit = submit;
  fc->finish = finish;
  gst_fv_base_class_install_backend (GST_FV_BASE_CLASS (klass), FALSE);
}

static void
fv_test_pair_init (FvTestPair *self)
{
}

static GstVideoInfo info;

static GstHarness *
harness (guint depth, guint offset, gint width, gint height)
{
  rebuilds = processed = finished = dropped = 0;
  GstHarness *h = gst_harness_new ("fvtestpair");
  g_object_set (h->element, "depth", depth, "offset", offset, NULL);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, width, height);
  info.fps_n = 30;
  info.fps_d = 1;
  gst_harness_set_src_caps (h, gst_video_info_to_caps (&info));
  return h;
}

static GstBuffer *
frame (guint i)
{
  GstBuffer *b = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (&info), NULL);
  GstVideoFrame f;
  fail_unless (gst_video_frame_map (&f, &info, b, GST_MAP_WRITE));
  for (gint y = 0; y < GST_VIDEO_INFO_HEIGHT (&info); y++)
    for (gint x = 0; x < GST_VIDEO_INFO_WIDTH (&info); x++)
      ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, 0))[y * GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0)
          + x] = (guint8) (i * 7 + x + 3 * y);
  gst_video_frame_unmap (&f);
  GST_BUFFER_PTS (b) = i * GST_SECOND / 30;
  GST_BUFFER_DURATION (b) = GST_SECOND / 30;
  return b;
}

/* The next output: frame i's, with `offset` added to every pixel. */
static void
pull_expect (GstHarness *h, guint i, guint offset)
{
  GstBuffer *out = gst_harness_pull (h);
  fail_unless (out != NULL, "frame %u not pushed", i);
  fail_unless_equals_uint64 (GST_BUFFER_PTS (out), i * GST_SECOND / 30);
  GstVideoFrame f;
  fail_unless (gst_video_frame_map (&f, &info, out, GST_MAP_READ));
  for (gint y = 0; y < GST_VIDEO_INFO_HEIGHT (&info); y++)
    for (gint x = 0; x < GST_VIDEO_INFO_WIDTH (&info); x++) {
      const guint8 v = ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, 0))[y
          * GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0) + x];
      fail_unless_equals_int (v, (guint8) (i * 7 + x + 3 * y + offset));
    }
  gst_video_frame_unmap (&f);
  gst_buffer_unref (out);
}

/* What the element did so far: process, finish and finish to drop calls,
 * and the latency the element adds, in frames of 1/30 s. */
static void
expect (GstHarness *h, guint n_processed, guint n_finished, guint n_dropped, guint frames_held)
{
  fail_unless_equals_int (processed, n_processed);
  fail_unless_equals_int (finished, n_finished);
  fail_unless_equals_int (dropped, n_dropped);
  fail_unless_equals_uint64 (gst_harness_query_latency (h), frames_held * GST_SECOND / 30);
}

/* Three in flight: two frames held (said as latency), each pushed only
 * after its finish, in order; EOS pushes the rest. */
GST_START_TEST (test_in_flight_in_order)
{
  GstHarness *h = harness (3, 9, 17, 5);
  for (guint i = 0; i < 6; i++) {
    fail_unless_equals_int (gst_harness_push (h, frame (i)), GST_FLOW_OK);
    fail_unless_equals_int (gst_harness_buffers_received (h), i < 2 ? 0 : i - 1);
  }
  expect (h, 0, 4, 0, 2);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  fail_unless_equals_int (gst_harness_buffers_received (h), 6);
  for (guint i = 0; i < 6; i++)
    pull_expect (h, i, 9);
  expect (h, 0, 6, 0, 2);
  gst_harness_teardown (h);
}
GST_END_TEST;

/* A flush drops what is in flight (finish told so); frames after it go
 * on as before. */
GST_START_TEST (test_flush_drops)
{
  GstHarness *h = harness (2, 1, 8, 8);
  fail_unless_equals_int (gst_harness_push (h, frame (0)), GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_buffers_received (h), 0);
  fail_unless (fvt_harness_flush (h));
  fail_unless_equals_int (dropped, 1);
  fail_unless_equals_int (gst_harness_push (h, frame (1)), GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_push (h, frame (2)), GST_FLOW_OK);
  pull_expect (h, 1, 1);
  fail_unless_equals_int (gst_harness_buffers_received (h), 1);
  gst_harness_teardown (h);   /* stop drops frame 2 */
  fail_unless_equals_int (dropped, 2);
  fail_unless_equals_int (finished, 1);
}
GST_END_TEST;

/* New settings: the frames in flight finish with the plans they started
 * on and are pushed first; later frames get the new plans (and a new
 * depth: 0 is the ordinary path). */
GST_START_TEST (test_settings_between_frames)
{
  GstHarness *h = harness (3, 2, 11, 3);
  fail_unless_equals_int (gst_harness_push (h, frame (0)), GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_push (h, frame (1)), GST_FLOW_OK);
  fail_unless_equals_int (rebuilds, 1);
  g_object_set (h->element, "offset", 40, NULL);
  fail_unless_equals_int (gst_harness_push (h, frame (2)), GST_FLOW_OK);
  fail_unless_equals_int (rebuilds, 2);
  fail_unless_equals_int (gst_harness_buffers_received (h), 2);
  pull_expect (h, 0, 2);
  pull_expect (h, 1, 2);
  /* 0: the ordinary path, one frame in, one out, no latency */
  g_object_set (h->element, "depth", 0, NULL);
  fail_unless_equals_int (gst_harness_push (h, frame (3)), GST_FLOW_OK);
  pull_expect (h, 2, 40);
  pull_expect (h, 3, 40);
  fail_unless_equals_int (gst_harness_push (h, frame (4)), GST_FLOW_OK);
  pull_expect (h, 4, 40);
  expect (h, 2, 3, 0, 0);
  gst_harness_teardown (h);
}
GST_END_TEST;

/* New caps: what is in flight goes out first, at its own size. */
GST_START_TEST (test_caps_push_in_flight)
{
  GstHarness *h = harness (2, 3, 9, 4);
  fail_unless_equals_int (gst_harness_push (h, frame (0)), GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_buffers_received (h), 0);
  GstVideoInfo old = info;
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, 5, 6);
  info.fps_n = 30;
  info.fps_d = 1;
  gst_harness_set_src_caps (h, gst_video_info_to_caps (&info));
  fail_unless_equals_int (gst_harness_buffers_received (h), 1);
  GstVideoInfo now = info;
  info = old;
  pull_expect (h, 0, 3);
  info = now;
  fail_unless_equals_int (gst_harness_push (h, frame (1)), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  pull_expect (h, 1, 3);
  gst_harness_teardown (h);
}
GST_END_TEST;

/* A frame that cannot start: an error, and the frames in flight dropped
 * (not pushed half done, not leaked: the sanitizer build checks that). */
GST_START_TEST (test_submit_fails)
{
  GstHarness *h = harness (3, 0, 6, 6);
  g_object_set (h->element, "fail-at", 2, NULL);
  fail_unless_equals_int (gst_harness_push (h, frame (0)), GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_push (h, frame (1)), GST_FLOW_ERROR);
  fail_unless_equals_int (dropped, 1);
  fail_unless_equals_int (gst_harness_buffers_received (h), 0);
  gst_harness_teardown (h);
}
GST_END_TEST;

/* What reached the harness's sink, in order: "b" a buffer, "e" the custom
 * event. */
static GstPadProbeReturn
record (GstPad *pad, GstPadProbeInfo *pi, gpointer data)
{
  GString *seen = data;
  if (GST_PAD_PROBE_INFO_TYPE (pi) & GST_PAD_PROBE_TYPE_BUFFER)
    g_string_append_c (seen, 'b');
  else if (GST_EVENT_TYPE (GST_PAD_PROBE_INFO_EVENT (pi)) == GST_EVENT_CUSTOM_DOWNSTREAM)
    g_string_append_c (seen, 'e');
  return GST_PAD_PROBE_OK;
}

/* Every serialized event, not only EOS and caps, pushes the frames in
 * flight first: a custom downstream event (serialized) after two held
 * frames arrives after them; the frames after it are held again. */
GST_START_TEST (test_serialized_event_drains)
{
  GstHarness *h = harness (3, 5, 8, 4);
  GString *seen = g_string_new (NULL);
  gst_pad_add_probe (h->sinkpad, GST_PAD_PROBE_TYPE_BUFFER
      | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, record, seen, NULL);
  fail_unless_equals_int (gst_harness_push (h, frame (0)), GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_push (h, frame (1)), GST_FLOW_OK);
  fail_unless_equals_string (seen->str, "");
  fail_unless (gst_harness_push_event (h, gst_event_new_custom (GST_EVENT_CUSTOM_DOWNSTREAM,
              gst_structure_new_empty ("fv-test-marker"))));
  fail_unless_equals_string (seen->str, "bbe");
  fail_unless_equals_int (gst_harness_push (h, frame (2)), GST_FLOW_OK);
  fail_unless_equals_string (seen->str, "bbe");
  pull_expect (h, 0, 5);
  pull_expect (h, 1, 5);
  gst_harness_teardown (h);
  g_string_free (seen, TRUE);
}
GST_END_TEST;

/* The minimum of the pool proposed upstream, or -1 with none. */
static gint
proposed_min (GstHarness *h)
{
  GstCaps *caps = gst_video_info_to_caps (&info);
  GstQuery *q = gst_query_new_allocation (caps, TRUE);
  gint min = -1;
  if (gst_pad_peer_query (h->srcpad, q) && gst_query_get_n_allocation_pools (q) > 0) {
    guint size, mn, mx;
    gst_query_parse_nth_allocation_pool (q, 0, NULL, &size, &mn, &mx);
    min = (gint) mn;
  }
  gst_query_unref (q);
  gst_caps_unref (caps);
  return min;
}

/* Frames in flight hold their input buffers: once the element holds two,
 * the pool it proposes upstream keeps two more out, and the sink pad asks
 * upstream to negotiate again (a RECONFIGURE event). */
GST_START_TEST (test_pools_keep_held_frames)
{
  GstHarness *h = harness (3, 1, 8, 4);
  const gint before = proposed_min (h);
  fail_unless (before >= 0, "no pool proposed");
  while (gst_harness_try_pull_upstream_event (h))
    ;
  fail_unless_equals_int (gst_harness_push (h, frame (0)), GST_FLOW_OK);
  gboolean reconfigured = FALSE;
  GstEvent *e;
  while ((e = gst_harness_try_pull_upstream_event (h))) {
    reconfigured |= GST_EVENT_TYPE (e) == GST_EVENT_RECONFIGURE;
    gst_event_unref (e);
  }
  fail_unless (reconfigured, "no RECONFIGURE upstream when frames began to be held");
  fail_unless_equals_int (proposed_min (h), before + 2);
  gst_harness_teardown (h);
}
GST_END_TEST;

static Suite *
fvfilter_suite (void)
{
  gst_element_register (NULL, "fvtestpair", GST_RANK_NONE, fv_test_pair_get_type ());
  Suite *s = suite_create ("fvfilter");
  TCase *tc = tcase_create ("frames in flight");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_in_flight_in_order);
  tcase_add_test (tc, test_flush_drops);
  tcase_add_test (tc, test_settings_between_frames);
  tcase_add_test (tc, test_caps_push_in_flight);
  tcase_add_test (tc, test_submit_fails);
  tcase_add_test (tc, test_serialized_event_drains);
  tcase_add_test (tc, test_pools_keep_held_frames);
  return s;
}

GST_CHECK_MAIN (fvfilter);
