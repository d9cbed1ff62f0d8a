/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef FVTEST_SLOWWRITE_H
#define FVTEST_SLOWWRITE_H
#include <stddef.h>
#ifdef __cplusplus
extern "C" {
#endif

/* Queues on `stream` (of the current context): a spin of spin_ms, then a
 * copy of `rows` rows of row_bytes from src (host page-locked or device
 * memory) to dst. 0 when queued. */
int fvtest_slow_copy (void *dst, size_t dst_pitch, const void *src, size_t src_pitch,
    size_t row_bytes, int rows, void *stream, int spin_ms);

/* Page-locked host memory for the copies, and its release. */
void *fvtest_host_alloc (size_t size);
void fvtest_host_free (void *p);

/* 1 while work queued on `stream` has not finished. */
int fvtest_stream_busy (void *stream);

#ifdef __cplusplus
}
#endif
#endif
