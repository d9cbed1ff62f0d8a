/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * SECTION:element-metapublish
 * @title: metapublish
 *
 * Passes every buffer through untouched (any caps, system or CUDA memory:
 * the frame is never mapped) and writes one JSON document a frame with what
 * the pipeline found in it: the stream name, the frame's number, its
 * timestamps (PTS, running time, wall clock), its size, and every
 * region-of-interest meta (type, id, box and params, such as vjdetect's or
 * roitrack's ids and autofill's areas). The document is built with
 * json-glib:
 * |[
 * {"stream":"line-3","frame":41,"pts":1366666666,"running_time":1366666666,
 *  "wall_clock":"2026-11-24T19:20:01.123456Z","width":640,"height":480,
 *  "regions":[{"type":"region","id":0,"x":43,"y":25,"width":189,"height":104,
 *              "params":{"region":{"area":18767,"index":0,"cx":137.2,...}}}],
 *  "measure":{"unit":"px","scale":1.0,"count":1,"area":18767,"unit-area":18767.0,
 *             "unlisted":0}}
 * ]|
 * (one line each; "pts" and "running_time" in nanoseconds, null when the
 * buffer has none; "measure" only on frames an element measured as a
 * whole: autofill's counts, areas and unit, docs/metapublish.md). Built against GStreamer 1.24 or later, a frame's
 * analytics object-detection Mtds (GstAnalyticsRelationMeta) are listed too,
 * under "objects": type, id, box and location confidence.
 *
 * `location` says where documents go: a file path (JSON lines, appended,
 * and a file that the next document would take past `max-size` bytes becomes
 * LOCATION.1, replacing the older one, so that at most twice that is on
 * disk), `-` for standard output, or `mqtt://HOST[:PORT]/TOPIC` for an
 * MQTT broker (port 1883 by default; `{stream}` in the topic becomes
 * `stream-name`). MQTT never blocks the streaming thread: documents wait in
 * a queue of at most `max-queued` (the oldest is dropped and counted in
 * `dropped` when it is full) and a thread of the element's own hands them to
 * the broker at `mqtt-qos` 0 or 1. When the broker is unreachable or goes away
 * the element posts one warning, keeps the pipeline running and reconnects
 * with back-off (1 s doubling to 30 s); when it answers again an element
 * message "metapublish" with event "connected" goes on the bus. At EOS it
 * waits up to 5 s for the queue to drain; what is still waiting when it
 * stops is counted as dropped, with a warning.
 *
 * `filter-types` publishes only frames with at least one region of those
 * types; `max-rate` publishes at most that many documents a second of
 * running time.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 filesrc location=parts.mp4 ! decodebin ! videoconvert ! \
 *     video/x-raw,format=GRAY8 ! satfilter mode=threshold radius=15 ! \
 *     autofill measure=both min-area=20 ! \
 *     metapublish location=mqtt://broker.local/factory/{stream} stream-name=line-3 ! fakesink
 * ]| An inspection line's parts and holes, measured and sent to a broker.
 * |[
 * gst-launch-1.0 filesrc location=tests/data/sample-face.webm ! decodebin ! videoconvert ! \
 *     vjdetect ! metapublish location=faces.jsonl max-size=10000000 ! fakesink
 * ]| Detections as JSON lines in a file that never grows past 20 MB in all.
 */
#include <math.h>
#include <string.h>
#include <json-glib/json-glib.h>
#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>
#include "fv_config.h"
#include "fvmeta.h"
#include "fvpublish.h"
#if FV_HAVE_GST_ANALYTICS
#include <gst/analytics/analytics.h>
#endif

GST_DEBUG_CATEGORY (gst_meta_publish_debug);
#define GST_CAT_DEFAULT gst_meta_publish_debug

#define GST_TYPE_META_PUBLISH (gst_meta_publish_get_type ())
G_DECLARE_FINAL_TYPE (GstMetaPublish, gst_meta_publish, GST, META_PUBLISH, GstBaseTransform)

struct _GstMetaPublish {
  GstBaseTransform parent;
  /* properties, under the object lock */
  FvPublishSettings set;
  gchar **filter_types;
  gdouble max_rate;
  /* streaming */
  FvPublisher *pub;
  GstVideoInfo info;
  gboolean have_info;
  guint64 frame;
  GstClockTime next_allowed;
  guint64 delivered, dropped;   /* of the publishers closed so far */
};

