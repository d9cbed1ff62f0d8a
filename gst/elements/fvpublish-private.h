/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* metapublish's destinations share this: the publisher (fvpublish.c: the
 * calls, MQTT) and its files (fvpublish-file.c). */
#ifndef FV_PUBLISH_PRIVATE_H
#define FV_PUBLISH_PRIVATE_H

#include <stdio.h>
#include "fv_config.h"
#include "fvpublish.h"
#if FV_HAVE_MOSQUITTO
#include <mosquitto.h>
#endif

G_BEGIN_DECLS

#define WINDOW 64                         /* unacknowledged documents at most */
#define LOOP_MS 100                       /* the network thread looks at its flag this often */
#define BACKOFF_MAX_S 30                  /* reconnection back-off: 1 s doubling to this */
#define CONNECT_TIMEOUT_US (10 * G_USEC_PER_SEC)   /* CONNECT sent, no CONNACK: try again */

enum { NET_DOWN, NET_CONNECTING, NET_UP };

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
  guint max_queued, keepalive;
  gboolean tls;                           /* the connection is over TLS */
  guint64 max_bytes;                      /* the queue's bytes at most (the memory limit) */
#if FV_HAVE_MOSQUITTO
  struct mosquitto *mosq;
#endif
  GThread *sender, *network;
  GMutex lock;
  GCond cond;
  GQueue queue;                           /* of gchar * */
  guint64 queued_bytes;
  guint inflight, stalls;
  gint state;                             /* NET_*, the network thread's */
  gboolean connected, ever_connected, tried, warned, warned_bytes, stopping;
  gint64 next_try, connect_started, last_progress;   /* monotonic */
  guint backoff_s;
  GQueue events;                          /* GstMessage * waiting to be posted */
  /* counters, under lock */
  guint64 delivered, dropped;
};

/* Opens (or with append, continues) the file of p->path. */
gboolean fv_publish_file_open (FvPublisher *p, gboolean append, GError **error);
/* Writes one document (taken) as a line, rotating at max-size. */
gboolean fv_publish_file_send (FvPublisher *p, gchar *doc, GError **error);

G_END_DECLS
#endif
