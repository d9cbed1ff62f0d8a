/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * SECTION:element-roitrack
 * @title: roitrack
 *
 * Tracks the regions of interest of one type (`roi-type`, default `face`)
 * across frames, so that a privacy filter downstream does not blink off
 * when the detector misses a face for a frame or two. In place, any video
 * caps and any memory: the frame is never mapped, only its metas change.
 *
 * Each frame, the detections are the frame's #GstVideoRegionOfInterestMeta
 * of that type (and, on GStreamer 1.24 and later, its analytics OD Mtds of
 * that type whose ids no ROI meta already has). Every track's box is first
 * moved along its velocity (the predicted path); each detection then goes to
 * the track whose predicted box it overlaps most (intersection over union
 * at least `min-iou`, best pairs first, one detection a track), and takes
 * its place: the track's velocity becomes the mean of its last velocity and
 * the centre's displacement since its previous detection. A detection that
 * matches no track starts one, with a new id (ids count up from 1 and are
 * never reused while the element runs). Detections overlapping by half the
 * smaller box are one object first, and a detection half inside a track's
 * box (or around it) continues it: one track a face. A new track is
 * tentative until `confirm` detections (or one with `confirm-neighbors`
 * neighbours) confirm it: it does not coast, grow or reach an edge, and
 * with `delay` its boxes are shown only once it is confirmed within the
 * held frames (a one-off false detection blurs nothing). A confirmed track
 * that the detector searched for and did not find keeps coasting along
 * its path, its box growing by `grow` of its last detected size a frame
 * (for no more frames than it was detected in, at most 1.5 times), for
 * `hold` searched frames (`hold-once` for a track detected in one frame
 * only); after that it ends. The ROI meta's id is the track's id, and the
 * detector's `detection` param goes with the box.
 *
 * The frame's ROI metas of that type are then replaced by one a track: the
 * track's box, each side pushed out by `margin` of its width (height),
 * clipped to the frame, with a parameter structure `track` holding `id`,
 * `age` (frames since the track began) and `lost` (frames since its last
 * detection, 0 when detected in this frame).
 *
 * Frames the detector skipped on purpose (vjdetect `interval`) carry the
 * tracks along their paths without counting against `hold`. With
 * `fail-closed` (the default), a frame that no detector of that type marked
 * as searched (the first frames before the detector runs, a branch that
 * bypassed it, a detector without the mark) gets one more box, the whole
 * frame, so nothing leaves unblurred; a warning says so once, since a
 * detector that never marks frames (not vjdetect) then blurs everything:
 * set `fail-closed=false` for those (a frame nobody marked is then taken as
 * searched, so their regions are tracked).
 *
 * On GStreamer 1.24 and later each box also gets an object-detection Mtd
 * and a tracking Mtd (the track's id) related to it, for analytics
 * consumers. The tracker itself is kernels/track (fv_track.h): this
 * element maps metas in and out.
 *
 * With `delay` = N (default 0), the element holds N frames back, so that a
 * track's first detection also reaches the N frames before it: in each of
 * them the track gets a box moved back along its path (the displacement
 * between its first two detections, per frame; none yet: in place), growing
 * by `grow` a frame back as a coasting box does. A face entering the frame
 * or turning towards the camera, which a detector finds only once most of it
 * shows, is then blurred from the frame it appeared in. The latency query
 * reports the N frames (N frame durations of the caps' frame rate); a
 * serialized event (end of stream, new caps or segment) first sends the
 * held frames on, a flush drops them.
 *
 * With `post-messages` an element message named `roitrack` goes on the bus
 * for every frame, shaped like vjdetect's (and facedetect's): the frame's
 * times and `faces`, a list of `face` structures with `x`, `y`, `width`,
 * `height`, `id`, `age` and `lost` (a box moved back before a track's first
 * detection: `age` 0, `lost` 0 and `early`, the frames before it); also
 * `searched` (1, 0 skipped, -1 not marked) and `fail-closed` (boolean). With
 * `delay` the message leaves with its frame.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 filesrc location=clip.webm ! decodebin ! videoconvert ! \
 *     vjdetect ! roitrack ! satfilter roi-type=face radius=12 ! videoconvert ! \
 *     vp8enc ! webmmux ! filesink location=blurred.webm
 * ]| The privacy filter with tracking: a face the detector misses for a
 * few frames stays blurred.
 * |[
 * gst-launch-1.0 v4l2src ! videoconvert ! vjdetect interval=3 ! \
 *     roitrack hold=30 margin=0.2 ! satfilter roi-type=face radius=12 ! \
 *     videoconvert ! autovideosink
 * ]| Detection on every third frame only, the tracker carrying the boxes
 * between (for a slow machine).
 * |[
 * gst-launch-1.0 filesrc location=clip.webm ! decodebin ! videoconvert ! \
 *     vjdetect angles=-30,-15,0,15,30 ! roitrack delay=3 ! \
 *     satfilter roi-type=face radius=12 ! videoconvert ! autovideosink
 * ]| The settings docs/privacy.md recommends where exposure matters most:
 * turned faces searched too, and three frames of latency so that faces are
 * blurred from the frame they enter.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>
