/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Status strings and the per-thread detail of the last error. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <glib.h>
#include "fv_image.h"
#include "fv_plan.h"

static _Thread_local char last_error[512];

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
  gchar *raw = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  /* valid UTF-8 whatever a file name or a file held, cut between characters */
  gchar *text = g_utf8_make_valid (raw, -1);
  gsize n = strlen (text);
  if (n >= sizeof last_error) {
    n = sizeof last_error - 1;
    while (n > 0 && ((guchar) text[n] & 0xc0) == 0x80)
      n--;
  }
  memcpy (last_error, text, n);
  last_error[n] = '\0';
  g_free (text);
  g_free (raw);
}

fv_status
fv_require_host (const fv_image *a, const fv_image *b)
{
  if (a->mem == FV_MEM_HOST && (!b || b->mem == FV_MEM_HOST))
    return FV_OK;
  fv_set_last_error ("a CPU plan needs host images");
  return FV_ERR_INVALID;
}

fv_status
fv_plan_backend_check (fv_backend backend, const void *init)
{
  if (backend != FV_BACKEND_CPU && backend != FV_BACKEND_CUDA) {
    fv_set_last_error ("unknown backend %d", (int) backend);
    return FV_ERR_INVALID;
  }
  if (!init) {
    fv_set_last_error ("fastvision was built without CUDA");
    return FV_ERR_NO_CUDA;
  }
  return FV_OK;
}