enum {
  PROP_0,
  PROP_LOCATION,
  PROP_STREAM_NAME,
  PROP_MAX_SIZE,
  PROP_MAX_QUEUED,
  PROP_QOS,
  PROP_CLIENT_ID,
  PROP_KEEPALIVE,
  PROP_USERNAME,
  PROP_PASSWORD,
  PROP_TLS_CA_FILE,
  PROP_TLS_CERT_FILE,
  PROP_TLS_KEY_FILE,
  PROP_TLS_INSECURE,
  PROP_FILTER_TYPES,
  PROP_MAX_RATE,
  PROP_DELIVERED,
  PROP_DROPPED,
  PROP_QUEUED,
};

#define DEFAULT_MAX_SIZE (64 * 1024 * 1024)
#define DEFAULT_MAX_QUEUED 1000
#define EOS_DRAIN_US (5 * G_USEC_PER_SEC)

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);

#define gst_meta_publish_parent_class parent_class
G_DEFINE_TYPE (GstMetaPublish, gst_meta_publish, GST_TYPE_BASE_TRANSFORM);
GST_ELEMENT_REGISTER_DEFINE (metapublish, "metapublish", GST_RANK_NONE, GST_TYPE_META_PUBLISH);

/* ---- the document ---- */

static void add_value (JsonBuilder *b, const GValue *v);

/* Text as JSON takes it: valid UTF-8 (other bytes become U+FFFD) and no
 * control characters (each becomes U+FFFD too: json-glib would write some
 * of them raw, which no JSON parser accepts). */
static gchar *
json_text (const gchar *s)
{
  if (!s)
    return g_strdup ("");
  gchar *v = g_utf8_make_valid (s, -1);
  gboolean control = FALSE;
  for (const guchar *c = (const guchar *) v; *c && !control; c++)
    control = *c < 0x20 || *c == 0x7f;
  if (!control)
    return v;
  GString *out = g_string_sized_new (strlen (v) + 8);
  for (const guchar *c = (const guchar *) v; *c; c++)
    if (*c < 0x20 || *c == 0x7f)
      g_string_append (out, "\xef\xbf\xbd");
    else
      g_string_append_c (out, (gchar) *c);
  g_free (v);
  return g_string_free (out, FALSE);
}

static void
add_string (JsonBuilder *b, const gchar *s)
{
  gchar *t = json_text (s);
  json_builder_add_string_value (b, t);
  g_free (t);
}

static void
add_name (JsonBuilder *b, const gchar *s)
{
  gchar *t = json_text (s);
  json_builder_set_member_name (b, t);
  g_free (t);
}

/* JSON has no NaN or infinity: null */
static void
add_double (JsonBuilder *b, gdouble d)
{
  if (isfinite (d))
    json_builder_add_double_value (b, d);
  else
    json_builder_add_null_value (b);
}

static gboolean
add_field (GQuark field, const GValue *v, gpointer data)
{
  add_name (data, g_quark_to_string (field));
  add_value (data, v);
  return TRUE;
}

static void
add_structure (JsonBuilder *b, const GstStructure *s)
{
  json_builder_begin_object (b);
  gst_structure_foreach (s, add_field, b);
  json_builder_end_object (b);
}

/* numbers, booleans and strings as themselves, lists and structures
 * nested, anything else as GStreamer serializes it */
