/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The files users name (cascades, kernels, grids) and the text we quote
 * from them in messages. A FIFO, a device or /dev/zero must not stall or
 * exhaust an element, and a message must stay valid UTF-8 whatever bytes
 * the file holds. */
#ifndef FV_FILE_H
#define FV_FILE_H

#include <glib.h>

G_BEGIN_DECLS

/* Reads a regular file of at most max_bytes into *data (NUL-terminated,
 * g_free it). Anything else (missing, a folder, a FIFO, a device, larger
 * than max_bytes) is FALSE with *error naming the file and the reason;
 * what names it ("cascade", "kernel file") starts the reason. */
/* A path as messages show it: valid UTF-8, cut after FV_FILE_SHOWN_CHARS
 * characters with an ellipsis (a path of a megabyte is not echoed whole). */
#define FV_FILE_SHOWN_CHARS 160
gchar *fv_file_display_name (const char *path);

gboolean fv_file_read (const char *path, const char *what, gsize max_bytes, gchar **data,
    gsize *len, GError **error);

/* At most max_chars characters of p, up to its first line break, as valid
 * UTF-8 (bytes that are not become U+FFFD); g_free it. */
gchar *fv_text_excerpt (const char *p, gsize len, gsize max_chars);

G_END_DECLS
#endif
