/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "fv_config.h"
#include "fvcudactx.h"
#include "fv_cuda.h"

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

#if GST_CHECK_VERSION(1, 24, 0)
#define FV_STREAM_ORDERED 1
#else
#define FV_STREAM_ORDERED 0
#endif

gpointer
fv_cuda_ctx_stream_new (GstObject *ctx, void **handle)
{
#if FV_STREAM_ORDERED
  GstCudaStream *stream = ctx ? gst_cuda_stream_new (GST_CUDA_CONTEXT (ctx)) : NULL;
  *handle = stream ? (void *) gst_cuda_stream_get_handle (stream) : NULL;
  return stream;
#else
  *handle = NULL;
  return NULL;
#endif
}

void
fv_cuda_ctx_stream_free (gpointer stream)
{
#if FV_STREAM_ORDERED
  if (stream)
    gst_cuda_stream_unref ((GstCudaStream *) stream);
#endif
}

#if FV_STREAM_ORDERED
/* The stream a CUDA memory is ordered on; NULL for the default stream
 * (1.22's contract: ready when pushed). */
static void *
memory_stream (GstMemory *m)
{
  GstCudaStream *s = gst_cuda_memory_get_stream (GST_CUDA_MEMORY_CAST (m));
  return s ? (void *) gst_cuda_stream_get_handle (s) : NULL;
}
#endif

gboolean
fv_cuda_frame_map (GstVideoFrame *frame, const GstVideoInfo *info, GstBuffer *buf,
    GstMapFlags flags, gboolean cuda, void *stream)
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
#if FV_STREAM_ORDERED
  /* 1.24+: a producer may push a frame whose writing is still queued on
   * the memory's stream (GST_CUDA_MEMORY_TRANSFER_NEED_SYNC), and the
   * consumer orders its reads after it; and a buffer back in its pool may
   * still be read by work its last reader ordered on that stream (ours do,
   * fv_cuda_ctx_frame_ordered). So our stream waits for the memory's on the
   * GPU before reading pending writes and before any writing; without a
   * stream of ours, the host waits. Asked before mapping: mapping for
   * writing sets the flag itself. */
  for (guint i = 0; i < gst_buffer_n_memory (buf); i++) {
    GstMemory *m = gst_buffer_peek_memory (buf, i);
    if (!gst_is_cuda_memory (m))
      continue;
    const gboolean pending = GST_MEMORY_FLAG_IS_SET (m, GST_CUDA_MEMORY_TRANSFER_NEED_SYNC);
    if (!(flags & GST_MAP_WRITE) && !pending)
      continue;
    void *theirs = memory_stream (m);
    if (!theirs)   /* the default stream: ready when pushed, released when free */
      continue;
    if (!stream || fv_cuda_stream_wait (stream, theirs) != FV_OK)
      gst_cuda_memory_sync (GST_CUDA_MEMORY_CAST (m));
  }
#endif
  return gst_video_frame_map (frame, &pitched, buf, flags | GST_MAP_CUDA);
}

gboolean
fv_cuda_ctx_frame_can_order (GstBuffer *inbuf, GstBuffer *outbuf)
{
#if FV_STREAM_ORDERED
  GstBuffer *bufs[2] = { inbuf, outbuf };
  for (guint b = 0; b < 2; b++)
    for (guint i = 0; bufs[b] && i < gst_buffer_n_memory (bufs[b]); i++) {
      GstMemory *m = gst_buffer_peek_memory (bufs[b], i);
      if (!gst_is_cuda_memory (m) || !memory_stream (m))
        return FALSE;
    }
  return inbuf != NULL;
#else
  return FALSE;
#endif
}

