/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "fv_config.h"
#include "fvcudactx.h"

#if FV_HAVE_GST_CUDA
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudautils.h>

GST_DEBUG_CATEGORY_STATIC (fv_cuda_ctx_debug);
#define GST_CAT_DEFAULT fv_cuda_ctx_debug

gboolean
fv_cuda_ctx_built (void)
{
  return TRUE;
}

/* The CUDA library opens the driver itself: without one it says so here,
 * once, and the element stays on system memory. */
static gboolean
library_ready (void)
{
  static gsize once = 0;
  static gboolean ok = FALSE;
  if (g_once_init_enter (&once)) {
    GST_DEBUG_CATEGORY_INIT (fv_cuda_ctx_debug, "fvcudactx", 0, "fastvision CUDA context");
    ok = gst_cuda_load_library ();
    if (ok)
      gst_cuda_memory_init_once ();
    g_once_init_leave (&once, 1);
  }
  return ok;
}

gboolean
fv_cuda_ctx_ensure (GstElement *element, gint device_id, GstObject **ctx)
{
  if (!library_ready ())
    return FALSE;
  return gst_cuda_ensure_element_context (element, device_id, (GstCudaContext **) ctx);
}

void
fv_cuda_ctx_set_context (GstElement *element, GstContext *context, gint device_id,
    GstObject **ctx)
{
  if (library_ready ())
    gst_cuda_handle_set_context (element, context, device_id, (GstCudaContext **) ctx);
}

gboolean
fv_cuda_ctx_query (GstElement *element, GstQuery *query, GstObject *ctx)
{
  return ctx && gst_cuda_handle_context_query (element, query, GST_CUDA_CONTEXT (ctx));
}

gint
fv_cuda_ctx_device (GstObject *ctx)
{
  guint id = 0;
  g_object_get (ctx, "cuda-device-id", &id, NULL);
  return (gint) id;
}

gboolean
fv_cuda_ctx_push (GstObject *ctx)
{
  return !ctx || gst_cuda_context_push (GST_CUDA_CONTEXT (ctx));
}

void
fv_cuda_ctx_pop (GstObject *ctx)
{
  if (ctx)
    gst_cuda_context_pop (NULL);
}

GstMapFlags
fv_cuda_map_flags (void)
{
  return GST_MAP_CUDA;
}

gboolean
fv_cuda_frame_map (GstVideoFrame *frame, const GstVideoInfo *info, GstBuffer *buf,
    GstMapFlags flags, gboolean cuda)
{
  GstMemory *mem = gst_buffer_n_memory (buf) ? gst_buffer_peek_memory (buf, 0) : NULL;
  if (!cuda || !mem || !gst_is_cuda_memory (mem))
    return gst_video_frame_map (frame, info, buf, flags);
  GstVideoInfo pitched = *info;
  if (!gst_buffer_get_video_meta (buf)) {   /* the allocator's layout, not the caps' */
    const GstVideoInfo *mi = &GST_CUDA_MEMORY_CAST (mem)->info;
    for (guint p = 0; p < GST_VIDEO_MAX_PLANES; p++) {
      pitched.stride[p] = mi->stride[p];
      pitched.offset[p] = mi->offset[p];
    }
  }
  if (!gst_video_frame_map (frame, &pitched, buf, flags | GST_MAP_CUDA))
    return FALSE;
#if GST_CHECK_VERSION(1, 24, 0)
  /* 1.24+: CUDA memory is stream-ordered, and a producer may push a frame
   * whose writing is still queued on its stream; the consumer waits for it
   * before reading (GStreamer's CUDA documentation). Memory with nothing
   * pending returns at once. */
  if (flags & GST_MAP_READ)
    for (guint i = 0; i < gst_buffer_n_memory (buf); i++) {
      GstMemory *m = gst_buffer_peek_memory (buf, i);
      if (gst_is_cuda_memory (m))
        gst_cuda_memory_sync (GST_CUDA_MEMORY_CAST (m));
    }
#endif
  return TRUE;
}

/* A pool of CUDA memory for caps with video meta; its buffer size (the
 * allocator's pitch times the rows) in *size. */
