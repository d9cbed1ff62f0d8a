/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The host memory one plan may take (fv_memory.c). */
#ifndef FV_MEMORY_H
#define FV_MEMORY_H

#include <glib.h>

G_BEGIN_DECLS

/* The limit on the memory one plan may take on the host, in bytes: half the
 * machine's RAM, or FASTVISION_MAX_MEMORY_MB where set (docs/design.md). */
guint64 fv_memory_limit (void);

/* FALSE, with the figures in fv_last_error(), when `bytes` passes it. */
gboolean fv_memory_check (double bytes, const char *what);

G_END_DECLS
#endif
