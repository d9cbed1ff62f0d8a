/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include "gstfvfilter.h"
#include "fv_file.h"
#include "fv_memory.h"
#include "fvmeta.h"
#include "fvpinnedallocator.h"
#include "fvcudactx.h"
#include "fvmemory.h"
#include "fv_cuda.h"
#include "fv_devices.h"

GST_DEBUG_CATEGORY_STATIC (gst_fv_filter_debug);
#define GST_CAT_DEFAULT gst_fv_filter_debug

enum {
  PROP_0,
  PROP_ACTIVE_BACKEND,
  PROP_DEVICE_ID,
  PROP_CUDA_DEVICE_ID,
  PROP_THREADS,
  PROP_MAX_DEVICE_MEMORY,
  PROP_CUDA_DEVICE_IDS,
};

/* A frame submitted and not yet finished: both frames stay mapped (no
 * extra reference: the output gets metas), the input's reference ours. */
typedef struct {
  GstVideoFrame in, out;
  gpointer job;
} FvFlight;
#define FV_MAX_IN_FLIGHT 4

typedef struct {
  /* properties, under the object lock */
  GstFvBackend backend;
  gint device_id;
  guint threads;
  guint64 max_device_memory;
  gchar *device_ids;
  gboolean changed;          /* any setting or the format: rebuild the plans */
  gboolean device_changed;   /* backend or device-id: choose the backend again */
  gboolean format_changed;   /* new caps: plans for the old format cannot run */
  /* streaming */
  FvDevice dev;
  FvLatency latency;
  FvPlaneLayout layout;
  gint planes;                  /* of layout's, those process handles (luma_only) */
  gboolean ready;
  gboolean keeping;             /* in rebuild: a failure keeps the plans that run */
  gboolean warned_caps;
  gboolean warned_pinned;       /* said once: a host frame fell back to pageable memory */
  /* the negotiated pads' memory (fvmemory.h: what each kind needs) */
  const FvMemoryKindInfo *in_mem, *out_mem;
  /* frames in flight (submit/finish): how many the plans allow (< 2: none),
   * those started, oldest first, and those finished, waiting to be pushed */
  guint depth;
  guint n_flight;
  FvFlight flight[FV_MAX_IN_FLIGHT];
  GQueue done;
} GstFvFilterPrivate;

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (GstFvFilter, gst_fv_filter, GST_TYPE_VIDEO_FILTER);
#define PRIV(f) ((GstFvFilterPrivate *) gst_fv_filter_get_instance_private (f))

/* Whether either pad's frames live on the device (then the element's
 * stream is waited for, or ordered, once a frame). */
static gboolean
frames_on_device (const GstFvFilterPrivate *priv)
{
  return priv->in_mem->on_device || priv->out_mem->on_device;
}

void
gst_fv_filter_settings_changed (GstFvFilter *filter)
{
  GST_OBJECT_LOCK (filter);
  PRIV (filter)->changed = TRUE;
  GST_OBJECT_UNLOCK (filter);
}

const FvDevice *
gst_fv_filter_device (GstFvFilter *filter)
{
  return &PRIV (filter)->dev;
}

guint
gst_fv_filter_threads (GstFvFilter *filter)
{
  GST_OBJECT_LOCK (filter);
  guint t = PRIV (filter)->threads;
  GST_OBJECT_UNLOCK (filter);
  return t;
}

static void drop_in_flight (GstFvFilter *self);

/* The subclass frees its plans in the context they were made in, once no
 * frame runs on them. */
static void
release_plans (GstFvFilter *self)
{
  FvDevice *dev = &PRIV (self)->dev;
  fv_device_push (dev);
  drop_in_flight (self);
  GST_FV_FILTER_GET_CLASS (self)->release (self);
  fv_device_pop (dev);
  PRIV (self)->ready = FALSE;
}

/* Resolves the backend; plans tied to an old stream are released. */
static gboolean
resolve (GstFvFilter *self)
{
  GstFvFilterPrivate *priv = PRIV (self);
  GST_OBJECT_LOCK (self);
  GstFvBackend backend = priv->backend;
  gint device = priv->device_id;
  GST_OBJECT_UNLOCK (self);
  if (!GST_FV_FILTER_GET_CLASS (self)->has_cuda) {
    if (backend != GST_FV_BACKEND_AUTO && backend != GST_FV_BACKEND_CPU) {
      GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS, ("%s has no CUDA path yet; use "
              "backend=cpu or auto.", G_OBJECT_TYPE_NAME (self)), (NULL));
      return FALSE;
    }
    backend = GST_FV_BACKEND_CPU;
  }
  /* plans belong to the old stream and context: freed there first */
  release_plans (self);
  const gboolean running = priv->dev.have_active;
  if (!fv_device_resolve (&priv->dev, GST_ELEMENT (self), backend, device))
    return FALSE;
  /* a change refused while running (no usable GPU) keeps the backend that
   * runs, and the property reads it back: what is in use, not what was asked */
  const gint now = fv_device_active_backend (&priv->dev);
  if (running && backend != GST_FV_BACKEND_AUTO && now != (gint) backend) {
    GST_OBJECT_LOCK (self);
    const gboolean same = priv->backend == backend;
    if (same)
      priv->backend = (GstFvBackend) now;
    GST_OBJECT_UNLOCK (self);
    if (same)
      g_object_notify (G_OBJECT (self), "backend");
  }
  return TRUE;
}

/* The chunk runner keeps to one device, faster than the listed ones. */
static void
spread_note (void *user, const char *message)
{
  GST_WARNING_OBJECT (user, "cuda-device-ids: %s", message);
}

/* How CUDA plans may spread (max-device-memory, cuda-device-ids, the
 * active device), for the kernels' parameters; FALSE after refusing a
 * device list that does not parse or names a missing device. */
static gboolean
spread_of (GstFvFilter *filter, fv_spread *spread)
{
  GstFvFilterPrivate *priv = PRIV (filter);
  memset (spread, 0, sizeof *spread);
  GST_OBJECT_LOCK (filter);
  spread->max_device_bytes = priv->max_device_memory;
  spread->note = spread_note;
  spread->note_user = filter;
  gchar *ids = g_strdup (priv->device_ids);
  GST_OBJECT_UNLOCK (filter);
  if (!fv_device_is_cuda (&priv->dev)) {
    g_free (ids);
    return TRUE;
  }
  fv_status st = fv_device_list_parse (ids, priv->dev.stream_device, spread->devices,
      &spread->ndevices);
  if (st != FV_OK)
    gst_fv_filter_refuse (filter, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
        fv_last_error (), "Invalid cuda-device-ids \"%s\".", ids);
  else if (spread->ndevices > 1)
    GST_INFO_OBJECT (filter, "frames spread over %d device entries (%s)", spread->ndevices, ids);
  g_free (ids);
  return st == FV_OK;
}

