/* Status strings and the per-thread detail of the last error. */
#include <stdarg.h>
#include <stdio.h>
#include "fv_image.h"

static _Thread_local char last_error[256];

const char *
fv_status_string (fv_status s)
{
  switch (s) {
    case FV_OK: return "ok";
    case FV_ERR_INVALID: return "invalid parameters";
    case FV_ERR_NOMEM: return "out of memory";
    case FV_ERR_NO_CUDA: return "CUDA not available";
    case FV_ERR_CUDA: return "CUDA error";
  }
  return "unknown error";
}

const char *
fv_last_error (void)
{
  return last_error;
}

void
fv_set_last_error (const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  vsnprintf (last_error, sizeof last_error, fmt, ap);
  va_end (ap);
}
