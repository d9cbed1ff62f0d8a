/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The CUDA context the fastvision elements share with GStreamer's CUDA
 * elements (nvcodec's decoders, cudaupload, cudadownload, cudaconvert):
 * a GstCudaContext found or offered through GstContext, pushed current
 * around every piece of our CUDA work so that plans, streams and the
 * frames' memory all live in it; and pools of GstCudaMemory in it.
 * Without GStreamer's CUDA library at build time every call here says
 * "not available" and the elements use system memory only. The context is
 * held as a GstObject so that no other file needs the CUDA headers. */
#ifndef FV_CUDA_CTX_H
#define FV_CUDA_CTX_H

#include <gst/gst.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

/* The caps feature of CUDA device memory, as GStreamer names it. */
#define FV_CAPS_FEATURE_CUDA "memory:CUDAMemory"

/* TRUE when built with GStreamer's CUDA library and CUDA kernels. */
gboolean fv_cuda_ctx_built (void);

/* Finds the pipeline's CUDA context (neighbours' context queries, then the
 * bins and the application through need-context) or makes one and posts it
 * (have-context). device_id -1: any device. FALSE when no driver. */
gboolean fv_cuda_ctx_ensure (GstElement *element, gint device_id, GstObject **ctx);

/* GstElement::set_context: takes a CUDA context for device_id (-1: any)
 * when *ctx is still empty. */
void fv_cuda_ctx_set_context (GstElement *element, GstContext *context, gint device_id,
    GstObject **ctx);

/* Answers a GST_QUERY_CONTEXT for the CUDA context type with ctx. */
gboolean fv_cuda_ctx_query (GstElement *element, GstQuery *query, GstObject *ctx);

/* The CUDA device of a context. */
gint fv_cuda_ctx_device (GstObject *ctx);

/* Makes ctx current on this thread (no-op for NULL); pop undoes it. */
gboolean fv_cuda_ctx_push (GstObject *ctx);
void fv_cuda_ctx_pop (GstObject *ctx);

/* TRUE when the first structure of caps carries memory:CUDAMemory. */
gboolean fv_caps_is_cuda (const GstCaps *caps);

/* Map flags that give device pointers for CUDA memory. */
GstMapFlags fv_cuda_map_flags (void);

/* The element's CUDA stream as GStreamer's GstCudaStream in ctx (1.24+),
 * so that the memories of our pools carry it and neighbours order on it;
 * its handle (a cudaStream_t) in *handle. NULL where GStreamer's CUDA
 * memory has no streams (1.22) or the stream cannot be made: the caller
 * makes a plain one. Freed with fv_cuda_ctx_stream_free. */
gpointer fv_cuda_ctx_stream_new (GstObject *ctx, void **handle);
void fv_cuda_ctx_stream_free (gpointer stream);

/* gst_video_frame_map, for the device when `cuda` (device pointers, the
 * strides of the CUDA memory even when the buffer has no video meta).
 * On 1.24+ `stream` (ours) first waits on the GPU for the memory's stream:
 * before reading a frame whose producer may still be writing it, and before
 * writing a buffer whose last readers may still be reading it. */
gboolean fv_cuda_frame_map (GstVideoFrame *frame, const GstVideoInfo *info, GstBuffer *buf,
    GstMapFlags flags, gboolean cuda, void *stream);

/* After our work on `stream` read inbuf and wrote outbuf (NULL: in place,
 * inbuf written), buffers for which fv_cuda_ctx_frame_can_order said TRUE
 * before the work (so that nothing is half ordered): makes each memory's
 * stream wait for ours (a consumer syncs on it, a producer that reuses the
 * input writes on it) and says TRUE, so the element may return without
 * waiting. FALSE when the host must wait first: 1.22, no stream of ours,
 * or a wait that could not be queued. */
gboolean fv_cuda_ctx_frame_ordered (GstBuffer *inbuf, GstBuffer *outbuf, void *stream);

/* Whether fv_cuda_ctx_frame_ordered can order these buffers (every memory
 * CUDA memory with a stream; 1.24+), asked before the work so that the
 * kernels may leave it queued (fv_cuda_defer_begin). */
gboolean fv_cuda_ctx_frame_can_order (GstBuffer *inbuf, GstBuffer *outbuf);

/* propose_allocation: a pool of CUDA memory in ctx for caps, its memories
 * on `stream` (a GstCudaStream from fv_cuda_ctx_stream_new, or NULL). */
void fv_cuda_ctx_propose_allocation (GstObject *ctx, GstQuery *query, GstCaps *caps,
    gpointer stream);

/* decide_allocation: keeps a downstream CUDA pool of the same context,
 * otherwise puts a pool of our own first (its memories on `stream`). */
void fv_cuda_ctx_decide_allocation (GstObject *ctx, GstQuery *query, GstCaps *caps,
    gpointer stream);

G_END_DECLS
#endif
