/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What every fastvision element owes a GStreamer user, checked on all four:
 * only numbers, booleans and enums are controllable (binding each works);
 * latency is only what an element holds back (a synchronous element adds
 * nothing and posts no latency message); backend=cuda set while PLAYING
 * without a GPU warns and keeps running. Memory limits, failed rebuilds
 * and file errors: test_conventions_errors.c. */
#include <string.h>
#include <glib/gstdio.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <gst/controller/gstdirectcontrolbinding.h>
#include <gst/controller/gstinterpolationcontrolsource.h>
#include "fv_cuda.h"
#include "fvtest.h"
#include "fvgstcheck.h"
#include "fvtest-gst.h"

static const char *const elements[] = { "satfilter", "fftconvolve", "vjdetect", "autofill" };

GST_START_TEST (test_controllable_properties)
{
  for (guint e = 0; e < G_N_ELEMENTS (elements); e++) {
    GstElement *el = gst_element_factory_make (elements[e], NULL);
    fail_unless (el != NULL, "%s", elements[e]);
    guint n;
    GParamSpec **specs = g_object_class_list_properties (G_OBJECT_GET_CLASS (el), &n);
    guint bound = 0;
    for (guint i = 0; i < n; i++) {
      GParamSpec *ps = specs[i];
      GType t = G_TYPE_FUNDAMENTAL (G_PARAM_SPEC_VALUE_TYPE (ps));
      gboolean numeric = t == G_TYPE_INT || t == G_TYPE_UINT || t == G_TYPE_DOUBLE
          || t == G_TYPE_FLOAT || t == G_TYPE_INT64 || t == G_TYPE_UINT64
          || t == G_TYPE_BOOLEAN || t == G_TYPE_ENUM;
      if (!(ps->flags & GST_PARAM_CONTROLLABLE))
        continue;
      fail_unless (numeric, "%s: %s is controllable but of type %s", elements[e], ps->name,
          g_type_name (G_PARAM_SPEC_VALUE_TYPE (ps)));
      /* a binding must take without a critical (gst-check fails on one) */
      GstControlSource *cs = gst_interpolation_control_source_new ();
      GstControlBinding *b = gst_direct_control_binding_new (GST_OBJECT (el), ps->name, cs);
      fail_unless (gst_object_add_control_binding (GST_OBJECT (el), b), "%s: %s", elements[e],
          ps->name);
      gst_object_unref (cs);
      bound++;
    }
    fail_unless (bound >= 3, "%s: only %u controllable properties", elements[e], bound);
    g_free (specs);
    gst_object_unref (el);
  }
}
GST_END_TEST;


/* A pipeline from fmt, which holds one %s for the element. */
static GstElement *
pipeline_with (const char *fmt, const char *element)
{
  gchar *el = fvt_element_desc (element);
  gchar *desc = g_strdup_printf (fmt, el);
  g_free (el);
  GstElement *pipe = gst_parse_launch (desc, NULL);
  fail_unless (pipe != NULL, "%s", desc);
  g_free (desc);
  return pipe;
}

static GstClockTime
query_latency (GstElement *el)
{
  GstQuery *q = gst_query_new_latency ();
  GstPad *pad = gst_element_get_static_pad (el, "src");
  fail_unless (gst_pad_query (pad, q));
  gboolean live;
  GstClockTime min;
  gst_query_parse_latency (q, &live, &min, NULL);
  fail_unless (live);
  gst_query_unref (q);
  gst_object_unref (pad);
  return min;
}

/* A synchronous element adds no latency however slow its frames (here a
 * large frame on one thread), and posts no latency message. */
