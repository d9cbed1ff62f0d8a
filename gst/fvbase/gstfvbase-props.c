/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The lower layer's settings: its properties (devices, threads, device
 * memory), the element's own `backend` property, and the class's pad
 * templates. */
#include "gstfvbase-private.h"

#define GST_CAT_DEFAULT gst_fv_base_debug

void
gst_fv_base_set_property (GObject *object, guint prop_id, const GValue *value,
    GParamSpec *pspec)
{
  GstFvBasePrivate *priv = BPRIV (object);
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
      priv->device_ids = gst_fv_dup_nonempty (value);
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
gst_fv_base_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  GstFvBasePrivate *priv = BPRIV (object);
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
  GstFvBaseClass *k = g_type_class_peek (pspec->owner_type);
  if (prop_id != PROP_OWN_BACKEND) {
    k->chain_set_property (object, prop_id, value, pspec);
    return;
  }
  GstFvBasePrivate *priv = BPRIV (object);
  GST_OBJECT_LOCK (object);
  priv->backend = g_value_get_enum (value);
  priv->device_changed = TRUE;
  GST_OBJECT_UNLOCK (object);
}

static void
own_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  GstFvBaseClass *k = g_type_class_peek (pspec->owner_type);
  if (prop_id != PROP_OWN_BACKEND) {
    k->chain_get_property (object, prop_id, value, pspec);
    return;
  }
  GST_OBJECT_LOCK (object);
  g_value_set_enum (value, BPRIV (object)->backend);
  GST_OBJECT_UNLOCK (object);
}

void
gst_fv_base_class_install_backend (GstFvBaseClass *klass, gboolean with_hybrid)
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
gst_fv_base_class_add_templates (GstFvBaseClass *klass, const gchar *caps, gint max_side)
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

void
gst_fv_base_install_properties (GObjectClass *gobject_class)
{
  const GParamFlags rw = FV_PARAM_CONTROLLABLE;
  gobject_class->set_property = gst_fv_base_set_property;
  gobject_class->get_property = gst_fv_base_get_property;
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
}
