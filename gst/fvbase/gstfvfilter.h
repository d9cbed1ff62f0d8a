/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstFvFilter: the base of every fastvision filter element. It owns the
 * whole frame contract — the backend, cuda-device-id, threads and
 * active-backend properties, the CUDA context shared with the pipeline and
 * its stream, system or CUDA memory on either pad, pinned-memory pools on the
 * CUDA path, the plane layout of the format, controller sync, latency,
 * meta copying, plans made current before each frame — and calls the
 * subclass to (re)make its plans and to process each frame, in place
 * (process_ip), into a new buffer (process), or started and finished
 * later with frames in flight (submit, finish). */
#ifndef GST_FV_FILTER_H
#define GST_FV_FILTER_H

#include <gst/gst.h>
#include <gst/video/video.h>
#include <gst/video/gstvideofilter.h>
#include "fv_config.h"
#include "fvdevice.h"
#include "fvlatency.h"
#include "fvplanes.h"
#include "fv_chunk_run.h"

G_BEGIN_DECLS

/* What a rebuild works from, gathered by the base class before it calls
 * rebuild (so that no subclass asks for it piece by piece). */
typedef struct {
  const FvPlaneLayout *layout;   /* how the negotiated format maps onto kernel images */
  const FvDevice *dev;           /* backend (dev->active), device and stream */
  guint threads;                 /* CPU threads asked for (0 = all cores) */
  gint planes;                   /* the planes to process: layout's first `planes`
                                  * (luma_only: 1 for YUV formats) */
  fv_spread spread;              /* how CUDA plans may spread (max-device-memory,
                                  * cuda-device-ids, the active device) */
} GstFvRebuild;

#define GST_TYPE_FV_FILTER (gst_fv_filter_get_type ())
G_DECLARE_DERIVABLE_TYPE (GstFvFilter, gst_fv_filter, GST, FV_FILTER, GstVideoFilter)

struct _GstFvFilterClass {
  GstVideoFilterClass parent_class;

  /* Makes plans for the current settings, format and backend (filter->dev)
   * and only then drops the old ones. On failure: says why with
   * gst_fv_filter_refuse, leaves the plans that run untouched (the base
   * class may keep them running: see there) and returns FALSE. Called on
   * the streaming thread before a frame, with what it needs in r. */
  gboolean (*rebuild) (GstFvFilter *filter, const GstFvRebuild *r);
  /* Frees the plans (stop, or the CUDA stream changed). */
  void (*release) (GstFvFilter *filter);
  GstFlowReturn (*process) (GstFvFilter *filter, GstVideoFrame *in, GstVideoFrame *out);
  /* In-place elements (gst_base_transform_set_in_place) process here. */
  GstFlowReturn (*process_ip) (GstFvFilter *filter, GstVideoFrame *frame);
  /* Optional, in-place elements: FALSE when process_ip will only read the
   * pixels (CUDA frames are then mapped read-only); unset: it writes. */
  gboolean (*writes_in_place) (GstFvFilter *filter);
  /* Optional: checks settings that must fail the state change (a kernel
   * file that does not parse, say); posts the error itself. */
  gboolean (*validate) (GstFvFilter *filter);
  /* Optional: elements that keep frames in flight (autofill's
   * backend=hybrid: the GPU fills one frame while the CPU fills the next).
   * frames_in_flight says, after each rebuild, how many frames the new
   * plans may have started at once (0 or 1: none held; process is used).
   * With 2 or more, every frame goes to submit, which starts it and may
   * return before its output is written, leaving in *job what finish will
   * need (the base class keeps both frames mapped, holds the output and
   * copies the planes of luma_only); once that many are in flight, finish
   * completes the oldest (waits for it, adds its results; drop: it is being
   * discarded, by a flush or stop) and it is pushed, in order. What is
   * held is announced as latency; EOS and new caps push it; settings are
   * applied between frames as always: what is in flight is finished and
   * pushed first. Both run with the element's CUDA context current. On
   * failure submit leaves nothing of the frame running. */
  guint (*frames_in_flight) (GstFvFilter *filter);
  GstFlowReturn (*submit) (GstFvFilter *filter, GstVideoFrame *in, GstVideoFrame *out,
      gpointer *job);
  GstFlowReturn (*finish) (GstFvFilter *filter, GstVideoFrame *out, gpointer job,
      gboolean drop);
  /* FALSE for elements without a CUDA path yet: auto picks the CPU and
   * backend=cuda fails the state change saying so. */
  gboolean has_cuda;
  /* TRUE: of YUV formats only the luma plane is processed; the base class
   * copies the others to the output frame after process. */
  gboolean luma_only;
  /* TRUE: the element works in place (process_ip on the input frame, which
   * is mapped for writing only when writes_in_place says so); the base
   * class sets that up for every instance. */
  gboolean in_place;
  /* the largest width or height the element takes (its templates say so) */
  gint max_side;
  /* The element's own debug category (GST_DEBUG=satfilter:5 and the like):
   * the base class logs its rebuilds and frames there too. */
  GstDebugCategory *debug;
  /* the element's own set_property and get_property, which the base class
   * wraps to handle `backend` (gst_fv_filter_class_install_backend) */
  void (*chain_set_property) (GObject *object, guint prop_id, const GValue *value,
      GParamSpec *pspec);
  void (*chain_get_property) (GObject *object, guint prop_id, GValue *value,
      GParamSpec *pspec);
};

