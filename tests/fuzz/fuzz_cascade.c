/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libFuzzer target: a cascade's bytes through the parser and, when it is
 * accepted, through the detector on a small frame, with the AVX2 and the
 * scalar scans required to find the same raw windows. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "fv_cascade.h"
#include "fv_vj.h"

/* The raw windows of one scan; *n of them, g_free the result. */
static fv_rect *
scan (const fv_cascade *c, const fv_image *im, int simd, int *n)
{
  if (simd)
    unsetenv ("FASTVISION_VJ_NO_SIMD");
  else
    setenv ("FASTVISION_VJ_NO_SIMD", "1", 1);
  fv_vj_params p = { .frame.width = im->width, .frame.height = im->height, .scale_factor = 1.25,
      .frame.threads = 1 };
  fv_vj_plan *plan = NULL;
  fv_rect *out = NULL;
  *n = -1;
  if (fv_vj_plan_create (&plan, c, &p, FV_BACKEND_CPU, 0, NULL) == FV_OK) {
    const fv_detection *d;
    int nd;
    if (fv_vj_execute (plan, im, &d, &nd) == FV_OK) {
      const fv_rect *raw = fv_vj_raw (plan, n);
      out = malloc (sizeof *out * (*n + 1));
      memcpy (out, raw, sizeof *out * *n);
    }
  }
  fv_vj_plan_destroy (plan);
  return out;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  fv_cascade *c = fv_cascade_parse ((const char *) data, size, "fuzz.xml");
  if (!c)
    return 0;
  /* a frame with texture and a flat patch, so that both the variance test
   * and the stages see something */
  enum { W = 72, H = 56 };
  static uint8_t px[W * H];
  uint32_t s = 12345;
  for (int i = 0; i < W * H; i++) {
    s = s * 1664525u + 1013904223u;
    px[i] = (i % W) < 20 ? 128 : (uint8_t) (s >> 24);
  }
  fv_image im = fv_image_make (px, W, W, H, 1, FV_U8, FV_MEM_HOST);
  int n_simd, n_scalar;
  fv_rect *a = scan (c, &im, 1, &n_simd), *b = scan (c, &im, 0, &n_scalar);
  /* the two CPU paths must agree window for window */
  if (n_simd != n_scalar || (n_simd > 0 && memcmp (a, b, sizeof *a * n_simd)))
    abort ();
  free (a);
  free (b);
  fv_cascade_free (c);
  return 0;
}