static void
gst_fv_filter_set_property (GObject *object, guint prop_id, const GValue *value,
    GParamSpec *pspec)
{
  GstFvFilterPrivate *priv = PRIV (GST_FV_FILTER (object));
  GST_OBJECT_LOCK (object);
  switch (prop_id) {
    case PROP_DEVICE_ID:
    case PROP_CUDA_DEVICE_ID:
      priv->device_id = g_value_get_int (value);
      priv->device_changed = TRUE;
      break;
    case PROP_THREADS: priv->threads = g_value_get_uint (value); break;
    case PROP_MAX_DEVICE_MEMORY: priv->max_device_memory = g_value_get_uint64 (value); break;
    case PROP_CUDA_DEVICE_IDS:
      g_free (priv->device_ids);
      priv->device_ids = gst_fv_filter_dup_nonempty (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      GST_OBJECT_UNLOCK (object);
      return;
  }
  priv->changed = TRUE;
  GST_OBJECT_UNLOCK (object);
}

static void
gst_fv_filter_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  GstFvFilterPrivate *priv = PRIV (GST_FV_FILTER (object));
  GST_OBJECT_LOCK (object);
  switch (prop_id) {
    case PROP_ACTIVE_BACKEND: g_value_set_enum (value, fv_device_active_backend (&priv->dev)); break;
    case PROP_DEVICE_ID: g_value_set_int (value, MAX (priv->device_id, 0)); break;
    case PROP_CUDA_DEVICE_ID: g_value_set_int (value, priv->device_id); break;
    case PROP_THREADS: g_value_set_uint (value, priv->threads); break;
    case PROP_MAX_DEVICE_MEMORY: g_value_set_uint64 (value, priv->max_device_memory); break;
    case PROP_CUDA_DEVICE_IDS: g_value_set_string (value, priv->device_ids); break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (object);
}

static gboolean
gst_fv_filter_start (GstBaseTransform *trans)
{
  GstFvFilter *self = GST_FV_FILTER (trans);
  PRIV (self)->ready = FALSE;
  PRIV (self)->warned_caps = FALSE;
  PRIV (self)->warned_pinned = FALSE;
  fv_latency_reset (GST_ELEMENT (self), &PRIV (self)->latency);
  GstFvFilterClass *klass = GST_FV_FILTER_GET_CLASS (self);
  if (klass->validate && !klass->validate (self))
    return FALSE;
  GST_OBJECT_LOCK (self);
  PRIV (self)->device_changed = FALSE;
  GST_OBJECT_UNLOCK (self);
  return resolve (self);   /* a missing GPU fails the state change, not a frame */
}

static gboolean
gst_fv_filter_stop (GstBaseTransform *trans)
{
  GstFvFilter *self = GST_FV_FILTER (trans);
  release_plans (self);
  fv_device_stop (&PRIV (self)->dev);
  return TRUE;
}

static gboolean
gst_fv_filter_set_info (GstVideoFilter *vf, GstCaps *incaps, GstVideoInfo *in_info,
    GstCaps *outcaps, GstVideoInfo *out_info)
{
  GstFvFilter *self = GST_FV_FILTER (vf);
  if (!fv_plane_layout_from_info (in_info, &PRIV (self)->layout)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("Unsupported video format %s.",
            gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (in_info))), (NULL));
    return FALSE;
  }
  PRIV (self)->planes = GST_FV_FILTER_GET_CLASS (self)->luma_only
      && GST_VIDEO_INFO_IS_YUV (in_info) ? 1 : PRIV (self)->layout.n_planes;
  PRIV (self)->in_mem = fv_memory_kind_info (fv_memory_kind_of_caps (incaps));
  PRIV (self)->out_mem = fv_memory_kind_info (fv_memory_kind_of_caps (outcaps));
  /* GStreamer 1.22's CUDA allocator places the V plane of odd-height I420
   * half a row off (cudaupload ! cudadownload alone changes the frame):
   * our results follow the layout it describes, but say so */
  if (frames_on_device (PRIV (self))
      && GST_VIDEO_INFO_FORMAT (in_info) == GST_VIDEO_FORMAT_I420
      && GST_VIDEO_INFO_HEIGHT (in_info) % 2)
    GST_ELEMENT_WARNING (self, STREAM, FORMAT, ("I420 of odd height (%d) in CUDA memory: "
            "GStreamer 1.22's CUDA memory misplaces its V plane; use NV12 or an even height.",
            GST_VIDEO_INFO_HEIGHT (in_info)), (NULL));
  GST_DEBUG_OBJECT (self, "format %s %dx%d, %d planes, %s to %s memory",
      gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (in_info)),
      GST_VIDEO_INFO_WIDTH (in_info), GST_VIDEO_INFO_HEIGHT (in_info),
      PRIV (self)->layout.n_planes, PRIV (self)->in_mem->name, PRIV (self)->out_mem->name);
  GST_OBJECT_LOCK (self);
  PRIV (self)->changed = PRIV (self)->format_changed = TRUE;   /* plans for the new format */
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}

const FvPlaneLayout *
gst_fv_filter_layout (GstFvFilter *filter)
{
  return &PRIV (filter)->layout;
}

gint
gst_fv_filter_planes (GstFvFilter *filter)
{
  return PRIV (filter)->planes;
}

/* The controller's values for this buffer's time. */
static void
sync_values (GstFvFilter *filter, GstBuffer *buf)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM (filter);
  GstClockTime ts = gst_segment_to_stream_time (&trans->segment, GST_FORMAT_TIME,
      GST_BUFFER_TIMESTAMP (buf));
  if (GST_CLOCK_TIME_IS_VALID (ts))
    gst_object_sync_values (GST_OBJECT (filter), ts);
}

static void
gst_fv_filter_before_transform (GstBaseTransform *trans, GstBuffer *buf)
{
  sync_values (GST_FV_FILTER (trans), buf);
}

/* Whether plans are to be made before the next frame. */
static gboolean
plans_stale (GstFvFilter *self)
{
  GstFvFilterPrivate *priv = PRIV (self);
  GST_OBJECT_LOCK (self);
  const gboolean stale = priv->changed || priv->device_changed || !priv->ready;
  GST_OBJECT_UNLOCK (self);
  return stale;
}

/* Makes the plans current before a frame (with the context current); not
 * while frames run on them (generate_output finishes those first). */