static void
add_value (JsonBuilder *b, const GValue *v)
{
  const GType t = G_VALUE_TYPE (v);
  if (t == G_TYPE_INT) json_builder_add_int_value (b, g_value_get_int (v));
  else if (t == G_TYPE_UINT) json_builder_add_int_value (b, g_value_get_uint (v));
  else if (t == G_TYPE_INT64) json_builder_add_int_value (b, g_value_get_int64 (v));
  else if (t == G_TYPE_UINT64 && g_value_get_uint64 (v) > G_MAXINT64) {
    /* past json-glib's integers: the exact digits, as a string */
    gchar *digits = g_strdup_printf ("%" G_GUINT64_FORMAT, g_value_get_uint64 (v));
    json_builder_add_string_value (b, digits);
    g_free (digits);
  }
  else if (t == G_TYPE_UINT64) json_builder_add_int_value (b, (gint64) g_value_get_uint64 (v));
  else if (t == G_TYPE_LONG) json_builder_add_int_value (b, g_value_get_long (v));
  else if (t == G_TYPE_ULONG && g_value_get_ulong (v) <= G_MAXINT64)
    json_builder_add_int_value (b, (gint64) g_value_get_ulong (v));
  else if (t == G_TYPE_DOUBLE) add_double (b, g_value_get_double (v));
  else if (t == G_TYPE_FLOAT) add_double (b, g_value_get_float (v));
  else if (t == G_TYPE_BOOLEAN) json_builder_add_boolean_value (b, g_value_get_boolean (v));
  else if (t == G_TYPE_STRING) add_string (b, g_value_get_string (v));
  else if (t == GST_TYPE_STRUCTURE) add_structure (b, gst_value_get_structure (v));
  else if (t == GST_TYPE_LIST || t == GST_TYPE_ARRAY) {
    const gboolean list = t == GST_TYPE_LIST;
    const guint n = list ? gst_value_list_get_size (v) : gst_value_array_get_size (v);
    json_builder_begin_array (b);
    for (guint i = 0; i < n; i++)
      add_value (b, list ? gst_value_list_get_value (v, i) : gst_value_array_get_value (v, i));
    json_builder_end_array (b);
  } else {
    gchar *s = gst_value_serialize (v);
    add_string (b, s ? s : "");
    g_free (s);
  }
}

static void
add_time (JsonBuilder *b, const gchar *name, GstClockTime t)
{
  json_builder_set_member_name (b, name);
  if (GST_CLOCK_TIME_IS_VALID (t))
    json_builder_add_int_value (b, (gint64) t);
  else
    json_builder_add_null_value (b);
}

static void
add_region (JsonBuilder *b, const GstVideoRegionOfInterestMeta *m)
{
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "type");
  add_string (b, g_quark_to_string (m->roi_type));
  json_builder_set_member_name (b, "id");
  json_builder_add_int_value (b, m->id);
  json_builder_set_member_name (b, "x");
  json_builder_add_int_value (b, m->x);
  json_builder_set_member_name (b, "y");
  json_builder_add_int_value (b, m->y);
  json_builder_set_member_name (b, "width");
  json_builder_add_int_value (b, m->w);
  json_builder_set_member_name (b, "height");
  json_builder_add_int_value (b, m->h);
  json_builder_set_member_name (b, "params");
  json_builder_begin_object (b);
  for (GList *l = m->params; l; l = l->next) {
    add_name (b, gst_structure_get_name (l->data));
    add_structure (b, l->data);
  }
  json_builder_end_object (b);
  json_builder_end_object (b);
}

#if FV_HAVE_GST_ANALYTICS
/* the analytics OD Mtds, when the buffer has a relation meta */
static void
add_objects (JsonBuilder *b, GstBuffer *buf)
{
  GstAnalyticsRelationMeta *rmeta = gst_buffer_get_analytics_relation_meta (buf);
  if (!rmeta)
    return;
  json_builder_set_member_name (b, "objects");
  json_builder_begin_array (b);
  gpointer state = NULL;
  GstAnalyticsODMtd od;
  while (gst_analytics_relation_meta_iterate (rmeta, &state,
          gst_analytics_od_mtd_get_mtd_type (), &od)) {
    gint x, y, w, h;
    gfloat conf;
    if (!gst_analytics_od_mtd_get_location (&od, &x, &y, &w, &h, &conf))
      continue;
    json_builder_begin_object (b);
    json_builder_set_member_name (b, "type");
    add_string (b, g_quark_to_string (gst_analytics_od_mtd_get_obj_type (&od)));
    json_builder_set_member_name (b, "id");
    json_builder_add_int_value (b, gst_analytics_mtd_get_id ((GstAnalyticsMtd *) &od));
    json_builder_set_member_name (b, "x");
    json_builder_add_int_value (b, x);
    json_builder_set_member_name (b, "y");
    json_builder_add_int_value (b, y);
    json_builder_set_member_name (b, "width");
    json_builder_add_int_value (b, w);
    json_builder_set_member_name (b, "height");
    json_builder_add_int_value (b, h);
    json_builder_set_member_name (b, "confidence");
    add_double (b, conf);
    json_builder_end_object (b);
  }
  json_builder_end_array (b);
}
#endif

/* whether buf has a region of one of types (NULL: every buffer does) */
static gboolean
wanted (GstBuffer *buf, gchar **types)
{
  if (!types || !types[0])
    return TRUE;
  gpointer state = NULL;
  GstMeta *m;
  while ((m = gst_buffer_iterate_meta_filtered (buf, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)))
    if (g_strv_contains ((const gchar * const *) types,
            g_quark_to_string (((GstVideoRegionOfInterestMeta *) m)->roi_type)))
      return TRUE;
  return FALSE;
}

