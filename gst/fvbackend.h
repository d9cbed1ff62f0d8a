/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Backend choice shared by every fastvision element: the `backend`
 * property's enum, and picking the device at start. */
#ifndef FV_BACKEND_H
#define FV_BACKEND_H

#include <gst/gst.h>
#include "fv_image.h"

G_BEGIN_DECLS

typedef enum {
  GST_FV_BACKEND_AUTO = -1,
  GST_FV_BACKEND_CPU = FV_BACKEND_CPU,
  GST_FV_BACKEND_CUDA = FV_BACKEND_CUDA,
  GST_FV_BACKEND_HYBRID = 2,   /* CPU and GPU on alternate frames, overlapped */
} GstFvBackend;

#define GST_TYPE_FV_BACKEND (gst_fv_backend_get_type ())
GType gst_fv_backend_get_type (void);

/* Resolves `requested` for `device_id`. auto: CUDA when usable, else CPU,
 * with a GST_INFO line naming the choice and why. cuda or hybrid (which
 * needs the GPU too; *active is then CUDA) without a usable GPU: returns
 * FALSE and sets *why (free with g_free). */
gboolean gst_fv_backend_resolve (GstElement *element, GstFvBackend requested,
    gint device_id, fv_backend *active, gchar **why);

G_END_DECLS
#endif
