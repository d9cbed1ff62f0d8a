/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The device unit of the fastvision elements: the `backend` property's
 * enum, the choice of backend (auto picks CUDA when a usable GPU is there),
 * and the per-element state that results: which backend runs, and the
 * element's own CUDA stream. */
#ifndef FV_DEVICE_H
#define FV_DEVICE_H

#include <gst/gst.h>
#include "fv_image.h"
#include "fv_plan.h"

G_BEGIN_DECLS

typedef enum {
  GST_FV_BACKEND_AUTO = -1,
  GST_FV_BACKEND_CPU = FV_BACKEND_CPU,
  GST_FV_BACKEND_CUDA = FV_BACKEND_CUDA,
  GST_FV_BACKEND_HYBRID = 2,   /* CPU and GPU on alternate frames, overlapped */
} GstFvBackend;

#define GST_TYPE_FV_BACKEND (gst_fv_backend_get_type ())
GType gst_fv_backend_get_type (void);
/* auto, cpu, cuda and hybrid: the values of elements that have hybrid */
#define GST_TYPE_FV_BACKEND_HYBRID (gst_fv_backend_hybrid_get_type ())
GType gst_fv_backend_hybrid_get_type (void);

/* What "active-backend" reads: what runs now, `none` before the element has
 * started (the same numbers as GstFvBackend for cpu, cuda and hybrid). */
#define GST_TYPE_FV_ACTIVE_BACKEND (gst_fv_active_backend_get_type ())
GType gst_fv_active_backend_get_type (void);
#define GST_FV_ACTIVE_BACKEND_NONE (-1)

typedef struct {
  fv_backend active;
  gboolean have_active;
  gboolean hybrid;       /* backend=hybrid: active is CUDA, the CPU works alongside */
  void *stream;          /* cudaStream_t when active is CUDA */
  /* the same stream as GStreamer's GstCudaStream (1.24+, in cuda_ctx), so
   * that our pools' memories carry it; NULL when stream is a plain one */
  gpointer gst_stream;
  gint stream_device;
  /* the pipeline's GstCudaContext (fvcudactx.h), when GStreamer's CUDA
   * library is there: the stream, the plans and CUDA frames live in it */
  GstObject *cuda_ctx;
} FvDevice;

/* Resolves the backend, (re)creates the stream when the device changes and
 * notifies "active-backend" on change. device_id -1: the device of the CUDA
 * context a neighbour shares, else device 0. A backend that cannot run posts
 * GST_ELEMENT_ERROR naming the reason and returns FALSE at start; once
 * running (a change while PLAYING) it posts a warning and keeps the
 * backend in use. The caller frees plans tied to the old stream and
 * context first. */
gboolean fv_device_resolve (FvDevice *dev, GstElement *element, GstFvBackend requested,
    gint device_id);

void fv_device_release (FvDevice *dev);

/* Makes the element's stream now, in the shared context (a GstCudaStream
 * on 1.24+), when there is none yet: the pools of the allocation queries,
 * which come before the first frame resolves the backend, carry it. */
void fv_device_ensure_stream (FvDevice *dev);

/* Makes the device's CUDA context current around CUDA work (plans are made,
 * run and freed between push and pop); no-ops without one. */
void fv_device_push (const FvDevice *dev);
void fv_device_pop (const FvDevice *dev);

/* Released, and not running: the next resolve is a start. */
void fv_device_stop (FvDevice *dev);

/* The backend in use, for logs: cpu, cuda, hybrid, or none yet. */
static inline const gchar *
fv_device_backend_name (const FvDevice *dev)
{
  if (!dev->have_active)
    return "(none yet)";
  return dev->hybrid ? "hybrid" : dev->active == FV_BACKEND_CUDA ? "cuda" : "cpu";
}

/* The value of a read-only "active-backend" property. */
static inline gint
fv_device_active_backend (const FvDevice *dev)
{
  if (!dev->have_active)
    return GST_FV_ACTIVE_BACKEND_NONE;
  return dev->hybrid ? GST_FV_BACKEND_HYBRID : (gint) dev->active;
}

static inline gboolean
fv_device_is_cuda (const FvDevice *dev)
{
  return dev->have_active && dev->active == FV_BACKEND_CUDA;
}

G_END_DECLS
#endif
