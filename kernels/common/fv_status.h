/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* How every kernel call ends: a status, and the per-thread detail of the
 * last error (fv_status.c). */
#ifndef FV_STATUS_H
#define FV_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  FV_OK = 0,
  FV_ERR_INVALID,      /* bad parameters or an image that does not match the plan */
  FV_ERR_NOMEM,
  FV_ERR_NO_CUDA,      /* built without CUDA, or no usable GPU/driver */
  FV_ERR_CUDA          /* a CUDA call failed: fv_last_error() says which */
} fv_status;

const char *fv_status_string (fv_status s);

/* Detail of the last error on this thread (CUDA error names and the like). */
const char *fv_last_error (void);
void fv_set_last_error (const char *fmt, ...);

#ifdef __cplusplus
}
#endif
#endif
