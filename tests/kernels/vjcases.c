/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The detector's kernel tests' shared helpers (vjcases.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "vjcases.h"
#include "fv_cuda.h"

const char *data_dir;
fv_backend backend = FV_BACKEND_CPU;

int
vjc_args (int argc, char **argv, const char *program)
{
  for (int i = 1; i < argc; i++) {
    if (!strcmp (argv[i], "--cuda"))
      backend = FV_BACKEND_CUDA;
    else
      data_dir = argv[i];
  }
  if (!data_dir)
    data_dir = getenv ("FV_TEST_DATA");
  if (!data_dir) {
    fprintf (stderr, "usage: %s [--cuda] DATA_DIR\n", program);
    return 2;
  }
  if (backend == FV_BACKEND_CUDA && fv_cuda_device_count () == 0) {
    printf ("no CUDA device: skipped\n");
    return 77;
  }
  return 0;
}

static int
cmp_rect (const void *a, const void *b)
{
  return memcmp (a, b, sizeof (fv_rect)) > 0 ? 1 : memcmp (a, b, sizeof (fv_rect)) < 0 ? -1 : 0;
}

void
sort_rects (fv_rect *r, int n)
{
  qsort (r, n, sizeof *r, cmp_rect);
}

const char *
cascade_path (const char *name)
{
  static char path[512];
  const char *dir = getenv ("FV_CASCADES");   /* where opencv-data is not installed */
  snprintf (path, sizeof path, "%s/%s/%s", dir ? dir : "/usr/share/opencv4",
      strncmp (name, "lbp", 3) ? "haarcascades" : "lbpcascades", name);
  return path;
}

/* Noise with a photo pasted in: many windows pass early stages. */
fv_image
mixed_frame (int w, int h, fvt_rng *rng, const fv_image *photo)
{
  fv_image im = fvt_image_new (w, h, 1, FV_U8, 7, rng);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      uint32_t v = fvt_next (rng) % 256;
      if (photo && x >= w / 4 && y >= h / 5 && x - w / 4 < photo->width && y - h / 5 < photo->height)
        v = ((uint8_t *) photo->data)[(y - h / 5) * photo->stride + x - w / 4];
      fvt_set (&im, x, y, 0, v);
    }
  return im;
}

void
with_cascades (uint64_t seed, cascade_fn fn)
{
  char path[1024];
  snprintf (path, sizeof path, "%s/faces/astronaut.pgm", data_dir);
  fv_image *photo = fvt_load_pnm (path);
  const char *names[] = { "haarcascade_frontalface_default.xml", "haarcascade_eye_tree_eyeglasses.xml",
    "lbpcascade_frontalface_improved.xml", "haarcascade_upperbody.xml" };
  fvt_rng rng = { seed };
  for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
    fv_cascade *c = fv_cascade_load (cascade_path (names[k]));
    FVT_CHECK (c != NULL, "%s", fv_last_error ());
    if (c)
      fn (c, names[k], k, photo, &rng);
    fv_cascade_free (c);
  }
  if (photo) {
    fvt_image_free (photo);
    free (photo);
  }
}

