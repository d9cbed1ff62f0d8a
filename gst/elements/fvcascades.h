/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* One parsed cascade per file for the whole process: vjdetect instances
 * that name the same file share it (a camera joining a process where the
 * cascade already runs skips the parse, 20–50 ms for OpenCV's frontal face
 * cascade). A file changed on disk since (its size, modification time or
 * inode differ) is parsed again; instances that hold the old one keep it
 * until they let it go. Cascades are never changed once parsed. */
#ifndef FV_CASCADES_H
#define FV_CASCADES_H

#include <glib.h>
#include "fv_cascade.h"

G_BEGIN_DECLS

/* The cascade of the file, shared; NULL when it cannot be read or parsed
 * (fv_last_error() says why). Give it back with fv_cascades_put. */
const fv_cascade *fv_cascades_get (const gchar *path);
void fv_cascades_put (const fv_cascade *cascade);

G_END_DECLS
#endif
