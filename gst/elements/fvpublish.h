/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Where metapublish's documents go: a JSON-lines file (rotated by size) or
 * standard output, or an MQTT broker through libmosquitto behind a bounded
 * queue and a sender thread of its own, so that the streaming thread never
 * waits for the network. */
#ifndef FV_PUBLISH_H
#define FV_PUBLISH_H

#include <gst/gst.h>

G_BEGIN_DECLS

/* metapublish's debug category, which the publisher logs to */
GST_DEBUG_CATEGORY_EXTERN (gst_meta_publish_debug);

typedef struct {
  gchar *location;              /* a path, "-", or mqtt://HOST[:PORT]/TOPIC */
  guint64 max_size;             /* files: rotate past this many bytes (0: never) */
  guint max_queued;             /* MQTT: documents waiting at most (drop-oldest) */
  gint qos;                     /* MQTT: 0 or 1 */
  gchar *client_id, *username, *password;
  guint keepalive;              /* seconds */
  gchar *tls_ca_file, *tls_cert_file, *tls_key_file;
  gboolean tls_insecure;
  gchar *stream;                /* substituted for {stream} in the topic */
} FvPublishSettings;

typedef struct _FvPublisher FvPublisher;

/* Opens the destination; NULL with *error set (a location that does not
 * parse, a file that cannot be opened, TLS files that cannot be read). An
 * unreachable broker is no error: the publisher posts one warning on
 * `element`, keeps reconnecting with back-off, and posts a "metapublish"
 * element message with event "connected" when the broker answers. */
FvPublisher *fv_publisher_open (const FvPublishSettings *s, GstElement *element,
    GError **error);

/* Hands one document over (takes it); never blocks on the network. FALSE
 * after a write error on a file, with *error set; TRUE with *error set
 * when the document alone is past the memory limit (dropped, counted).
 * Posts the warnings and messages the network threads left (they post
 * none themselves, so that no bus sync handler runs on them). */
gboolean fv_publisher_send (FvPublisher *p, gchar *doc, GError **error);

/* MQTT: waits up to timeout_us for the queued and unacknowledged documents
 * to reach the broker; TRUE when none is left. Files: TRUE. */
gboolean fv_publisher_flush (FvPublisher *p, gint64 timeout_us);

/* Counters: documents written or acknowledged, dropped, waiting now. */
void fv_publisher_counts (FvPublisher *p, guint64 *delivered, guint64 *dropped,
    guint *queued);

/* Stops and frees; documents still waiting are counted as dropped first
 * (and said in a warning when there are any); the final counters in
 * delivered and dropped (either may be NULL). */
void fv_publisher_close (FvPublisher *p, guint64 *delivered, guint64 *dropped);

void fv_publish_settings_clear (FvPublishSettings *s);

G_END_DECLS
#endif
