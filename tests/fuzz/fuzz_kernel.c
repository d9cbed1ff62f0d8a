/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libFuzzer target: a kernel file's bytes (text matrix, PGM or PFM) through
 * the parser and, when accepted and small, a convolution of a tiny frame. */
#include <stdint.h>
#include <string.h>
#include <glib.h>
#include "fv_kernel_file.h"
#include "fv_conv.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  /* the loader hands the parser a NUL-terminated copy, as here */
  gchar *text = g_malloc (size + 1);
  memcpy (text, data, size);
  text[size] = '\0';
  FvKernel k;
  GError *err = NULL;
  if (fv_kernel_parse ("fuzz.txt", text, size, &k, &err)) {
    if (k.width <= 64 && k.height <= 64) {
      uint8_t src[13 * 11], dst[13 * 11];
      for (unsigned i = 0; i < sizeof src; i++)
        src[i] = (uint8_t) (i * 37);
      fv_conv_params p = { 0 };
      p.frame.width = 13;
      p.frame.height = 11;
      p.frame.channels = 1;
      p.channel_mask = 1;
      p.frame.sample = FV_U8;
      p.kernel = k.taps;
      p.kernel_width = k.width;
      p.kernel_height = k.height;
      p.border = (fv_border) (size % 5);
      p.method = FV_CONV_DIRECT;
      p.frame.threads = 1;
      fv_conv_plan *plan = NULL;
      if (fv_conv_plan_create (&plan, &p, FV_BACKEND_CPU, 0, NULL) == FV_OK) {
        fv_image a = fv_image_make (src, 13, 13, 11, 1, FV_U8, FV_MEM_HOST);
        fv_image b = fv_image_make (dst, 13, 13, 11, 1, FV_U8, FV_MEM_HOST);
        fv_conv_execute (plan, &a, &b);
      }
      fv_conv_plan_destroy (plan);
    }
    fv_kernel_clear (&k);
  } else if (!g_utf8_validate (err->message, -1, NULL)) {
    __builtin_trap ();   /* every message must be valid UTF-8 */
  }
  g_clear_error (&err);
  g_free (text);
  return 0;
}