GST_START_TEST (test_latency_is_what_is_held)
{
  for (guint e = 0; e < G_N_ELEMENTS (elements); e++) {
    GstElement *pipe = pipeline_with ("videotestsrc is-live=true num-buffers=4 ! "
        "capsfilter name=c caps=video/x-raw,format=GRAY8,width=1280,height=720,framerate=30/1 ! "
        "%s name=f threads=1 backend=cpu ! fakesink sync=true", elements[e]);
    GstElement *f = gst_bin_get_by_name (GST_BIN (pipe), "f");
    GstElement *c = gst_bin_get_by_name (GST_BIN (pipe), "c");
    GstBus *bus = gst_element_get_bus (pipe);
    gst_element_set_state (pipe, GST_STATE_PLAYING);
    guint from_element = 0;
    GstMessage *m;
    while ((m = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND, GST_MESSAGE_EOS
                | GST_MESSAGE_ERROR | GST_MESSAGE_LATENCY))) {
      GstMessageType t = GST_MESSAGE_TYPE (m);
      if (t == GST_MESSAGE_LATENCY && GST_MESSAGE_SRC (m) == GST_OBJECT (f))
        from_element++;
      gst_message_unref (m);
      fail_unless (t != GST_MESSAGE_ERROR, "%s: error", elements[e]);
      if (t == GST_MESSAGE_EOS)
        break;
    }
    fail_unless_equals_int (from_element, 0);
    GstClockTime ours = query_latency (f), theirs = query_latency (c);
    fail_unless (ours == theirs, "%s: latency %" GST_TIME_FORMAT " where upstream reports %"
        GST_TIME_FORMAT, elements[e], GST_TIME_ARGS (ours), GST_TIME_ARGS (theirs));
    gst_element_set_state (pipe, GST_STATE_NULL);
    gst_object_unref (bus);
    gst_object_unref (f);
    gst_object_unref (c);
    gst_object_unref (pipe);
  }
}
GST_END_TEST;

/* An enum property's nick, as gst-inspect-1.0 shows it. */
static gchar *
nick_of (GstElement *e, const char *prop)
{
  GValue v = G_VALUE_INIT;
  GParamSpec *ps = g_object_class_find_property (G_OBJECT_GET_CLASS (e), prop);
  g_value_init (&v, ps->value_type);
  g_object_get_property (G_OBJECT (e), prop, &v);
  GEnumValue *ev = g_enum_get_value (g_type_class_peek (ps->value_type), g_value_get_enum (&v));
  gchar *nick = g_strdup (ev ? ev->value_nick : "?");
  g_value_unset (&v);
  return nick;
}

/* backend=cuda while PLAYING on a machine with no GPU: every element warns,
 * naming the cause, and keeps processing on the CPU to the end. */
GST_START_TEST (test_cuda_while_playing_without_gpu)
{
  if (fv_cuda_device_count () > 0)
    return;   /* with a GPU the switch simply happens (tested per element) */
  for (guint e = 0; e < G_N_ELEMENTS (elements); e++) {
    GstElement *pipe = pipeline_with ("videotestsrc num-buffers=30 ! "
        "video/x-raw,format=GRAY8,width=64,height=48 ! %s name=f backend=cpu ! "
        "identity name=i ! fakesink", elements[e]);
    GstElement *f = gst_bin_get_by_name (GST_BIN (pipe), "f");
    GstBus *bus = gst_element_get_bus (pipe);
    gst_element_set_state (pipe, GST_STATE_PAUSED);
    gst_element_get_state (pipe, NULL, NULL, GST_CLOCK_TIME_NONE);   /* a frame went through */
    gst_util_set_object_arg (G_OBJECT (f), "backend", "cuda");
    gst_element_set_state (pipe, GST_STATE_PLAYING);
    gboolean warned = FALSE;
    GstMessage *m;
    while ((m = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND, GST_MESSAGE_EOS
                | GST_MESSAGE_ERROR | GST_MESSAGE_WARNING))) {
      GstMessageType t = GST_MESSAGE_TYPE (m);
      GError *err = NULL;
      if (t == GST_MESSAGE_WARNING) {
        gst_message_parse_warning (m, &err, NULL);
        warned |= strstr (err->message, "No usable GPU for backend=cuda") != NULL
            && strstr (err->message, "staying on the cpu backend") != NULL;
      } else if (t == GST_MESSAGE_ERROR) {
        gst_message_parse_error (m, &err, NULL);
        fail ("%s: error %s", elements[e], err->message);
      }
      g_clear_error (&err);
      gst_message_unref (m);
      if (t == GST_MESSAGE_EOS)
        break;
    }
    fail_unless (warned, "%s: no warning", elements[e]);
    /* the properties read back what runs: the cpu backend */
    gchar *backend = NULL, *active = NULL;
    backend = nick_of (f, "backend");
    active = nick_of (f, "active-backend");
    fail_unless_equals_string (backend, "cpu");
    fail_unless_equals_string (active, "cpu");
    g_free (backend);
    g_free (active);
    gst_element_set_state (pipe, GST_STATE_NULL);
    gst_object_unref (bus);
    gst_object_unref (f);
    gst_object_unref (pipe);
  }
}
GST_END_TEST;

