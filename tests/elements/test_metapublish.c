/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* metapublish in GstHarness (also run under ASan and UBSan by
 * tests/run.sh --sanitize): documents in a file parsed back with json-glib
 * and compared with the metas pushed (params of every type, several
 * producers' metas, buffers without timestamps, frames with none), buffers
 * passed through untouched, filter-types and max-rate, rotation, a broker
 * nobody listens on (never blocks, everything counted as dropped), and
 * refusals at start. The real broker's tests are test_metapublish.py. */
#include <string.h>
#include <glib/gstdio.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <json-glib/json-glib.h>
#include "../common/fvgstcheck.h"

static gchar *tmpdir;

static void
setup (void)
{
  tmpdir = g_dir_make_tmp ("fvmetapub-XXXXXX", NULL);
  fail_unless (tmpdir != NULL);
}

static void
teardown (void)
{
  fvt_remove_tmpdir (&tmpdir);
}

/* the metapublish inside the harness's bin */
static GstElement *
pub (GstHarness *h)
{
  GstElement *e = gst_harness_find_element (h, "metapublish");
  gst_object_unref (e);   /* the bin keeps it */
  return e;
}

static GstHarness *
harness (const gchar *props)
{
  gchar *desc = g_strdup_printf ("metapublish %s", props);
  GstHarness *h = gst_harness_new_parse (desc);
  g_free (desc);
  gst_harness_set_src_caps_str (h, "video/x-raw,format=GRAY8,width=64,height=48,framerate=30/1");
  return h;
}

/* frame i: i % 3 regions of types face/region, with params */
static GstBuffer *
frame (guint i)
{
  GstBuffer *b = gst_buffer_new_allocate (NULL, 64 * 48, NULL);
  gst_buffer_memset (b, 0, (guint8) i, 64 * 48);
  GST_BUFFER_PTS (b) = i % 5 == 4 ? GST_CLOCK_TIME_NONE : i * GST_SECOND / 30;
  for (guint k = 0; k < i % 3; k++) {
    GstVideoRegionOfInterestMeta *m = gst_buffer_add_video_region_of_interest_meta (b,
        k ? "region" : "face", k, i, 10 + k, 20);
    m->id = (gint) (k + 5);
    gst_video_region_of_interest_meta_add_param (m, gst_structure_new ("region",
            "area", G_TYPE_UINT64, (guint64) 1000 + i, "ratio", G_TYPE_DOUBLE, 0.5,
            "ok", G_TYPE_BOOLEAN, TRUE, "label", G_TYPE_STRING, "part \"a\"", NULL));
  }
  return b;
}

/* Frames 0 to n - 1 through a metapublish with props, then its end. */
static void
publish_frames (const gchar *props, guint n)
{
  GstHarness *h = harness (props);
  for (guint i = 0; i < n; i++)
    gst_buffer_unref (gst_harness_push_and_pull (h, frame (i)));
  gst_harness_teardown (h);
}

static GPtrArray *
read_docs (const gchar *path)
{
  gchar *text = NULL;
  GPtrArray *docs = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  if (!g_file_get_contents (path, &text, NULL, NULL))
    return docs;
  gchar **lines = g_strsplit (text, "\n", -1);
  for (gchar **l = lines; *l; l++) {
    if (!**l)
      continue;
    GError *err = NULL;
    JsonNode *n = json_from_string (*l, &err);
    fail_unless (n != NULL, "not JSON: %s (%s)", *l, err ? err->message : "");
    g_ptr_array_add (docs, n);
  }
  g_strfreev (lines);
  g_free (text);
  return docs;
}

GST_START_TEST (test_file_documents)
{
  gchar *path = g_build_filename (tmpdir, "d.jsonl", NULL);
  gchar *props = g_strdup_printf ("location=%s stream-name=cam7", path);
  GstHarness *h = harness (props);
  for (guint i = 0; i < 30; i++) {
    GstBuffer *in = frame (i);
    GstBuffer *out = gst_harness_push_and_pull (h, gst_buffer_ref (in));
    fail_unless (out == in, "frames pass through, the same buffer");
    gst_buffer_unref (out);
    gst_buffer_unref (in);
  }
  guint64 delivered, dropped;
  g_object_get (pub (h), "delivered", &delivered, "dropped", &dropped, NULL);
  fail_unless_equals_uint64 (delivered, 30);
  fail_unless_equals_uint64 (dropped, 0);
  gst_harness_teardown (h);
  GPtrArray *docs = read_docs (path);
  fail_unless_equals_int (docs->len, 30);
  for (guint i = 0; i < docs->len; i++) {
    JsonObject *o = json_node_get_object (g_ptr_array_index (docs, i));
    fail_unless_equals_string (json_object_get_string_member (o, "stream"), "cam7");
    fail_unless_equals_int (json_object_get_int_member (o, "frame"), i);
    if (i % 5 == 4)
      fail_unless (json_object_get_null_member (o, "pts"));
    else
      fail_unless_equals_int64 (json_object_get_int_member (o, "pts"), i * GST_SECOND / 30);
    fail_unless_equals_int (json_object_get_int_member (o, "width"), 64);
    fail_unless (json_object_has_member (o, "wall_clock"));
    JsonArray *r = json_object_get_array_member (o, "regions");
    fail_unless_equals_int (json_array_get_length (r), i % 3);
    for (guint k = 0; k < i % 3; k++) {
      JsonObject *ro = json_array_get_object_element (r, k);
      fail_unless_equals_string (json_object_get_string_member (ro, "type"), k ? "region" : "face");
      fail_unless_equals_int (json_object_get_int_member (ro, "id"), k + 5);
      fail_unless_equals_int (json_object_get_int_member (ro, "x"), k);
      fail_unless_equals_int (json_object_get_int_member (ro, "width"), 10 + k);
      JsonObject *p = json_object_get_object_member (json_object_get_object_member (ro,
              "params"), "region");
      fail_unless_equals_int64 (json_object_get_int_member (p, "area"), 1000 + i);
      fail_unless (json_object_get_double_member (p, "ratio") == 0.5);
      fail_unless (json_object_get_boolean_member (p, "ok"));
      fail_unless_equals_string (json_object_get_string_member (p, "label"), "part \"a\"");
    }
  }
  g_ptr_array_unref (docs);
  g_free (props);
  g_free (path);
}
GST_END_TEST;

/* filter-types and max-rate (running time); frame numbers count every frame */
GST_START_TEST (test_filters)
{
  gchar *path = g_build_filename (tmpdir, "f.jsonl", NULL);
  gchar *props = g_strdup_printf ("location=%s filter-types=region,cat", path);
  publish_frames (props, 30);
  GPtrArray *docs = read_docs (path);
  fail_unless_equals_int (docs->len, 10);   /* i % 3 == 2: a "region" */
  for (guint k = 0; k < docs->len; k++)
    fail_unless_equals_int (json_object_get_int_member (json_node_get_object (
                g_ptr_array_index (docs, k)), "frame"), 3 * k + 2);
  g_ptr_array_unref (docs);
  g_unlink (path);
  g_free (props);
  props = g_strdup_printf ("location=%s max-rate=5", path);
  GstHarness *h = harness (props);
  for (guint i = 0; i < 60; i++) {   /* 2 s at 30 fps, all timestamped */
    GstBuffer *b = frame (i);
    GST_BUFFER_PTS (b) = i * GST_SECOND / 30;
    gst_buffer_unref (gst_harness_push_and_pull (h, b));
  }
  gst_harness_teardown (h);
  docs = read_docs (path);
  fail_unless_equals_int (docs->len, 10);
  for (guint k = 0; k < docs->len; k++)
    fail_unless_equals_int (json_object_get_int_member (json_node_get_object (
                g_ptr_array_index (docs, k)), "frame"), 6 * k);
  g_ptr_array_unref (docs);
  g_free (props);
  g_free (path);
}
GST_END_TEST;

GST_START_TEST (test_rotation)
{
  gchar *path = g_build_filename (tmpdir, "r.jsonl", NULL);
  gchar *old = g_strconcat (path, ".1", NULL);
  gchar *props = g_strdup_printf ("location=%s max-size=1500", path);
  publish_frames (props, 100);
  GStatBuf a, b;
  fail_unless (g_stat (path, &a) == 0 && g_stat (old, &b) == 0);
  fail_unless (a.st_size > 0 && a.st_size <= 1500 && b.st_size > 0 && b.st_size <= 1500,
      "sizes %ld and %ld", (long) a.st_size, (long) b.st_size);
  GPtrArray *n = read_docs (path), *o = read_docs (old);
  JsonObject *last_old = json_node_get_object (g_ptr_array_index (o, o->len - 1));
  JsonObject *first_new = json_node_get_object (g_ptr_array_index (n, 0));
  fail_unless_equals_int (json_object_get_int_member (first_new, "frame"),
      json_object_get_int_member (last_old, "frame") + 1);
  fail_unless_equals_int (json_object_get_int_member (json_node_get_object (
              g_ptr_array_index (n, n->len - 1)), "frame"), 99);
  g_ptr_array_unref (n);
  g_ptr_array_unref (o);
  g_free (props);
  g_free (old);
  g_free (path);
}
GST_END_TEST;

/* nobody listens: frames flow at once, the oldest documents are dropped
 * past max-queued, and what waits at stop is counted too */
GST_START_TEST (test_unreachable_broker)
{
  GSocket *s = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP,
      NULL);
  GInetAddress *lo = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  GSocketAddress *any = g_inet_socket_address_new (lo, 0);
  fail_unless (g_socket_bind (s, any, TRUE, NULL));
  GInetSocketAddress *bound = G_INET_SOCKET_ADDRESS (g_socket_get_local_address (s, NULL));
  const guint port = g_inet_socket_address_get_port (bound);
  g_object_unref (bound);
  g_object_unref (any);
  g_object_unref (lo);
  g_object_unref (s);   /* closed: the port answers nothing */
  gchar *props = g_strdup_printf ("location=mqtt://127.0.0.1:%u/t max-queued=5", port);
  GstHarness *h = harness (props);
  const gint64 t0 = g_get_monotonic_time ();
  for (guint i = 0; i < 40; i++)
    gst_buffer_unref (gst_harness_push_and_pull (h, frame (i)));
  fail_unless (g_get_monotonic_time () - t0 < 2 * G_USEC_PER_SEC, "the stream waited");
  guint queued;
  guint64 dropped;
  g_object_get (pub (h), "queued", &queued, "dropped", &dropped, NULL);
  fail_unless_equals_int (queued, 5);
  fail_unless_equals_uint64 (dropped, 35);
  gst_element_set_state (h->element, GST_STATE_NULL);
  g_object_get (pub (h), "dropped", &dropped, "queued", &queued, NULL);
  fail_unless_equals_uint64 (dropped, 40);
  fail_unless_equals_int (queued, 0);
  gst_harness_teardown (h);
  g_free (props);
}
GST_END_TEST;

