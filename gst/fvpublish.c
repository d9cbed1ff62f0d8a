/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* metapublish's destinations (fvpublish.h).
 *
 * MQTT: the streaming thread appends to a bounded queue (the oldest
 * document is dropped and counted when it is full) and signals the sender
 * thread, which hands documents to libmosquitto while the broker is
 * connected and fewer than WINDOW are unacknowledged. libmosquitto's own
 * thread (mosquitto_loop_start) connects, reconnects with exponential
 * back-off and resends unacknowledged QoS 1 messages; its callbacks only
 * update the state under the publisher's lock. So a document is either
 * acknowledged (QoS 1) or sent (QoS 0), or waiting, or counted as dropped:
 * never lost without a count. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include "fv_config.h"
#include "fvpublish.h"
#if FV_HAVE_MOSQUITTO
#include <mosquitto.h>
#endif

#define WINDOW 64                         /* unacknowledged documents at most */
#define UNREACHABLE_AFTER_US (2 * G_USEC_PER_SEC)   /* never connected: warn after */

struct _FvPublisher {
  GstElement *element;                    /* for warnings and messages (not a ref) */
  /* files */
  FILE *file;
  gboolean is_stdout;
  gchar *path;
  guint64 max_size, size;
  /* MQTT */
  gchar *host, *topic;
  gint port, qos;
  guint max_queued;
#if FV_HAVE_MOSQUITTO
  struct mosquitto *mosq;
#endif
  GThread *sender;
  GMutex lock;
  GCond cond;
  GQueue queue;                           /* of gchar * */
  guint inflight;
  gboolean connected, ever_connected, warned, stopping;
  gint64 down_since;                      /* monotonic, when the broker went away */
  /* counters, under lock */
  guint64 delivered, dropped;
};

void
fv_publish_settings_clear (FvPublishSettings *s)
{
  g_free (s->location);
  g_free (s->client_id);
  g_free (s->username);
  g_free (s->password);
  g_free (s->tls_ca_file);
  g_free (s->tls_cert_file);
  g_free (s->tls_key_file);
  g_free (s->stream);
  memset (s, 0, sizeof *s);
}

/* ---- files ---- */

static gboolean
open_file (FvPublisher *p, const gchar *mode, GError **error)
{
  p->file = g_fopen (p->path, mode);
  if (!p->file) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_OPEN_WRITE,
        "Cannot open \"%s\" for the documents: %s", p->path, g_strerror (errno));
    return FALSE;
  }
  p->size = (guint64) MAX (0, ftell (p->file));
  return TRUE;
}

/* LOCATION becomes LOCATION.1 (replacing the older one) and a new file
 * starts: at most twice max-size on disk. */
static gboolean
rotate (FvPublisher *p, GError **error)
{
  gchar *old = g_strconcat (p->path, ".1", NULL);
  fclose (p->file);
  p->file = NULL;
  gboolean ok = g_rename (p->path, old) == 0;
  if (!ok)
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_WRITE,
        "Cannot rotate \"%s\" to \"%s\": %s", p->path, old, g_strerror (errno));
  g_free (old);
  return ok && open_file (p, "w", error);
}

static gboolean
file_send (FvPublisher *p, gchar *doc, GError **error)
{
  const gsize n = strlen (doc);
  /* a file that this document would take past max-size is rotated first,
   * so that each file holds at most max-size bytes (or one document) */
  if (!p->is_stdout && p->max_size && p->size && p->size + n + 1 > p->max_size
      && !rotate (p, error)) {
    g_free (doc);
    p->dropped++;
    return FALSE;
  }
  gboolean ok = fwrite (doc, 1, n, p->file) == n && fputc ('\n', p->file) != EOF
      && fflush (p->file) == 0;
  g_free (doc);
  if (!ok) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_WRITE,
        "Cannot write a document to \"%s\": %s", p->path ? p->path : "standard output",
        g_strerror (errno));
    p->dropped++;
    return FALSE;
  }
  p->delivered++;
  p->size += n + 1;
  return TRUE;
}

/* ---- MQTT ---- */

#if FV_HAVE_MOSQUITTO