/* Read-back is truthful (docs/tuning.md's rule): active-backend reads
 * none before an element starts and what runs once it has; a value outside
 * a property's range is refused (by GObject, with a warning) and the
 * property keeps, and reads back, its value. */
GST_START_TEST (test_read_back)
{
  for (guint e = 0; e < G_N_ELEMENTS (elements); e++) {
    GstElement *f = gst_element_factory_make (elements[e], NULL);
    gchar *active = nick_of (f, "active-backend");
    fail_unless_equals_string (active, "none");
    g_free (active);
    gst_object_unref (f);
  }
  /* a value outside the range: GObject refuses it (with a warning whose
   * routing differs between GLib versions) and the property keeps its
   * value; here through the property's own validation, which set_property
   * applies */
  GstElement *f = gst_element_factory_make ("satfilter", NULL);
  GParamSpec *ps = g_object_class_find_property (G_OBJECT_GET_CLASS (f), "radius");
  GValue v = G_VALUE_INIT;
  g_value_init (&v, G_TYPE_UINT);
  g_value_set_uint (&v, (guint) -3);
  fail_unless (g_param_value_validate (ps, &v), "radius=-3 (4294967293) is in range");
  g_value_unset (&v);
  gst_object_unref (f);
}
GST_END_TEST;

static gint backend_choices;

static void
count_choices (GstDebugCategory *category, GstDebugLevel level, const gchar *file,
    const gchar *function, gint line, GObject *object, GstDebugMessage *message, gpointer user)
{
  if (!strcmp (gst_debug_category_get_name (category), "fvbackend")
      && g_str_has_prefix (gst_debug_message_get (message), "backend:"))
    g_atomic_int_inc (&backend_choices);
}

/* The backend is chosen at start and when backend or device-id changes,
 * not again for every new format or resolution. */
