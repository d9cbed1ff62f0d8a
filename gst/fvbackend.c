/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "fvbackend.h"
#include "fv_cuda.h"

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
    {GST_FV_BACKEND_HYBRID, "CPU and GPU on alternate frames, overlapped (one frame of "
        "latency; elements without it run as cuda)", "hybrid"},
    {0, NULL, NULL},
  };
  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstFvBackend", values);
    GST_DEBUG_CATEGORY_INIT (fv_backend_debug, "fvbackend", 0, "fastvision backend choice");
    g_once_init_leave (&type, t);
  }
  return type;
}

gboolean
gst_fv_backend_resolve (GstElement *element, GstFvBackend requested, gint device_id,
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
