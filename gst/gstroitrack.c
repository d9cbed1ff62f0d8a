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
 * never reused while the element runs), and is output at once (no
 * confirmation delay). A track that the detector searched for and did not
 * find keeps coasting along its path, its box growing by `grow` of its last
 * detected size a frame, for `hold` searched frames (`hold-once` for a
 * track detected in one frame only, so that a one-off false detection
 * costs a few blurred frames); after that it ends.
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
 * set `fail-closed=false` for those.
 *
 * With `post-messages` an element message named `roitrack` goes on the bus
 * for every frame, shaped like vjdetect's (and facedetect's): the frame's
 * times and `faces`, a list of `face` structures with `x`, `y`, `width`,
 * `height`, `id`, `age` and `lost`; also `searched` (1, 0 skipped, -1 not
 * marked) and `fail-closed` (boolean).
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
#include "fvmeta.h"

GST_DEBUG_CATEGORY_STATIC (gst_roitrack_debug);
#define GST_CAT_DEFAULT gst_roitrack_debug

#define GST_TYPE_ROITRACK (gst_roitrack_get_type ())
G_DECLARE_FINAL_TYPE (GstRoitrack, gst_roitrack, GST, ROITRACK, GstBaseTransform)

#define DEFAULT_ROI_TYPE "face"
#define DEFAULT_HOLD 15
#define DEFAULT_HOLD_ONCE 3
#define DEFAULT_MARGIN 0.1
#define DEFAULT_GROW 0.05
#define DEFAULT_MIN_IOU 0.2
/* frames without a mark before the warning that every frame is blurred */
#define UNMARKED_WARNING 30

typedef struct {
  guint id;
  gdouble x, y, w, h;      /* the box now (predicted while coasting) */
  gdouble dw, dh;          /* its size at the last detection */
  gdouble vx, vy;          /* centre's displacement a frame */
  gdouble cx, cy;          /* centre at the last detection */
  guint age, lost, missed; /* frames: since it began, since detected, searched and missed */
  guint hits;              /* detections so far */
} Track;

typedef struct {
  gdouble x, y, w, h;
} Box;

struct _GstRoitrack {
  GstBaseTransform parent;
  /* properties, under the object lock */
  gchar *roi_type;
  guint hold, hold_once;
  gdouble margin, grow, min_iou;
  gboolean fail_closed, post_messages;
  /* streaming */
  GArray *tracks;          /* of Track */
  guint next_id;
  gint width, height;
  guint unmarked;          /* frames in a row without a detector's mark */
  gboolean warned;
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
};

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS ("video/x-raw(ANY)"));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS ("video/x-raw(ANY)"));

#define gst_roitrack_parent_class parent_class
G_DEFINE_TYPE (GstRoitrack, gst_roitrack, GST_TYPE_BASE_TRANSFORM);
GST_ELEMENT_REGISTER_DEFINE (roitrack, "roitrack", GST_RANK_NONE, GST_TYPE_ROITRACK);

static gdouble
iou (const Box *a, const Box *b)
{
  const gdouble ix = MIN (a->x + a->w, b->x + b->w) - MAX (a->x, b->x);
  const gdouble iy = MIN (a->y + a->h, b->y + b->h) - MAX (a->y, b->y);
  if (ix <= 0 || iy <= 0)
    return 0;
  const gdouble inter = ix * iy, uni = a->w * a->h + b->w * b->h - inter;
  return uni > 0 ? inter / uni : 0;
}

/* The frame's detections of type q (fv_meta_regions_of_type), as boxes. */
static GArray *
detections (GstBuffer *buf, GQuark q)
{
  GArray *rects = fv_meta_regions_of_type (buf, q);
  GArray *out = g_array_sized_new (FALSE, FALSE, sizeof (Box), rects->len);
  for (guint i = 0; i < rects->len; i++) {
    const FvRoiRect *r = &g_array_index (rects, FvRoiRect, i);
    Box b = { r->x, r->y, r->w, r->h };
    g_array_append_val (out, b);
  }
  g_array_unref (rects);
  return out;
}