static gchar *
document (GstMetaPublish *self, GstBuffer *buf, const gchar *stream)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  JsonBuilder *b = json_builder_new ();
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "stream");
  add_string (b, stream);
  json_builder_set_member_name (b, "frame");
  json_builder_add_int_value (b, (gint64) self->frame);
  add_time (b, "pts", GST_BUFFER_PTS (buf));
  add_time (b, "running_time", gst_segment_to_running_time (&trans->segment, GST_FORMAT_TIME,
          GST_BUFFER_PTS (buf)));
  GDateTime *now = g_date_time_new_now_utc ();
  gchar *iso = g_date_time_format_iso8601 (now);
  json_builder_set_member_name (b, "wall_clock");
  json_builder_add_string_value (b, iso);
  g_free (iso);
  g_date_time_unref (now);
  if (self->have_info) {
    json_builder_set_member_name (b, "width");
    json_builder_add_int_value (b, GST_VIDEO_INFO_WIDTH (&self->info));
    json_builder_set_member_name (b, "height");
    json_builder_add_int_value (b, GST_VIDEO_INFO_HEIGHT (&self->info));
  }
  json_builder_set_member_name (b, "regions");
  json_builder_begin_array (b);
  gpointer state = NULL;
  GstMeta *m;
  while ((m = gst_buffer_iterate_meta_filtered (buf, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)))
    add_region (b, (GstVideoRegionOfInterestMeta *) m);
  json_builder_end_array (b);
  /* a measurement of the frame as a whole (autofill's counts and areas) */
  const GstStructure *measure = fv_meta_get_measure (buf);
  if (measure) {
    json_builder_set_member_name (b, "measure");
    add_structure (b, measure);
  }
#if FV_HAVE_GST_ANALYTICS
  add_objects (b, buf);
#endif
  json_builder_end_object (b);
  JsonGenerator *gen = json_generator_new ();
  JsonNode *root = json_builder_get_root (b);
  json_generator_set_root (gen, root);
  gchar *s = json_generator_to_data (gen, NULL);
  json_node_unref (root);
  g_object_unref (gen);
  g_object_unref (b);
  return s;
}

/* ---- the element ---- */

/* An error or warning with the publisher's own code (NOT_FOUND, OPEN_WRITE,
 * NO_SPACE_LEFT, SETTINGS...), as filesink's, and the location in the
 * debug part. */
static void
post_gerror (GstMetaPublish *self, GstMessageType type, const GError *err)
{
  GST_OBJECT_LOCK (self);
  gchar *debug = g_strdup_printf ("location=%s", self->set.location ? self->set.location : "-");
  GST_OBJECT_UNLOCK (self);
  gst_element_message_full (GST_ELEMENT (self), type, err->domain, err->code,
      g_strdup (err->message), debug, __FILE__, GST_FUNCTION, __LINE__);
}

static GstFlowReturn
gst_meta_publish_transform_ip (GstBaseTransform *trans, GstBuffer *buf)
{
  GstMetaPublish *self = GST_META_PUBLISH (trans);
  GST_OBJECT_LOCK (self);
  gboolean take = wanted (buf, self->filter_types);
  const gdouble rate = self->max_rate;
  gchar *stream = g_strdup (self->set.stream ? self->set.stream : GST_OBJECT_NAME (self));
  GST_OBJECT_UNLOCK (self);
  GstClockTime rt = gst_segment_to_running_time (&trans->segment, GST_FORMAT_TIME,
      GST_BUFFER_PTS (buf));
  if (!GST_CLOCK_TIME_IS_VALID (rt))
    rt = (GstClockTime) g_get_monotonic_time () * 1000;
  if (take && rate > 0) {
    take = !GST_CLOCK_TIME_IS_VALID (self->next_allowed) || rt >= self->next_allowed;
    if (take) {
      /* a rate so low that the next document is past any running time: none */
      const gdouble gap = (gdouble) GST_SECOND / rate;
      self->next_allowed = gap >= (gdouble) (G_MAXUINT64 - 1 - rt) ? G_MAXUINT64 - 1
          : rt + (GstClockTime) gap;
    }
  }
  GstFlowReturn ret = GST_FLOW_OK;
  if (take) {
    GError *err = NULL;
    if (!fv_publisher_send (self->pub, document (self, buf, stream), &err)) {
      post_gerror (self, GST_MESSAGE_ERROR, err);
      ret = GST_FLOW_ERROR;
    } else if (err) {
      post_gerror (self, GST_MESSAGE_WARNING, err);
    }
    g_clear_error (&err);
  }
  self->frame++;
  g_free (stream);
  return ret;
}