gboolean
fv_cuda_ctx_frame_ordered (GstBuffer *inbuf, GstBuffer *outbuf, void *stream)
{
#if FV_STREAM_ORDERED
  GstBuffer *bufs[2] = { inbuf, outbuf };
  if (!stream)
    return FALSE;
  for (guint b = 0; b < 2; b++)
    for (guint i = 0; bufs[b] && i < gst_buffer_n_memory (bufs[b]); i++) {
      GstMemory *m = gst_buffer_peek_memory (bufs[b], i);
      if (fv_cuda_stream_wait (memory_stream (m), stream) != FV_OK)
        return FALSE;
      /* the output's consumer syncs on its stream; the input's next
       * reader too, should the producer look */
      GST_MINI_OBJECT_FLAG_SET (m, GST_CUDA_MEMORY_TRANSFER_NEED_SYNC);
    }
  return TRUE;
#else
  return FALSE;
#endif
}

/* A pool of CUDA memory for caps with video meta; its buffer size (the
 * allocator's pitch times the rows) in *size. */
static GstBufferPool *
pool_new (GstObject *ctx, GstCaps *caps, guint min, guint max, gpointer stream, guint *size)
{
  GstVideoInfo info;
  if (!gst_video_info_from_caps (&info, caps))
    return NULL;
  GstBufferPool *pool = gst_cuda_buffer_pool_new (GST_CUDA_CONTEXT (ctx));
  GstStructure *config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  gst_buffer_pool_config_set_params (config, caps, GST_VIDEO_INFO_SIZE (&info), min, max);
#if FV_STREAM_ORDERED
  if (stream)   /* its memories carry our stream: neighbours order on it */
    gst_buffer_pool_config_set_cuda_stream (config, (GstCudaStream *) stream);
#endif
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
fv_cuda_ctx_propose_allocation (GstObject *ctx, GstQuery *query, GstCaps *caps,
    gpointer stream)
{
  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
  guint size;
  GstBufferPool *pool = caps && ctx ? pool_new (ctx, caps, 0, 0, stream, &size) : NULL;
  if (!pool)
    return;
  gst_query_add_allocation_pool (query, pool, size, 0, 0);
  gst_object_unref (pool);
}

void
fv_cuda_ctx_decide_allocation (GstObject *ctx, GstQuery *query, GstCaps *caps,
    gpointer stream)
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
#if FV_STREAM_ORDERED
  /* 1.24+: memories on the default stream would make us wait on the host
   * for every frame (1.22's contract); ours carry our stream */
  if (pool && stream) {
    GstStructure *config = gst_buffer_pool_get_config (pool);
    GstCudaStream *theirs = gst_buffer_pool_config_get_cuda_stream (config);   /* a ref */
    const gboolean has = theirs != NULL;
    if (theirs)
      gst_cuda_stream_unref (theirs);
    gst_structure_free (config);
    if (!has)
      gst_clear_object (&pool);
  }
#endif
  if (!pool) {
    pool = pool_new (ctx, caps, min, max, stream, &size);
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
void fv_cuda_ctx_propose_allocation (GstObject *ctx, GstQuery *q, GstCaps *caps,
    gpointer stream) { }
void fv_cuda_ctx_decide_allocation (GstObject *ctx, GstQuery *q, GstCaps *caps,
    gpointer stream) { }
gpointer fv_cuda_ctx_stream_new (GstObject *ctx, void **handle) { *handle = NULL; return NULL; }
void fv_cuda_ctx_stream_free (gpointer stream) { }
gboolean fv_cuda_ctx_frame_ordered (GstBuffer *in, GstBuffer *out, void *stream) { return FALSE; }
gboolean fv_cuda_ctx_frame_can_order (GstBuffer *in, GstBuffer *out) { return FALSE; }

gboolean
fv_cuda_frame_map (GstVideoFrame *frame, const GstVideoInfo *info, GstBuffer *buf,
    GstMapFlags flags, gboolean cuda, void *stream)
{
  return !cuda && gst_video_frame_map (frame, info, buf, flags);
}

#endif

gboolean
fv_caps_is_cuda (const GstCaps *caps)
{
  if (!caps || gst_caps_is_empty (caps) || gst_caps_is_any (caps))
    return FALSE;
  GstCapsFeatures *f = gst_caps_get_features (caps, 0);
  return f && gst_caps_features_contains (f, FV_CAPS_FEATURE_CUDA);
}
