/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GstFvFilter: the plan and process layer of every fastvision filter
 * element, above GstFvBase (gstfvbase.h: device, memory kinds,
 * allocation, a frame's map and CUDA ordering). It owns what is computed:
 * the plane layout of the format, plans made current before each frame
 * (rebuild, with one rule for settings refused while playing), controller
 * sync, the planes that pass through (luma_only), frames in flight and the
 * latency they add (fvhold.h's rules), meta copying, and the element's
 * refusals and errors; it calls the subclass to (re)make its plans and to
 * process each frame, in place (process_ip), into a new buffer (process),
 * or started and finished later with frames in flight (submit, finish). */
#ifndef GST_FV_FILTER_H
#define GST_FV_FILTER_H

#include <gst/gst.h>
#include <gst/video/video.h>
#include <gst/video/gstvideofilter.h>
#include "fv_config.h"
#include "gstfvbase.h"
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
G_DECLARE_DERIVABLE_TYPE (GstFvFilter, gst_fv_filter, GST, FV_FILTER, GstFvBase)

struct _GstFvFilterClass {
  GstFvBaseClass parent_class;

  /* Makes plans for the current settings, format and backend (r->dev)
   * and only then drops the old ones. On failure: says why with
   * gst_fv_filter_refuse, leaves the plans that run untouched (the base
   * class may keep them running: see there) and returns FALSE. Called on
   * the streaming thread before a frame, with what it needs in r. */
  gboolean (*rebuild) (GstFvFilter *filter, const GstFvRebuild *r);
  /* Frees the plans (stop, finalize, or a new backend, device or stream),
   * with their context current. */
  void (*release) (GstFvFilter *filter);
  GstFlowReturn (*process) (GstFvFilter *filter, GstVideoFrame *in, GstVideoFrame *out);
  /* In-place elements (GstFvBaseClass's in_place) process here. */
  GstFlowReturn (*process_ip) (GstFvFilter *filter, GstVideoFrame *frame);
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
  /* TRUE: of YUV formats only the luma plane is processed; the base class
   * copies the others to the output frame after process. */
  gboolean luma_only;
};

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

/* How the negotiated format maps onto kernel images (set in set_info). */
const FvPlaneLayout *gst_fv_filter_layout (GstFvFilter *filter);
/* How many of the layout's planes process handles (the rest: luma_only). */
gint gst_fv_filter_planes (GstFvFilter *filter);

/* For rebuild: FALSE, after refusing with the figures
 * (gst_fv_filter_refuse), when the plans' host bytes, the subclass's
 * scratch and the output frame (unless in place) pass the memory limit
 * (FASTVISION_MAX_MEMORY_MB). */
gboolean gst_fv_filter_check_memory (GstFvFilter *filter, gsize plan_bytes,
    gsize scratch_bytes);

G_END_DECLS
#endif