static gboolean
prepare (GstFvFilter *self)
{
  GstFvFilterPrivate *priv = PRIV (self);
  if (priv->n_flight)
    return TRUE;
  GST_OBJECT_LOCK (self);
  gboolean changed = priv->changed, device_changed = priv->device_changed;
  const gboolean format_changed = priv->format_changed;
  priv->changed = priv->device_changed = priv->format_changed = FALSE;
  GST_OBJECT_UNLOCK (self);
  if (changed || device_changed || !priv->ready) {
    /* between frames, on the streaming thread: never mid-frame; the backend
     * is chosen again only when it or the device changed (start chose it) */
    GstVideoFilter *vf = GST_VIDEO_FILTER (self);
    GstDebugCategory *cat = GST_FV_FILTER_GET_CLASS (self)->debug;
    /* one rule for every element: new settings that cannot be planned
     * while plans for this format and device run leave those running, with
     * a warning (gst_fv_filter_refuse); the first plans, and plans for a
     * new format or device, fail with an error */
    const gboolean had = priv->ready;
    priv->ready = FALSE;
    const gint64 t0 = g_get_monotonic_time ();
    if (device_changed && !resolve (self))
      return FALSE;
    priv->keeping = had && !format_changed && !device_changed;
    GstFvRebuild r = { &priv->layout, &priv->dev, gst_fv_filter_threads (self), priv->planes };
    const gboolean built = spread_of (self, &r.spread)
        && GST_FV_FILTER_GET_CLASS (self)->rebuild (self, &r);
    const gboolean kept = !built && priv->keeping;
    priv->keeping = FALSE;
    if (kept) {
      GST_CAT_INFO_OBJECT (cat ? cat : GST_CAT_DEFAULT, self, "new settings refused: the plans "
          "in use keep running");
      priv->ready = TRUE;
      return TRUE;
    }
    if (!built)
      return FALSE;
    GstFvFilterClass *klass = GST_FV_FILTER_GET_CLASS (self);
    priv->depth = klass->frames_in_flight ? MIN (klass->frames_in_flight (self),
        FV_MAX_IN_FLIGHT) : 0;
    /* what is in flight beyond the frame being handed in is held back */
    fv_latency_hold (GST_ELEMENT (self), &priv->latency, priv->depth > 1 ? priv->depth - 1 : 0);
    GST_CAT_INFO_OBJECT (cat ? cat : GST_CAT_DEFAULT, self,
        "plans made for %dx%d %s on the %s backend (%u threads asked, 0 = all cores) in %.1f ms",
        GST_VIDEO_INFO_WIDTH (&vf->in_info), GST_VIDEO_INFO_HEIGHT (&vf->in_info),
        GST_VIDEO_INFO_NAME (&vf->in_info), fv_device_backend_name (&priv->dev),
        gst_fv_filter_threads (self), (g_get_monotonic_time () - t0) / 1000.0);
    priv->ready = TRUE;
  }
  return TRUE;
}

void
gst_fv_filter_refuse (GstFvFilter *filter, GQuark domain, gint code, const gchar *debug,
    const gchar *format, ...)
{
  va_list args;
  va_start (args, format);
  gchar *why = g_strdup_vprintf (format, args);
  va_end (args);
  const gboolean keep = PRIV (filter)->keeping;
  gchar *text = keep ? g_strdup_printf ("%s The settings in use stay until the next change.",
      why) : g_strdup (why);
  g_free (why);
  gst_element_message_full (GST_ELEMENT (filter), keep ? GST_MESSAGE_WARNING
      : GST_MESSAGE_ERROR, domain, code, text, g_strdup (debug), __FILE__, GST_FUNCTION,
      __LINE__);
}

const gchar *
gst_fv_filter_why (fv_status st)
{
  return st == FV_ERR_INVALID ? fv_last_error () : fv_status_string (st);
}

gint
gst_fv_filter_file_error (const gchar *path, const GError *err, gint content_code,
    gchar **debug)
{
  gint code = content_code;
  const gchar *reason = NULL;
  /* INVAL is the readers' word for content (and for a file that is no
   * regular one, which the look at the path below tells) */
  if (err && err->domain == G_FILE_ERROR && err->code != G_FILE_ERROR_INVAL) {
    code = err->code == G_FILE_ERROR_NOENT || err->code == G_FILE_ERROR_NOTDIR
        || err->code == G_FILE_ERROR_NAMETOOLONG ? GST_RESOURCE_ERROR_NOT_FOUND
        : GST_RESOURCE_ERROR_OPEN_READ;
    reason = err->message;
  } else if (path) {
    GStatBuf st;
    if (g_stat (path, &st) != 0) {
      const int e = errno;
      code = e == ENOENT || e == ENOTDIR || e == ENAMETOOLONG ? GST_RESOURCE_ERROR_NOT_FOUND
          : GST_RESOURCE_ERROR_OPEN_READ;
      reason = g_strerror (e);
    } else if (!S_ISREG (st.st_mode)) {
      code = GST_RESOURCE_ERROR_OPEN_READ;
      reason = "not a regular file";
    } else if (g_access (path, R_OK) != 0) {
      code = GST_RESOURCE_ERROR_OPEN_READ;
      reason = g_strerror (errno);
    } else {
      reason = err ? err->message : "its content is refused";
    }
  }
  gchar *shown = path ? g_filename_display_name (path) : g_strdup ("(none)");
  *debug = g_strdup_printf ("file %s: %s", shown, reason ? reason : "its content is refused");
  g_free (shown);
  return code;
}

GstFlowReturn
gst_fv_filter_frame_failed (GstFvFilter *filter, fv_status st, const gchar *format, ...)
{
  va_list args;
  va_start (args, format);
  gchar *what = g_strdup_vprintf (format, args);
  va_end (args);
  gst_element_message_full (GST_ELEMENT (filter), GST_MESSAGE_ERROR, GST_STREAM_ERROR,
      GST_STREAM_ERROR_FAILED, g_strdup_printf ("%s: %s.", what, gst_fv_filter_why (st)),
      g_strdup (fv_last_error ()), __FILE__, GST_FUNCTION, __LINE__);
  g_free (what);
  return GST_FLOW_ERROR;
}

gboolean
gst_fv_filter_check_memory (GstFvFilter *filter, gsize plan_bytes, gsize scratch_bytes)
{
  GstBaseTransform *bt = GST_BASE_TRANSFORM (filter);
  const GstVideoInfo *out = &GST_VIDEO_FILTER (filter)->out_info;
  /* the output frame, unless the element writes into its input */
  const gsize frame = gst_base_transform_is_in_place (bt) ? 0 : GST_VIDEO_INFO_SIZE (out);
  const double total = (double) plan_bytes + (double) scratch_bytes + (double) frame;
  gchar *what = g_strdup_printf ("%s for %dx%d %s frames (%.1f MB of plans, %.1f MB of "
      "frames and scratch)", GST_ELEMENT_NAME (filter), GST_VIDEO_INFO_WIDTH (out),
      GST_VIDEO_INFO_HEIGHT (out), GST_VIDEO_INFO_NAME (out), plan_bytes / 1048576.0,
      (scratch_bytes + frame) / 1048576.0);
  gboolean ok = fv_memory_check (total, what);
  g_free (what);
  if (!ok)
    gst_fv_filter_refuse (filter, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NO_SPACE_LEFT,
        "set FASTVISION_MAX_MEMORY_MB to allow more, or send smaller frames", "%s.",
        fv_last_error ());
  return ok;
}

/* The planes process leaves alone (luma_only), as they came. */
static GstFlowReturn
copy_passed_planes (GstFvFilter *self, GstVideoFrame *in, GstVideoFrame *out)
{
  GstFvFilterPrivate *priv = PRIV (self);
  for (gint p = priv->planes; p < priv->layout.n_planes; p++)
    if (!fv_plane_copy (&priv->layout, out, in, p, priv->dev.stream)) {
      GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Cannot copy plane %d.", p),
          ("%s", fv_last_error ()));
      return GST_FLOW_ERROR;
    }
  return GST_FLOW_OK;
}

