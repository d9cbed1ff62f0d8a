/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * SECTION:element-vjdetect
 * @title: vjdetect
 *
 * Finds faces, or any object an OpenCV cascade was trained on, with the
 * Viola-Jones detector: the results of OpenCV 4.6's
 * CascadeClassifier::detectMultiScale for the same cascade and settings,
 * on all CPU cores or on an NVIDIA GPU (one launch scans every scale).
 * Cascades are OpenCV's XML files (HAAR or LBP, as in Debian's opencv-data).
 *
 * Pixels pass through untouched unless `draw` is set. Every buffer leaves
 * with one #GstVideoRegionOfInterestMeta per detection, of type `label`,
 * whose parameter structure `detection` holds `neighbors` (how many raw
 * windows were merged into the box). With `post-messages` an element
 * message named `vjdetect` goes on the bus for every frame, shaped like
 * facedetect's: `timestamp`, `stream-time`, `running-time`, `duration`
 * (#GstClockTime) and `faces`, a list of `face` structures with `x`, `y`,
 * `width`, `height` (uint). Every property can change while PLAYING; a new
 * cascade is loaded between frames, and if it cannot be, the old one stays
 * and a warning says why.
 *
 * Each frame also carries a mark of whether it was searched (a custom meta,
 * `FvDetectionMeta`, field `label`: 1 searched, 0 skipped by `interval`),
 * so that `roitrack` tells "no face" from "not looked".
 *
 * Colour formats are searched on their luma, computed as OpenCV's
 * RGB2GRAY does; YUV formats on their Y plane.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 v4l2src ! videoconvert ! vjdetect draw=true ! videoconvert ! autovideosink
 * ]| Boxes around the faces a webcam sees.
 * |[
 * gst-launch-1.0 filesrc location=clip.webm ! decodebin ! videoconvert ! \
 *     vjdetect ! satfilter roi-type=face radius=12 ! videoconvert ! vp8enc ! \
 *     webmmux ! filesink location=blurred.webm
 * ]| A privacy filter: faces blurred in the recording.
 * |[
 * gst-launch-1.0 filesrc location=clip.webm ! decodebin ! videoconvert ! \
 *     vjdetect angles=-30,-15,0,15,30 turned-interval=4 ! roitrack delay=4 ! \
 *     satfilter roi-type=face radius=12 ! videoconvert ! autovideosink
 * ]| Faces turned in the picture too: each turned angle searches the whole
 * frame every fourth frame, the angles taking turns, and in between only
 * windows around faces the upright scan no longer finds.
 * |[
 * gst-launch-1.0 filesrc location=clip.webm ! decodebin ! videoconvert ! \
 *     vjdetect angles=-30,-15,0,15,30 turned-interval=4 turned-edge=0.1 ! \
 *     roitrack delay=4 ! satfilter roi-type=face radius=12 ! videoconvert ! autovideosink
 * ]| A wide view with small faces: between their whole scans, the turned
 * angles also search bands a tenth of the frame's height wide along its
 * edges, so that a turned face walking in is found on its first frame inside.
 * |[
 * gst-launch-1.0 -m filesrc location=clip.webm ! decodebin ! videoconvert ! \
 *     vjdetect cascade=/usr/share/opencv4/lbpcascades/lbpcascade_frontalface_improved.xml \
 *     min-size-width=48 min-size-height=48 backend=cuda ! fakesink
 * ]| LBP cascade on the GPU; detections printed from the bus.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>
#include "gstvjdetect.h"
#include "gstvjdetect-private.h"
#include "fv_config.h"
#include "fv_luma.h"
#include "fv_cuda.h"
#include "fvcascades.h"
#include "fvdraw.h"
#include "fvmeta.h"
#if FV_HAVE_GST_ANALYTICS
#include <gst/analytics/analytics.h>
#endif

GST_DEBUG_CATEGORY (gst_vj_detect_debug);
#define GST_CAT_DEFAULT gst_vj_detect_debug

#define MAX_ANGLES 64
/* docs/vjdetect.md ("Turned faces") measures it */
#define DEFAULT_TURNED_MIN_NEIGHBORS 8
#define ANGLES_RULE "a list of 1 to 64 angles in degrees, each in -90..90, separated by commas"
#define DEFAULT_LABEL "face"