static void
refused (const gchar *props, const gchar *words)
{
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=1 ! metapublish %s ! fakesink",
      props);
  GstElement *pipe = gst_parse_launch (desc, NULL);
  fail_unless_equals_int (gst_element_set_state (pipe, GST_STATE_PAUSED),
      GST_STATE_CHANGE_FAILURE);
  GstMessage *m = gst_bus_pop_filtered (GST_ELEMENT_BUS (pipe), GST_MESSAGE_ERROR);
  fail_unless (m != NULL, "%s: no error", props);
  GError *err = NULL;
  gst_message_parse_error (m, &err, NULL);
  fail_unless (strstr (err->message, words) != NULL, "%s: \"%s\"", props, err->message);
  g_error_free (err);
  gst_message_unref (m);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pipe);
  g_free (desc);
}

GST_START_TEST (test_refusals)
{
  refused ("location=mqtt://:1883/t", "mqtt://HOST");
  refused ("location=mqtt://127.0.0.1:0/t", "a port of 1 to 65535");
  refused ("location=mqtt://127.0.0.1/", "mqtt://HOST");
  refused ("location=mqtt://127.0.0.1/a/+/b", "without wildcards");
  refused ("location=amqp://x/y", "only file paths");
  refused ("location=/no/such/folder/x.jsonl", "Cannot open");
  refused ("location=mqtt://127.0.0.1:1/t tls-ca-file=/no/such/ca.pem", "TLS files");
  /* a location of a megabyte is cut in the message */
  gchar *huge = g_strnfill (1 << 20, 'h');
  gchar *props = g_strdup_printf ("location=mqtt://%s:99999/t", huge);
  refused (props, "…");
  g_free (props);
  g_free (huge);
}
GST_END_TEST;