/* Prepares the plans and processes one frame (out NULL: in place), with
 * the CUDA context current. GStreamer 1.22's CUDA memory carries no stream
 * or event: a neighbour may touch a CUDA frame as soon as we return (the
 * producer reuses the input, the consumer reads the output), so work on
 * CUDA frames is finished here; producers of 1.22 do the same before they
 * push, which makes the input safe to read on our stream. On 1.24+, when
 * both sides are CUDA memories that carry streams, those streams wait for
 * ours on the GPU instead and the element returns at once
 * (fv_cuda_ctx_frame_ordered; docs/gpu-pipelines.md). A host frame on
 * either side is always waited for: the host is reading or reusing it. */
static GstFlowReturn
run_frame (GstFvFilter *self, GstVideoFrame *in, GstVideoFrame *out)
{
  GstFvFilterPrivate *priv = PRIV (self);
  GstFvFilterClass *klass = GST_FV_FILTER_GET_CLASS (self);
  GstFlowReturn ret = GST_FLOW_ERROR;
  fv_device_push (&priv->dev);
  const gint64 t0 = g_get_monotonic_time ();
  GstBuffer *const outbuf = out ? out->buffer : NULL;
  const gboolean can_order = priv->in_mem->on_device && (!out || priv->out_mem->on_device)
      && fv_cuda_ctx_frame_can_order (in->buffer, outbuf);
  if (prepare (self)) {
    /* the kernels leave their device work queued on our stream: it is
     * waited for once below, or ordered on the GPU (a frame's regions and
     * planes then cost no host round trip each) */
    if (can_order || (frames_on_device (priv) && priv->dev.stream))
      fv_cuda_defer_begin (priv->dev.stream);
    ret = out ? klass->process (self, in, out) : klass->process_ip (self, in);
    if (out && ret == GST_FLOW_OK)
      ret = copy_passed_planes (self, in, out);
    fv_cuda_defer_end ();
  }
  const gboolean ordered = ret == GST_FLOW_OK && can_order
      && fv_cuda_ctx_frame_ordered (in->buffer, outbuf, priv->dev.stream);
  /* also after a failure: work still queued must not outlive the frames */
  if (frames_on_device (priv) && priv->dev.stream && !ordered
      && fv_cuda_stream_sync (priv->dev.stream) != FV_OK && ret == GST_FLOW_OK) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("CUDA work on the frame failed."),
        ("%s", fv_last_error ()));
    ret = GST_FLOW_ERROR;
  }
  fv_device_pop (&priv->dev);
  GST_CAT_TRACE_OBJECT (klass->debug ? klass->debug : GST_CAT_DEFAULT, self,
      "frame %" GST_TIME_FORMAT " in %.3f ms", GST_TIME_ARGS (GST_BUFFER_PTS (in->buffer)),
      (g_get_monotonic_time () - t0) / 1000.0);
  return ret;
}

static GstFlowReturn
gst_fv_filter_transform_frame (GstVideoFilter *vf, GstVideoFrame *in, GstVideoFrame *out)
{
  return run_frame (GST_FV_FILTER (vf), in, out);
}

static GstFlowReturn
gst_fv_filter_transform_frame_ip (GstVideoFilter *vf, GstVideoFrame *frame)
{
  return run_frame (GST_FV_FILTER (vf), frame, NULL);
}

static GstFlowReturn
map_failed (GstFvFilter *self, const gchar *which)
{
  GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Cannot map the %s frame.", which), (NULL));
  return GST_FLOW_ERROR;
}

/* CUDA frames are mapped for the device (GstVideoFilter would map them for
 * the CPU, a download); system frames go the usual way. */
/* Host frames on the CUDA path in ordinary memory because page-locked
 * memory ran out (fvpinnedallocator.c): they still work, said once. */
static void
warn_pageable (GstFvFilter *self, GstBuffer *buf)
{
  GstFvFilterPrivate *priv = PRIV (self);
  const gchar *note = fv_pinned_fallback_note ();
  if (priv->warned_pinned || !note || !fv_device_is_cuda (&priv->dev) || !buf
      || gst_buffer_n_memory (buf) < 1 || fv_memory_is_pinned (gst_buffer_peek_memory (buf, 0)))
    return;
  priv->warned_pinned = TRUE;
  GST_ELEMENT_WARNING (self, RESOURCE, NO_SPACE_LEFT,
      ("Frames use ordinary host memory: the page-locked memory budget is exhausted."),
      ("%s", note));
}

/* Maps the input for reading and the output for writing, each in its
 * memory's way (fvmemory.h), with no extra reference: vjdetect and autofill
 * add metas, which needs a writable buffer. Call with the context current:
 * a CUDA input may be waited for on our stream. */
static GstFlowReturn
map_pair (GstFvFilter *self, GstBuffer *inbuf, GstBuffer *outbuf, GstVideoFrame *in,
    GstVideoFrame *out)
{
  GstFvFilterPrivate *priv = PRIV (self);
  GstVideoFilter *vf = GST_VIDEO_FILTER (self);
  const GstMapFlags noref = (GstMapFlags) GST_VIDEO_FRAME_MAP_FLAG_NO_REF;
  if (!fv_cuda_frame_map (in, &vf->in_info, inbuf, GST_MAP_READ | noref,
          priv->in_mem->on_device, priv->dev.stream))
    return map_failed (self, "input");
  if (!fv_cuda_frame_map (out, &vf->out_info, outbuf, GST_MAP_WRITE | noref,
          priv->out_mem->on_device, priv->dev.stream)) {
    gst_video_frame_unmap (in);
    return map_failed (self, "output");
  }
  return GST_FLOW_OK;
}

static GstFlowReturn
gst_fv_filter_transform (GstBaseTransform *trans, GstBuffer *inbuf, GstBuffer *outbuf)
{
  GstFvFilter *self = GST_FV_FILTER (trans);
  GstFvFilterPrivate *priv = PRIV (self);
  if (!priv->out_mem->on_device)
    warn_pageable (self, outbuf);
  if (!frames_on_device (priv))
    return GST_BASE_TRANSFORM_CLASS (gst_fv_filter_parent_class)->transform (trans, inbuf, outbuf);
  GstVideoFrame in, out;
  fv_device_push (&priv->dev);   /* the input may be waited for on our stream */
  GstFlowReturn ret = map_pair (self, inbuf, outbuf, &in, &out);
  if (ret == GST_FLOW_OK) {
    ret = run_frame (self, &in, &out);
    gst_video_frame_unmap (&out);
    gst_video_frame_unmap (&in);
  }
  fv_device_pop (&priv->dev);
  return ret;
}