typedef struct {
  guint t, d;
  gdouble score;
} Pair;

static gint
by_score (gconstpointer a, gconstpointer b)
{
  const gdouble x = ((const Pair *) a)->score, y = ((const Pair *) b)->score;
  return x < y ? 1 : x > y ? -1 : 0;
}

/* Every track one frame along its path; a coasting box grows. */
static void
predict (GstRoitrack *self, gdouble grow)
{
  for (guint i = 0; i < self->tracks->len; i++) {
    Track *t = &g_array_index (self->tracks, Track, i);
    t->age++;
    t->lost++;
    const gdouble cx = t->cx + t->vx * t->lost, cy = t->cy + t->vy * t->lost;
    t->w = t->dw * (1 + grow * t->lost);
    t->h = t->dh * (1 + grow * t->lost);
    t->x = cx - t->w / 2;
    t->y = cy - t->h / 2;
  }
}

static void
detected (Track *t, const Box *b)
{
  const gdouble cx = b->x + b->w / 2, cy = b->y + b->h / 2;
  if (t->age > 0) {   /* the mean of the last velocity and the displacement since */
    t->vx = (t->vx + (cx - t->cx) / t->lost) / 2;
    t->vy = (t->vy + (cy - t->cy) / t->lost) / 2;
  }
  t->x = b->x;
  t->y = b->y;
  t->w = t->dw = b->w;
  t->h = t->dh = b->h;
  t->cx = cx;
  t->cy = cy;
  t->lost = t->missed = 0;
  t->hits++;
}

/* A searched frame: detections to tracks, new tracks, ended tracks. */
static void
associate (GstRoitrack *self, GArray *dets, gdouble min_iou, guint hold, guint hold_once)
{
  GArray *pairs = g_array_new (FALSE, FALSE, sizeof (Pair));
  for (guint t = 0; t < self->tracks->len; t++) {
    const Track *tr = &g_array_index (self->tracks, Track, t);
    const Box pb = { tr->x, tr->y, tr->w, tr->h };
    for (guint d = 0; d < dets->len; d++) {
      Pair p = { t, d, iou (&pb, &g_array_index (dets, Box, d)) };
      if (p.score >= min_iou && p.score > 0)
        g_array_append_val (pairs, p);
    }
  }
  g_array_sort (pairs, by_score);
  gboolean *track_done = g_new0 (gboolean, self->tracks->len + 1);
  gboolean *det_done = g_new0 (gboolean, dets->len + 1);
  for (guint i = 0; i < pairs->len; i++) {
    const Pair *p = &g_array_index (pairs, Pair, i);
    if (track_done[p->t] || det_done[p->d])
      continue;
    track_done[p->t] = det_done[p->d] = TRUE;
    detected (&g_array_index (self->tracks, Track, p->t), &g_array_index (dets, Box, p->d));
  }
  const guint old = self->tracks->len;
  for (guint t = old; t-- > 0;) {
    Track *tr = &g_array_index (self->tracks, Track, t);
    if (!track_done[t] && ++tr->missed > (tr->hits > 1 ? hold : MIN (hold, hold_once)))
      g_array_remove_index (self->tracks, t);   /* keeps the others' order */
  }
  for (guint d = 0; d < dets->len; d++) {
    if (det_done[d])
      continue;
    Track t = { .id = self->next_id++ };
    detected (&t, &g_array_index (dets, Box, d));
    g_array_append_val (self->tracks, t);
  }
  g_free (track_done);
  g_free (det_done);
  g_array_unref (pairs);
}

static gboolean
drop_type (GstBuffer *buf, GstMeta **meta, gpointer q)
{
  if ((*meta)->info->api == GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE
      && ((GstVideoRegionOfInterestMeta *) *meta)->roi_type == GPOINTER_TO_UINT (q))
    *meta = NULL;
  return TRUE;
}