/* Names an application sets from code may hold any bytes: the document is
 * still valid UTF-8 without raw control characters, which a JSON parser
 * takes (the Python test checks NaN, infinities and big integers). */
GST_START_TEST (test_names_not_utf8)
{
  gchar *path = g_build_filename (tmpdir, "bytes.jsonl", NULL);
  gchar *props = g_strdup_printf ("location=%s", path);
  GstHarness *h = harness (props);
  g_object_set (pub (h), "stream-name", "cam\xff\xfe\x1f", NULL);
  gst_harness_play (h);
  GstBuffer *b = gst_buffer_new_allocate (NULL, 64 * 48, NULL);
  GstVideoRegionOfInterestMeta *m = gst_buffer_add_video_region_of_interest_meta (b,
      "fa\xc3\x28" "ce", 1, 2, 3, 4);
  gst_video_region_of_interest_meta_add_param (m, gst_structure_new ("param",
          "k\xfe", G_TYPE_STRING, "v\x02", NULL));
  gst_buffer_unref (gst_harness_push_and_pull (h, b));
  gst_harness_teardown (h);
  gchar *text = NULL;
  gsize len = 0;
  fail_unless (g_file_get_contents (path, &text, &len, NULL));
  fail_unless (len > 0 && text[len - 1] == '\n');
  fail_unless (g_utf8_validate (text, (gssize) len, NULL), "not UTF-8: %s", text);
  for (gsize i = 0; i + 1 < len; i++)
    fail_unless ((guchar) text[i] >= 0x20 && text[i] != 0x7f, "a raw control byte at %"
        G_GSIZE_FORMAT ": %s", i, text);
  JsonParser *parser = json_parser_new ();
  fail_unless (json_parser_load_from_data (parser, text, (gssize) len, NULL), "%s", text);
  JsonObject *doc = json_node_get_object (json_parser_get_root (parser));
  fail_unless (g_str_has_prefix (json_object_get_string_member (doc, "stream"), "cam"));
  g_object_unref (parser);
  g_free (text);
  g_free (props);
  g_free (path);
}
GST_END_TEST;

static Suite *
metapublish_suite (void)
{
  Suite *s = suite_create ("metapublish");
  TCase *tc = tcase_create ("general");
  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_set_timeout (tc, 60);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_file_documents);
  tcase_add_test (tc, test_filters);
  tcase_add_test (tc, test_rotation);
  tcase_add_test (tc, test_unreachable_broker);
  tcase_add_test (tc, test_refusals);
  tcase_add_test (tc, test_names_not_utf8);
  return s;
}

GST_CHECK_MAIN (metapublish);