enum {
  PROP_0,
  PROP_CASCADE,
  PROP_SCALE_FACTOR,
  PROP_MIN_NEIGHBORS,
  PROP_MIN_WIDTH,
  PROP_MIN_HEIGHT,
  PROP_MAX_WIDTH,
  PROP_MAX_HEIGHT,
  PROP_LABEL,
  PROP_DRAW,
  PROP_POST_MESSAGES,
  PROP_PROFILE,
  PROP_DISPLAY,
  PROP_UPDATES,
  PROP_MESSAGE_NAME,
  PROP_INTERVAL,
  PROP_ANGLES,
  PROP_TURNED_MIN_NEIGHBORS,
  PROP_TURNED_INTERVAL,
  PROP_TURNED_AGREEMENT,
  PROP_TURNED_EDGE,
};

#define FORMATS "{ GRAY8, I420, NV12, Y444, RGB, BGR, RGBA, BGRA, RGBx, BGRx }"
#define CUDA_FORMATS "{ I420, NV12, Y444, RGB, BGR, RGBA, BGRA, RGBx, BGRx }"

#define gst_vj_detect_parent_class parent_class
G_DEFINE_TYPE (GstVjDetect, gst_vj_detect, GST_TYPE_FV_FILTER);
GST_ELEMENT_REGISTER_DEFINE (vjdetect, "vjdetect", GST_RANK_NONE, GST_TYPE_VJ_DETECT);

static gboolean
gst_vj_detect_validate (GstFvFilter *filter)
{
  GstVjDetect *self = GST_VJ_DETECT (filter);
  GST_OBJECT_LOCK (self);
  gchar *refused = g_strdup (self->angles_refused);
  GST_OBJECT_UNLOCK (self);
  if (refused) {   /* a privacy setting that cannot be honoured is no warning */
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS, ("Invalid angles %s: " ANGLES_RULE ".",
            refused), ("the element would otherwise scan upright only"));
    g_free (refused);
    return FALSE;
  }
  gchar *path;
  const fv_cascade *c = gst_vj_detect_load_cascade (self, FALSE, &path);
  if (!c)
    return FALSE;
  fv_vj_plan_destroy (self->plan);   /* none after a stop; made from the old cascade */
  self->plan = NULL;
  gst_vj_detect_use_cascade (self, c, path);
  return TRUE;
}

static void
gst_vj_detect_release (GstFvFilter *filter)
{
  GstVjDetect *self = GST_VJ_DETECT (filter);
  fv_vj_plan_destroy (self->plan);
  self->plan = NULL;
  fv_scratch_free (&self->gray);
  fv_vj_turns_destroy (self->turns);
  self->turns = NULL;
}

static gboolean
gst_vj_detect_rebuild (GstFvFilter *filter, const GstFvRebuild *r)
{
  GstVjDetect *self = GST_VJ_DETECT (filter);
  const GstVideoInfo *info = &GST_VIDEO_FILTER (self)->in_info;
  const FvDevice *dev = r->dev;
  const int threads = (int) r->threads;
  GST_OBJECT_LOCK (self);
  gboolean reload = self->cascade_changed;
  fv_vj_params p = { .frame.width = GST_VIDEO_INFO_WIDTH (info),
      .frame.height = GST_VIDEO_INFO_HEIGHT (info), .scale_factor = self->scale_factor,
      .min_neighbors = self->min_neighbors, .min_width = self->min_width,
      .min_height = self->min_height, .max_width = self->max_width,
      .max_height = self->max_height, .frame.threads = threads };
  GST_OBJECT_UNLOCK (self);
  /* a new cascade: one that cannot be loaded while one is in use leaves
   * that one, with its own warning (gst_vj_detect_load_cascade) */
  const fv_cascade *fresh = NULL;
  gchar *fresh_path = NULL;
  if ((reload || !self->cascade) && !(fresh = gst_vj_detect_load_cascade (self, TRUE, &fresh_path))
      && !self->cascade)
    return FALSE;
  /* made beside the plan in use, which goes only once this one is made */
  fv_vj_plan *plan = NULL;
  const gsize gray_stride = GST_ROUND_UP_64 (p.frame.width);
  p.frame.spread = r->spread;
  fv_status st = fv_vj_plan_create (&plan, fresh ? fresh : self->cascade, &p, dev->active,
      dev->stream_device, dev->stream);
  if (st != FV_OK)
    gst_fv_filter_refuse (filter, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_FAILED,
        fv_last_error (), "Cannot set up %s detection for %dx%d frames: %s.",
        fv_device_is_cuda (dev) ? "CUDA" : "CPU", p.frame.width, p.frame.height,
            gst_fv_filter_why (st));
  /* RGB frames: their luma beside them */
  else if (!gst_fv_filter_check_memory (filter, fv_vj_plan_bytes (plan),
          GST_VIDEO_INFO_IS_RGB (info) ? gray_stride * (gsize) p.frame.height : 0))
    st = FV_ERR_NOMEM;
  if (st != FV_OK) {
    fv_vj_plan_destroy (plan);
    if (fresh) {   /* the cascade in use stays, and the property says so */
      fv_cascades_put (fresh);
      g_free (fresh_path);
      if (self->cascade)
        gst_vj_detect_read_back_cascade (self);
    }
    return FALSE;
  }
  gst_vj_detect_release (filter);
  if (fresh)
    gst_vj_detect_use_cascade (self, fresh, fresh_path);
  self->plan = plan;
  self->gray_stride = gray_stride;
  GST_OBJECT_LOCK (self);
  self->frames = 0;   /* a (re)start: the first frame is searched */
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}