static GstFlowReturn
gst_fv_filter_transform_ip (GstBaseTransform *trans, GstBuffer *buf)
{
  GstFvFilter *self = GST_FV_FILTER (trans);
  GstVideoFilter *vf = GST_VIDEO_FILTER (trans);
  GstVideoFrame frame;
  /* pixels mapped for writing only when they change: a decoder's frame
   * shared with its reference list, or a buffer a tee shares, is then not
   * copied */
  GstFvFilterClass *klass = GST_FV_FILTER_GET_CLASS (self);
  const gboolean writes = !klass->writes_in_place || klass->writes_in_place (self);
  const GstMapFlags flags = (writes ? GST_MAP_READWRITE : GST_MAP_READ)
      | (GstMapFlags) GST_VIDEO_FRAME_MAP_FLAG_NO_REF;
  const gboolean on_device = PRIV (self)->in_mem->on_device;
  const FvDevice *dev = &PRIV (self)->dev;
  GstFlowReturn ret;
  if (on_device)
    fv_device_push (dev);   /* the frame may be waited for on our stream */
  if (!fv_cuda_frame_map (&frame, &vf->in_info, buf, flags, on_device, dev->stream)) {
    if (on_device) {
      ret = map_failed (self, "input");
    } else {
      /* as GstVideoFilter does: the buffer goes on unprocessed, and a
       * detector's absent result is what fails closed downstream */
      GST_ELEMENT_WARNING (self, STREAM, FORMAT, ("Invalid video buffer received: it does "
              "not hold a %dx%d %s frame; passed on unprocessed.",
              GST_VIDEO_INFO_WIDTH (&vf->in_info), GST_VIDEO_INFO_HEIGHT (&vf->in_info),
              GST_VIDEO_INFO_NAME (&vf->in_info)), (NULL));
      ret = GST_FLOW_OK;
    }
  } else {
    ret = run_frame (self, &frame, NULL);
    gst_video_frame_unmap (&frame);
  }
  if (on_device)
    fv_device_pop (dev);
  return ret;
}

/* Frames in flight (frames_in_flight, submit, finish). */

/* Finishes the oldest frame in flight and unmaps it; its output joins
 * those waiting to be pushed unless dropped (or failed). */
static GstFlowReturn
finish_oldest (GstFvFilter *self, gboolean drop)
{
  GstFvFilterPrivate *priv = PRIV (self);
  FvFlight f = priv->flight[0];
  memmove (priv->flight, priv->flight + 1, --priv->n_flight * sizeof f);
  fv_device_push (&priv->dev);
  GstFlowReturn ret = GST_FV_FILTER_GET_CLASS (self)->finish (self, &f.out, f.job, drop);
  fv_device_pop (&priv->dev);
  GstBuffer *in = f.in.buffer, *out = f.out.buffer;
  gst_video_frame_unmap (&f.in);
  gst_video_frame_unmap (&f.out);
  gst_buffer_unref (in);
  if (drop || ret != GST_FLOW_OK)
    gst_buffer_unref (out);
  else
    g_queue_push_tail (&priv->done, out);
  return ret;
}

/* Flush, stop, new plans from a new stream: nothing in flight is pushed. */
static void
drop_in_flight (GstFvFilter *self)
{
  GstFvFilterPrivate *priv = PRIV (self);
  while (priv->n_flight)
    finish_oldest (self, TRUE);
  g_queue_clear_full (&priv->done, (GDestroyNotify) gst_buffer_unref);
}

/* Finishes everything in flight, in order, for pushing (before new plans,
 * new caps or EOS); on a failure the rest is dropped. */
static GstFlowReturn
finish_in_flight (GstFvFilter *self)
{
  GstFlowReturn ret = GST_FLOW_OK;
  while (PRIV (self)->n_flight && ret == GST_FLOW_OK)
    ret = finish_oldest (self, FALSE);
  if (ret != GST_FLOW_OK)
    drop_in_flight (self);
  return ret;
}

/* Hands the next finished output out, if any. */
static gboolean
next_done (GstFvFilter *self, GstBuffer **outbuf)
{
  *outbuf = g_queue_pop_head (&PRIV (self)->done);
  return *outbuf != NULL;
}

/* Submits the queued input; once `depth` frames are in flight, finishes
 * the oldest. */
static GstFlowReturn
submit_queued (GstFvFilter *self)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  GstFvFilterPrivate *priv = PRIV (self);
  GstBuffer *inbuf = trans->queued_buf, *outbuf = NULL;
  trans->queued_buf = NULL;
  GstFlowReturn ret = GST_BASE_TRANSFORM_CLASS (gst_fv_filter_parent_class)->
      prepare_output_buffer (trans, inbuf, &outbuf);
  if (ret != GST_FLOW_OK) {
    gst_buffer_unref (inbuf);
    return ret;
  }
  if (!priv->out_mem->on_device)
    warn_pageable (self, outbuf);
  FvFlight f = { 0 };
  fv_device_push (&priv->dev);
  ret = map_pair (self, inbuf, outbuf, &f.in, &f.out);
  const gboolean mapped = ret == GST_FLOW_OK;
  if (mapped)
    ret = GST_FV_FILTER_GET_CLASS (self)->submit (self, &f.in, &f.out, &f.job);
  if (ret == GST_FLOW_OK) {
    /* in flight, buffers and all; a failed copy drops it with the rest */
    priv->flight[priv->n_flight++] = f;
    ret = copy_passed_planes (self, &f.in, &f.out);
  } else {
    if (mapped) {
      gst_video_frame_unmap (&f.in);
      gst_video_frame_unmap (&f.out);
    }
    gst_buffer_unref (inbuf);
    gst_buffer_unref (outbuf);
  }
  fv_device_pop (&priv->dev);
  if (ret != GST_FLOW_OK) {
    drop_in_flight (self);
    return ret;
  }
  return priv->n_flight >= priv->depth ? finish_oldest (self, FALSE) : GST_FLOW_OK;
}

/* With frames in flight, GstBaseTransform's one buffer in, one out becomes
 * one in, any out: it calls this until no buffer comes. Elements without
 * submit, and plans that keep nothing in flight, take the ordinary path. */
static GstFlowReturn
gst_fv_filter_generate_output (GstBaseTransform *trans, GstBuffer **outbuf)
{
  GstFvFilter *self = GST_FV_FILTER (trans);
  GstFvFilterPrivate *priv = PRIV (self);
  GstBaseTransformClass *parent = GST_BASE_TRANSFORM_CLASS (gst_fv_filter_parent_class);
  if (!GST_FV_FILTER_GET_CLASS (self)->submit)
    return parent->generate_output (trans, outbuf);
  if (next_done (self, outbuf) || !trans->queued_buf)
    return GST_FLOW_OK;
  /* the settings decide whether frames go in flight: plans brought up to
   * date first, and frames that run on the old ones finished and pushed */
  sync_values (self, trans->queued_buf);
  if (priv->n_flight && plans_stale (self)) {
    GstFlowReturn ret = finish_in_flight (self);
    if (ret != GST_FLOW_OK || next_done (self, outbuf))
      return ret;
  }
  fv_device_push (&priv->dev);
  const gboolean ready = prepare (self);
  fv_device_pop (&priv->dev);
  if (!ready) {
    gst_clear_buffer (&trans->queued_buf);
    return GST_FLOW_ERROR;
  }
  if (priv->depth < 2)
    return parent->generate_output (trans, outbuf);
  GstFlowReturn ret = submit_queued (self);
  next_done (self, outbuf);
  return ret;
}

