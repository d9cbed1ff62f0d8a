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

/* gst_video_frame_map, for the device when `cuda` (device pointers, the
 * strides of the CUDA memory even when the buffer has no video meta). */
gboolean fv_cuda_frame_map (GstVideoFrame *frame, const GstVideoInfo *info, GstBuffer *buf,
    GstMapFlags flags, gboolean cuda);

/* propose_allocation: a pool of CUDA memory in ctx for caps. */
void fv_cuda_ctx_propose_allocation (GstObject *ctx, GstQuery *query, GstCaps *caps);

/* decide_allocation: keeps a downstream CUDA pool of the same context,
 * otherwise puts a pool of our own first. */
void fv_cuda_ctx_decide_allocation (GstObject *ctx, GstQuery *query, GstCaps *caps);

G_END_DECLS
#endif