/* The frame's luma as a kernel image: the Y (or grey) plane itself, or the
 * luma computed into self->gray. */
static gboolean
luma_of (GstVjDetect *self, GstVideoFrame *f, fv_image *out)
{
  const FvPlaneLayout *layout = gst_fv_filter_layout (GST_FV_FILTER (self));
  const FvDevice *dev = gst_fv_base_device (GST_FV_BASE (self));
  fv_image plane = fv_plane_image (layout, f, 0);
  if (!GST_VIDEO_INFO_IS_RGB (&f->info)) {   /* the Y or grey plane itself */
    *out = plane;
    return TRUE;
  }
  /* computed beside the frame: on the device for CUDA frames */
  const gsize size = self->gray_stride * plane.height;
  const gboolean on_device = plane.mem == FV_MEM_DEVICE;
  if (!(on_device ? fv_scratch_ensure_device (&self->gray, size)
          : fv_scratch_ensure (&self->gray, size, fv_device_is_cuda (dev)))) {
    fv_set_last_error ("cannot allocate the luma of %dx%d frames", plane.width, plane.height);
    return FALSE;
  }
  const GstVideoFormatInfo *fi = f->info.finfo;
  const int r = GST_VIDEO_FORMAT_INFO_POFFSET (fi, 0), g = GST_VIDEO_FORMAT_INFO_POFFSET (fi, 1),
      b = GST_VIDEO_FORMAT_INFO_POFFSET (fi, 2);
  *out = fv_image_make (self->gray.data, self->gray_stride, plane.width, plane.height, 1, FV_U8,
      plane.mem);
#if FV_HAVE_CUDA
  if (on_device)
    return fv_luma_from_rgb_cuda (&plane, r, g, b, out, dev->stream) == FV_OK;
#endif
  return fv_luma_from_rgb (&plane, r, g, b, out,
      (int) gst_fv_base_threads (GST_FV_BASE (self))) == FV_OK;
}

#if FV_HAVE_GST_ANALYTICS
/* A box's location confidence for its OD Mtd: n merged raw windows give
 * n / (n + min-neighbors), so a box with just enough windows to be kept has
 * 0.5 and one with many nears 1 (with min-neighbors 0: n / (n + 1)). */
static gfloat
location_confidence (gint neighbors, gint min_neighbors)
{
  return (gfloat) neighbors / (gfloat) (neighbors + MAX (1, min_neighbors));
}
#endif


/* Parses "a,b,c" (degrees, each in [-90, 90]); NULL when it does not. */
static GArray *
parse_angles (const gchar *text)
{
  GArray *a = g_array_new (FALSE, FALSE, sizeof (gdouble));
  gchar **parts = g_strsplit (text ? text : "0", ",", -1);
  gboolean ok = parts[0] != NULL;
  for (gchar **p = parts; ok && *p; p++) {
    gchar *end;
    const gdouble v = g_ascii_strtod (g_strstrip (*p), &end);
    ok = end != *p && *end == '\0' && v >= -90 && v <= 90 && a->len < MAX_ANGLES;
    g_array_append_val (a, v);
  }
  g_strfreev (parts);
  if (!ok)
    g_clear_pointer (&a, g_array_unref);
  return a;
}

/* Detection at each angle (fv_vj_turned.h), through the turned scans made
 * for this plan and these settings (again when either changed). The boxes
 * go to *out and their angles to *out_angles. */