/* EOS and new caps push what is in flight first (it belongs before them);
 * a flush drops it. */
static gboolean
gst_fv_filter_sink_event (GstBaseTransform *trans, GstEvent *event)
{
  GstFvFilter *self = GST_FV_FILTER (trans);
  GstFvFilterPrivate *priv = PRIV (self);
  const GstEventType type = GST_EVENT_TYPE (event);
  if ((type == GST_EVENT_EOS || type == GST_EVENT_CAPS) && priv->n_flight) {
    GstBuffer *b;
    GstFlowReturn ret = finish_in_flight (self);
    while (next_done (self, &b))
      if (ret == GST_FLOW_OK)
        ret = gst_pad_push (trans->srcpad, b);
      else
        gst_buffer_unref (b);
    if (ret != GST_FLOW_OK)
      GST_DEBUG_OBJECT (self, "frames in flight before %s: %s", GST_EVENT_TYPE_NAME (event),
          gst_flow_get_name (ret));
  } else if (type == GST_EVENT_FLUSH_STOP) {
    drop_in_flight (self);
  }
  return GST_BASE_TRANSFORM_CLASS (gst_fv_filter_parent_class)->sink_event (trans, event);
}

/* CUDA memory is offered where frames can stay on the device: built with
 * GStreamer's CUDA library, an element with a CUDA path, and (once started)
 * the cuda backend running in a shared context. hybrid needs host frames
 * for its CPU half. */
static gboolean
cuda_memory_possible (GstFvFilter *self)
{
  const FvDevice *dev = &PRIV (self)->dev;
  if (!fv_cuda_ctx_built () || !GST_FV_FILTER_GET_CLASS (self)->has_cuda)
    return FALSE;
  return !dev->have_active || (fv_device_is_cuda (dev) && !dev->hybrid && dev->cuda_ctx);
}

/* The kinds a caps structure with these features becomes across the
 * element, most wanted first. What we take (sink caps from downstream's,
 * direction SRC): the device's kinds first, so a decoder or cudaupload
 * hands over device frames. What we give (src caps from the input's,
 * direction SINK): the input's kind first (the host's for ANY), so frames
 * stay where they are unless the neighbour takes only another (system
 * memory to a CPU element, device memory to a CUDA-only one, and an
 * application's appsink after system memory gets system memory). In-place elements keep the kind they
 * are given. Device kinds only where frames can stay on the device. */
static guint
kinds_in_order (GstFvFilter *self, GstPadDirection direction, const GstCapsFeatures *f,
    FvMemoryKind *order)
{
  const gboolean any = f && gst_caps_features_is_any (f);
  const FvMemoryKind own = fv_memory_kind_of_features (f);
  const gboolean same = gst_base_transform_is_in_place (GST_BASE_TRANSFORM (self));
  const gboolean device_ok = cuda_memory_possible (self);
  guint n = 0;
  if (direction == GST_PAD_SINK && !any && (device_ok || !fv_memory_kind_info (own)->on_device))
    order[n++] = own;
  /* then, taking, the device's kinds first; giving, the host's */
  const gint first = direction == GST_PAD_SRC ? 1 : 0;
  for (gint pass = 0, device = first; pass < 2; pass++, device = !device)
    for (guint k = 0; k < FV_MEMORY_KINDS; k++) {
      const FvMemoryKindInfo *info = fv_memory_kind_info ((FvMemoryKind) k);
      if (info->on_device == device && (!device || device_ok) && (!same || any || k == own)
          && !(n && order[0] == k))
        order[n++] = (FvMemoryKind) k;
    }
  return n;
}

/* Either memory in, either memory out (kinds_in_order): each structure in
 * each of its kinds, the most wanted kinds of all structures first. */