#include <gst/gst.h>
#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>
#include "fv_config.h"
#include "fvlatency.h"
#include "fvhold.h"
#include "fvmeta.h"
#include "fv_track.h"
#if FV_HAVE_GST_ANALYTICS
#include <gst/analytics/analytics.h>
#endif

GST_DEBUG_CATEGORY_STATIC (gst_roi_track_debug);
#define GST_CAT_DEFAULT gst_roi_track_debug

#define GST_TYPE_ROI_TRACK (gst_roi_track_get_type ())
G_DECLARE_FINAL_TYPE (GstRoiTrack, gst_roi_track, GST, ROI_TRACK, GstBaseTransform)

#define DEFAULT_ROI_TYPE "face"
/* frames without a mark before the warning that every frame is blurred */
#define UNMARKED_WARNING 30

struct _GstRoiTrack {
  GstBaseTransform parent;
  /* properties, under the object lock */
  gchar *roi_type;
  fv_track_params params;
  gboolean post_messages;
  /* streaming */
  fv_tracker *tracker;     /* the algorithm (kernels/track) */
  FvHold held;             /* of GstBuffer *, in step with the tracker's frames,
                            * with the latency they add (fvhold.h) */
  GstVideoInfo info;
  guint unmarked;          /* frames in a row without a detector's mark */
  gboolean warned;
  gboolean warned_dropped; /* the warning for a frame whose regions went missing */
  gboolean warned_overflow;
};

enum {
  PROP_0,
  PROP_ROI_TYPE,
  PROP_HOLD,
  PROP_HOLD_ONCE,
  PROP_MARGIN,
  PROP_GROW,
  PROP_MIN_IOU,
  PROP_FAIL_CLOSED,
  PROP_POST_MESSAGES,
  PROP_DELAY,
  PROP_CONFIRM,
  PROP_CONFIRM_NEIGHBORS,
};

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS ("video/x-raw(ANY)"));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS ("video/x-raw(ANY)"));

#define gst_roi_track_parent_class parent_class
G_DEFINE_TYPE (GstRoiTrack, gst_roi_track, GST_TYPE_BASE_TRANSFORM);
GST_ELEMENT_REGISTER_DEFINE (roitrack, "roitrack", GST_RANK_NONE, GST_TYPE_ROI_TRACK);

/* The frame's detections of type q (fv_meta_regions_of_type), as boxes. */
static GArray *
detections (GstBuffer *buf, GQuark q)
{
  GArray *rects = fv_meta_detections_of_type (buf, q);
  GArray *out = g_array_sized_new (FALSE, FALSE, sizeof (fv_track_det), rects->len);
  for (guint i = 0; i < rects->len; i++) {
    const FvRoiDetection *r = &g_array_index (rects, FvRoiDetection, i);
    fv_track_det b = { r->r.x, r->r.y, r->r.w, r->r.h, r->neighbors, r->angle, r->confidence };
    g_array_append_val (out, b);
  }
  g_array_unref (rects);
  return out;
}

