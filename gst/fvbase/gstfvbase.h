/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstFvBase: the lower layer of every fastvision filter element, as
 * nvcodec's CUDA base transform is under its converters. It owns where a
 * frame lives and where it is computed, and nothing of what is computed:
 * - the device: the backend, cuda-device-id, cuda-device-ids,
 *   max-device-memory, threads and active-backend properties, the backend
 *   resolved at start (a missing GPU fails the state change), the CUDA
 *   context shared with the pipeline and its stream;
 * - the memory kinds: system or CUDA memory on either pad (fvmemory.h),
 *   caps by kind, the CUDA context query, allocation (page-locked pools
 *   on the CUDA path), refused caps said once;
 * - a frame: mapped in its memory's way, handed to the subclass's `frame`
 *   with the context current, then its CUDA work waited for or ordered
 *   on the GPU, then unmapped.
 * GstFvFilter (gstfvfilter.h) is the layer above: plans, frames in flight,
 * latency. Elements derive from GstFvFilter, never from this directly. */
#ifndef GST_FV_BASE_H
#define GST_FV_BASE_H

#include <gst/gst.h>
#include <gst/video/video.h>
#include <gst/video/gstvideofilter.h>
#include "fv_config.h"
#include "fvdevice.h"
#include "fvmemory.h"
#include "fvparams.h"
#include "fv_chunk_run.h"

G_BEGIN_DECLS

#define GST_TYPE_FV_BASE (gst_fv_base_get_type ())
G_DECLARE_DERIVABLE_TYPE (GstFvBase, gst_fv_base, GST, FV_BASE, GstVideoFilter)

struct _GstFvBaseClass {
  GstVideoFilterClass parent_class;

  /* Frees what was made on the device (the plans, frames in flight), once
   * no frame runs on it: before the backend, device or stream changes, at
   * stop and at finalize. Called with the old context current. */
  void (*release) (GstFvBase *base);
  /* Optional: before a frame's CUDA work is ordered, with the context
   * current (plans made here may wait on the device). FALSE: the error is
   * posted, the frame fails. */
  gboolean (*prepare) (GstFvBase *base);
  /* One mapped frame (out NULL: in place), with the context current. Work
   * left queued on the device's stream is waited for afterwards, or, when
   * both pads' CUDA memories carry streams (1.24+), ordered on the GPU. */
  GstFlowReturn (*frame) (GstFvBase *base, GstVideoFrame *in, GstVideoFrame *out);
  /* Optional, in-place elements: FALSE when `frame` will only read the
   * pixels (CUDA frames are then mapped read-only); unset: it writes. */
  gboolean (*writes_in_place) (GstFvBase *base);

  /* FALSE for elements without a CUDA path yet: auto picks the CPU and
   * backend=cuda fails the state change saying so. */
  gboolean has_cuda;
  /* TRUE: the element works in place (`frame` on the input, which is
   * mapped for writing only when writes_in_place says so); set up for
   * every instance. */
  gboolean in_place;
  /* the largest width or height the element takes (its templates say so) */
  gint max_side;
  /* The element's own debug category (GST_DEBUG=satfilter:5 and the like):
   * both layers log the element's frames and plans there too. */
  GstDebugCategory *debug;
  /* the element's own set_property and get_property, which the base class
   * wraps to handle `backend` (gst_fv_base_class_install_backend) */
  void (*chain_set_property) (GObject *object, guint prop_id, const GValue *value,
      GParamSpec *pspec);
  void (*chain_get_property) (GObject *object, guint prop_id, GValue *value,
      GParamSpec *pspec);
};

/* Every element calls this at the end of its class_init, once its
 * set_property and get_property are set: it installs `backend` with the
 * element's own values (hybrid only with with_hybrid). */
void gst_fv_base_class_install_backend (GstFvBaseClass *klass, gboolean with_hybrid);

/* The element's sink and src templates: caps (FV_FILTER_CAPS) with width
 * and height bounded by the largest side its kernel takes, so that
 * negotiation fails early, and says why (a warning naming the size). */
void gst_fv_base_class_add_templates (GstFvBaseClass *klass, const gchar *caps,
    gint max_side);

/* The backend in use and its stream (valid from start to stop). */
const FvDevice *gst_fv_base_device (GstFvBase *base);

/* CPU threads asked for (0 = all cores). */
guint gst_fv_base_threads (GstFvBase *base);

/* How CUDA plans may spread (max-device-memory, cuda-device-ids, the
 * active device). FALSE: the list does not parse or names a missing
 * device; *bad_ids (g_free it) is the list, fv_last_error() says why. */
gboolean gst_fv_base_spread (GstFvBase *base, fv_spread *spread, gchar **bad_ids);

/* A setting changed (any property, or the format): the layer above makes
 * its plans again before the next frame. */
void gst_fv_base_mark_changed (GstFvBase *base);
/* Whether a change waits (for a check between frames). */
gboolean gst_fv_base_changes_pending (GstFvBase *base);
/* Takes the changes that wait: *changed, any; *device_changed, the
 * backend or the device, for which gst_fv_base_resolve is called. */
void gst_fv_base_take_changes (GstFvBase *base, gboolean *changed, gboolean *device_changed);

/* Resolves the backend again (what was made on the old device released
 * first); FALSE: said as an error. */
gboolean gst_fv_base_resolve (GstFvBase *base);

/* For elements that hold frames (the layer above's frames in flight):
 * maps the input for reading and the output for writing, each in its
 * memory's way, with no extra reference; call with the context current.
 * On failure the error is posted and nothing stays mapped. */
GstFlowReturn gst_fv_base_map_pair (GstFvBase *base, GstBuffer *inbuf, GstBuffer *outbuf,
    GstVideoFrame *in, GstVideoFrame *out);
/* An output buffer in host memory on the CUDA path that is not
 * page-locked (the pinned budget ran out): said once. */
void gst_fv_base_check_pinned (GstFvBase *base, GstBuffer *outbuf);

/* Pad template caps: system memory in `formats`; with GStreamer's CUDA
 * library also memory:CUDAMemory in `cuda_formats`, the element's formats
 * that GStreamer 1.22's CUDA allocator can lay out (no GRAY8 or GRAY16). */
#if FV_HAVE_GST_CUDA
#define FV_FILTER_CAPS(formats, cuda_formats) \
  GST_VIDEO_CAPS_MAKE_WITH_FEATURES ("memory:CUDAMemory", cuda_formats) "; " \
  GST_VIDEO_CAPS_MAKE (formats)
#else
#define FV_FILTER_CAPS(formats, cuda_formats) GST_VIDEO_CAPS_MAKE (formats)
#endif

G_END_DECLS
#endif