static GstVideoRegionOfInterestMeta *
add_box (GstBuffer *buf, const gchar *type, gdouble x0, gdouble y0, gdouble x1, gdouble y1,
    gint w, gint h, gint id)
{
  const gint ax = (gint) CLAMP (floor (x0), 0, w), ay = (gint) CLAMP (floor (y0), 0, h);
  const gint bx = (gint) CLAMP (ceil (x1), 0, w), by = (gint) CLAMP (ceil (y1), 0, h);
  if (bx <= ax || by <= ay)
    return NULL;   /* coasted out of the frame */
  GstVideoRegionOfInterestMeta *m = gst_buffer_add_video_region_of_interest_meta (buf, type,
      ax, ay, bx - ax, by - ay);
  m->id = id;
  return m;
}

static GstFlowReturn
gst_roitrack_transform_ip (GstBaseTransform *trans, GstBuffer *buf)
{
  GstRoitrack *self = GST_ROITRACK (trans);
  GST_OBJECT_LOCK (self);
  gchar *type = g_strdup (self->roi_type ? self->roi_type : DEFAULT_ROI_TYPE);
  const guint hold = self->hold, hold_once = self->hold_once;
  const gdouble margin = self->margin, grow = self->grow, min_iou = self->min_iou;
  const gboolean fail_closed = self->fail_closed, post = self->post_messages;
  GST_OBJECT_UNLOCK (self);
  const GQuark q = g_quark_from_string (type);
  const gint searched = fv_meta_detection_state (buf, type);

  predict (self, grow);
  if (searched == 1) {
    GArray *dets = detections (buf, q);
    associate (self, dets, min_iou, hold, hold_once);
    g_array_unref (dets);
    self->unmarked = 0;
  } else if (searched < 0 && ++self->unmarked == UNMARKED_WARNING && fail_closed
      && !self->warned) {
    self->warned = TRUE;
    GST_ELEMENT_WARNING (self, STREAM, FORMAT, ("No detector marked the last %d frames as "
            "searched for \"%s\": with fail-closed each of them is blurred whole.",
            UNMARKED_WARNING, type), ("vjdetect marks every frame it searches; for a detector "
            "that does not, set fail-closed=false"));
  }
  const gboolean whole = searched < 0 && fail_closed;

  gst_buffer_foreach_meta (buf, drop_type, GUINT_TO_POINTER (q));
  gint id = fv_meta_next_roi_id (buf);
  GValue faces = G_VALUE_INIT;
  if (post)
    g_value_init (&faces, GST_TYPE_LIST);
  for (guint i = 0; i < self->tracks->len; i++) {
    const Track *t = &g_array_index (self->tracks, Track, i);
    const gdouble mx = margin * t->w, my = margin * t->h;
    GstVideoRegionOfInterestMeta *m = add_box (buf, type, t->x - mx, t->y - my,
        t->x + t->w + mx, t->y + t->h + my, self->width, self->height, id);
    if (!m)
      continue;
    id++;
    gst_video_region_of_interest_meta_add_param (m, gst_structure_new ("track",
            "id", G_TYPE_UINT, t->id, "age", G_TYPE_UINT, t->age, "lost", G_TYPE_UINT, t->lost,
            NULL));
    if (post) {
      GValue face = G_VALUE_INIT;
      g_value_init (&face, GST_TYPE_STRUCTURE);
      g_value_take_boxed (&face, gst_structure_new ("face", "x", G_TYPE_UINT, m->x,
              "y", G_TYPE_UINT, m->y, "width", G_TYPE_UINT, m->w, "height", G_TYPE_UINT, m->h,
              "id", G_TYPE_UINT, t->id, "age", G_TYPE_UINT, t->age, "lost", G_TYPE_UINT,
              t->lost, NULL));
      gst_value_list_append_and_take_value (&faces, &face);
    }
  }
  if (whole) {
    GstVideoRegionOfInterestMeta *m = add_box (buf, type, 0, 0, self->width, self->height,
        self->width, self->height, id);
    if (m)
      gst_video_region_of_interest_meta_add_param (m, gst_structure_new ("track",
              "id", G_TYPE_UINT, 0, "fail-closed", G_TYPE_BOOLEAN, TRUE, NULL));
  }
  if (post) {
    GstStructure *s = fv_meta_frame_structure ("roitrack", buf, &trans->segment);
    gst_structure_take_value (s, "faces", &faces);
    gst_structure_set (s, "searched", G_TYPE_INT, searched, "fail-closed", G_TYPE_BOOLEAN,
        whole, NULL);
    gst_element_post_message (GST_ELEMENT (self), gst_message_new_element (GST_OBJECT (self),
            s));
  }
  GST_LOG_OBJECT (self, "%u tracks%s", self->tracks->len, whole ? ", whole frame" : "");
  g_free (type);
  return GST_FLOW_OK;
}

