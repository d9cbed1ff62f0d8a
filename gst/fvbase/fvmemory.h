/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The kinds of memory a pad's frames may live in, and what each needs, in
 * one table (fvmemory.c): the caps feature that names it, whether frames
 * are mapped for the device, and the pool offered upstream or picked from
 * downstream. The base class keeps one kind per pad; another kind (another
 * device API's memory) is one more row here and a case in the mapping. */
#ifndef FV_MEMORY_KIND_H
#define FV_MEMORY_KIND_H

#include <gst/gst.h>
#include "fvdevice.h"

G_BEGIN_DECLS

typedef enum {
  FV_MEMORY_SYSTEM = 0,
  FV_MEMORY_CUDA,
  FV_MEMORY_KINDS
} FvMemoryKind;

typedef struct {
  const gchar *name;      /* in logs: "system", "CUDA" */
  const gchar *feature;   /* the caps feature */
  gboolean on_device;     /* frames are mapped for the device (fv_cuda_frame_map) */
  /* Offers this kind's pool upstream: TRUE when it did, FALSE to leave the
   * query to GstVideoFilter. */
  gboolean (*propose) (FvDevice *dev, GstQuery *query, GstCaps *caps);
  /* Takes this kind's pool from downstream's answer: TRUE when the query is
   * settled here (the element then answers whether it has a pool), FALSE to
   * let GstVideoFilter finish it. */
  gboolean (*decide) (FvDevice *dev, GstQuery *query, GstCaps *caps);
} FvMemoryKindInfo;

/* The kind of negotiated caps (their first structure's features). */
FvMemoryKind fv_memory_kind_of_caps (const GstCaps *caps);
/* The kind a structure's features name (none, or none of ours: system). */
FvMemoryKind fv_memory_kind_of_features (const GstCapsFeatures *features);
const FvMemoryKindInfo *fv_memory_kind_info (FvMemoryKind kind);

G_END_DECLS
#endif