static gboolean
drop_type (GstBuffer *buf, GstMeta **meta, gpointer q)
{
  if ((*meta)->info->api == GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE
      && ((GstVideoRegionOfInterestMeta *) *meta)->roi_type == GPOINTER_TO_UINT (q))
    *meta = NULL;
  return TRUE;
}

/* The tracker tells of its tracks in roitrack's debug category. */
static void
tracker_log (void *user, fv_track_log_level level, const char *message)
{
  GST_CAT_LEVEL_LOG (gst_roi_track_debug, level == FV_TRACK_LOG_INFO ? GST_LEVEL_INFO
      : GST_LEVEL_DEBUG, user, "%s", message);
}

/* The settings now, and the type tracked. */
static gchar *
settings (GstRoiTrack *self, fv_track_params *p, gboolean *post)
{
  GST_OBJECT_LOCK (self);
  gchar *type = g_strdup (self->roi_type ? self->roi_type : DEFAULT_ROI_TYPE);
  *p = self->params;
  if (post)
    *post = self->post_messages;
  GST_OBJECT_UNLOCK (self);
  return type;
}

/* One frame into the tracker, the buffer held in step with it. */
static GstFlowReturn
gst_roi_track_submit (GstBaseTransform *trans, gboolean discont, GstBuffer *buf)
{
  GstRoiTrack *self = GST_ROI_TRACK (trans);
  fv_track_params p;
  gchar *type = settings (self, &p, NULL);
  gint searched = fv_meta_detection_state (buf, type, GST_VIDEO_INFO_WIDTH (&self->info),
      GST_VIDEO_INFO_HEIGHT (&self->info));
  /* without fail-closed, a frame no detector marked is taken as searched:
   * a detector that does not mark frames (any but vjdetect) is tracked */
  if (searched == FV_TRACK_UNMARKED && !p.fail_closed)
    searched = FV_TRACK_SEARCHED;
  GArray *dets = searched == FV_TRACK_SEARCHED ? detections (buf, g_quark_from_string (type))
      : g_array_new (FALSE, FALSE, sizeof (fv_track_det));
  const gboolean overflow = fv_tracker_push (self->tracker, &p, searched,
      (const fv_track_det *) dets->data, dets->len);
  if (searched == FV_TRACK_SEARCHED) {
    if (overflow && !self->warned_overflow) {
      self->warned_overflow = TRUE;
      GST_ELEMENT_WARNING (self, STREAM, FAILED, ("%u regions of type \"%s\" in one frame, "
              "or %u tracks at once: more than roitrack follows (%d); such frames are "
              "blurred whole.", dets->len, type, (guint) fv_tracker_count (self->tracker),
              FV_TRACK_MAX_DETECTIONS), (NULL));
    }
    self->unmarked = 0;
  } else if (searched == FV_TRACK_DROPPED && p.fail_closed && !self->warned_dropped) {
    self->warned_dropped = TRUE;
    GST_ELEMENT_WARNING (self, STREAM, FORMAT, ("Regions of type \"%s\" that the detector "
            "found are missing: an element between the detector and roitrack dropped or "
            "changed them; with fail-closed each such frame is blurred whole.", type),
        ("the detector's mark lists ROI meta ids that are no longer on the frame; elements "
            "that crop or box the picture (videocrop, videobox) drop ROI metas: place them "
            "before the detector or after roitrack (docs/roitrack.md)"));
  } else if (searched == FV_TRACK_UNMARKED && ++self->unmarked == UNMARKED_WARNING
      && p.fail_closed && !self->warned) {
    self->warned = TRUE;
    GST_ELEMENT_WARNING (self, STREAM, FORMAT, ("No detector marked the last %d frames as "
            "searched for \"%s\": with fail-closed each of them is blurred whole.",
            UNMARKED_WARNING, type), ("vjdetect marks every frame it searches; for a detector "
            "that does not, set fail-closed=false"));
  }
  if (overflow || (searched < 0 && p.fail_closed))
    GST_DEBUG_OBJECT (self, "frame %" GST_TIME_FORMAT " closed whole: %s",
        GST_TIME_ARGS (GST_BUFFER_PTS (buf)),
        overflow ? "more regions than tracked" : searched == FV_TRACK_DROPPED ? "regions the "
        "detector found are missing" : "no detector marked it");
  g_array_unref (dets);
  fv_hold_push (&self->held, buf);
  GST_LOG_OBJECT (self, "%u tracks, %u frames held", (guint) fv_tracker_count (self->tracker),
      fv_hold_count (&self->held));
  g_free (type);
  return GST_FLOW_OK;
}