static void
forget (GstRoitrack *self)
{
  g_array_set_size (self->tracks, 0);
  self->unmarked = 0;
}

static gboolean
gst_roitrack_set_caps (GstBaseTransform *trans, GstCaps *in, GstCaps *out)
{
  GstRoitrack *self = GST_ROITRACK (trans);
  GstVideoInfo info;
  if (!gst_video_info_from_caps (&info, in)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("Cannot read the frame size from the caps "
            "%" GST_PTR_FORMAT ".", in), (NULL));
    return FALSE;
  }
  if (info.width != self->width || info.height != self->height)
    forget (self);   /* boxes of another size mean nothing here */
  self->width = info.width;
  self->height = info.height;
  return TRUE;
}

static gboolean
gst_roitrack_sink_event (GstBaseTransform *trans, GstEvent *event)
{
  /* a seek or a new stream: the old tracks' paths lead nowhere */
  if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP
      || GST_EVENT_TYPE (event) == GST_EVENT_STREAM_START)
    forget (GST_ROITRACK (trans));
  return GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
}

static gboolean
gst_roitrack_start (GstBaseTransform *trans)
{
  GstRoitrack *self = GST_ROITRACK (trans);
  forget (self);
  self->next_id = 1;
  self->warned = FALSE;
  return TRUE;
}

