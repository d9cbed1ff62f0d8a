/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The probe behind fftconvolve's chunk shapes (not run by CI): the cost per
 * pixel of a convolution plan (31x31 Gaussian by FFT, GRAY8, device
 * frames on device 0) over bands of a wide frame, by band height and tile
 * layout (auto, whole window, forced tile sides), against the whole frame.
 *
 *   probe_conv_bands WIDTH HEIGHT...  (a height of 0: the square frame)
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "bench_time.h"
#include "fv_conv.h"
#include "fv_conv_cuda.h"
#include "fv_cuda.h"

static float gauss[31 * 31];

static void
probe (int w, int h, int tile, void *src, void *dst)
{
  fv_conv_params p = { 0 };
  p.frame.width = w; p.frame.height = h; p.frame.channels = 1; p.channel_mask = 1;
  p.frame.sample = FV_U8;
  p.kernel = gauss; p.kernel_width = p.kernel_height = 31; p.normalize = 1;
  p.border = FV_BORDER_MIRROR; p.method = FV_CONV_FFT; p.tile = tile;
  p.frame.spread.max_device_bytes = (size_t) -1;
  fv_conv_plan *pl = NULL;
  double t0 = now_ms ();
  if (fv_conv_plan_create (&pl, &p, FV_BACKEND_CUDA, 0, NULL) != FV_OK) {
    printf ("%6d x %-6d tile %5d: %s\n", w, h, tile, fv_last_error ());
    return;
  }
  const double plan_ms = now_ms () - t0;
  int px, py, n;
  fv_conv_cuda_layout (fv_conv_plan_cuda (pl), &px, &py, &n);
  const fv_image s = fv_image_make (src, w, w, h, 1, FV_U8, FV_MEM_DEVICE);
  const fv_image d = fv_image_make (dst, w, w, h, 1, FV_U8, FV_MEM_DEVICE);
  fv_conv_execute (pl, &s, &d);
  double t[7];
  for (int i = 0; i < 7; i++) {
    double a = now_ms ();
    fv_conv_execute (pl, &s, &d);
    t[i] = now_ms () - a;
  }
  const double ms = median (t, 7);
  printf ("%6d x %-6d tile %5d: layout %5dx%-5d x%5d  %8.3f ms  %.4f ms/Mpx  (plan %.0f ms)\n",
      w, h, tile, px, py, n, ms, ms / (w * (double) h / 1e6), plan_ms);
  fflush (stdout);
  fv_conv_plan_destroy (pl);
}

int
main (int argc, char **argv)
{
  for (int j = 0; j < 31; j++)
    for (int i = 0; i < 31; i++)
      gauss[j * 31 + i] = expf (-((i - 15) * (i - 15) + (j - 15) * (j - 15)) / (2 * 25.f));
  if (argc < 3)
    return 2;
  const int w = atoi (argv[1]);
  int hmax = w;
  for (int a = 2; a < argc; a++)
    hmax = atoi (argv[a]) > hmax ? atoi (argv[a]) : hmax;
  const size_t bytes = (size_t) w * hmax;
  void *src = fv_cuda_malloc (bytes), *dst = fv_cuda_malloc (bytes);
  if (!src || !dst)
    return 1;
  uint8_t *host = malloc (bytes);
  for (size_t i = 0; i < bytes; i++)
    host[i] = (uint8_t) ((i * 2654435761u) >> 24);
  fv_cuda_memcpy (src, host, bytes);
  static const int tiles[] = { 0, -1, 226, 482, 994, 2018, 4066 };
  for (int a = 2; a < argc; a++) {
    const int h = atoi (argv[a]) ? atoi (argv[a]) : w;
    for (size_t k = 0; k < sizeof tiles / sizeof tiles[0]; k++)
      if (!(h >= 16384 && tiles[k] == -1 && w >= 32768))
        probe (w, h, tiles[k], src, dst);
  }
  return 0;
}