#if FV_HAVE_GST_ANALYTICS
/* GStreamer 1.24+: the box as an object-detection Mtd of the type, and a
 * tracking Mtd (the track's id, first and last seen) related to it, so that
 * analytics consumers (objectdetectionoverlay, ...) see the track. */
static void
add_track_mtds (GstRoiTrack *self, GstBuffer *buf, GQuark q, const fv_track_box *o)
{
  GstAnalyticsRelationMeta *rmeta = gst_buffer_get_analytics_relation_meta (buf);
  if (!rmeta && !(rmeta = gst_buffer_add_analytics_relation_meta (buf)))
    return;
  GstClockTime dur = GST_VIDEO_INFO_FPS_N (&self->info) > 0
      ? gst_util_uint64_scale_int (GST_SECOND, GST_VIDEO_INFO_FPS_D (&self->info),
      GST_VIDEO_INFO_FPS_N (&self->info)) : 0;
  const GstClockTime pts = GST_BUFFER_PTS (buf);
  GstClockTime first = pts, last = pts;
  if (GST_CLOCK_TIME_IS_VALID (pts) && dur) {
    first = pts >= o->age * dur ? pts - o->age * dur : 0;
    last = pts >= o->lost * dur ? pts - o->lost * dur : 0;
  }
  GstAnalyticsODMtd od;
  GstAnalyticsTrackingMtd trk;
  if (!gst_analytics_relation_meta_add_od_mtd (rmeta, q, o->x, o->y, o->w, o->h,
          o->confidence >= 0 ? (gfloat) o->confidence : 1.0f, &od)
      || !gst_analytics_relation_meta_add_tracking_mtd (rmeta, o->id, first, &trk))
    return;
  gst_analytics_tracking_mtd_update_last_seen (&trk, last);
  gst_analytics_relation_meta_set_relation (rmeta, GST_ANALYTICS_REL_TYPE_RELATE_TO,
      gst_analytics_mtd_get_id ((GstAnalyticsMtd *) &od),
      gst_analytics_mtd_get_id ((GstAnalyticsMtd *) &trk));
  gst_analytics_relation_meta_set_relation (rmeta, GST_ANALYTICS_REL_TYPE_RELATE_TO,
      gst_analytics_mtd_get_id ((GstAnalyticsMtd *) &trk),
      gst_analytics_mtd_get_id ((GstAnalyticsMtd *) &od));
}
#endif

/* The hold's `out`: the oldest held frame, its type's metas replaced by
 * the tracker's boxes, its message posted; dropped (a flush, a new
 * stream, a new size, downstream refusing an earlier one), it leaves the
 * tracker too, which stays in step. */