static fv_status
detect_turned (GstVjDetect *self, const fv_image *gray, const fv_vj_turn_params *tp,
    GArray **out, GArray **out_angles)
{
  const FvDevice *dev = gst_fv_base_device (GST_FV_BASE (self));
  /* a new plan comes with the turned scans released (gst_vj_detect_release) */
  if (!self->turns || memcmp (&self->turns_params, tp, sizeof *tp)) {
    fv_vj_turns_destroy (self->turns);
    self->turns = NULL;
    fv_status st = fv_vj_turns_create (&self->turns, self->plan, tp, dev->stream_device,
        dev->stream);
    if (st != FV_OK)
      return st;
    self->turns_params = *tp;
  }
  const fv_vj_turned_det *d;
  gint n;
  fv_status st = fv_vj_turns_execute (self->turns, gray, &d, &n);
  if (st != FV_OK)
    return st;
  const fv_vj_turn_stats ts = fv_vj_turns_stats (self->turns);
  GST_LOG_OBJECT (self, "turned scans: %d whole, %d steered to %d windows, %d boxes "
      "remembered", ts.whole_scans, ts.steered_scans, ts.windows, ts.remembered);
  *out = g_array_sized_new (FALSE, FALSE, sizeof (fv_detection), n);
  *out_angles = g_array_sized_new (FALSE, FALSE, sizeof (gdouble), n);
  for (gint i = 0; i < n; i++) {
    const fv_detection e = { d[i].box, d[i].neighbors };
    g_array_append_val (*out, e);
    g_array_append_val (*out_angles, d[i].angle);
  }
  return FV_OK;
}

static GstFlowReturn
gst_vj_detect_process_ip (GstFvFilter *filter, GstVideoFrame *frame)
{
  GstVjDetect *self = GST_VJ_DETECT (filter);
  fv_image gray;
  const fv_detection *d = NULL;
  gint n = 0;
  fv_status st = FV_ERR_INVALID;
  /* the frame's settings, read once */
  GST_OBJECT_LOCK (self);
  const gboolean skip = self->frames++ % self->interval != 0;
  gchar *label = g_strdup (self->label ? self->label : DEFAULT_LABEL);
  GArray *angles = self->angles && !(self->angles->len == 1
          && g_array_index (self->angles, gdouble, 0) == 0) ? g_array_ref (self->angles) : NULL;
  /* draw turned on after the frame was mapped read-only: from the next one */
  gboolean draw = self->draw && (frame->map[0].flags & GST_MAP_WRITE),
      post = self->post_messages;
  const gint updates = self->updates;
  fv_vj_turn_params tp;   /* compared bytewise: padding zeroed too */
  memset (&tp, 0, sizeof tp);
  tp.turned_min_neighbors = self->turned_min_neighbors;
  tp.interval = (int) self->turned_interval;
  tp.agreement = (int) self->turned_agreement;
  tp.edge = self->turned_edge;
  if (angles) {
    tp.nangles = (int) MIN (angles->len, FV_VJ_MAX_ANGLES);
    for (gint k = 0; k < tp.nangles; k++)
      tp.angles[k] = g_array_index (angles, gdouble, k);
  }
#if FV_HAVE_GST_ANALYTICS
  const gint min_neighbors = self->min_neighbors;
#endif
  gchar *message_name = g_strdup (self->message_name ? self->message_name : "vjdetect");
  GST_OBJECT_UNLOCK (self);
  GArray *turns = NULL, *turn_angles = NULL;
  if (skip) {
    /* marked either way: a tracker downstream tells "nothing found" from
     * "not searched" (roitrack carries its tracks over skipped frames) */
    fv_meta_mark_detection (frame->buffer, label, FALSE, GST_VIDEO_FRAME_WIDTH (frame),
        GST_VIDEO_FRAME_HEIGHT (frame));
    goto done;
  }
  if (luma_of (self, frame, &gray)) {
    if (angles) {   /* upright only: OpenCV's boxes exactly, unmerged */
      st = detect_turned (self, &gray, &tp, &turns, &turn_angles);
      d = turns ? (const fv_detection *) turns->data : NULL;
      n = turns ? (gint) turns->len : 0;
    } else {
      st = fv_vj_execute (self->plan, &gray, &d, &n);
    }
  }
  if (st != FV_OK) {
    gst_fv_filter_frame_failed (GST_FV_FILTER (self), st, "Detection failed");
    goto done;
  }
  GST_LOG_OBJECT (self, "%d detections", n);
  const gint first_id = fv_meta_next_roi_id (frame->buffer);
#if FV_HAVE_GST_ANALYTICS
  /* one object-detection Mtd a box too; the ROI meta takes its id */
  GstAnalyticsRelationMeta *rmeta = NULL;
  if (n > 0 && !(rmeta = gst_buffer_get_analytics_relation_meta (frame->buffer)))
    rmeta = gst_buffer_add_analytics_relation_meta (frame->buffer);
  const GQuark label_q = g_quark_from_string (label);
#endif
  gint *ids = g_new (gint, MAX (n, 1));
  for (gint i = 0; i < n; i++) {
    const fv_rect *r = &d[i].box;
    GstVideoRegionOfInterestMeta *m = gst_buffer_add_video_region_of_interest_meta (frame->buffer,
        label, r->x, r->y, r->width, r->height);
    m->id = first_id + i;
#if FV_HAVE_GST_ANALYTICS
    GstAnalyticsODMtd od;
    if (rmeta && gst_analytics_relation_meta_add_od_mtd (rmeta, label_q, r->x, r->y, r->width,
            r->height, location_confidence (d[i].neighbors, min_neighbors), &od))
      m->id = (gint) gst_analytics_mtd_get_id ((GstAnalyticsMtd *) &od);
#endif
    gst_video_region_of_interest_meta_add_param (m, gst_structure_new ("detection",
            "neighbors", G_TYPE_INT, d[i].neighbors, "angle", G_TYPE_DOUBLE,
            turn_angles ? g_array_index (turn_angles, gdouble, i) : 0.0, NULL));
    ids[i] = m->id;
    if (draw)
      fv_draw_box (frame, r->x, r->y, r->width, r->height, MAX (2, MIN (r->width, r->height) / 48),
          gst_fv_base_device (GST_FV_BASE (filter))->stream);
  }
  /* searched, vouching for the regions it holds now: one that an element
   * between here and a tracker drops makes the tracker fail closed */
  fv_meta_mark_detection (frame->buffer, label, TRUE, GST_VIDEO_FRAME_WIDTH (frame),
      GST_VIDEO_FRAME_HEIGHT (frame));
  if (gst_vj_detect_message_due (self, updates, n) && post)
    gst_vj_detect_post_message (self, frame->buffer, message_name, d, ids, n, label);
  g_free (ids);
done:
  g_free (message_name);
  g_free (label);
  if (angles)
    g_array_unref (angles);
  if (turns)
    g_array_unref (turns);
  if (turn_angles)
    g_array_unref (turn_angles);
  return st == FV_OK || skip ? GST_FLOW_OK : GST_FLOW_ERROR;
}

