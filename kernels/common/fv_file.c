/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Regular files only, with a size cap; quoted text made valid UTF-8. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fv_file.h"
#include "fv_image.h"

gchar *
fv_file_display_name (const char *path)
{
  gchar *shown = g_filename_display_name (path);
  if (g_utf8_strlen (shown, -1) <= FV_FILE_SHOWN_CHARS)
    return shown;
  gchar *cut = g_utf8_substring (shown, 0, FV_FILE_SHOWN_CHARS);
  g_free (shown);
  shown = g_strconcat (cut, "…", NULL);
  g_free (cut);
  return shown;
}

gboolean
fv_file_read (const char *path, const char *what, gsize max_bytes, gchar **data, gsize *len,
    GError **error)
{
  gchar *shown = fv_file_display_name (path);
  gboolean ok = FALSE;
  *data = NULL;
  *len = 0;
  /* O_NONBLOCK: opening a FIFO with no writer would otherwise wait forever */
  int fd = open (path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  struct stat st;
  if (fd < 0) {
    int e = errno;
    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (e), "%s: cannot open the %s: %s",
        shown, what, g_strerror (e));
    goto out;
  }
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode)) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
        "%s: the %s is not a regular file (a folder, FIFO or device cannot be read as one)",
        shown, what);
    goto out;
  }
  if ((guint64) st.st_size > max_bytes) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
        "%s: the %s is %" G_GUINT64_FORMAT " bytes, more than the %" G_GSIZE_FORMAT
        " bytes allowed", shown, what, (guint64) st.st_size, max_bytes);
    goto out;
  }
  /* the file may grow while it is read: never past the cap */
  gsize cap = (gsize) st.st_size + 1, n = 0;
  gchar *buf = g_malloc (cap + 1);
  for (;;) {
    ssize_t r = read (fd, buf + n, cap - n);
    if (r < 0 && errno == EINTR)
      continue;
    if (r < 0) {
      int e = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (e),
          "%s: cannot read the %s: %s", shown, what, g_strerror (e));
      g_free (buf);
      goto out;
    }
    if (r == 0)
      break;
    n += (gsize) r;
    if (n == cap) {
      if (cap > max_bytes) {
        g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
            "%s: the %s grew past the %" G_GSIZE_FORMAT " bytes allowed", shown, what,
            max_bytes);
        g_free (buf);
        goto out;
      }
      cap = MIN (cap * 2, max_bytes + 1);
      buf = g_realloc (buf, cap + 1);
    }
  }
  buf[n] = '\0';
  *data = buf;
  *len = n;
  ok = TRUE;
out:
  if (fd >= 0)
    close (fd);
  g_free (shown);
  return ok;
}

gchar *
fv_text_excerpt (const char *p, gsize len, gsize max_chars)
{
  gsize n = 0;
  while (n < len && n < 4 * max_chars && p[n] && p[n] != '\n' && p[n] != '\r')
    n++;
  gchar *valid = g_utf8_make_valid (p, (gssize) n);
  if (g_utf8_strlen (valid, -1) > (glong) max_chars) {
    gchar *cut = g_utf8_substring (valid, 0, (glong) max_chars);
    g_free (valid);
    valid = cut;
  }
  return valid;
}