static GstCaps *
gst_fv_filter_transform_caps (GstBaseTransform *trans, GstPadDirection direction,
    GstCaps *caps, GstCaps *filter)
{
  GstCaps *tier[FV_MEMORY_KINDS];
  for (guint t = 0; t < FV_MEMORY_KINDS; t++)
    tier[t] = gst_caps_new_empty ();
  for (guint i = 0; i < gst_caps_get_size (caps); i++) {
    FvMemoryKind order[FV_MEMORY_KINDS];
    const guint n = kinds_in_order (GST_FV_FILTER (trans), direction,
        gst_caps_get_features (caps, i), order);
    for (guint t = 0; t < n; t++)
      gst_caps_append_structure_full (tier[t], gst_structure_copy (gst_caps_get_structure (caps,
                  i)), gst_caps_features_new (fv_memory_kind_info (order[t])->feature, NULL));
  }
  GstCaps *res = tier[0];
  for (guint t = 1; t < FV_MEMORY_KINDS; t++)
    res = gst_caps_merge (res, tier[t]);
  if (filter) {
    GstCaps *t = gst_caps_intersect_full (filter, res, GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (res);
    res = t;
  }
  GST_LOG_OBJECT (trans, "%" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT, caps, res);
  return res;
}

static void
gst_fv_filter_set_context (GstElement *element, GstContext *context)
{
  GstFvFilterPrivate *priv = PRIV (GST_FV_FILTER (element));
  GST_OBJECT_LOCK (element);
  gint device = priv->device_id;
  GST_OBJECT_UNLOCK (element);
  fv_cuda_ctx_set_context (element, context, device, &priv->dev.cuda_ctx);
  GST_ELEMENT_CLASS (gst_fv_filter_parent_class)->set_context (element, context);
}

static gboolean
gst_fv_filter_propose_allocation (GstBaseTransform *trans, GstQuery *decide_query,
    GstQuery *query)
{
  FvDevice *dev = &PRIV (GST_FV_FILTER (trans))->dev;
  GstCaps *caps = NULL;
  gst_query_parse_allocation (query, &caps, NULL);
  const FvMemoryKindInfo *kind = fv_memory_kind_info (fv_memory_kind_of_caps (caps));
  if (kind->propose (dev, query, caps)) {
    GST_DEBUG_OBJECT (trans, "proposed a pool of %s memory%s", kind->name,
        kind->on_device ? "" : " (page-locked)");
    return TRUE;
  }
  return GST_BASE_TRANSFORM_CLASS (gst_fv_filter_parent_class)->propose_allocation (trans,
      decide_query, query);
}

static gboolean
gst_fv_filter_decide_allocation (GstBaseTransform *trans, GstQuery *query)
{
  FvDevice *dev = &PRIV (GST_FV_FILTER (trans))->dev;
  GstCaps *caps = NULL;
  gst_query_parse_allocation (query, &caps, NULL);
  if (fv_memory_kind_info (fv_memory_kind_of_caps (caps))->decide (dev, query, caps))
    return gst_query_get_n_allocation_pools (query) > 0;
  return GST_BASE_TRANSFORM_CLASS (gst_fv_filter_parent_class)->decide_allocation (trans, query);
}

/* Refused caps: tell the user what the element takes, once, rather than
 * leave them with a bare not-negotiated from upstream. */
static void
warn_refused_caps (GstFvFilter *self, GstCaps *offered)
{
  GstFvFilterPrivate *priv = PRIV (self);
  if (priv->warned_caps || !offered || gst_caps_is_empty (offered) || gst_caps_is_any (offered))
    return;
  /* a size past the largest side: said with the size (the caps' first
   * structure that has one) */
  const gint max_side = GST_FV_FILTER_GET_CLASS (self)->max_side;
  for (guint i = 0; max_side > 0 && i < gst_caps_get_size (offered); i++) {
    const GstStructure *st = gst_caps_get_structure (offered, i);
    gint w = 0, h = 0;
    if (!gst_structure_get_int (st, "width", &w) || !gst_structure_get_int (st, "height", &h))
      continue;
    if (w <= max_side && h <= max_side)
      break;
    priv->warned_caps = TRUE;
    GST_ELEMENT_WARNING (self, CORE, NEGOTIATION,
        ("%s takes frames of at most %dx%d pixels; offered %dx%d (scale or crop the video "
            "before it).", GST_ELEMENT_NAME (self), max_side, max_side, w, h),
        ("offered: %" GST_PTR_FORMAT, offered));
    return;
  }
  priv->warned_caps = TRUE;
  GstCaps *ours = gst_pad_get_pad_template_caps (GST_BASE_TRANSFORM_SINK_PAD (self));
  GString *formats = g_string_new (NULL);
  /* the system-memory formats: all of them (CUDA memory takes a subset) */
  guint sys = 0;
  for (guint i = 0; i < gst_caps_get_size (ours); i++)
    if (!gst_caps_features_contains (gst_caps_get_features (ours, i), FV_CAPS_FEATURE_CUDA))
      sys = i;
  const GValue *list = gst_structure_get_value (gst_caps_get_structure (ours, sys), "format");
  if (list && GST_VALUE_HOLDS_LIST (list)) {
    for (guint i = 0; i < gst_value_list_get_size (list); i++)
      g_string_append_printf (formats, "%s%s", i ? ", " : "",
          g_value_get_string (gst_value_list_get_value (list, i)));
  } else if (list && G_VALUE_HOLDS_STRING (list)) {
    g_string_append (formats, g_value_get_string (list));
  }
  GST_ELEMENT_WARNING (self, CORE, NEGOTIATION,
      ("%s takes raw video in %s only; put videoconvert in front of it.",
          GST_ELEMENT_NAME (self), formats->str), ("offered: %" GST_PTR_FORMAT, offered));
  g_string_free (formats, TRUE);
  gst_caps_unref (ours);
}

/* Only for a size: formats are said by accept-caps, once the caps are
 * fixed. */
static void
warn_refused_size (GstFvFilter *self, GstCaps *offered)
{
  const gint max_side = GST_FV_FILTER_GET_CLASS (self)->max_side;
  for (guint i = 0; max_side > 0 && i < gst_caps_get_size (offered); i++) {
    const GstStructure *st = gst_caps_get_structure (offered, i);
    gint w = 0, h = 0;
    if (gst_structure_get_int (st, "width", &w) && gst_structure_get_int (st, "height", &h)
        && (w > max_side || h > max_side)) {
      warn_refused_caps (self, offered);
      return;
    }
  }
}

static gboolean
gst_fv_filter_query (GstBaseTransform *trans, GstPadDirection direction, GstQuery *query)
{
  if (GST_QUERY_TYPE (query) == GST_QUERY_CONTEXT
      && fv_cuda_ctx_query (GST_ELEMENT (trans), query, PRIV (GST_FV_FILTER (trans))->dev.cuda_ctx))
    return TRUE;
  gboolean ret = GST_BASE_TRANSFORM_CLASS (gst_fv_filter_parent_class)->query (trans,
      direction, query);
  if (direction == GST_PAD_SINK && GST_QUERY_TYPE (query) == GST_QUERY_ACCEPT_CAPS) {
    GstCaps *caps;
    gboolean ok;
    gst_query_parse_accept_caps (query, &caps);
    gst_query_parse_accept_caps_result (query, &ok);
    if (!ok && caps && gst_caps_is_fixed (caps))
      warn_refused_caps (GST_FV_FILTER (trans), caps);
  }
  /* upstream asks what we take for what it can give: nothing in common,
   * and what it gives is one size, is a size we cannot take (the caps
   * query fails negotiation before any accept-caps query) */
  if (direction == GST_PAD_SINK && GST_QUERY_TYPE (query) == GST_QUERY_CAPS) {
    GstCaps *filter, *result;
    gst_query_parse_caps (query, &filter);
    gst_query_parse_caps_result (query, &result);
    if (filter && result && gst_caps_is_empty (result) && !gst_caps_is_empty (filter))
      warn_refused_size (GST_FV_FILTER (trans), filter);
  }
  if (ret && direction == GST_PAD_SRC && GST_QUERY_TYPE (query) == GST_QUERY_LATENCY)
    fv_latency_add_to_query (GST_ELEMENT (trans), &PRIV (GST_FV_FILTER (trans))->latency,
        &GST_VIDEO_FILTER (trans)->in_info, query);
  return ret;
}

static gboolean
gst_fv_filter_transform_meta (GstBaseTransform *trans, GstBuffer *outbuf, GstMeta *meta,
    GstBuffer *inbuf)
{
  return fv_meta_survives_filter (meta);
}

static void
gst_fv_filter_finalize (GObject *object)
{
  GstFvFilter *self = GST_FV_FILTER (object);
  release_plans (self);
  g_free (PRIV (self)->device_ids);
  fv_device_stop (&PRIV (self)->dev);
  G_OBJECT_CLASS (gst_fv_filter_parent_class)->finalize (object);
}

/* The subclass's own class is known only here (during instance init the
 * instance still has its ancestors' classes). */
static void
gst_fv_filter_constructed (GObject *object)
{
  G_OBJECT_CLASS (gst_fv_filter_parent_class)->constructed (object);
  if (GST_FV_FILTER_GET_CLASS (object)->in_place)
    gst_base_transform_set_in_place (GST_BASE_TRANSFORM (object), TRUE);
}

/* `backend` belongs to each element's class (its values are the
 * element's own): the element's set_property and get_property are wrapped
 * so that the base class handles it, and pass every other id on. */
#define PROP_OWN_BACKEND 0x7f00

static void
own_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  GstFvFilterClass *k = g_type_class_peek (pspec->owner_type);
  if (prop_id != PROP_OWN_BACKEND) {
    k->chain_set_property (object, prop_id, value, pspec);
    return;
  }
  GstFvFilterPrivate *priv = PRIV (GST_FV_FILTER (object));
  GST_OBJECT_LOCK (object);
  priv->backend = g_value_get_enum (value);
  priv->device_changed = TRUE;
  GST_OBJECT_UNLOCK (object);
}

