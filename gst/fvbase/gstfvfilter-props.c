/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The base class's settings: its properties (backend, devices, threads,
 * device memory), the element's own `backend` property, and the class's
 * pad templates. */
#include "gstfvfilter-private.h"

#define GST_CAT_DEFAULT gst_fv_filter_debug

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
