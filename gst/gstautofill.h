#ifndef GST_AUTOFILL_H
#define GST_AUTOFILL_H

#include <gst/gst.h>
#include <gst/video/video.h>
#include <gst/video/gstvideofilter.h>
#include "fv_fill.h"
#include "fvdevice.h"
#include "fvlatency.h"

G_BEGIN_DECLS

#define GST_TYPE_AUTOFILL (gst_autofill_get_type ())
G_DECLARE_FINAL_TYPE (GstAutofill, gst_autofill, GST, AUTOFILL, GstVideoFilter)

struct _GstAutofill {
  GstVideoFilter parent;

  /* properties, under the object lock */
  guint threshold, fill_value, seeds, threads;
  gint connectivity;
  fv_fill_output output;
  GstFvBackend backend;
  gint device_id;
  gboolean settings_changed;

  /* streaming state */
  FvDevice dev;
  fv_fill_plan *plan;
  FvLatency latency;
};

GST_ELEMENT_REGISTER_DECLARE (autofill);

G_END_DECLS
#endif