GST_START_TEST (test_backend_chosen_once)
{
  gst_debug_set_active (TRUE);
  gst_debug_set_threshold_for_name ("fvbackend", GST_LEVEL_INFO);
  gst_debug_remove_log_function (gst_debug_log_default);   /* counted, not printed */
  gst_debug_add_log_function (count_choices, NULL, NULL);
  for (guint e = 0; e < G_N_ELEMENTS (elements); e++) {
    g_atomic_int_set (&backend_choices, 0);
    gchar *el = fvt_element_desc (elements[e]);
    GstHarness *hh = gst_harness_new_parse (el);
    g_free (el);
    const gint sizes[][2] = { {32, 16}, {48, 40}, {17, 9} };
    for (guint i = 0; i < G_N_ELEMENTS (sizes); i++) {
      gchar *caps = g_strdup_printf ("video/x-raw,format=GRAY8,width=%d,height=%d,"
          "framerate=30/1", sizes[i][0], sizes[i][1]);
      gst_harness_set_src_caps_str (hh, caps);
      g_free (caps);
      GstBuffer *b = gst_buffer_new_allocate (NULL, GST_ROUND_UP_4 (sizes[i][0]) * sizes[i][1],
          NULL);
      gst_buffer_memset (b, 0, 60, gst_buffer_get_size (b));
      GstBuffer *out = gst_harness_push_and_pull (hh, b);
      fail_unless (out != NULL, "%s", elements[e]);
      gst_buffer_unref (out);
    }
    fail_unless_equals_int (g_atomic_int_get (&backend_choices), 1);
    /* a new backend is chosen again */
    GstElement *f = gst_harness_find_element (hh, elements[e]);
    gst_util_set_object_arg (G_OBJECT (f), "backend", "cpu");
    gst_object_unref (f);
    gst_buffer_unref (gst_harness_push_and_pull (hh, gst_buffer_new_allocate (NULL, 20 * 9,
                NULL)));
    fail_unless_equals_int (g_atomic_int_get (&backend_choices), 2);
    gst_harness_teardown (hh);
  }
  gst_debug_remove_log_function (count_choices);
  gst_debug_add_log_function (gst_debug_log_default, NULL, NULL);
}
GST_END_TEST;

/* A frame past an element's largest side fails negotiation (the pad
 * templates carry the limit: gst-inspect shows it), and a warning from the
 * element says why, with the size offered and the limit; a frame of the
 * largest side's width is taken. */
GST_START_TEST (test_size_limits_in_errors)
{
  const struct { const char *element; int w; const char *limit; } cases[] = {
    { "autofill", 65537, "65536x65536" }, { "vjdetect", 32769, "32768x32768" },
    { "satfilter", 1048577, "1048576x1048576" } };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    GstElement *probe = gst_element_factory_make (cases[i].element, NULL);
    GstPadTemplate *t = gst_element_class_get_pad_template (GST_ELEMENT_GET_CLASS (probe),
        "sink");
    GstCaps *tc = gst_pad_template_get_caps (t);
    const GValue *wr = gst_structure_get_value (gst_caps_get_structure (tc, 0), "width");
    fail_unless (GST_VALUE_HOLDS_INT_RANGE (wr) && gst_value_get_int_range_max (wr)
        == cases[i].w - 1, "%s: the template's width %s", cases[i].element,
        gst_value_serialize (wr));
    gst_caps_unref (tc);
    gst_object_unref (probe);
    gchar *el = fvt_element_desc (cases[i].element);   /* FV_CASCADES where opencv-data is not */
    /* a launch line cannot even link it, and says what it cannot handle */
    gchar *desc = g_strdup_printf ("videotestsrc num-buffers=1 ! "
        "video/x-raw,format=GRAY8,width=%d,height=1 ! %s backend=cpu ! fakesink", cases[i].w, el);
    GError *perr = NULL;
    GstElement *pipe = gst_parse_launch (desc, &perr);
    gchar *asked_caps = g_strdup_printf ("width=(int)%d", cases[i].w);
    fail_unless (perr && strstr (perr->message, "can't handle caps")
        && strstr (perr->message, asked_caps), "%s: %s", cases[i].element,
        perr ? perr->message : "linked");
    g_clear_error (&perr);
    g_free (asked_caps);
    if (pipe)
      gst_object_unref (pipe);
    g_free (desc);
    /* caps that come later (an application's appsrc): negotiation fails,
     * and a warning from the element names the size and the limit */
    desc = g_strdup_printf ("appsrc name=src caps=video/x-raw,format=GRAY8,width=%d,height=1,"
        "framerate=1/1 ! %s backend=cpu ! fakesink", cases[i].w, el);
    g_free (el);
    pipe = gst_parse_launch (desc, NULL);
    fail_unless (pipe != NULL);
    gst_element_set_state (pipe, GST_STATE_PLAYING);
    {
      GstElement *src = gst_bin_get_by_name (GST_BIN (pipe), "src");
      GstFlowReturn r;
      GstBuffer *b = gst_buffer_new_allocate (NULL, cases[i].w, NULL);
      g_signal_emit_by_name (src, "push-buffer", b, &r);   /* takes a ref of its own */
      gst_buffer_unref (b);
      g_signal_emit_by_name (src, "end-of-stream", &r);
      gst_object_unref (src);
    }
    gchar *said = NULL;
    gboolean failed = FALSE;
    GstMessage *m;
    while ((m = gst_bus_timed_pop_filtered (GST_ELEMENT_BUS (pipe), 30 * GST_SECOND,
                GST_MESSAGE_ERROR | GST_MESSAGE_EOS | GST_MESSAGE_WARNING))) {
      const GstMessageType type = GST_MESSAGE_TYPE (m);
      if (type == GST_MESSAGE_WARNING && !said) {
        GError *err = NULL;
        gst_message_parse_warning (m, &err, NULL);
        said = g_strdup (err->message);
        g_error_free (err);
      }
      failed |= type == GST_MESSAGE_ERROR;
      gst_message_unref (m);
      if (type != GST_MESSAGE_WARNING)
        break;
    }
    fail_unless (failed, "%s: %d wide accepted", cases[i].element, cases[i].w);
    gchar *asked = g_strdup_printf ("%dx1", cases[i].w);
    fail_unless (said && strstr (said, asked) && strstr (said, cases[i].limit), "%s: %s",
        cases[i].element, said);
    g_free (asked);
    g_free (said);
    gst_element_set_state (pipe, GST_STATE_NULL);
    gst_object_unref (pipe);
    g_free (desc);
  }
}
GST_END_TEST;