static gboolean
gst_meta_publish_set_caps (GstBaseTransform *trans, GstCaps *in, GstCaps *out)
{
  GstMetaPublish *self = GST_META_PUBLISH (trans);
  self->have_info = gst_video_info_from_caps (&self->info, in);
  return TRUE;
}

static gboolean
gst_meta_publish_start (GstBaseTransform *trans)
{
  GstMetaPublish *self = GST_META_PUBLISH (trans);
  GError *err = NULL;
  GST_OBJECT_LOCK (self);
  FvPublishSettings s = self->set;   /* the strings stay owned by the element */
  if (!s.stream)
    s.stream = GST_OBJECT_NAME (self);
  self->pub = fv_publisher_open (&s, GST_ELEMENT (self), &err);
  GST_OBJECT_UNLOCK (self);
  if (!self->pub) {
    post_gerror (self, GST_MESSAGE_ERROR, err);
    g_error_free (err);
    return FALSE;
  }
  self->frame = 0;
  self->next_allowed = GST_CLOCK_TIME_NONE;
  self->have_info = FALSE;
  return TRUE;
}

static gboolean
gst_meta_publish_stop (GstBaseTransform *trans)
{
  GstMetaPublish *self = GST_META_PUBLISH (trans);
  guint64 delivered = 0, dropped = 0;
  fv_publisher_close (self->pub, &delivered, &dropped);
  GST_OBJECT_LOCK (self);
  self->pub = NULL;
  self->delivered += delivered;
  self->dropped += dropped;
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}

/* EOS: the queue gets a few seconds to reach the broker */
static gboolean
gst_meta_publish_sink_event (GstBaseTransform *trans, GstEvent *event)
{
  GstMetaPublish *self = GST_META_PUBLISH (trans);
  if (GST_EVENT_TYPE (event) == GST_EVENT_EOS && self->pub
      && !fv_publisher_flush (self->pub, EOS_DRAIN_US))
    GST_WARNING_OBJECT (self, "documents still waiting for the broker at EOS");
  return GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
}

static void
set_string (gchar **field, const GValue *value)
{
  g_free (*field);
  const gchar *s = g_value_get_string (value);
  *field = s && *s ? g_strdup (s) : NULL;
}

