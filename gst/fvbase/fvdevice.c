/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "fvdevice.h"
#include "fv_cuda.h"
#include "fvcudactx.h"

GST_DEBUG_CATEGORY_STATIC (fv_backend_debug);
#define GST_CAT_DEFAULT fv_backend_debug

GType
gst_fv_backend_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_FV_BACKEND_AUTO, "CUDA when a usable GPU is present, else CPU", "auto"},
    {GST_FV_BACKEND_CPU, "CPU, all cores", "cpu"},
    {GST_FV_BACKEND_CUDA, "NVIDIA GPU through CUDA", "cuda"},
    {0, NULL, NULL},
  };
  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstFvBackend", values);
    GST_DEBUG_CATEGORY_INIT (fv_backend_debug, "fvbackend", 0, "fastvision backend choice");
    g_once_init_leave (&type, t);
  }
  return type;
}

/* The same with hybrid, for the elements that have it (autofill) */
GType
gst_fv_backend_hybrid_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_FV_BACKEND_AUTO, "CUDA when a usable GPU is present, else CPU", "auto"},
    {GST_FV_BACKEND_CPU, "CPU, all cores", "cpu"},
    {GST_FV_BACKEND_CUDA, "NVIDIA GPU through CUDA", "cuda"},
    {GST_FV_BACKEND_HYBRID, "CPU and GPU on alternate frames, overlapped (one frame of "
        "latency)", "hybrid"},
    {0, NULL, NULL},
  };
  if (g_once_init_enter (&type)) {
    gst_fv_backend_get_type ();   /* its debug category */
    g_once_init_leave (&type, g_enum_register_static ("GstFvBackendHybrid", values));
  }
  return type;
}

GType
gst_fv_active_backend_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_FV_ACTIVE_BACKEND_NONE, "Nothing runs yet: the element has not started", "none"},
    {GST_FV_BACKEND_CPU, "CPU, all cores", "cpu"},
    {GST_FV_BACKEND_CUDA, "NVIDIA GPU through CUDA", "cuda"},
    {GST_FV_BACKEND_HYBRID, "CPU and GPU on alternate frames", "hybrid"},
    {0, NULL, NULL},
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstFvActiveBackend", values));
  return type;
}

/* Resolves `requested` for `device_id`. auto: CUDA when usable, else CPU,
 * with a GST_INFO line naming the choice and why. cuda or hybrid (which
 * needs the GPU too; *active is then CUDA) without a usable GPU: FALSE and
 * *why (g_free it). */
static gboolean
backend_resolve (GstElement *element, GstFvBackend requested, gint device_id,
    fv_backend *active, gchar **why)
{
  char reason[256] = "";
  *why = NULL;
  if (requested == GST_FV_BACKEND_CPU) {
    *active = FV_BACKEND_CPU;
    GST_INFO_OBJECT (element, "backend: cpu (requested)");
    return TRUE;
  }
  fv_status st = fv_cuda_check_device (device_id, reason, sizeof reason);
  if (st == FV_OK) {
    *active = FV_BACKEND_CUDA;
    GST_INFO_OBJECT (element, "backend: cuda on device %d (%s)", device_id,
        requested == GST_FV_BACKEND_AUTO ? "auto" : "requested");
    return TRUE;
  }
  if (requested != GST_FV_BACKEND_AUTO) {
    *why = g_strdup_printf ("backend=%s but %s",
        requested == GST_FV_BACKEND_HYBRID ? "hybrid" : "cuda", reason);
    return FALSE;
  }
  *active = FV_BACKEND_CPU;
  GST_INFO_OBJECT (element, "backend: cpu (auto: %s)", reason);
  return TRUE;
}

/* The pipeline's CUDA context for device_id (-1: any): the one held when it
 * fits, else one found or made; NULL in dev->cuda_ctx when GStreamer's CUDA
 * library or the driver is missing (the element then works on system
 * memory in the runtime's own context). The device the context is on. */
static gint
context_for (FvDevice *dev, GstElement *element, gint device_id)
{
  if (dev->cuda_ctx && device_id >= 0 && fv_cuda_ctx_device (dev->cuda_ctx) != device_id) {
    fv_device_release (dev);   /* the stream lives in the old context */
    gst_clear_object (&dev->cuda_ctx);
  }
  if (!dev->cuda_ctx && fv_cuda_device_count () > 0)
    fv_cuda_ctx_ensure (element, device_id, &dev->cuda_ctx);
  if (dev->cuda_ctx)
    GST_INFO_OBJECT (element, "sharing CUDA context %" GST_PTR_FORMAT " on device %d",
        dev->cuda_ctx, fv_cuda_ctx_device (dev->cuda_ctx));
  return dev->cuda_ctx ? fv_cuda_ctx_device (dev->cuda_ctx) : MAX (device_id, 0);
}

/* The element's stream as a GstCudaStream of the shared context (1.24+,
 * fv_cuda_ctx_stream_new); FALSE where there is none to make. */
static gboolean
make_gst_stream (FvDevice *dev)
{
  fv_device_push (dev);
  dev->gst_stream = fv_cuda_ctx_stream_new (dev->cuda_ctx, &dev->stream);
  fv_device_pop (dev);
  return dev->gst_stream != NULL;
}

gboolean
fv_device_resolve (FvDevice *dev, GstElement *element, GstFvBackend requested,
    gint device_id)
{
  fv_backend active;
  gchar *why = NULL;
  if (requested != GST_FV_BACKEND_CPU)
    device_id = context_for (dev, element, device_id);
  fv_device_push (dev);
  gboolean ok = backend_resolve (element, requested, device_id, &active, &why);
  fv_device_pop (dev);
  if (!ok) {
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
    fv_status st = FV_OK;
    if (!make_gst_stream (dev)) {
      fv_device_push (dev);
      st = fv_cuda_stream_create (device_id, &dev->stream);
      fv_device_pop (dev);
    }
    if (st != FV_OK) {
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
  fv_device_push (dev);
  if (dev->gst_stream)
    fv_cuda_ctx_stream_free (dev->gst_stream);
  else
    fv_cuda_stream_destroy (dev->stream);
  fv_device_pop (dev);
  dev->stream = NULL;
  dev->gst_stream = NULL;
}

void
fv_device_ensure_stream (FvDevice *dev)
{
  if (!dev->stream && dev->cuda_ctx && make_gst_stream (dev))
    dev->stream_device = fv_cuda_ctx_device (dev->cuda_ctx);
}

void
fv_device_stop (FvDevice *dev)
{
  fv_device_release (dev);
  gst_clear_object (&dev->cuda_ctx);   /* the next start asks the pipeline again */
  dev->have_active = FALSE;
}

void
fv_device_push (const FvDevice *dev)
{
  if (dev->cuda_ctx && !fv_cuda_ctx_push (dev->cuda_ctx))
    GST_WARNING ("cannot make the CUDA context current");
}

void
fv_device_pop (const FvDevice *dev)
{
  fv_cuda_ctx_pop (dev->cuda_ctx);
}
