/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The base class's settings: its properties (backend, devices, threads,
 * device memory), the element's own `backend` property, the backend and
 * device resolved from them, and how a CUDA plan may spread. */
#include "gstfvfilter-private.h"
#include "fv_devices.h"

#define GST_CAT_DEFAULT gst_fv_filter_debug

/* Resolves the backend; plans tied to an old stream are released. */
gboolean
gst_fv_filter_resolve (GstFvFilter *self)
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
  gst_fv_filter_release_plans (self);
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
gboolean
gst_fv_filter_spread_of (GstFvFilter *filter, fv_spread *spread)
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

void
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

void
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
