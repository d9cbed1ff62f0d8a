/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* vjdetect's cascade: loaded by the property's path (shared between
 * elements, fvcascades.c), refused with GStreamer's resource errors, put in
 * use, read back when a change could not be used. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <string.h>
#include "gstvjdetect-private.h"
#include "fvcascades.h"

#define GST_CAT_DEFAULT gst_vj_detect_debug

/* The cascade property reads back the cascade in use (a change that could
 * not be used). */
void
gst_vj_detect_read_back_cascade (GstVjDetect *self)
{
  GST_OBJECT_LOCK (self);
  g_free (self->cascade_path);
  self->cascade_path = g_strdup (self->loaded_path);
  GST_OBJECT_UNLOCK (self);
  g_object_notify (G_OBJECT (self), "cascade");
}

/* Loads the cascade named by the property (shared, fvcascades.c), and its
 * path into *path; on failure posts an error (at start, or none in use) or,
 * with keep_old, a warning (a change while playing: the one in use stays). */
const fv_cascade *
gst_vj_detect_load_cascade (GstVjDetect *self, gboolean keep_old, gchar **path)
{
  GST_OBJECT_LOCK (self);
  *path = g_strdup (self->cascade_path ? self->cascade_path : DEFAULT_CASCADE);
  self->cascade_changed = FALSE;
  GST_OBJECT_UNLOCK (self);
  const fv_cascade *c = fv_cascades_get (*path);
  if (!c) {
    /* fv_last_error() names the file and the reason, in valid UTF-8 */
    /* as filesrc: NOT_FOUND, OPEN_READ, or READ for a file whose content
     * is not a cascade; the debug part has the path and the reason */
    gchar *debug = NULL;
    const gint code = gst_fv_filter_file_error (*path, NULL, GST_RESOURCE_ERROR_READ, &debug);
    if (keep_old && self->cascade) {
      gchar *in_use = g_filename_display_name (self->loaded_path);
      gst_element_message_full (GST_ELEMENT (self), GST_MESSAGE_WARNING, GST_RESOURCE_ERROR,
          code, g_strdup_printf ("Cannot use the cascade %s; still using %s.", fv_last_error (),
              in_use), debug, __FILE__, GST_FUNCTION, __LINE__);
      g_free (in_use);
      gst_vj_detect_read_back_cascade (self);
    } else {
      gst_element_message_full (GST_ELEMENT (self), GST_MESSAGE_ERROR, GST_RESOURCE_ERROR,
          code, g_strdup_printf ("Cannot load the cascade %s.", fv_last_error ()), debug,
          __FILE__, GST_FUNCTION, __LINE__);
    }
    g_clear_pointer (path, g_free);
    return NULL;
  }
  GST_INFO_OBJECT (self, "cascade %s: %s %dx%d, %d stages", *path,
      c->type == FV_FEATURE_LBP ? "LBP" : "HAAR", c->width, c->height, c->nstages);
  return c;
}

/* The cascade that plans are made from from now on (plans point at it:
 * the caller has dropped those of the old one). */
void
gst_vj_detect_use_cascade (GstVjDetect *self, const fv_cascade *c, gchar *path)
{
  fv_cascades_put (self->cascade);
  g_free (self->loaded_path);
  self->cascade = c;
  self->loaded_path = path;
}

/* A property's text for a message: quoted, valid UTF-8, at most 100
 * characters of it. */
gchar *
gst_vj_detect_shown_text (const gchar *text)
{
  if (!text)
    return g_strdup ("(none)");
  const gsize n = strlen (text);
  gchar *valid = g_utf8_make_valid (text, MIN (n, 400));
  const glong chars = g_utf8_strlen (valid, -1);
  gchar *cut = g_utf8_substring (valid, 0, MIN (chars, 100));
  gchar *shown = g_strdup_printf ("\"%s%s\" (%" G_GSIZE_FORMAT " bytes)", cut,
      chars > 100 || n > 400 ? "…" : "", n);
  g_free (valid);
  g_free (cut);
  return shown;
}