/* Pixels change only when boxes are drawn. */
static gboolean
gst_vj_detect_writes_in_place (GstFvBase *filter)
{
  GST_OBJECT_LOCK (filter);
  gboolean draw = GST_VJ_DETECT (filter)->draw;
  GST_OBJECT_UNLOCK (filter);
  return draw;
}

static void
gst_vj_detect_set_property (GObject *object, guint prop_id, const GValue *value,
    GParamSpec *pspec)
{
  GstVjDetect *self = GST_VJ_DETECT (object);
  gboolean replan = TRUE;
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_CASCADE:
    case PROP_PROFILE:   /* facedetect's name for it */
      g_free (self->cascade_path);
      self->cascade_path = gst_fv_dup_nonempty (value);
      self->cascade_changed = TRUE;   /* the rebuild before the next frame loads it */
      break;
    case PROP_SCALE_FACTOR: self->scale_factor = g_value_get_double (value); break;
    case PROP_MIN_NEIGHBORS: self->min_neighbors = g_value_get_int (value); break;
    case PROP_MIN_WIDTH: self->min_width = g_value_get_int (value); break;
    case PROP_MIN_HEIGHT: self->min_height = g_value_get_int (value); break;
    case PROP_MAX_WIDTH: self->max_width = g_value_get_int (value); break;
    case PROP_MAX_HEIGHT: self->max_height = g_value_get_int (value); break;
    case PROP_LABEL:
      g_free (self->label);
      self->label = gst_fv_dup_nonempty (value);
      replan = FALSE;
      break;
    case PROP_DRAW:
    case PROP_DISPLAY:   /* facedetect's name for it */
      self->draw = g_value_get_boolean (value);
      replan = FALSE;
      break;
    case PROP_POST_MESSAGES: self->post_messages = g_value_get_boolean (value); replan = FALSE; break;
    case PROP_UPDATES: self->updates = g_value_get_enum (value); replan = FALSE; break;
    case PROP_MESSAGE_NAME:
      g_free (self->message_name);
      self->message_name = gst_fv_dup_nonempty (value);
      replan = FALSE;
      break;
    case PROP_INTERVAL: self->interval = g_value_get_uint (value); replan = FALSE; break;
    case PROP_TURNED_INTERVAL:
      self->turned_interval = g_value_get_uint (value);
      replan = FALSE;
      break;
    case PROP_TURNED_AGREEMENT:
      self->turned_agreement = g_value_get_uint (value);
      replan = FALSE;
      break;
    case PROP_TURNED_EDGE:
      self->turned_edge = g_value_get_double (value);
      replan = FALSE;
      break;
    case PROP_TURNED_MIN_NEIGHBORS:
      self->turned_min_neighbors = g_value_get_int (value);
      replan = FALSE;
      break;
    case PROP_ANGLES: {
      GArray *a = parse_angles (g_value_get_string (value));
      replan = FALSE;
      g_clear_pointer (&self->angles_refused, g_free);
      if (!a) {   /* the old list stays */
        gchar *shown = gst_vj_detect_shown_text (g_value_get_string (value));
        if (GST_STATE (self) < GST_STATE_PAUSED) {
          /* no bus may be there to see a warning: the start fails instead */
          self->angles_refused = shown;
          break;
        }
        GST_OBJECT_UNLOCK (self);
        GST_ELEMENT_WARNING (self, RESOURCE, SETTINGS, ("Invalid angles %s: " ANGLES_RULE
                " (the list in use stays).", shown), (NULL));
        g_free (shown);
        GST_OBJECT_LOCK (self);
        break;
      }
      if (self->angles)
        g_array_unref (self->angles);
      self->angles = a;
      g_free (self->angles_text);
      self->angles_text = g_value_dup_string (value);
      break;
    }
    default:
      replan = FALSE;
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
  if (replan)
    gst_fv_base_mark_changed (GST_FV_BASE (self));
}