/* mqtt://HOST[:PORT]/TOPIC, {stream} in the topic replaced */
static gboolean
parse_mqtt (FvPublisher *p, const gchar *location, const gchar *stream, GError **error)
{
  const gchar *rest = location + strlen ("mqtt://");
  const gchar *slash = strchr (rest, '/');
  gchar *hostport = slash ? g_strndup (rest, slash - rest) : g_strdup (rest);
  const gchar *topic = slash ? slash + 1 : "";
  gchar *colon = strrchr (hostport, ':');
  p->port = 1883;
  gboolean ok = TRUE;
  if (colon) {
    gchar *end;
    gint64 port = g_ascii_strtoll (colon + 1, &end, 10);
    ok = *end == '\0' && end != colon + 1 && port >= 1 && port <= 65535;
    p->port = (gint) port;
    *colon = '\0';
  }
  ok = ok && *hostport && *topic && !strpbrk (topic, "+#");
  if (!ok) {
    gchar *shown = g_utf8_make_valid (location, MIN (strlen (location), 200));
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "location \"%s%s\" is not mqtt://HOST[:PORT]/TOPIC (a port of 1 to 65535, a topic "
        "without wildcards)", shown, strlen (location) > 200 ? "…" : "");
    g_free (shown);
    g_free (hostport);
    return FALSE;
  }
  p->host = hostport;
  gchar **parts = g_strsplit (topic, "{stream}", -1);
  p->topic = g_strjoinv (stream ? stream : "", parts);
  g_strfreev (parts);
  return TRUE;
}

/* Called without the lock: an application's bus sync handler may read the
 * element's counters, which take it. */
static void
post_event (FvPublisher *p, const gchar *event, guint64 dropped, guint queued)
{
  GstStructure *s = gst_structure_new ("metapublish", "event", G_TYPE_STRING, event,
      "host", G_TYPE_STRING, p->host, "port", G_TYPE_INT, p->port,
      "dropped", G_TYPE_UINT64, dropped, "queued", G_TYPE_UINT, queued, NULL);
  gst_element_post_message (p->element, gst_message_new_element (GST_OBJECT (p->element), s));
}

/* one warning an outage, outside the lock */
static void
warn_unreachable (FvPublisher *p, const gchar *why)
{
  GST_ELEMENT_WARNING (p->element, RESOURCE, OPEN_WRITE,
      ("The MQTT broker at %s:%d is %s: documents wait in a queue of %u (the oldest "
          "dropped past that) while the element reconnects.", p->host, p->port, why,
          p->max_queued), (NULL));
}

static void
on_connect (struct mosquitto *m, void *user, int rc)
{
  FvPublisher *p = user;
  if (rc != 0) {   /* refused: bad credentials, say; libmosquitto retries */
    g_mutex_lock (&p->lock);
    gboolean warn = !p->warned;
    p->warned = TRUE;
    g_mutex_unlock (&p->lock);
    if (warn)
      GST_ELEMENT_WARNING (p->element, RESOURCE, OPEN_WRITE,
          ("The MQTT broker at %s:%d refused the connection: %s.", p->host, p->port,
              mosquitto_connack_string (rc)), (NULL));
    return;
  }
  g_mutex_lock (&p->lock);
  p->connected = TRUE;
  const gboolean again = p->warned;
  p->ever_connected = TRUE;
  p->warned = FALSE;
  const guint64 dropped = p->dropped;
  const guint queued = p->queue.length;
  g_cond_broadcast (&p->cond);
  g_mutex_unlock (&p->lock);
  if (again)
    post_event (p, "connected", dropped, queued);
}

static void
on_disconnect (struct mosquitto *m, void *user, int rc)
{
  FvPublisher *p = user;
  g_mutex_lock (&p->lock);
  const gboolean warn = p->connected && !p->stopping && !p->warned;
  p->connected = FALSE;
  p->down_since = g_get_monotonic_time ();
  if (warn)
    p->warned = TRUE;
  g_mutex_unlock (&p->lock);
  if (warn)
    warn_unreachable (p, "gone");
}

static void
on_publish (struct mosquitto *m, void *user, int mid)
{
  FvPublisher *p = user;
  g_mutex_lock (&p->lock);
  if (p->inflight)
    p->inflight--;
  p->delivered++;
  g_cond_broadcast (&p->cond);
  g_mutex_unlock (&p->lock);
}

