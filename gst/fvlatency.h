/* Processing latency for synchronous filters: the slowest frame so far,
 * reported in LATENCY queries and announced with a latency message when it
 * grows by more than a millisecond. */
#ifndef FV_LATENCY_H
#define FV_LATENCY_H

#include <gst/gst.h>

G_BEGIN_DECLS

typedef struct {
  GstClockTime max_seen, reported;   /* under the element's object lock */
} FvLatency;

void fv_latency_reset (GstElement *element, FvLatency *lat);
void fv_latency_account (GstElement *element, FvLatency *lat, GstClockTime spent);
/* Adds the reported latency to an answered LATENCY query. */
void fv_latency_add_to_query (GstElement *element, FvLatency *lat, GstQuery *query);

G_END_DECLS
#endif
