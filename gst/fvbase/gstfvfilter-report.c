/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The base class's reports: refusals, frame and file errors with
 * GStreamer's codes, and the memory check before plans are made. */
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include "gstfvfilter-private.h"
#include "fv_memory.h"

#define GST_CAT_DEFAULT gst_fv_filter_debug

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