static GstBuffer *
emit (gpointer owner, gpointer item, gboolean drop, GstFlowReturn *ret)
{
  GstRoiTrack *self = GST_ROI_TRACK (owner);
  *ret = GST_FLOW_OK;
  fv_track_params p;
  gboolean post;
  gchar *type = settings (self, &p, &post);
  fv_track_frame fr;
  fv_tracker_pop (self->tracker, &p, &fr);
  if (drop) {
    gst_buffer_unref (item);
    g_free (type);
    return NULL;
  }
  const GQuark q = g_quark_from_string (type);
  GstBuffer *buf = gst_buffer_make_writable (item);
  gst_buffer_foreach_meta (buf, drop_type, GUINT_TO_POINTER (q));
  GValue faces = G_VALUE_INIT;
  if (post)
    g_value_init (&faces, GST_TYPE_LIST);
  for (gsize i = 0; i < fr.n_boxes; i++) {
    const fv_track_box *o = &fr.boxes[i];
    GstVideoRegionOfInterestMeta *m = gst_buffer_add_video_region_of_interest_meta (buf, type,
        o->x, o->y, o->w, o->h);
    m->id = (gint) o->id;   /* one region, one id: the track's */
#if FV_HAVE_GST_ANALYTICS
    add_track_mtds (self, buf, q, o);
#endif
    GstStructure *track = gst_structure_new ("track", "id", G_TYPE_UINT, o->id, "age",
        G_TYPE_UINT, o->age, "lost", G_TYPE_UINT, o->lost, NULL);
    if (o->early)
      gst_structure_set (track, "early", G_TYPE_UINT, o->early, NULL);
    gst_video_region_of_interest_meta_add_param (m, track);
    if (o->neighbors >= 0 || !isnan (o->angle) || o->confidence >= 0) {
      /* what the detector said of its last detection */
      GstStructure *det = gst_structure_new_empty ("detection");
      if (o->neighbors >= 0)
        gst_structure_set (det, "neighbors", G_TYPE_INT, o->neighbors, NULL);
      if (!isnan (o->angle))
        gst_structure_set (det, "angle", G_TYPE_DOUBLE, o->angle, NULL);
      if (o->confidence >= 0)
        gst_structure_set (det, "confidence", G_TYPE_DOUBLE, o->confidence, NULL);
      gst_video_region_of_interest_meta_add_param (m, det);
    }
    if (post) {
      GValue face = G_VALUE_INIT;
      g_value_init (&face, GST_TYPE_STRUCTURE);
      GstStructure *f = gst_structure_new ("face", "x", G_TYPE_UINT, m->x, "y", G_TYPE_UINT,
          m->y, "width", G_TYPE_UINT, m->w, "height", G_TYPE_UINT, m->h, "id", G_TYPE_UINT,
          o->id, "age", G_TYPE_UINT, o->age, "lost", G_TYPE_UINT, o->lost, NULL);
      if (o->early)
        gst_structure_set (f, "early", G_TYPE_UINT, o->early, NULL);
      g_value_take_boxed (&face, f);
      gst_value_list_append_and_take_value (&faces, &face);
    }
  }
  if (fr.whole) {
    GstVideoRegionOfInterestMeta *m = gst_buffer_add_video_region_of_interest_meta (buf, type,
        0, 0, GST_VIDEO_INFO_WIDTH (&self->info), GST_VIDEO_INFO_HEIGHT (&self->info));
    m->id = 0;   /* the track id 0 of fail-closed */
    gst_video_region_of_interest_meta_add_param (m, gst_structure_new ("track",
            "id", G_TYPE_UINT, 0, "fail-closed", G_TYPE_BOOLEAN, TRUE, NULL));
  }
  fv_meta_mark_tracked (buf, type);
  if (post) {
    GstStructure *s = fv_meta_frame_structure ("roitrack", buf,
        &GST_BASE_TRANSFORM (self)->segment);
    gst_structure_take_value (s, "faces", &faces);
    gst_structure_set (s, "searched", G_TYPE_INT, fr.searched, "fail-closed", G_TYPE_BOOLEAN,
        fr.whole, NULL);
    gst_element_post_message (GST_ELEMENT (self), gst_message_new_element (GST_OBJECT (self),
            s));
  }
  g_free (type);
  return buf;
}

static guint
delay_now (GstRoiTrack *self)
{
  GST_OBJECT_LOCK (self);
  const guint delay = self->params.delay;
  GST_OBJECT_UNLOCK (self);
  return delay;
}

