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
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include "fv_config.h"
#include "fv_memory.h"
#include "fvpublish.h"
#include "fvpublish-private.h"
#if FV_HAVE_MOSQUITTO
#include <mosquitto.h>
#endif

/* Posts the events the network threads queued, from the calling thread
 * (the streaming thread, or the one stopping the element). */
static void
post_events (FvPublisher *p)
{
  GQueue ev = G_QUEUE_INIT;
  g_mutex_lock (&p->lock);
  ev = p->events;
  g_queue_init (&p->events);
  g_mutex_unlock (&p->lock);
  GstMessage *m;
  while ((m = g_queue_pop_head (&ev))) {
    if (p->element)
      gst_element_post_message (p->element, m);
    else
      gst_message_unref (m);
  }
}

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

/* ---- MQTT ---- */

#if FV_HAVE_MOSQUITTO

/* mqtt://HOST[:PORT]/TOPIC, {stream} in the topic replaced; the topic is
 * checked after the substitution (a stream name may bring a wildcard, bad
 * UTF-8 or a control character) */
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
  const gsize n = strlen (p->topic);
  gboolean control = FALSE;
  for (const guchar *c = (const guchar *) p->topic; *c && !control; c++)
    control = *c < 0x20 || *c == 0x7f;
  if (n > 65535 || control || mosquitto_validate_utf8 (p->topic, (int) n) != MOSQ_ERR_SUCCESS
      || mosquitto_pub_topic_check2 (p->topic, n) != MOSQ_ERR_SUCCESS) {
    gchar *shown = g_utf8_make_valid (p->topic, MIN (n, 200));
    for (gchar *c = shown; *c; c++)
      if ((guchar) *c < 0x20 || *c == 0x7f)
        *c = '?';
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        "the MQTT topic \"%s%s\" (after {stream} became stream-name) is not one a broker "
        "takes: no + or # wildcards, no control characters, valid UTF-8, at most 65,535 bytes",
        shown, n > 200 ? "…" : "");
    g_free (shown);
    return FALSE;
  }
  return TRUE;
}

/* An event for the bus, posted later by the thread that next hands a
 * document over, flushes or closes: the network threads post nothing, so
 * that an application's bus sync handler never runs on them (it could
 * block on the application's own thread, which may be stopping us). */
static void
queue_message (FvPublisher *p, GstMessage *m)
{
  g_queue_push_tail (&p->events, m);
}

static void
queue_warning (FvPublisher *p, gint code, const gchar *debug, const gchar *format, ...)
    G_GNUC_PRINTF (4, 5);
static void
queue_warning (FvPublisher *p, gint code, const gchar *debug, const gchar *format, ...)
{
  va_list args;
  va_start (args, format);
  gchar *text = g_strdup_vprintf (format, args);
  va_end (args);
  GST_CAT_WARNING_OBJECT (gst_meta_publish_debug, p->element, "%s (%s)", text, debug);
  GError *err = g_error_new_literal (GST_RESOURCE_ERROR, code, text);
  queue_message (p, gst_message_new_warning (GST_OBJECT (p->element), err, debug));
  g_error_free (err);
  g_free (text);
}

static void
queue_event (FvPublisher *p, const gchar *event)
{
  GstStructure *s = gst_structure_new ("metapublish", "event", G_TYPE_STRING, event,
      "host", G_TYPE_STRING, p->host, "port", G_TYPE_INT, p->port,
      "dropped", G_TYPE_UINT64, p->dropped, "queued", G_TYPE_UINT,
      p->queue.length + p->inflight, NULL);
  queue_message (p, gst_message_new_element (GST_OBJECT (p->element), s));
}

/* The connection is lost (or never made): under the lock. QoS 0 documents
 * handed to libmosquitto but not yet written go with the connection and
 * are counted; QoS 1 ones are resent by libmosquitto after reconnecting.
 * One warning an outage, with the first reason. */