static void
gst_vj_detect_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  GstVjDetect *self = GST_VJ_DETECT (object);
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_CASCADE:
    case PROP_PROFILE:
      g_value_set_string (value, self->cascade_path ? self->cascade_path : DEFAULT_CASCADE);
      break;
    case PROP_SCALE_FACTOR: g_value_set_double (value, self->scale_factor); break;
    case PROP_MIN_NEIGHBORS: g_value_set_int (value, self->min_neighbors); break;
    case PROP_MIN_WIDTH: g_value_set_int (value, self->min_width); break;
    case PROP_MIN_HEIGHT: g_value_set_int (value, self->min_height); break;
    case PROP_MAX_WIDTH: g_value_set_int (value, self->max_width); break;
    case PROP_MAX_HEIGHT: g_value_set_int (value, self->max_height); break;
    case PROP_LABEL: g_value_set_string (value, self->label ? self->label : DEFAULT_LABEL); break;
    case PROP_DRAW:
    case PROP_DISPLAY: g_value_set_boolean (value, self->draw); break;
    case PROP_POST_MESSAGES: g_value_set_boolean (value, self->post_messages); break;
    case PROP_UPDATES: g_value_set_enum (value, self->updates); break;
    case PROP_MESSAGE_NAME:
      g_value_set_string (value, self->message_name ? self->message_name : "vjdetect");
      break;
    case PROP_INTERVAL: g_value_set_uint (value, self->interval); break;
    case PROP_TURNED_INTERVAL: g_value_set_uint (value, self->turned_interval); break;
    case PROP_TURNED_AGREEMENT: g_value_set_uint (value, self->turned_agreement); break;
    case PROP_TURNED_EDGE: g_value_set_double (value, self->turned_edge); break;
    case PROP_TURNED_MIN_NEIGHBORS: g_value_set_int (value, self->turned_min_neighbors); break;
    case PROP_ANGLES: g_value_set_string (value, self->angles_text ? self->angles_text : "0"); break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_vj_detect_finalize (GObject *object)
{
  GstVjDetect *self = GST_VJ_DETECT (object);
  G_OBJECT_CLASS (parent_class)->finalize (object);   /* releases the plan first */
  fv_cascades_put (self->cascade);
  g_free (self->loaded_path);
  g_free (self->cascade_path);
  g_free (self->label);
  g_free (self->message_name);
  g_free (self->angles_text);
  g_free (self->angles_refused);
  if (self->angles)
    g_array_unref (self->angles);
}