/* backend offers each element its own values: hybrid is autofill's alone */
GST_START_TEST (test_backend_values_per_element)
{
  static const char *const all[] = { "satfilter", "fftconvolve", "vjdetect", "autofill" };
  for (guint e = 0; e < G_N_ELEMENTS (all); e++) {
    GstElement *el = gst_element_factory_make (all[e], NULL);
    GParamSpec *ps = g_object_class_find_property (G_OBJECT_GET_CLASS (el), "backend");
    fail_unless (ps && G_IS_PARAM_SPEC_ENUM (ps), "%s", all[e]);
    GEnumClass *ec = G_PARAM_SPEC_ENUM (ps)->enum_class;
    const gboolean hybrid = g_enum_get_value_by_nick (ec, "hybrid") != NULL;
    fail_unless (hybrid == !strcmp (all[e], "autofill"), "%s: hybrid %s", all[e],
        hybrid ? "offered" : "missing");
    fail_unless (g_enum_get_value_by_nick (ec, "cpu") && g_enum_get_value_by_nick (ec, "cuda")
        && g_enum_get_value_by_nick (ec, "auto"), "%s", all[e]);
    /* it sets and reads back */
    g_object_set (el, "backend", 0, NULL);   /* cpu */
    gint v = -5;
    g_object_get (el, "backend", &v, NULL);
    fail_unless_equals_int (v, 0);
    gst_object_unref (el);
  }
  /* gst-launch's words: backend=hybrid is no value of satfilter's */
  GError *err = NULL;
  GstElement *p = gst_parse_launch ("fakesrc ! satfilter backend=hybrid ! fakesink", &err);
  fail_unless (err != NULL, "satfilter backend=hybrid parsed");
  g_clear_error (&err);
  if (p)
    gst_object_unref (p);
}
GST_END_TEST;


/* Working in place is a class field (GstFvFilterClass.in_place): vjdetect
 * hands on the memory it was given (the buffer we still hold is not
 * writable, so GstBaseTransform wraps the same memory in a new buffer),
 * with its pixels; the others write new memory. */