static void
lose (FvPublisher *p, const gchar *why)
{
  if (p->state == NET_DOWN)
    return;
  /* over TLS, a connection that ends before the broker's CONNACK is most
   * often a handshake that failed (libmosquitto may call it a protocol
   * error): said so */
  gchar *said = p->tls && p->state == NET_CONNECTING && !strstr (why, "TLS")
      ? g_strdup_printf ("%s; over TLS: a failed handshake? check that tls-ca-file signed "
          "the broker's certificate", why) : NULL;
  if (said)
    why = said;
  const gint64 now = g_get_monotonic_time ();
  p->state = NET_DOWN;
  p->connected = FALSE;
  if (p->qos == 0 && p->inflight) {
    GST_CAT_DEBUG_OBJECT (gst_meta_publish_debug, p->element, "%u QoS 0 documents lost with "
        "the connection: counted as dropped", p->inflight);
    p->dropped += p->inflight;
    p->inflight = 0;
  }
  p->next_try = now + p->backoff_s * G_USEC_PER_SEC;
  GST_CAT_INFO_OBJECT (gst_meta_publish_debug, p->element, "MQTT broker %s:%d: %s; next try in "
      "%u s (%u documents waiting, %" G_GUINT64_FORMAT " dropped so far)", p->host, p->port, why,
      p->backoff_s, p->queue.length + p->inflight, p->dropped);
  p->backoff_s = MIN (p->backoff_s * 2, BACKOFF_MAX_S);
  if (!p->warned && !p->stopping) {
    p->warned = TRUE;
    queue_warning (p, GST_RESOURCE_ERROR_OPEN_WRITE, why, "The MQTT broker at %s:%d %s: "
        "documents wait in a queue of %u (the oldest dropped past that) while the element "
        "reconnects.", p->host, p->port, why, p->max_queued);
  }
  g_cond_broadcast (&p->cond);
  g_free (said);
}

static void
on_connect (struct mosquitto *m, void *user, int rc)
{
  FvPublisher *p = user;
  g_mutex_lock (&p->lock);
  if (rc != 0) {   /* refused, or a CONNACK code no MQTT version has */
    gchar *why = g_strdup_printf ("refused the connection (%s, CONNACK code %d)",
        mosquitto_connack_string (rc), rc);
    lose (p, why);
    g_free (why);
  } else {
    const gboolean again = p->warned;
    p->state = NET_UP;
    p->connected = TRUE;
    p->ever_connected = TRUE;
    p->warned = FALSE;
    p->backoff_s = 1;
    p->last_progress = g_get_monotonic_time ();
    GST_CAT_INFO_OBJECT (gst_meta_publish_debug, p->element, "connected to the MQTT broker "
        "%s:%d (%u documents waiting)", p->host, p->port, p->queue.length + p->inflight);
    if (again)
      queue_event (p, "connected");
    g_cond_broadcast (&p->cond);
  }
  g_mutex_unlock (&p->lock);
}

static void
on_disconnect (struct mosquitto *m, void *user, int rc)
{
  FvPublisher *p = user;
  g_mutex_lock (&p->lock);
  if (!p->stopping) {
    gchar *why = g_strdup_printf ("%s (%s)", p->ever_connected ? "is gone" : "is not reachable",
        rc == MOSQ_ERR_ERRNO ? g_strerror (errno) : rc ? mosquitto_strerror (rc)
        : "disconnected");
    lose (p, why);
    g_free (why);
  }
  g_mutex_unlock (&p->lock);
}

static void
on_publish (struct mosquitto *m, void *user, int mid)
{
  FvPublisher *p = user;
  g_mutex_lock (&p->lock);
  if (p->inflight)
    p->inflight--;
  p->delivered++;
  p->stalls = 0;
  p->last_progress = g_get_monotonic_time ();
  g_cond_broadcast (&p->cond);
  g_mutex_unlock (&p->lock);
  GST_CAT_LOG_OBJECT (gst_meta_publish_debug, p->element, "document %d delivered", mid);
}