static GstBufferPool *
pool_new (GstObject *ctx, GstCaps *caps, guint min, guint max, guint *size)
{
  GstVideoInfo info;
  if (!gst_video_info_from_caps (&info, caps))
    return NULL;
  GstBufferPool *pool = gst_cuda_buffer_pool_new (GST_CUDA_CONTEXT (ctx));
  GstStructure *config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  gst_buffer_pool_config_set_params (config, caps, GST_VIDEO_INFO_SIZE (&info), min, max);
  if (!gst_buffer_pool_set_config (pool, config)) {
    gst_object_unref (pool);
    return NULL;
  }
  config = gst_buffer_pool_get_config (pool);   /* the pool knows the pitched size */
  gst_buffer_pool_config_get_params (config, NULL, size, NULL, NULL);
  gst_structure_free (config);
  return pool;
}

void
fv_cuda_ctx_propose_allocation (GstObject *ctx, GstQuery *query, GstCaps *caps)
{
  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
  guint size;
  GstBufferPool *pool = caps && ctx ? pool_new (ctx, caps, 0, 0, &size) : NULL;
  if (!pool)
    return;
  gst_query_add_allocation_pool (query, pool, size, 0, 0);
  gst_object_unref (pool);
}

void
fv_cuda_ctx_decide_allocation (GstObject *ctx, GstQuery *query, GstCaps *caps)
{
  GstBufferPool *pool = NULL;
  guint size = 0, min = 0, max = 0;
  gboolean have = gst_query_get_n_allocation_pools (query) > 0;
  if (have)
    gst_query_parse_nth_allocation_pool (query, 0, &pool, &size, &min, &max);
  /* a CUDA pool of another context would need copies between contexts */
  if (pool && (!GST_IS_CUDA_BUFFER_POOL (pool)
          || GST_CUDA_BUFFER_POOL (pool)->context != GST_CUDA_CONTEXT (ctx)))
    gst_clear_object (&pool);
  if (!pool) {
    pool = pool_new (ctx, caps, min, max, &size);
    if (!pool)
      return;
  } else {
    GstStructure *config = gst_buffer_pool_get_config (pool);
    gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
    gst_buffer_pool_config_set_params (config, caps, size, min, max);
    gst_buffer_pool_set_config (pool, config);
    config = gst_buffer_pool_get_config (pool);
    gst_buffer_pool_config_get_params (config, NULL, &size, NULL, NULL);
    gst_structure_free (config);
  }
  if (have)
    gst_query_set_nth_allocation_pool (query, 0, pool, size, min, max);
  else
    gst_query_add_allocation_pool (query, pool, size, min, max);
  gst_object_unref (pool);
}

#else /* no GStreamer CUDA library: system memory only */

gboolean fv_cuda_ctx_built (void) { return FALSE; }
gboolean fv_cuda_ctx_ensure (GstElement *e, gint id, GstObject **ctx) { return FALSE; }
void fv_cuda_ctx_set_context (GstElement *e, GstContext *c, gint id, GstObject **ctx) { }
gboolean fv_cuda_ctx_query (GstElement *e, GstQuery *q, GstObject *ctx) { return FALSE; }
gint fv_cuda_ctx_device (GstObject *ctx) { return 0; }
gboolean fv_cuda_ctx_push (GstObject *ctx) { return TRUE; }
void fv_cuda_ctx_pop (GstObject *ctx) { }
GstMapFlags fv_cuda_map_flags (void) { return 0; }
void fv_cuda_ctx_propose_allocation (GstObject *ctx, GstQuery *q, GstCaps *caps) { }

gboolean
fv_cuda_frame_map (GstVideoFrame *frame, const GstVideoInfo *info, GstBuffer *buf,
    GstMapFlags flags, gboolean cuda)
{
  return !cuda && gst_video_frame_map (frame, info, buf, flags);
}
void fv_cuda_ctx_decide_allocation (GstObject *ctx, GstQuery *q, GstCaps *caps) { }

#endif

gboolean
fv_caps_is_cuda (const GstCaps *caps)
{
  if (!caps || gst_caps_is_empty (caps) || gst_caps_is_any (caps))
    return FALSE;
  GstCapsFeatures *f = gst_caps_get_features (caps, 0);
  return f && gst_caps_features_contains (f, FV_CAPS_FEATURE_CUDA);
}
