/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What every element's properties share: their flags and a string
 * property's value. */
#ifndef FV_PARAMS_H
#define FV_PARAMS_H

#include <gst/gst.h>

G_BEGIN_DECLS

/* A string property's new value, NULL when unset or empty (paths, names). */
static inline gchar *
gst_fv_dup_nonempty (const GValue *value)
{
  const gchar *s = g_value_get_string (value);
  return s && *s ? g_strdup (s) : NULL;
}

/* Property flags: every property may change while PLAYING; numbers,
 * booleans and enums may also be bound to a controller (strings cannot be
 * interpolated: binding one is a GStreamer-CRITICAL). */
#define FV_PARAM_RW (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING)
#define FV_PARAM_CONTROLLABLE (FV_PARAM_RW | GST_PARAM_CONTROLLABLE)

G_END_DECLS
#endif