static void
gst_roitrack_set_property (GObject *object, guint prop_id, const GValue *value,
    GParamSpec *pspec)
{
  GstRoitrack *self = GST_ROITRACK (object);
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_ROI_TYPE:
      g_free (self->roi_type);
      self->roi_type = g_value_dup_string (value);
      if (self->roi_type && !*self->roi_type)
        g_clear_pointer (&self->roi_type, g_free);
      break;
    case PROP_HOLD: self->hold = g_value_get_uint (value); break;
    case PROP_HOLD_ONCE: self->hold_once = g_value_get_uint (value); break;
    case PROP_MARGIN: self->margin = g_value_get_double (value); break;
    case PROP_GROW: self->grow = g_value_get_double (value); break;
    case PROP_MIN_IOU: self->min_iou = g_value_get_double (value); break;
    case PROP_FAIL_CLOSED: self->fail_closed = g_value_get_boolean (value); break;
    case PROP_POST_MESSAGES: self->post_messages = g_value_get_boolean (value); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec); break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_roitrack_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  GstRoitrack *self = GST_ROITRACK (object);
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_ROI_TYPE:
      g_value_set_string (value, self->roi_type ? self->roi_type : DEFAULT_ROI_TYPE);
      break;
    case PROP_HOLD: g_value_set_uint (value, self->hold); break;
    case PROP_HOLD_ONCE: g_value_set_uint (value, self->hold_once); break;
    case PROP_MARGIN: g_value_set_double (value, self->margin); break;
    case PROP_GROW: g_value_set_double (value, self->grow); break;
    case PROP_MIN_IOU: g_value_set_double (value, self->min_iou); break;
    case PROP_FAIL_CLOSED: g_value_set_boolean (value, self->fail_closed); break;
    case PROP_POST_MESSAGES: g_value_set_boolean (value, self->post_messages); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec); break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_roitrack_finalize (GObject *object)
{
  GstRoitrack *self = GST_ROITRACK (object);
  g_free (self->roi_type);
  g_array_unref (self->tracks);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_roitrack_class_init (GstRoitrackClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *bt = GST_BASE_TRANSFORM_CLASS (klass);
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING;
  const GParamFlags ctl = rw | GST_PARAM_CONTROLLABLE;

  GST_DEBUG_CATEGORY_INIT (gst_roitrack_debug, "roitrack", 0, "roitrack");
  gobject_class->set_property = gst_roitrack_set_property;
  gobject_class->get_property = gst_roitrack_get_property;
  gobject_class->finalize = gst_roitrack_finalize;

  g_object_class_install_property (gobject_class, PROP_ROI_TYPE,
      g_param_spec_string ("roi-type", "ROI type", "Type of the regions tracked (vjdetect's "
          "label)", DEFAULT_ROI_TYPE, rw));
  g_object_class_install_property (gobject_class, PROP_HOLD,
      g_param_spec_uint ("hold", "Hold", "Searched frames a track coasts along its path after "
          "its last detection before it ends", 0, 100000, DEFAULT_HOLD, ctl));
  g_object_class_install_property (gobject_class, PROP_HOLD_ONCE,
      g_param_spec_uint ("hold-once", "Hold once", "The same for a track detected in one "
          "frame only (at most hold): a one-off false detection blurs a few frames, not hold",
          0, 100000, DEFAULT_HOLD_ONCE, ctl));
  g_object_class_install_property (gobject_class, PROP_MARGIN,
      g_param_spec_double ("margin", "Margin", "Each side of an output box pushed out by this "
          "much of the box's width (height)", 0, 10, DEFAULT_MARGIN, ctl));
  g_object_class_install_property (gobject_class, PROP_GROW,
      g_param_spec_double ("grow", "Grow", "A coasting box's width and height grow by this "
          "much of the last detected size a frame", 0, 10, DEFAULT_GROW, ctl));
  g_object_class_install_property (gobject_class, PROP_MIN_IOU,
      g_param_spec_double ("min-iou", "Minimum IoU", "Least intersection over union of a "
          "detection with a track's predicted box for it to continue the track", 0, 1,
          DEFAULT_MIN_IOU, ctl));
  g_object_class_install_property (gobject_class, PROP_FAIL_CLOSED,
      g_param_spec_boolean ("fail-closed", "Fail closed", "A frame no detector marked as "
          "searched gets a whole-frame box too", TRUE, ctl));
  g_object_class_install_property (gobject_class, PROP_POST_MESSAGES,
      g_param_spec_boolean ("post-messages", "Post messages", "Post a \"roitrack\" element "
          "message every frame with the tracked boxes", TRUE, ctl));

  gst_element_class_set_static_metadata (element_class, "Region tracker",
      "Filter/Analyzer/Video",
      "Tracks regions of interest across frames: stable ids, boxes held along their path "
      "when the detector misses them, whole-frame boxes when it did not run", FV_AUTHOR);
  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);

  bt->transform_ip = GST_DEBUG_FUNCPTR (gst_roitrack_transform_ip);
  bt->set_caps = GST_DEBUG_FUNCPTR (gst_roitrack_set_caps);
  bt->sink_event = GST_DEBUG_FUNCPTR (gst_roitrack_sink_event);
  bt->start = GST_DEBUG_FUNCPTR (gst_roitrack_start);
}

static void
gst_roitrack_init (GstRoitrack *self)
{
  gst_base_transform_set_in_place (GST_BASE_TRANSFORM (self), TRUE);
  self->tracks = g_array_new (FALSE, FALSE, sizeof (Track));
  self->hold = DEFAULT_HOLD;
  self->hold_once = DEFAULT_HOLD_ONCE;
  self->margin = DEFAULT_MARGIN;
  self->grow = DEFAULT_GROW;
  self->min_iou = DEFAULT_MIN_IOU;
  self->fail_closed = TRUE;
  self->post_messages = TRUE;
  self->next_id = 1;
}