static void
gst_meta_publish_set_property (GObject *object, guint prop_id, const GValue *value,
    GParamSpec *pspec)
{
  GstMetaPublish *self = GST_META_PUBLISH (object);
  GST_OBJECT_LOCK (self);
  FvPublishSettings *s = &self->set;
  switch (prop_id) {
    case PROP_LOCATION: set_string (&s->location, value); break;
    case PROP_STREAM_NAME: set_string (&s->stream, value); break;
    case PROP_MAX_SIZE: s->max_size = g_value_get_uint64 (value); break;
    case PROP_MAX_QUEUED: s->max_queued = g_value_get_uint (value); break;
    case PROP_QOS: s->qos = g_value_get_int (value); break;
    case PROP_CLIENT_ID: set_string (&s->client_id, value); break;
    case PROP_KEEPALIVE: s->keepalive = g_value_get_uint (value); break;
    case PROP_USERNAME: set_string (&s->username, value); break;
    case PROP_PASSWORD: set_string (&s->password, value); break;
    case PROP_TLS_CA_FILE: set_string (&s->tls_ca_file, value); break;
    case PROP_TLS_CERT_FILE: set_string (&s->tls_cert_file, value); break;
    case PROP_TLS_KEY_FILE: set_string (&s->tls_key_file, value); break;
    case PROP_TLS_INSECURE: s->tls_insecure = g_value_get_boolean (value); break;
    case PROP_FILTER_TYPES: {
      const gchar *t = g_value_get_string (value);
      g_strfreev (self->filter_types);
      self->filter_types = t && *t ? g_strsplit (t, ",", -1) : NULL;
      for (gchar **p = self->filter_types; p && *p; p++)
        g_strstrip (*p);
      break;
    }
    case PROP_MAX_RATE: self->max_rate = g_value_get_double (value); break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_meta_publish_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  GstMetaPublish *self = GST_META_PUBLISH (object);
  guint64 delivered = 0, dropped = 0;
  guint queued = 0;
  GST_OBJECT_LOCK (self);
  if (self->pub)
    fv_publisher_counts (self->pub, &delivered, &dropped, &queued);
  FvPublishSettings *s = &self->set;
  switch (prop_id) {
    case PROP_LOCATION: g_value_set_string (value, s->location ? s->location : "-"); break;
    case PROP_STREAM_NAME: g_value_set_string (value, s->stream); break;
    case PROP_MAX_SIZE: g_value_set_uint64 (value, s->max_size); break;
    case PROP_MAX_QUEUED: g_value_set_uint (value, s->max_queued); break;
    case PROP_QOS: g_value_set_int (value, s->qos); break;
    case PROP_CLIENT_ID: g_value_set_string (value, s->client_id); break;
    case PROP_KEEPALIVE: g_value_set_uint (value, s->keepalive); break;
    case PROP_USERNAME: g_value_set_string (value, s->username); break;
    case PROP_PASSWORD: g_value_set_string (value, s->password); break;
    case PROP_TLS_CA_FILE: g_value_set_string (value, s->tls_ca_file); break;
    case PROP_TLS_CERT_FILE: g_value_set_string (value, s->tls_cert_file); break;
    case PROP_TLS_KEY_FILE: g_value_set_string (value, s->tls_key_file); break;
    case PROP_TLS_INSECURE: g_value_set_boolean (value, s->tls_insecure); break;
    case PROP_FILTER_TYPES:
      g_value_take_string (value, self->filter_types
          ? g_strjoinv (",", self->filter_types) : NULL);
      break;
    case PROP_MAX_RATE: g_value_set_double (value, self->max_rate); break;
    case PROP_DELIVERED: g_value_set_uint64 (value, self->delivered + delivered); break;
    case PROP_DROPPED: g_value_set_uint64 (value, self->dropped + dropped); break;
    case PROP_QUEUED: g_value_set_uint (value, queued); break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_meta_publish_finalize (GObject *object)
{
  GstMetaPublish *self = GST_META_PUBLISH (object);
  fv_publish_settings_clear (&self->set);
  g_strfreev (self->filter_types);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_meta_publish_class_init (GstMetaPublishClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *bt = GST_BASE_TRANSFORM_CLASS (klass);
  /* changes take effect at the next start (READY -> PAUSED), filters at once */
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
      | GST_PARAM_MUTABLE_READY;
  const GParamFlags live = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
      | GST_PARAM_MUTABLE_PLAYING;
  const GParamFlags ro = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

  GST_DEBUG_CATEGORY_INIT (gst_meta_publish_debug, "metapublish", 0, "metapublish");
  gobject_class->set_property = gst_meta_publish_set_property;
  gobject_class->get_property = gst_meta_publish_get_property;
  gobject_class->finalize = gst_meta_publish_finalize;

  g_object_class_install_property (gobject_class, PROP_LOCATION,
      g_param_spec_string ("location", "Location", "Where documents go: a file (JSON lines), "
          "\"-\" (standard output) or mqtt://HOST[:PORT]/TOPIC", "-", rw));
  g_object_class_install_property (gobject_class, PROP_STREAM_NAME,
      g_param_spec_string ("stream-name", "Stream name", "Name of the stream in every document "
          "and for {stream} in an MQTT topic (unset: the element's name)", NULL, rw));
  g_object_class_install_property (gobject_class, PROP_MAX_SIZE,
      g_param_spec_uint64 ("max-size", "Maximum file size", "Files: a file that the next "
          "document would take past this many bytes becomes LOCATION.1 (replacing the older) "
          "and a new one starts (0: never)", 0, G_MAXUINT64,
          DEFAULT_MAX_SIZE, rw));
  g_object_class_install_property (gobject_class, PROP_MAX_QUEUED,
      g_param_spec_uint ("max-queued", "Maximum queued", "MQTT: documents waiting for the "
          "broker at most; past it the oldest is dropped and counted", 1, 10000000,
          DEFAULT_MAX_QUEUED, rw));
  g_object_class_install_property (gobject_class, PROP_QOS,
      g_param_spec_int ("mqtt-qos", "MQTT QoS", "MQTT quality of service: 0 (at most once) or 1 (at "
          "least once: acknowledged, resent after a reconnection)", 0, 1, 1, rw));
  g_object_class_install_property (gobject_class, PROP_KEEPALIVE,
      g_param_spec_uint ("keepalive", "Keepalive", "MQTT keepalive in seconds", 5, 65535, 60,
          rw));
  /* the MQTT connection's strings: unset by default, read at the next start */
  static const struct { guint id; const gchar *name, *nick, *blurb; } mqtt_strings[] = {
    {PROP_CLIENT_ID, "client-id", "Client id",
      "MQTT client id (unset: fastvision-HOST-PID-ELEMENT)"},
    {PROP_USERNAME, "username", "User name", "MQTT user name"},
    {PROP_PASSWORD, "password", "Password", "MQTT password"},
    {PROP_TLS_CA_FILE, "tls-ca-file", "TLS CA file",
      "MQTT over TLS: the certificate authority's PEM file that signed the broker's certificate"},
    {PROP_TLS_CERT_FILE, "tls-cert-file", "TLS certificate file",
      "MQTT over TLS: this client's PEM certificate (with tls-key-file)"},
    {PROP_TLS_KEY_FILE, "tls-key-file", "TLS key file", "MQTT over TLS: this client's PEM key"},
  };
  for (guint i = 0; i < G_N_ELEMENTS (mqtt_strings); i++)
    g_object_class_install_property (gobject_class, mqtt_strings[i].id,
        g_param_spec_string (mqtt_strings[i].name, mqtt_strings[i].nick, mqtt_strings[i].blurb,
            NULL, rw));
  g_object_class_install_property (gobject_class, PROP_TLS_INSECURE,
      g_param_spec_boolean ("tls-insecure", "TLS insecure", "MQTT over TLS: do not check the "
          "broker's host name against its certificate (testing only)", FALSE, rw));
  g_object_class_install_property (gobject_class, PROP_FILTER_TYPES,
      g_param_spec_string ("filter-types", "Filter types", "Publish only frames with at least "
          "one region of these types (comma-separated); unset: every frame", NULL, live));
  g_object_class_install_property (gobject_class, PROP_MAX_RATE,
      g_param_spec_double ("max-rate", "Maximum rate", "Documents a second of running time at "
          "most (0: every frame)", 0, 1e6, 0, live));
  g_object_class_install_property (gobject_class, PROP_DELIVERED,
      g_param_spec_uint64 ("delivered", "Delivered", "Documents written to the file, or "
          "acknowledged (QoS 1) or sent (QoS 0) to the broker", 0, G_MAXUINT64, 0, ro));
  g_object_class_install_property (gobject_class, PROP_DROPPED,
      g_param_spec_uint64 ("dropped", "Dropped", "Documents dropped: the queue was full, or "
          "they were still waiting when the element stopped", 0, G_MAXUINT64, 0, ro));
  g_object_class_install_property (gobject_class, PROP_QUEUED,
      g_param_spec_uint ("queued", "Queued", "Documents waiting for the broker now "
          "(queued or unacknowledged)", 0, G_MAXUINT, 0, ro));

  gst_element_class_set_static_metadata (element_class, "Metadata publisher",
      "Filter/Video/Analytics",
      "Writes one JSON document a frame with its region-of-interest metas to a file, "
      "standard output or an MQTT broker; frames pass untouched", FV_AUTHOR);
  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);

  bt->transform_ip = GST_DEBUG_FUNCPTR (gst_meta_publish_transform_ip);
  bt->set_caps = GST_DEBUG_FUNCPTR (gst_meta_publish_set_caps);
  bt->start = GST_DEBUG_FUNCPTR (gst_meta_publish_start);
  bt->stop = GST_DEBUG_FUNCPTR (gst_meta_publish_stop);
  bt->sink_event = GST_DEBUG_FUNCPTR (gst_meta_publish_sink_event);
  bt->passthrough_on_same_caps = TRUE;
}

static void
gst_meta_publish_init (GstMetaPublish *self)
{
  gst_base_transform_set_in_place (GST_BASE_TRANSFORM (self), TRUE);
  gst_base_transform_set_passthrough (GST_BASE_TRANSFORM (self), TRUE);
  self->set.max_size = DEFAULT_MAX_SIZE;
  self->set.max_queued = DEFAULT_MAX_QUEUED;
  self->set.qos = 1;
  self->set.keepalive = 60;
}