static gpointer
sender (gpointer data)
{
  FvPublisher *p = data;
  g_mutex_lock (&p->lock);
  while (!p->stopping) {
    if (p->connected && p->inflight < WINDOW && p->queue.length) {
      gchar *doc = g_queue_pop_head (&p->queue);
      p->inflight++;
      g_mutex_unlock (&p->lock);
      int rc = mosquitto_publish (p->mosq, NULL, p->topic, (int) strlen (doc), doc, p->qos,
          false);
      g_mutex_lock (&p->lock);
      if (rc == MOSQ_ERR_SUCCESS) {
        g_free (doc);
      } else {   /* not connected after all: it waits again, first in line */
        p->inflight--;
        g_queue_push_head (&p->queue, doc);
        if (rc == MOSQ_ERR_NO_CONN)
          p->connected = FALSE;
        g_cond_wait_until (&p->cond, &p->lock, g_get_monotonic_time () + G_USEC_PER_SEC / 10);
      }
      continue;
    }
    if (!p->ever_connected && !p->warned
        && g_get_monotonic_time () - p->down_since > UNREACHABLE_AFTER_US) {
      p->warned = TRUE;
      g_mutex_unlock (&p->lock);
      warn_unreachable (p, "not reachable");
      g_mutex_lock (&p->lock);
      continue;
    }
    g_cond_wait_until (&p->cond, &p->lock, g_get_monotonic_time () + G_USEC_PER_SEC / 4);
  }
  g_mutex_unlock (&p->lock);
  return NULL;
}

static gboolean
mqtt_open (FvPublisher *p, const FvPublishSettings *s, GError **error)
{
  static gsize inited = 0;
  if (g_once_init_enter (&inited)) {
    mosquitto_lib_init ();
    g_once_init_leave (&inited, 1);
  }
  gchar *id = s->client_id ? g_strdup (s->client_id)
      : g_strdup_printf ("fastvision-%s-%d-%s", g_get_host_name (), (int) getpid (),
          GST_OBJECT_NAME (p->element));
  p->mosq = mosquitto_new (id, true, p);
  g_free (id);
  const gchar *what = NULL;
  int rc = MOSQ_ERR_SUCCESS;
  if (!p->mosq) {
    what = "a client";
  } else {
    mosquitto_connect_callback_set (p->mosq, on_connect);
    mosquitto_disconnect_callback_set (p->mosq, on_disconnect);
    mosquitto_publish_callback_set (p->mosq, on_publish);
    mosquitto_reconnect_delay_set (p->mosq, 1, 30, true);
    mosquitto_max_inflight_messages_set (p->mosq, WINDOW);
    if (s->username && (rc = mosquitto_username_pw_set (p->mosq, s->username, s->password)))
      what = "the user name";
    else if ((s->tls_ca_file || s->tls_cert_file)
        && (rc = mosquitto_tls_set (p->mosq, s->tls_ca_file, NULL, s->tls_cert_file,
                s->tls_key_file, NULL)))
      what = "the TLS files (tls-ca-file, tls-cert-file, tls-key-file: readable, a key with "
          "a certificate)";
    else if (s->tls_insecure && (rc = mosquitto_tls_insecure_set (p->mosq, true)))
      what = "tls-insecure";
  }
  if (what) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "Cannot set up MQTT: %s: %s", what, rc ? mosquitto_strerror (rc) : "out of memory");
    return FALSE;
  }
  p->down_since = g_get_monotonic_time ();
  /* a broker not there yet is no error: the loop keeps trying */
  rc = mosquitto_connect_async (p->mosq, p->host, p->port, (int) s->keepalive);
  if (rc == MOSQ_ERR_INVAL) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "Cannot connect to %s:%d: %s", p->host, p->port, mosquitto_strerror (rc));
    return FALSE;
  }
  if ((rc = mosquitto_loop_start (p->mosq)) != MOSQ_ERR_SUCCESS) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_FAILED,
        "Cannot start the MQTT client thread: %s", mosquitto_strerror (rc));
    return FALSE;
  }
  p->sender = g_thread_new ("metapublish", sender, p);
  return TRUE;
}