/* Every element calls this at the end of its class_init, once its
 * set_property and get_property are set: it installs `backend` with the
 * element's own values (hybrid only with with_hybrid). */
void gst_fv_filter_class_install_backend (GstFvFilterClass *klass, gboolean with_hybrid);

/* The element's sink and src templates: caps (FV_FILTER_CAPS) with width
 * and height bounded by the largest side its kernel takes, so that
 * negotiation fails early, and says why (a warning naming the size). */
void gst_fv_filter_class_add_templates (GstFvFilterClass *klass, const gchar *caps,
    gint max_side);

/* For rebuild, the one way to say that the new plans cannot be made. The
 * rule is the base class's: while plans for the same format and device run
 * (settings changed while PLAYING), they keep running and this is a warning
 * (the new settings are tried again at the next change); the first plans,
 * and plans for new caps or a new device, fail with this as an error. */
void gst_fv_filter_refuse (GstFvFilter *filter, GQuark domain, gint code, const gchar *debug,
    const gchar *format, ...) G_GNUC_PRINTF (5, 6);

/* Why a kernel call failed, for a message: the kernel's own words for a
 * request it found invalid (fv_last_error), else the status's name. */
const gchar *gst_fv_filter_why (fv_status st);

/* GStreamer's resource error code for a file an element was told to read
 * (a cascade, a kernel) and could not use, as filesrc's: NOT_FOUND when it
 * is not there, OPEN_READ when it cannot be opened or is no regular file,
 * content_code when it was read but its content is refused. err (may be
 * NULL) is the reader's error; without a G_FILE_ERROR the file at path is
 * looked at. *debug (g_free it): the path and the system's reason. */
gint gst_fv_filter_file_error (const gchar *path, const GError *err, gint content_code,
    gchar **debug);

/* For process: posts the error for a kernel call that failed on a frame
 * (STREAM FAILED, "FORMAT: why.", the kernel's last error as debug) and
 * returns GST_FLOW_ERROR. */
GstFlowReturn gst_fv_filter_frame_failed (GstFvFilter *filter, fv_status st,
    const gchar *format, ...) G_GNUC_PRINTF (3, 4);

/* Settings or format changed: plans are remade before the next frame. */
void gst_fv_filter_settings_changed (GstFvFilter *filter);

/* The backend in use and its stream (valid inside rebuild and process). */
const FvDevice *gst_fv_filter_device (GstFvFilter *filter);

/* How the negotiated format maps onto kernel images (set in set_info). */
const FvPlaneLayout *gst_fv_filter_layout (GstFvFilter *filter);
/* How many of the layout's planes process handles (the rest: luma_only). */
gint gst_fv_filter_planes (GstFvFilter *filter);

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

/* A string property's new value, NULL when unset or empty (paths, names). */
static inline gchar *
gst_fv_filter_dup_nonempty (const GValue *value)
{
  const gchar *s = g_value_get_string (value);
  return s && *s ? g_strdup (s) : NULL;
}

/* Property flags: every property may change while PLAYING; numbers,
 * booleans and enums may also be bound to a controller (strings cannot be
 * interpolated: binding one is a GStreamer-CRITICAL). */
#define FV_PARAM_RW (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING)
#define FV_PARAM_CONTROLLABLE (FV_PARAM_RW | GST_PARAM_CONTROLLABLE)

/* For rebuild: FALSE, after refusing with the figures
 * (gst_fv_filter_refuse), when the plans' host bytes, the subclass's
 * scratch and the output frame (unless in place) pass the memory limit
 * (FASTVISION_MAX_MEMORY_MB). */
gboolean gst_fv_filter_check_memory (GstFvFilter *filter, gsize plan_bytes,
    gsize scratch_bytes);

/* CPU threads asked for (0 = all cores). */
guint gst_fv_filter_threads (GstFvFilter *filter);

G_END_DECLS
#endif