/* Hands documents to libmosquitto while connected and fewer than WINDOW
 * are unacknowledged. */
static gpointer
sender (gpointer data)
{
  FvPublisher *p = data;
  g_mutex_lock (&p->lock);
  while (!p->stopping) {
    if (p->connected && p->inflight < WINDOW && p->queue.length) {
      gchar *doc = g_queue_pop_head (&p->queue);
      const gsize n = strlen (doc);
      p->queued_bytes -= n;
      p->inflight++;
      g_mutex_unlock (&p->lock);
      int mid = 0;
      int rc = mosquitto_publish (p->mosq, &mid, p->topic, (int) n, doc, p->qos, false);
      g_mutex_lock (&p->lock);
      if (rc == MOSQ_ERR_SUCCESS) {
        GST_CAT_LOG_OBJECT (gst_meta_publish_debug, p->element, "document %d (%" G_GSIZE_FORMAT
            " bytes) handed over, %u waiting", mid, n, p->queue.length);
        g_free (doc);
      } else if (rc == MOSQ_ERR_NO_CONN || rc == MOSQ_ERR_CONN_LOST || rc == MOSQ_ERR_ERRNO) {
        /* not connected after all: it waits again, first in line */
        p->inflight--;
        p->queued_bytes += n;
        g_queue_push_head (&p->queue, doc);
        g_cond_wait_until (&p->cond, &p->lock, g_get_monotonic_time () + G_USEC_PER_SEC / 10);
      } else {   /* this document cannot be sent (too large, say): dropped, said */
        p->inflight--;
        p->dropped++;
        queue_warning (p, GST_RESOURCE_ERROR_WRITE, mosquitto_strerror (rc), "A document of %"
            G_GSIZE_FORMAT " bytes could not be handed to MQTT (%s): dropped.", n,
            mosquitto_strerror (rc));
        g_free (doc);
      }
      continue;
    }
    g_cond_wait_until (&p->cond, &p->lock, g_get_monotonic_time () + G_USEC_PER_SEC / 4);
  }
  g_mutex_unlock (&p->lock);
  return NULL;
}

/* The network thread: connects, runs libmosquitto's loop a short while at a
 * time, and on any failure (refused, a malformed reply, a failed TLS
 * handshake, no answer to CONNECT, a broker that stopped acknowledging, a
 * lost connection) drops the connection and tries again with back-off,
 * forever, until the element stops it (a flag it checks at least every
 * LOOP_MS: never cancelled). */
