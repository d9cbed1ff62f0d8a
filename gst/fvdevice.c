/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "fvdevice.h"
#include "fv_cuda.h"

gboolean
fv_device_resolve (FvDevice *dev, GstElement *element, GstFvBackend requested,
    gint device_id, gboolean *stream_changed)
{
  fv_backend active;
  gchar *why = NULL;
  *stream_changed = FALSE;
  if (!gst_fv_backend_resolve (element, requested, device_id, &active, &why)) {
    const gchar *asked = requested == GST_FV_BACKEND_HYBRID ? "hybrid" : "cuda";
    if (dev->have_active) {   /* changed while running: keep going as before */
      GST_ELEMENT_WARNING (element, RESOURCE, FAILED, ("No usable GPU for backend=%s (%s); "
              "staying on the %s backend.", asked, why,
              dev->active == FV_BACKEND_CUDA ? "cuda" : "cpu"), (NULL));
      g_free (why);
      return TRUE;
    }
    GST_ELEMENT_ERROR (element, RESOURCE, FAILED, ("No usable GPU for backend=%s (%s).", asked,
            why), (NULL));
    g_free (why);
    return FALSE;
  }
  if (active == FV_BACKEND_CUDA && (!dev->stream || dev->stream_device != device_id)) {
    fv_device_release (dev);
    *stream_changed = TRUE;
    if (fv_cuda_stream_create (device_id, &dev->stream) != FV_OK) {
      GST_ELEMENT_ERROR (element, RESOURCE, FAILED, ("Cannot create a CUDA stream."),
          ("%s", fv_last_error ()));
      return FALSE;
    }
    dev->stream_device = device_id;
  }
  gboolean hybrid = requested == GST_FV_BACKEND_HYBRID;
  gboolean changed = !dev->have_active || dev->active != active || dev->hybrid != hybrid;
  dev->active = active;
  dev->hybrid = hybrid;
  dev->have_active = TRUE;
  if (changed)
    g_object_notify (G_OBJECT (element), "active-backend");
  return TRUE;
}

void
fv_device_release (FvDevice *dev)
{
  fv_cuda_stream_destroy (dev->stream);
  dev->stream = NULL;
}

void
fv_device_stop (FvDevice *dev)
{
  fv_device_release (dev);
  dev->have_active = FALSE;
}