GST_START_TEST (test_in_place_by_class)
{
  GstVideoInfo info;
  GstBuffer *in = fvt_photo_2x2 (&info);
  for (guint i = 0; i < G_N_ELEMENTS (elements); i++) {
    const gboolean in_place = !strcmp (elements[i], "vjdetect");
    gchar *el = fvt_element_desc (elements[i]);
    gchar *launch = g_strdup_printf ("%s backend=cpu", el);
    g_free (el);
    GstHarness *h = gst_harness_new_parse (launch);
    g_free (launch);
    GstElement *f = gst_harness_find_element (h, elements[i]);
    fail_unless (gst_base_transform_is_in_place (GST_BASE_TRANSFORM (f)) == in_place,
        "%s: in place %d", elements[i], !in_place);
    gst_harness_set_src_caps (h, gst_video_info_to_caps (&info));
    GstBuffer *mine = gst_buffer_copy_deep (in);
    GstBuffer *out = gst_harness_push_and_pull (h, gst_buffer_ref (mine));
    fail_unless (out != NULL, "%s", elements[i]);
    const gboolean same = gst_buffer_peek_memory (out, 0) == gst_buffer_peek_memory (mine, 0);
    fail_unless (same == in_place, "%s: output %s the input's memory", elements[i],
        same ? "is" : "is not");
    if (in_place)
      fail_unless (fvt_same_bytes (out, in), "vjdetect changed pixels without draw");
    gst_buffer_unref (out);
    gst_buffer_unref (mine);
    gst_object_unref (f);
    gst_harness_teardown (h);
  }
  gst_buffer_unref (in);
}

GST_END_TEST;

/* No element property shadows one of a base class (metapublish's MQTT qos
 * once hid GstBaseTransform's boolean qos): every property an element
 * installs is its own name. */
GST_START_TEST (test_no_shadowed_properties)
{
  static const char *const all[] = { "satfilter", "fftconvolve", "vjdetect", "autofill",
    "roitrack", "metapublish" };
  for (guint e = 0; e < G_N_ELEMENTS (all); e++) {
    GstElement *el = gst_element_factory_make (all[e], NULL);
    fail_unless (el != NULL, "%s", all[e]);
    guint n;
    GParamSpec **specs = g_object_class_list_properties (G_OBJECT_GET_CLASS (el), &n);
    for (guint i = 0; i < n; i++) {
      GType owner = specs[i]->owner_type;
      for (GType t = g_type_parent (owner); t && G_TYPE_IS_OBJECT (t); t = g_type_parent (t)) {
        GObjectClass *k = g_type_class_ref (t);
        GParamSpec *base = g_object_class_find_property (k, specs[i]->name);
        fail_unless (base == NULL || base->owner_type == owner, "%s: property %s (%s) shadows "
            "%s's", all[e], specs[i]->name, g_type_name (owner), g_type_name (base->owner_type));
        g_type_class_unref (k);
      }
    }
    /* and the base class's qos is the boolean it should be */
    GParamSpec *qos = g_object_class_find_property (G_OBJECT_GET_CLASS (el), "qos");
    fail_unless (qos && G_PARAM_SPEC_VALUE_TYPE (qos) == G_TYPE_BOOLEAN, "%s: qos", all[e]);
    g_free (specs);
    gst_object_unref (el);
  }
}
GST_END_TEST;

static Suite *
conventions_suite (void)
{
  Suite *s = suite_create ("conventions");
  TCase *tc = tcase_create ("general");
  tcase_set_timeout (tc, 300);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_controllable_properties);
  tcase_add_test (tc, test_latency_is_what_is_held);
  tcase_add_test (tc, test_cuda_while_playing_without_gpu);
  tcase_add_test (tc, test_backend_chosen_once);
  tcase_add_test (tc, test_read_back);
  tcase_add_test (tc, test_size_limits_in_errors);
  tcase_add_test (tc, test_backend_values_per_element);
  tcase_add_test (tc, test_in_place_by_class);
  tcase_add_test (tc, test_no_shadowed_properties);
  return s;
}

GST_CHECK_MAIN (conventions);