static gpointer
network (gpointer data)
{
  FvPublisher *p = data;
  g_mutex_lock (&p->lock);
  while (!p->stopping) {
    const gint64 now = g_get_monotonic_time ();
    if (p->state == NET_DOWN) {
      if (now < p->next_try) {
        g_cond_wait_until (&p->cond, &p->lock, MIN (p->next_try, now + LOOP_MS * 1000));
        continue;
      }
      const gboolean first = !p->tried;
      p->tried = TRUE;
      p->state = NET_CONNECTING;
      p->connect_started = now;
      GST_CAT_DEBUG_OBJECT (gst_meta_publish_debug, p->element, "connecting to %s:%d", p->host,
          p->port);
      g_mutex_unlock (&p->lock);
      errno = 0;
      int rc = first ? mosquitto_connect_async (p->mosq, p->host, p->port, (int) p->keepalive)
          : mosquitto_reconnect_async (p->mosq);
      const int e = errno;
      g_mutex_lock (&p->lock);
      if (rc != MOSQ_ERR_SUCCESS && p->state == NET_CONNECTING) {
        gchar *why = g_strdup_printf ("is not reachable (%s)", rc == MOSQ_ERR_ERRNO && e
            ? g_strerror (e) : mosquitto_strerror (rc));
        lose (p, why);
        g_free (why);
      }
      continue;
    }
    if (p->state == NET_CONNECTING && now - p->connect_started > CONNECT_TIMEOUT_US) {
      lose (p, p->ever_connected ? "does not answer a new connection"
          : "is not reachable (no answer to CONNECT)");
      continue;
    }
    /* a broker that takes documents and never acknowledges (or, at QoS 0,
     * stopped reading): the connection is dropped and made again */
    if (p->state == NET_UP && p->inflight
        && now - p->last_progress > (gint64) MAX (p->keepalive, 5) * G_USEC_PER_SEC) {
      if (++p->stalls >= 3) {   /* never acknowledged over three connections: given up */
        queue_warning (p, GST_RESOURCE_ERROR_WRITE, "no acknowledgement over three "
            "connections", "%u documents sent to the MQTT broker at %s:%d were never "
            "acknowledged: counted as dropped.", p->inflight, p->host, p->port);
        p->dropped += p->inflight;
        p->inflight = 0;
        p->stalls = 0;
      }
      lose (p, "stopped acknowledging documents");
      continue;
    }
    g_mutex_unlock (&p->lock);
    int rc = mosquitto_loop (p->mosq, LOOP_MS, 1);
    g_mutex_lock (&p->lock);
    if (rc != MOSQ_ERR_SUCCESS && p->state != NET_DOWN && !p->stopping) {
      gchar *why = g_strdup_printf ("%s (%s)", p->ever_connected ? "is gone"
          : "is not reachable", rc == MOSQ_ERR_ERRNO ? g_strerror (errno)
          : rc == MOSQ_ERR_PROTOCOL ? "a malformed reply" : rc == MOSQ_ERR_TLS
          ? "the TLS handshake failed" : mosquitto_strerror (rc));
      lose (p, why);
      g_free (why);
    }
  }
  const gboolean up = p->state != NET_DOWN;
  g_mutex_unlock (&p->lock);
  if (up) {   /* a polite goodbye, if the socket takes it at once */
    mosquitto_disconnect (p->mosq);
    mosquitto_loop (p->mosq, 0, 1);
  }
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
    /* our threads call it: libmosquitto locks its state, and a document
     * handed over wakes the network thread's wait */
    mosquitto_threaded_set (p->mosq, true);
    mosquitto_connect_callback_set (p->mosq, on_connect);
    mosquitto_disconnect_callback_set (p->mosq, on_disconnect);
    mosquitto_publish_callback_set (p->mosq, on_publish);
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
  p->keepalive = s->keepalive ? s->keepalive : 60;
  p->tls = s->tls_ca_file || s->tls_cert_file;
  p->backoff_s = 1;
  p->state = NET_DOWN;
  p->next_try = 0;
  p->network = g_thread_new ("metapublish-net", network, p);
  p->sender = g_thread_new ("metapublish", sender, p);
  GST_CAT_INFO_OBJECT (gst_meta_publish_debug, p->element, "publishing to mqtt://%s:%d/%s at "
      "QoS %d", p->host, p->port, p->topic, p->qos);
  return TRUE;
}