static void
mqtt_close (FvPublisher *p)
{
  if (p->sender) {
    g_mutex_lock (&p->lock);
    p->stopping = TRUE;
    g_cond_broadcast (&p->cond);
    g_mutex_unlock (&p->lock);
    g_thread_join (p->sender);
  }
  if (p->mosq) {
    mosquitto_disconnect (p->mosq);
    mosquitto_loop_stop (p->mosq, true);
    mosquitto_destroy (p->mosq);
  }
}

#endif /* FV_HAVE_MOSQUITTO */

FvPublisher *
fv_publisher_open (const FvPublishSettings *s, GstElement *element, GError **error)
{
  FvPublisher *p = g_new0 (FvPublisher, 1);
  p->element = element;
  g_mutex_init (&p->lock);
  g_cond_init (&p->cond);
  g_queue_init (&p->queue);
  p->max_size = s->max_size;
  p->max_queued = MAX (1, s->max_queued);
  p->qos = s->qos;
  const gchar *loc = s->location ? s->location : "-";
  gboolean ok;
  if (g_str_has_prefix (loc, "mqtt://")) {
#if FV_HAVE_MOSQUITTO
    ok = parse_mqtt (p, loc, s->stream, error) && mqtt_open (p, s, error);
#else
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "fastvision was built without libmosquitto: no MQTT (install libmosquitto-dev and "
        "rebuild); files and stdout work");
    ok = FALSE;
#endif
  } else if (strstr (loc, "://")) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "location: only file paths, \"-\" (standard output) and mqtt://HOST[:PORT]/TOPIC "
        "are known");
    ok = FALSE;
  } else if (!strcmp (loc, "-")) {
    p->file = stdout;
    p->is_stdout = TRUE;
    ok = TRUE;
  } else {
    p->path = g_strdup (loc);
    ok = open_file (p, "a", error);
  }
  if (!ok) {
    p->element = NULL;   /* nothing was queued: no warning */
    fv_publisher_close (p, NULL, NULL);
    return NULL;
  }
  return p;
}

gboolean
fv_publisher_send (FvPublisher *p, gchar *doc, GError **error)
{
  if (p->file)
    return file_send (p, doc, error);
  g_mutex_lock (&p->lock);
  if (p->queue.length >= p->max_queued) {
    g_free (g_queue_pop_head (&p->queue));
    p->dropped++;
  }
  g_queue_push_tail (&p->queue, doc);
  g_cond_broadcast (&p->cond);
  g_mutex_unlock (&p->lock);
  return TRUE;
}

gboolean
fv_publisher_flush (FvPublisher *p, gint64 timeout_us)
{
  if (p->file)
    return TRUE;
  const gint64 end = g_get_monotonic_time () + timeout_us;
  g_mutex_lock (&p->lock);
  while ((p->queue.length || p->inflight) && g_get_monotonic_time () < end)
    g_cond_wait_until (&p->cond, &p->lock, MIN (end, g_get_monotonic_time () + 50000));
  const gboolean done = !p->queue.length && !p->inflight;
  g_mutex_unlock (&p->lock);
  return done;
}

void
fv_publisher_counts (FvPublisher *p, guint64 *delivered, guint64 *dropped, guint *queued)
{
  g_mutex_lock (&p->lock);
  *delivered = p->delivered;
  *dropped = p->dropped;
  *queued = p->queue.length + p->inflight;
  g_mutex_unlock (&p->lock);
}

void
fv_publisher_close (FvPublisher *p, guint64 *delivered, guint64 *dropped)
{
  if (!p)
    return;
#if FV_HAVE_MOSQUITTO
  mqtt_close (p);
#endif
  guint left = p->queue.length + p->inflight;
  if (left && p->element)
    GST_ELEMENT_WARNING (p->element, RESOURCE, WRITE,
        ("%u documents had not reached the MQTT broker at %s:%d when the element stopped; "
            "they are counted as dropped.", left, p->host, p->port), (NULL));
  p->dropped += left;
  if (delivered)
    *delivered = p->delivered;
  if (dropped)
    *dropped = p->dropped;
  g_queue_clear_full (&p->queue, g_free);
  if (p->file && !p->is_stdout)
    fclose (p->file);
  g_free (p->path);
  g_free (p->host);
  g_free (p->topic);
  g_mutex_clear (&p->lock);
  g_cond_clear (&p->cond);
  g_free (p);
}