static void
gst_vj_detect_class_init (GstVjDetectClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstFvFilterClass *fv_class = GST_FV_FILTER_CLASS (klass);
  const GParamFlags rw = FV_PARAM_CONTROLLABLE;

  GST_DEBUG_CATEGORY_INIT (gst_vj_detect_debug, "vjdetect", 0, "Viola-Jones detection");
  GST_FV_BASE_CLASS (klass)->debug = gst_vj_detect_debug;
  gobject_class->set_property = gst_vj_detect_set_property;
  gobject_class->get_property = gst_vj_detect_get_property;
  gobject_class->finalize = gst_vj_detect_finalize;

  g_object_class_install_property (gobject_class, PROP_CASCADE,
      g_param_spec_string ("cascade", "Cascade",
          "OpenCV cascade XML file (HAAR or LBP, opencv-cascade-classifier format)",
          DEFAULT_CASCADE, FV_PARAM_RW));
  g_object_class_install_property (gobject_class, PROP_SCALE_FACTOR,
      g_param_spec_double ("scale-factor", "Scale factor",
          "Size ratio between neighbouring scales searched", 1.001, 10.0, 1.1, rw));
  g_object_class_install_property (gobject_class, PROP_MIN_NEIGHBORS,
      g_param_spec_int ("min-neighbors", "Minimum neighbours",
          "Raw windows a box needs to be kept, more than this (0 = every raw window)",
          0, 1000, 3, rw));
  /* the four size bounds: the same type and range */
  static const struct { guint id; const gchar *name, *nick, *blurb; } sizes[] = {
    {PROP_MIN_WIDTH, "min-size-width", "Minimum width",
      "Smallest box width searched (0 = the cascade's window)"},
    {PROP_MIN_HEIGHT, "min-size-height", "Minimum height",
      "Smallest box height searched (0 = the cascade's window)"},
    {PROP_MAX_WIDTH, "max-size-width", "Maximum width", "Largest box width searched (0 = no limit)"},
    {PROP_MAX_HEIGHT, "max-size-height", "Maximum height",
      "Largest box height searched (0 = no limit)"},
  };
  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    g_object_class_install_property (gobject_class, sizes[i].id, g_param_spec_int (sizes[i].name,
        sizes[i].nick, sizes[i].blurb, 0, G_MAXINT, 0, rw));
  g_object_class_install_property (gobject_class, PROP_LABEL,
      g_param_spec_string ("label", "Label",
          "Type of the region-of-interest metas added for detections", DEFAULT_LABEL, FV_PARAM_RW));
  g_object_class_install_property (gobject_class, PROP_DRAW,
      g_param_spec_boolean ("draw", "Draw", "Draw the boxes into the frame", FALSE, rw));
  g_object_class_install_property (gobject_class, PROP_POST_MESSAGES,
      g_param_spec_boolean ("post-messages", "Post messages",
          "Post a \"vjdetect\" element message with the boxes (when: updates)", TRUE, rw));
  /* facedetect's names (gst-plugins-bad), where the meaning is the same */
  g_object_class_install_property (gobject_class, PROP_PROFILE,
      g_param_spec_string ("profile", "Profile", "facedetect's name for cascade (the same "
          "property)", DEFAULT_CASCADE, FV_PARAM_RW));
  g_object_class_install_property (gobject_class, PROP_DISPLAY,
      g_param_spec_boolean ("display", "Display", "facedetect's name for draw (the same "
          "property)", FALSE, rw));
  g_object_class_install_property (gobject_class, PROP_UPDATES,
      g_param_spec_enum ("updates", "Updates", "When the message is posted, as facedetect's "
          "updates", GST_TYPE_VJ_DETECT_UPDATES, VJ_UPDATES_EVERY_FRAME, rw));
  g_object_class_install_property (gobject_class, PROP_MESSAGE_NAME,
      g_param_spec_string ("message-name", "Message name", "Name of the element message: "
          "\"vjdetect\", or \"facedetect\" for applications that match on it", "vjdetect",
          FV_PARAM_RW));

  g_object_class_install_property (gobject_class, PROP_INTERVAL,
      g_param_spec_uint ("interval", "Interval", "Detect on every N-th frame only (the "
          "first, then every N-th); the frames between pass without boxes, marked as not "
          "searched, for roitrack to carry its tracks over", 1, 1000, 1, FV_PARAM_CONTROLLABLE));

  g_object_class_install_property (gobject_class, PROP_ANGLES,
      g_param_spec_string ("angles", "Angles", "Also scan the frame turned about its centre by "
          "each of these angles (degrees, comma-separated, -90..90; positive finds faces "
          "turned clockwise); boxes map back as axis-aligned rectangles and overlapping ones "
          "of different turns merge. \"0\": upright only, OpenCV's boxes exactly", "0",
          FV_PARAM_RW));
  g_object_class_install_property (gobject_class, PROP_TURNED_MIN_NEIGHBORS,
      g_param_spec_int ("turned-min-neighbors", "Turned min neighbors", "A turned scan's box "
          "(angles other than 0) is kept only when at least this many raw windows make it "
          "up (the upright scan keeps min-neighbors'): each turn adds a whole scan's false "
          "detections. 0: as the upright scan", 0, 1000, DEFAULT_TURNED_MIN_NEIGHBORS,
          FV_PARAM_RW));

  g_object_class_install_property (gobject_class, PROP_TURNED_INTERVAL,
      g_param_spec_uint ("turned-interval", "Turned interval", "Each turned angle (angles "
          "other than 0) scans the whole frame once every N searched frames, the angles "
          "staggered over them; in between it scans only windows around faces seen in the "
          "last N searches that the upright scan does not find again (steered: the same "
          "boxes as a whole scan there). 1: every angle whole on every searched frame",
          1, FV_VJ_MAX_INTERVAL, 1, FV_PARAM_CONTROLLABLE));

  g_object_class_install_property (gobject_class, PROP_TURNED_AGREEMENT,
      g_param_spec_uint ("turned-agreement", "Turned agreement", "A box that only turned "
          "scans see is reported once scans at this many different angles see it in one "
          "frame (with turned-interval > 1, the frame after its first whole scan, when the "
          "window around it is scanned at every angle). 1: every turned box",
          1, FV_VJ_MAX_ANGLES, 1, FV_PARAM_CONTROLLABLE));

  g_object_class_install_property (gobject_class, PROP_TURNED_EDGE,
      g_param_spec_double ("turned-edge", "Turned edge", "With turned-interval > 1, each "
          "turned angle also scans, between its whole scans, the bands along the frame's "
          "four edges this share of the frame's shorter side wide, for faces up to that "
          "width: a turned face entering the frame is found on its first searched frame "
          "inside instead of at its angle's next whole scan. 0: none",
          0, FV_VJ_MAX_EDGE, 0, FV_PARAM_CONTROLLABLE));

  gst_type_mark_as_plugin_api (GST_TYPE_VJ_DETECT_UPDATES, 0);
  gst_element_class_set_static_metadata (element_class, "Viola-Jones detector",
      "Filter/Analyzer/Video",
      "Finds faces or other objects with an OpenCV cascade, as OpenCV's detectMultiScale, "
      "on the CPU or an NVIDIA GPU", FV_AUTHOR);
  gst_fv_base_class_add_templates (GST_FV_BASE_CLASS (klass),
      FV_FILTER_CAPS (FORMATS, CUDA_FORMATS), FV_VJ_MAX_SIDE);

  GstFvBaseClass *base_class = GST_FV_BASE_CLASS (klass);
  base_class->in_place = TRUE;   /* pixels change only when drawing */
  base_class->writes_in_place = GST_DEBUG_FUNCPTR (gst_vj_detect_writes_in_place);
  fv_class->process_ip = GST_DEBUG_FUNCPTR (gst_vj_detect_process_ip);
  fv_class->rebuild = GST_DEBUG_FUNCPTR (gst_vj_detect_rebuild);
  fv_class->release = GST_DEBUG_FUNCPTR (gst_vj_detect_release);
  fv_class->validate = GST_DEBUG_FUNCPTR (gst_vj_detect_validate);
  gst_fv_base_class_install_backend (GST_FV_BASE_CLASS (klass), FALSE);
}

static void
gst_vj_detect_init (GstVjDetect *self)
{
  self->scale_factor = 1.1;
  self->min_neighbors = 3;
  self->turned_min_neighbors = DEFAULT_TURNED_MIN_NEIGHBORS;
  self->post_messages = TRUE;
  self->last_count = -1;
  self->interval = 1;
  self->turned_interval = 1;
  self->turned_agreement = 1;
}