/* Frames beyond `delay` leave, oldest first (more than one after the
 * delay was lowered). */
static GstFlowReturn
gst_roi_track_generate (GstBaseTransform *trans, GstBuffer **out)
{
  GstRoiTrack *self = GST_ROI_TRACK (trans);
  *out = NULL;
  return fv_hold_count (&self->held) > delay_now (self) ? fv_hold_pop (&self->held, out)
      : GST_FLOW_OK;
}

static void
forget (GstRoiTrack *self)
{
  fv_hold_drop (&self->held);
  fv_tracker_reset (self->tracker, GST_VIDEO_INFO_WIDTH (&self->info),
      GST_VIDEO_INFO_HEIGHT (&self->info), FALSE);
  self->unmarked = 0;
}

static gboolean
gst_roi_track_set_caps (GstBaseTransform *trans, GstCaps *in, GstCaps *out)
{
  GstRoiTrack *self = GST_ROI_TRACK (trans);
  GstVideoInfo info;
  if (!gst_video_info_from_caps (&info, in)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("Cannot read the frame size from the caps "
            "%" GST_PTR_FORMAT ".", in), (NULL));
    return FALSE;
  }
  const gboolean resized = info.width != self->info.width || info.height != self->info.height;
  self->info = info;
  if (resized)
    forget (self);   /* boxes of another size mean nothing here */
  return TRUE;
}

static gboolean
gst_roi_track_sink_event (GstBaseTransform *trans, GstEvent *event)
{
  GstRoiTrack *self = GST_ROI_TRACK (trans);
  /* the held frames go before a serialized event, as they came; a seek or
   * a new stream: the old tracks' paths lead nowhere */
  if (fv_hold_event (&self->held, trans, event) == FV_HOLD_DROP
      || GST_EVENT_TYPE (event) == GST_EVENT_STREAM_START)
    forget (self);
  return GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
}

static gboolean
gst_roi_track_query (GstBaseTransform *trans, GstPadDirection direction, GstQuery *query)
{
  GstRoiTrack *self = GST_ROI_TRACK (trans);
  if (!GST_BASE_TRANSFORM_CLASS (parent_class)->query (trans, direction, query))
    return FALSE;
  if (direction == GST_PAD_SRC && GST_QUERY_TYPE (query) == GST_QUERY_LATENCY)
    fv_latency_add_to_query (GST_ELEMENT (self), &self->held.latency, &self->info, query);
  return TRUE;
}

/* Pools upstream keep `delay` more buffers out: ours are held here. */
static gboolean
gst_roi_track_propose_allocation (GstBaseTransform *trans, GstQuery *decide_query,
    GstQuery *query)
{
  if (!GST_BASE_TRANSFORM_CLASS (parent_class)->propose_allocation (trans, decide_query, query))
    return FALSE;
  fv_hold_raise_pools (GST_ELEMENT (trans), &GST_ROI_TRACK (trans)->held, query);
  return TRUE;
}

static gboolean
gst_roi_track_start (GstBaseTransform *trans)
{
  GstRoiTrack *self = GST_ROI_TRACK (trans);
  gst_video_info_init (&self->info);
  forget (self);
  fv_tracker_reset (self->tracker, 0, 0, TRUE);   /* ids from 1 again */
  self->warned = FALSE;
  self->warned_dropped = FALSE;
  self->warned_overflow = FALSE;
  gst_video_info_init (&self->info);
  return TRUE;
}

static gboolean
gst_roi_track_stop (GstBaseTransform *trans)
{
  forget (GST_ROI_TRACK (trans));
  return TRUE;
}