/* Stops both threads cooperatively: a flag, a broadcast, and joins. */
static void
mqtt_close (FvPublisher *p)
{
  g_mutex_lock (&p->lock);
  p->stopping = TRUE;
  g_cond_broadcast (&p->cond);
  g_mutex_unlock (&p->lock);
  if (p->sender)
    g_thread_join (p->sender);
  if (p->network)
    g_thread_join (p->network);
  p->sender = p->network = NULL;
  if (p->mosq)
    mosquitto_destroy (p->mosq);
  p->mosq = NULL;
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
  g_queue_init (&p->events);
  p->max_size = s->max_size;
  p->max_queued = MAX (1, s->max_queued);
  p->max_bytes = fv_memory_limit ();
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
    ok = fv_publish_file_open (p, TRUE, error);
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
    return fv_publish_file_send (p, doc, error);
  post_events (p);
  const gsize n = strlen (doc);
  g_mutex_lock (&p->lock);
  /* bounded in documents and in bytes (the memory limit): the oldest go */
  guint gone = 0;
  while (p->queue.length && (p->queue.length >= p->max_queued
          || p->queued_bytes + n > p->max_bytes)) {
    gchar *old = g_queue_pop_head (&p->queue);
    p->queued_bytes -= strlen (old);
    g_free (old);
    p->dropped++;
    gone++;
  }
  if (n > p->max_bytes) {   /* one document past the limit alone: refused */
    p->dropped++;
    g_mutex_unlock (&p->lock);
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NO_SPACE_LEFT,
        "A document of %" G_GSIZE_FORMAT " bytes is larger than the memory limit of %"
        G_GUINT64_FORMAT " bytes (FASTVISION_MAX_MEMORY_MB): dropped", n, p->max_bytes);
    g_free (doc);
    return TRUE;   /* the stream goes on; the caller warns */
  }
  if (gone)
    GST_CAT_DEBUG_OBJECT (gst_meta_publish_debug, p->element, "queue full (%u documents, %"
        G_GUINT64_FORMAT " bytes): %u oldest dropped, %" G_GUINT64_FORMAT " in all",
        p->queue.length, p->queued_bytes, gone, p->dropped);
  const gboolean by_bytes = gone && p->queued_bytes + n > p->max_bytes / 2
      && p->queue.length < p->max_queued - 1 && !p->warned_bytes;
  if (by_bytes)
    p->warned_bytes = TRUE;
  g_queue_push_tail (&p->queue, doc);
  p->queued_bytes += n;
  g_cond_broadcast (&p->cond);
  const guint64 bytes = p->queued_bytes;
  g_mutex_unlock (&p->lock);
  if (by_bytes)
    GST_ELEMENT_WARNING (p->element, RESOURCE, NO_SPACE_LEFT, ("The documents waiting for "
            "the MQTT broker reached the memory limit (%" G_GUINT64_FORMAT " bytes, "
            "FASTVISION_MAX_MEMORY_MB): the oldest are dropped.", p->max_bytes),
        ("%" G_GUINT64_FORMAT " bytes queued", bytes));
  return TRUE;
}

gboolean
fv_publisher_flush (FvPublisher *p, gint64 timeout_us)
{
  if (p->file)
    return TRUE;
  const gint64 end = g_get_monotonic_time () + timeout_us;
  post_events (p);
  g_mutex_lock (&p->lock);
  while ((p->queue.length || p->inflight) && g_get_monotonic_time () < end) {
    g_cond_wait_until (&p->cond, &p->lock, MIN (end, g_get_monotonic_time () + 50000));
    if (p->events.length) {
      g_mutex_unlock (&p->lock);
      post_events (p);
      g_mutex_lock (&p->lock);
    }
  }
  const gboolean done = !p->queue.length && !p->inflight;
  g_mutex_unlock (&p->lock);
  post_events (p);
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
  post_events (p);   /* what the network threads said before they stopped */
  guint left = p->queue.length + p->inflight;
  if (left && p->element)
    GST_ELEMENT_WARNING (p->element, RESOURCE, WRITE,
        ("%u documents had not reached the MQTT broker at %s:%d when the element stopped; "
            "they are counted as dropped.", left, p->host, p->port), (NULL));
  p->dropped += left;
  if (p->element)
    GST_CAT_INFO_OBJECT (gst_meta_publish_debug, p->element, "closed: %" G_GUINT64_FORMAT
        " documents delivered, %" G_GUINT64_FORMAT " dropped", p->delivered, p->dropped);
  if (delivered)
    *delivered = p->delivered;
  if (dropped)
    *dropped = p->dropped;
  g_queue_clear_full (&p->queue, g_free);
  g_queue_clear_full (&p->events, (GDestroyNotify) gst_message_unref);
  if (p->file && !p->is_stdout)
    fclose (p->file);
  g_free (p->path);
  g_free (p->host);
  g_free (p->topic);
  g_mutex_clear (&p->lock);
  g_cond_clear (&p->cond);
  g_free (p);
}