static void
own_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  GstFvFilterClass *k = g_type_class_peek (pspec->owner_type);
  if (prop_id != PROP_OWN_BACKEND) {
    k->chain_get_property (object, prop_id, value, pspec);
    return;
  }
  GST_OBJECT_LOCK (object);
  g_value_set_enum (value, PRIV (GST_FV_FILTER (object))->backend);
  GST_OBJECT_UNLOCK (object);
}

void
gst_fv_filter_class_install_backend (GstFvFilterClass *klass, gboolean with_hybrid)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  klass->chain_set_property = gobject_class->set_property;
  klass->chain_get_property = gobject_class->get_property;
  gobject_class->set_property = own_set_property;
  gobject_class->get_property = own_get_property;
  g_object_class_install_property (gobject_class, PROP_OWN_BACKEND,
      g_param_spec_enum ("backend", "Backend", with_hybrid
          ? "Where to compute: auto picks CUDA when a usable GPU is present; hybrid, the CPU "
          "and the GPU on alternate frames" : "Where to compute: auto picks CUDA when a "
          "usable GPU is present", with_hybrid ? GST_TYPE_FV_BACKEND_HYBRID
          : GST_TYPE_FV_BACKEND, GST_FV_BACKEND_AUTO, FV_PARAM_CONTROLLABLE));
}

void
gst_fv_filter_class_add_templates (GstFvFilterClass *klass, const gchar *caps, gint max_side)
{
  GstCaps *c = gst_caps_from_string (caps);
  c = gst_caps_make_writable (c);
  for (guint i = 0; i < gst_caps_get_size (c); i++)
    gst_structure_set (gst_caps_get_structure (c, i), "width", GST_TYPE_INT_RANGE, 1, max_side,
        "height", GST_TYPE_INT_RANGE, 1, max_side, NULL);
  klass->max_side = max_side;
  GstElementClass *ec = GST_ELEMENT_CLASS (klass);
  gst_element_class_add_pad_template (ec, gst_pad_template_new ("sink", GST_PAD_SINK,
          GST_PAD_ALWAYS, c));
  gst_element_class_add_pad_template (ec, gst_pad_template_new ("src", GST_PAD_SRC,
          GST_PAD_ALWAYS, c));
  gst_caps_unref (c);
}

static void
gst_fv_filter_class_init (GstFvFilterClass *klass)
{
  klass->has_cuda = TRUE;
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstVideoFilterClass *vf_class = GST_VIDEO_FILTER_CLASS (klass);
  const GParamFlags rw = FV_PARAM_CONTROLLABLE;

  GST_DEBUG_CATEGORY_INIT (gst_fv_filter_debug, "fvfilter", 0, "fastvision filter base");
  gobject_class->set_property = gst_fv_filter_set_property;
  gobject_class->get_property = gst_fv_filter_get_property;
  gobject_class->finalize = gst_fv_filter_finalize;
  gobject_class->constructed = gst_fv_filter_constructed;

  g_object_class_install_property (gobject_class, PROP_ACTIVE_BACKEND,
      g_param_spec_enum ("active-backend", "Active backend",
          "The backend in use (none until the element starts)",
          GST_TYPE_FV_ACTIVE_BACKEND, GST_FV_ACTIVE_BACKEND_NONE,
          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_CUDA_DEVICE_ID,
      g_param_spec_int ("cuda-device-id", "CUDA device ID",
          "CUDA device to use (-1 = the device of the CUDA context the pipeline "
          "shares, else device 0)", -1, G_MAXINT, -1, rw));
  g_object_class_install_property (gobject_class, PROP_DEVICE_ID,
      g_param_spec_int ("device-id", "Device ID",
          "Deprecated alias of cuda-device-id (reads -1 as 0)", 0, G_MAXINT, 0,
          rw | G_PARAM_DEPRECATED));
  g_object_class_install_property (gobject_class, PROP_THREADS,
      g_param_spec_uint ("threads", "Threads", "CPU threads (0 = all cores)", 0, 1024, 0, rw));
  g_object_class_install_property (gobject_class, PROP_MAX_DEVICE_MEMORY,
      g_param_spec_uint64 ("max-device-memory", "Max device memory",
          "CUDA: device memory one plane's plan may take on each device, in bytes (0 = what "
          "the device has free, less 1/16 and 64 MB); a frame that needs more is processed "
          "in overlapping chunks, exactly", 0, G_MAXUINT64, 0, rw));
  g_object_class_install_property (gobject_class, PROP_CUDA_DEVICE_IDS,
      g_param_spec_string ("cuda-device-ids", "CUDA device IDs",
          "CUDA devices one frame is spread over, in chunks: \"0\", \"0,1\", \"all\" (a "
          "device listed twice runs two chunks at once); unset: cuda-device-id alone",
          NULL, FV_PARAM_RW));

  trans_class->start = GST_DEBUG_FUNCPTR (gst_fv_filter_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_fv_filter_stop);
  trans_class->before_transform = GST_DEBUG_FUNCPTR (gst_fv_filter_before_transform);
  trans_class->propose_allocation = GST_DEBUG_FUNCPTR (gst_fv_filter_propose_allocation);
  trans_class->decide_allocation = GST_DEBUG_FUNCPTR (gst_fv_filter_decide_allocation);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_fv_filter_query);
  trans_class->transform_meta = GST_DEBUG_FUNCPTR (gst_fv_filter_transform_meta);
  trans_class->transform_caps = GST_DEBUG_FUNCPTR (gst_fv_filter_transform_caps);
  trans_class->transform = GST_DEBUG_FUNCPTR (gst_fv_filter_transform);
  trans_class->transform_ip = GST_DEBUG_FUNCPTR (gst_fv_filter_transform_ip);
  trans_class->generate_output = GST_DEBUG_FUNCPTR (gst_fv_filter_generate_output);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_fv_filter_sink_event);
  GST_ELEMENT_CLASS (klass)->set_context = GST_DEBUG_FUNCPTR (gst_fv_filter_set_context);
  vf_class->set_info = GST_DEBUG_FUNCPTR (gst_fv_filter_set_info);
  vf_class->transform_frame = GST_DEBUG_FUNCPTR (gst_fv_filter_transform_frame);
  vf_class->transform_frame_ip = GST_DEBUG_FUNCPTR (gst_fv_filter_transform_frame_ip);

  gst_type_mark_as_plugin_api (GST_TYPE_FV_FILTER, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_FV_BACKEND, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_FV_BACKEND_HYBRID, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_FV_ACTIVE_BACKEND, 0);
}

static void
gst_fv_filter_init (GstFvFilter *self)
{
  GstFvFilterPrivate *priv = PRIV (self);
  priv->backend = GST_FV_BACKEND_AUTO;
  priv->device_id = -1;
  priv->in_mem = priv->out_mem = fv_memory_kind_info (FV_MEMORY_SYSTEM);
  priv->changed = TRUE;
  g_queue_init (&priv->done);
  /* drop frames that would arrive late at a live sink */
  gst_base_transform_set_qos_enabled (GST_BASE_TRANSFORM (self), TRUE);
}