static void
gst_roi_track_set_property (GObject *object, guint prop_id, const GValue *value,
    GParamSpec *pspec)
{
  GstRoiTrack *self = GST_ROI_TRACK (object);
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_ROI_TYPE:
      g_free (self->roi_type);
      self->roi_type = g_value_dup_string (value);
      if (self->roi_type && !*self->roi_type)
        g_clear_pointer (&self->roi_type, g_free);
      break;
    case PROP_HOLD: self->params.hold = g_value_get_uint (value); break;
    case PROP_HOLD_ONCE: self->params.hold_once = g_value_get_uint (value); break;
    case PROP_MARGIN: self->params.margin = g_value_get_double (value); break;
    case PROP_GROW: self->params.grow = g_value_get_double (value); break;
    case PROP_MIN_IOU: self->params.min_iou = g_value_get_double (value); break;
    case PROP_FAIL_CLOSED: self->params.fail_closed = g_value_get_boolean (value); break;
    case PROP_POST_MESSAGES: self->post_messages = g_value_get_boolean (value); break;
    case PROP_DELAY: self->params.delay = g_value_get_uint (value); break;
    case PROP_CONFIRM: self->params.confirm = g_value_get_uint (value); break;
    case PROP_CONFIRM_NEIGHBORS: self->params.confirm_neighbors = g_value_get_uint (value); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec); break;
  }
  GST_OBJECT_UNLOCK (self);
  /* the frames held from now on: the latency query's, and a latency
   * message when they change */
  if (prop_id == PROP_DELAY)
    fv_hold_set (GST_BASE_TRANSFORM (self), &self->held, g_value_get_uint (value));
}

