/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A GstAllocator of page-locked host memory, so that CUDA copies run at
 * full bus speed and asynchronously; plain memory where pinning fails. */
#ifndef FV_PINNED_ALLOCATOR_H
#define FV_PINNED_ALLOCATOR_H

#include <gst/gst.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

#define FV_PINNED_ALLOCATOR_NAME "FvPinnedMemory"

/* The process-wide allocator (a new reference). */
GstAllocator *fv_pinned_allocator_get (void);

/* A video buffer pool of pinned memory for `caps`, configured with the
 * video meta option; NULL if caps are not video. */
GstBufferPool *fv_pinned_pool_new (GstCaps *caps, guint min_buffers);

/* TRUE when mem came from the pinned allocator. */
gboolean fv_memory_is_pinned (GstMemory *mem);
/* Why a buffer of the allocator got ordinary memory (over the page-locked
 * budget, or refused), the first time it happened; NULL if never. */
const gchar *fv_pinned_fallback_note (void);

G_END_DECLS
#endif

G_BEGIN_DECLS

/* propose_allocation on a CUDA path: video meta, and a pool of pinned
 * memory when upstream wants one. */
void fv_pinned_propose_allocation (GstQuery *query);

/* decide_allocation on a CUDA path: makes a pinned pool (and allocator)
 * the first choice, before the base class configures it. */
void fv_pinned_decide_allocation (GstQuery *query);

G_END_DECLS
