/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* metapublish's files: JSON lines appended, a partial last line cut,
 * rotation at max-size, standard output. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include "fv_memory.h"
#include "fvpublish-private.h"

/* A file the last run left ending inside a document (a full disk, a
 * crash): its incomplete last line is cut, so that the next document starts
 * a line of its own and every line parses. */
static void
cut_partial_line (FvPublisher *p, int fd)
{
  struct stat st;
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode) || st.st_size == 0)
    return;
  gchar buf[4096];
  off_t end = st.st_size, keep = 0;
  gboolean found = FALSE;
  while (end > 0 && !found) {
    const off_t from = end > (off_t) sizeof buf ? end - (off_t) sizeof buf : 0;
    const ssize_t n = pread (fd, buf, (size_t) (end - from), from);
    if (n <= 0)
      return;
    for (ssize_t i = n - 1; i >= 0 && !found; i--)
      if (buf[i] == '\n') {
        found = TRUE;
        keep = from + i + 1;
      }
    end = from;
  }
  if (keep == st.st_size)
    return;
  if (ftruncate (fd, keep) == 0)
    GST_CAT_WARNING_OBJECT (gst_meta_publish_debug, p->element, "\"%s\" ended inside a "
        "document: its last %" G_GINT64_FORMAT " bytes (an incomplete line) were cut",
        p->path, (gint64) (st.st_size - keep));
}

gboolean
fv_publish_file_open (FvPublisher *p, gboolean append, GError **error)
{
  /* non-blocking first: a FIFO nobody reads would block the start forever;
   * a regular file is also read (its last line checked) */
  GStatBuf st0;
  const gboolean special = g_stat (p->path, &st0) == 0 && !S_ISREG (st0.st_mode);
  const int flags = O_CREAT | O_NONBLOCK | O_CLOEXEC | (append ? O_APPEND : O_TRUNC);
  int fd = special ? -1 : g_open (p->path, O_RDWR | flags, 0666);
  if (fd < 0)
    fd = g_open (p->path, O_WRONLY | flags, 0666);
  if (fd < 0) {
    const int e = errno;
    /* OPEN_WRITE whatever the reason, as filesink says it */
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_OPEN_WRITE, e == ENXIO ? "Cannot open \"%s\" for the documents: it is a FIFO that nobody reads"
        : "Cannot open \"%s\" for the documents: %s", p->path, g_strerror (e));
    return FALSE;
  }
  fcntl (fd, F_SETFL, fcntl (fd, F_GETFL) & ~O_NONBLOCK);
  if (append)
    cut_partial_line (p, fd);
  p->file = fdopen (fd, append ? "a" : "w");
  if (!p->file) {
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_OPEN_WRITE,
        "Cannot open \"%s\" for the documents: %s", p->path, g_strerror (errno));
    close (fd);
    return FALSE;
  }
  struct stat st;
  p->size = fstat (fd, &st) == 0 && S_ISREG (st.st_mode) ? (guint64) st.st_size : 0;
  GST_CAT_INFO_OBJECT (gst_meta_publish_debug, p->element, "documents to \"%s\" (%"
      G_GUINT64_FORMAT " bytes there)", p->path, p->size);
  return TRUE;
}

/* LOCATION becomes LOCATION.1 (replacing the older one) and a new file
 * starts: at most twice max-size on disk. */
static gboolean
rotate (FvPublisher *p, GError **error)
{
  gchar *old = g_strconcat (p->path, ".1", NULL);
  fclose (p->file);
  p->file = NULL;
  gboolean ok = g_rename (p->path, old) == 0;
  if (!ok)
    g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_WRITE,
        "Cannot rotate \"%s\" to \"%s\": %s", p->path, old, g_strerror (errno));
  else
    GST_CAT_INFO_OBJECT (gst_meta_publish_debug, p->element, "rotated \"%s\" to \"%s\" at %"
        G_GUINT64_FORMAT " bytes", p->path, old, p->size);
  g_free (old);
  return ok && fv_publish_file_open (p, FALSE, error);
}

gboolean
fv_publish_file_send (FvPublisher *p, gchar *doc, GError **error)
{
  const gsize n = strlen (doc);
  /* a file that this document would take past max-size is rotated first,
   * so that each file holds at most max-size bytes (or one document) */
  if (!p->is_stdout && p->max_size && p->size && p->size + n + 1 > p->max_size
      && !rotate (p, error)) {
    g_free (doc);
    p->dropped++;
    return FALSE;
  }
  gboolean ok = fwrite (doc, 1, n, p->file) == n && fputc ('\n', p->file) != EOF
      && fflush (p->file) == 0;
  g_free (doc);
  if (!ok) {
    const int e = errno;
    /* a full disk may have taken part of it: cut back to the last whole
     * line, so that the file never holds half a document */
    if (!p->is_stdout) {
      clearerr (p->file);
      if (ftruncate (fileno (p->file), (off_t) p->size) != 0)
        GST_CAT_WARNING_OBJECT (gst_meta_publish_debug, p->element, "cannot cut \"%s\" back "
            "to its last whole line: %s", p->path, g_strerror (errno));
    }
    g_set_error (error, GST_RESOURCE_ERROR, e == ENOSPC ? GST_RESOURCE_ERROR_NO_SPACE_LEFT
        : GST_RESOURCE_ERROR_WRITE, "Cannot write a document to \"%s\": %s",
        p->path ? p->path : "standard output", g_strerror (e));
    p->dropped++;
    return FALSE;
  }
  p->delivered++;
  p->size += n + 1;
  GST_CAT_LOG_OBJECT (gst_meta_publish_debug, p->element, "document of %" G_GSIZE_FORMAT
      " bytes written", n);
  return TRUE;
}