static void
gst_roi_track_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  GstRoiTrack *self = GST_ROI_TRACK (object);
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_ROI_TYPE:
      g_value_set_string (value, self->roi_type ? self->roi_type : DEFAULT_ROI_TYPE);
      break;
    case PROP_HOLD: g_value_set_uint (value, self->params.hold); break;
    case PROP_HOLD_ONCE: g_value_set_uint (value, self->params.hold_once); break;
    case PROP_MARGIN: g_value_set_double (value, self->params.margin); break;
    case PROP_GROW: g_value_set_double (value, self->params.grow); break;
    case PROP_MIN_IOU: g_value_set_double (value, self->params.min_iou); break;
    case PROP_FAIL_CLOSED: g_value_set_boolean (value, self->params.fail_closed); break;
    case PROP_POST_MESSAGES: g_value_set_boolean (value, self->post_messages); break;
    case PROP_DELAY: g_value_set_uint (value, self->params.delay); break;
    case PROP_CONFIRM: g_value_set_uint (value, self->params.confirm); break;
    case PROP_CONFIRM_NEIGHBORS: g_value_set_uint (value, self->params.confirm_neighbors); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec); break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_roi_track_finalize (GObject *object)
{
  GstRoiTrack *self = GST_ROI_TRACK (object);
  fv_hold_drop (&self->held);   /* the tracker and the settings still there */
  fv_tracker_free (self->tracker);
  g_free (self->roi_type);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_roi_track_class_init (GstRoiTrackClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *bt = GST_BASE_TRANSFORM_CLASS (klass);
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING;
  const GParamFlags ctl = rw | GST_PARAM_CONTROLLABLE;

  fv_track_params d;   /* the defaults: the tracker's */
  fv_track_params_init (&d);
  GST_DEBUG_CATEGORY_INIT (gst_roi_track_debug, "roitrack", 0, "roitrack");
  gobject_class->set_property = gst_roi_track_set_property;
  gobject_class->get_property = gst_roi_track_get_property;
  gobject_class->finalize = gst_roi_track_finalize;

  g_object_class_install_property (gobject_class, PROP_ROI_TYPE,
      g_param_spec_string ("roi-type", "ROI type", "Type of the regions tracked (vjdetect's "
          "label)", DEFAULT_ROI_TYPE, rw));
  g_object_class_install_property (gobject_class, PROP_HOLD,
      g_param_spec_uint ("hold", "Hold", "Searched frames a track coasts along its path after "
          "its last detection before it ends", 0, 100000, d.hold, ctl));
  g_object_class_install_property (gobject_class, PROP_HOLD_ONCE,
      g_param_spec_uint ("hold-once", "Hold once", "The same for a track detected in one "
          "frame only (at most hold): a one-off false detection blurs a few frames, not hold",
          0, 100000, d.hold_once, ctl));
  g_object_class_install_property (gobject_class, PROP_MARGIN,
      g_param_spec_double ("margin", "Margin", "Each side of an output box pushed out by this "
          "much of the box's width (height)", 0, 10, d.margin, ctl));
  g_object_class_install_property (gobject_class, PROP_GROW,
      g_param_spec_double ("grow", "Grow", "A coasting box's width and height grow by this "
          "much of the last detected size a frame", 0, 10, d.grow, ctl));
  g_object_class_install_property (gobject_class, PROP_MIN_IOU,
      g_param_spec_double ("min-iou", "Minimum IoU", "Least intersection over union of a "
          "detection with a track's predicted box for it to continue the track", 0, 1, d.min_iou, ctl));
  g_object_class_install_property (gobject_class, PROP_FAIL_CLOSED,
      g_param_spec_boolean ("fail-closed", "Fail closed", "A frame no detector marked as "
          "searched gets a whole-frame box too", d.fail_closed, ctl));
  g_object_class_install_property (gobject_class, PROP_POST_MESSAGES,
      g_param_spec_boolean ("post-messages", "Post messages", "Post a \"roitrack\" element "
          "message every frame with the tracked boxes", TRUE, ctl));
  g_object_class_install_property (gobject_class, PROP_DELAY,
      g_param_spec_uint ("delay", "Delay", "Frames held back so that a track's first "
          "detection also blurs the frames before it (a face entering or turning is blurred "
          "from the frame it appeared in); adds as many frames of latency", 0, FV_TRACK_MAX_DELAY, d.delay, ctl));
  g_object_class_install_property (gobject_class, PROP_CONFIRM,
      g_param_spec_uint ("confirm", "Confirm", "Detections that make a track certain; until "
          "then it does not coast, grow or reach an edge, and with delay it must be confirmed "
          "within max(delay + 1, confirm) searched frames or its boxes are never shown (a "
          "one-off false detection blurs nothing). 1: every detection is a track at once",
          1, 100, d.confirm, ctl));
  g_object_class_install_property (gobject_class, PROP_CONFIRM_NEIGHBORS,
      g_param_spec_uint ("confirm-neighbors", "Confirm neighbors", "A detection with at "
          "least this many neighbours (vjdetect's detection param) confirms its track at once "
          "(0: never)", 0, 100000, d.confirm_neighbors, ctl));

  gst_element_class_set_static_metadata (element_class, "Region tracker",
      "Filter/Analyzer/Video",
      "Tracks regions of interest across frames: stable ids, boxes held along their path "
      "when the detector misses them, whole-frame boxes when it did not run", FV_AUTHOR);
  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);

  bt->submit_input_buffer = GST_DEBUG_FUNCPTR (gst_roi_track_submit);
  bt->generate_output = GST_DEBUG_FUNCPTR (gst_roi_track_generate);
  bt->query = GST_DEBUG_FUNCPTR (gst_roi_track_query);
  bt->propose_allocation = GST_DEBUG_FUNCPTR (gst_roi_track_propose_allocation);
  bt->stop = GST_DEBUG_FUNCPTR (gst_roi_track_stop);
  bt->set_caps = GST_DEBUG_FUNCPTR (gst_roi_track_set_caps);
  bt->sink_event = GST_DEBUG_FUNCPTR (gst_roi_track_sink_event);
  bt->start = GST_DEBUG_FUNCPTR (gst_roi_track_start);
}

static void
gst_roi_track_init (GstRoiTrack *self)
{
  gst_base_transform_set_in_place (GST_BASE_TRANSFORM (self), TRUE);
  self->tracker = fv_tracker_new ();
  fv_tracker_set_log (self->tracker, tracker_log, self);
  fv_hold_init (&self->held, emit, self);
  gst_video_info_init (&self->info);
  fv_track_params_init (&self->params);
  self->post_messages = TRUE;
}
