/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Chunked and multi-device CUDA plans against the whole-frame plan, in one
 * run: the box filter (r=15), the convolution (a 31x31 Gaussian by FFT),
 * the fill ("shapes") and the detector (haarcascade_frontalface_default
 * from FV_CASCADES, scale 1.1, on the same frames), on GRAY8 device frames
 * of each size (on device 0), per frame, median of 5 after a warm-up (three
 * for the spread column: a kernel of two passes sizes its bands after two).
 *
 *   bench_chunks [--budget BYTES] [--devices 0,1] [--only NAME,...] SIZE...
 *
 * The detector's "whole frame" is one device with no budget: from 16384²
 * its sums pass 32-bit offsets, so it runs as level groups there too.
 *
 * Columns: the whole frame on device 0 (never chunked), the same under the
 * budget (one device), spread over the listed devices (no budget; always
 * spread), its speed-up and the copy bound, where each device's chunks
 * ended (the spread run's profile: chunks and finish time per device), and
 * the plan as users get it (spread, or one device when that times faster:
 * median of 5 frames after the runner chose).
 *
 * The copy bound: the frame starts and ends on device 0, so the other
 * devices' share crosses device 0's links both ways; with T the whole
 * frame's time on one GPU, n devices and m the time device 0 needs to send
 * (and at once take back) a whole frame's bytes to the others, measured
 * here, no schedule beats T * M / (T + M) with M = max (m, T / (n - 1)). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_time.h"
#include "fill_frames.h"
#include "fv_box.h"
#include "fv_conv.h"
#include "fv_fill.h"
#include "fv_vj.h"
#include "fv_cuda.h"
#include "fv_devices.h"
#include "fv_chunk_run.h"

typedef struct {
  fv_status (*create) (void **plan, int side, const fv_spread *sp);
  fv_status (*execute) (void *plan, const fv_image *src, const fv_image *dst);
  void (*destroy) (void *plan);
  const char *name;
} Kernel;

static fv_status
box_create (void **plan, int side, const fv_spread *sp)
{
  fv_box_params p = { 0 };
  p.frame.width = p.frame.height = side; p.frame.channels = 1; p.channel_mask = 1;
  p.frame.sample = FV_U8;
  p.radius_x = p.radius_y = 15; p.mode = FV_BOX_MEAN; p.border = FV_BORDER_REPLICATE;
  p.frame.spread = *sp;
  return fv_box_plan_create ((fv_box_plan **) plan, &p, FV_BACKEND_CUDA, 0, NULL);
}

static float gauss[31 * 31];

static fv_status
conv_create (void **plan, int side, const fv_spread *sp)
{
  for (int j = 0; j < 31; j++)
    for (int i = 0; i < 31; i++)
      gauss[j * 31 + i] = expf (-((i - 15) * (i - 15) + (j - 15) * (j - 15)) / (2 * 25.f));
  fv_conv_params p = { 0 };
  p.frame.width = p.frame.height = side; p.frame.channels = 1; p.channel_mask = 1;
  p.frame.sample = FV_U8;
  p.kernel = gauss; p.kernel_width = p.kernel_height = 31; p.normalize = 1;
  p.border = FV_BORDER_MIRROR; p.method = FV_CONV_FFT; p.frame.spread = *sp;
  return fv_conv_plan_create ((fv_conv_plan **) plan, &p, FV_BACKEND_CUDA, 0, NULL);
}

static fv_status
fill_create (void **plan, int side, const fv_spread *sp)
{
  fv_fill_params p = { 0 };
  p.frame.width = p.frame.height = side; p.threshold = 127; p.fill_value = 255; p.connectivity = 4;
  p.frame.spread = *sp;
  return fv_fill_plan_create ((fv_fill_plan **) plan, &p, FV_BACKEND_CUDA, 0, NULL);
}

static fv_cascade *cascade;

static fv_status
vj_create (void **plan, int side, const fv_spread *sp)
{
  if (!cascade) {
    char path[1024];
    const char *dir = getenv ("FV_CASCADES");
    snprintf (path, sizeof path, "%s/haarcascades/haarcascade_frontalface_default.xml",
        dir ? dir : "/usr/share/opencv4");
    if (!(cascade = fv_cascade_load (path)))
      return FV_ERR_INVALID;
  }
  fv_vj_params p = { .frame.width = side, .frame.height = side, .scale_factor = 1.1,
      .min_neighbors = 3 };
  p.frame.spread = *sp;
  if (p.frame.spread.max_device_bytes == (size_t) -1)   /* one device, its free memory */
    p.frame.spread.max_device_bytes = 0;
  return fv_vj_plan_create ((fv_vj_plan **) plan, cascade, &p, FV_BACKEND_CUDA, 0, NULL);
}

static fv_status
vj_exec (void *p, const fv_image *s, const fv_image *d)
{
  const fv_detection *det;
  int n;
  (void) d;
  return fv_vj_execute (p, s, &det, &n);
}

static void vj_free (void *p) { fv_vj_plan_destroy (p); }
static fv_status box_exec (void *p, const fv_image *s, const fv_image *d) { return fv_box_execute (p, s, d); }
static fv_status conv_exec (void *p, const fv_image *s, const fv_image *d) { return fv_conv_execute (p, s, d); }
static fv_status fill_exec (void *p, const fv_image *s, const fv_image *d) { return fv_fill_execute (p, s, d); }
static void box_free (void *p) { fv_box_plan_destroy (p); }
static void conv_free (void *p) { fv_conv_plan_destroy (p); }
static void fill_free (void *p) { fv_fill_plan_destroy (p); }

static const Kernel kernels[] = {
  { box_create, box_exec, box_free, "satfilter r=15" },
  { conv_create, conv_exec, conv_free, "fftconvolve 31x31" },
  { fill_create, fill_exec, fill_free, "autofill shapes" },
  { vj_create, vj_exec, vj_free, "vjdetect shapes" },
};

/* ms a frame, median of 5 after `warm`; -1 when the plan cannot be made. */
static double
time_plan (const Kernel *k, int side, const fv_spread *sp, const fv_image *src,
    const fv_image *dst, int warm)
{
  void *plan = NULL;
  fv_status st = k->create (&plan, side, sp);
  if (st != FV_OK) {
    fprintf (stderr, "  %s %d: %s\n", k->name, side, fv_last_error ());
    return -1;
  }
  double t[5];
  for (int i = 0; i < warm && st == FV_OK; i++)
    st = k->execute (plan, src, dst);
  fv_chunk_run_last_clear ();
  for (int i = 0; i < 5 && st == FV_OK; i++) {
    double t0 = now_ms ();
    st = k->execute (plan, src, dst);
    t[i] = now_ms () - t0;
  }
  k->destroy (plan);
  if (st != FV_OK) {
    fprintf (stderr, "  %s %d: %s\n", k->name, side, fv_last_error ());
    return -1;
  }
  return median (t, 5);
}

/* The last chunk run's profile: per device, its chunks and when its last
 * ended (ms from the frame's start); "one device" when it kept to one. */
static void
profile (char *out, size_t size)
{
  const fv_chunk_run_stats *s = fv_chunk_run_last ();
  int n = 0;
  out[0] = '\0';
  if (!s->entries) {
    snprintf (out, size, "(own runner)");
    return;
  }
  for (int d = 0; d < 16; d++) {
    int chunks = 0, seen = 0;
    double end = 0, first = 0, share = 0;
    for (int i = 0; i < s->entries; i++)
      if (s->device[i] == d) {
        seen = 1;
        chunks += s->chunks[i];
        share += s->share[i];
        end = s->done_ms[i] > end ? s->done_ms[i] : end;
        first = s->first_ms[i] > first ? s->first_ms[i] : first;
      }
    if (!seen)
      continue;
    n += snprintf (out + n, size - n, "%sGPU %d: %d", n ? "; " : "", d, chunks);
    if (share > 0)   /* the runner's chunks (the detector's groups have no pixels) */
      n += snprintf (out + n, size - n, " (%.0f%%)", 100 * share);
    if (first > 0)   /* two passes: the first's end too */
      n += snprintf (out + n, size - n, ", %.2f / %.2f", first, end);
    else
      n += snprintf (out + n, size - n, ", %.2f", end);
  }
  if (s->settle_to_ms > 0)
    n += snprintf (out + n, size - n, "; settled %.2f–%.2f", s->settle_from_ms,
        s->settle_to_ms);
  if (s->home_only)
    snprintf (out + n, size - n, " (one device)");
}

/* Whether `name` is one of the comma-separated `list`. */
static int
name_listed (const char *list, const char *name)
{
  const size_t n = strlen (name);
  for (const char *p = list; *p; p += strcspn (p, ",") + (p[strcspn (p, ",")] == ',')) {
    if (strcspn (p, ",") == n && !strncmp (p, name, n))
      return 1;
  }
  return 0;
}

/* bench_link.cu */
double link_ms (const int *devices, int n, size_t bytes);

int
main (int argc, char **argv)
{
  size_t budget = (size_t) 1 << 30;
  const char *devices = "0,1", *only = "";
  int sizes[16], nsizes = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp (argv[i], "--budget") && i + 1 < argc)
      budget = strtoull (argv[++i], NULL, 10);
    else if (!strcmp (argv[i], "--devices") && i + 1 < argc)
      devices = argv[++i];
    else if (!strcmp (argv[i], "--only") && i + 1 < argc)
      only = argv[++i];
    else if (nsizes < 16)
      sizes[nsizes++] = atoi (argv[i]);
  }
  if (!nsizes) {
    sizes[0] = 16384;
    sizes[1] = 32768;
    nsizes = 2;
  }
  fv_spread whole = { (size_t) -1, { 0 }, 0, 0 }, limited = { budget, { 0 }, 0, 0 };
  fv_spread runner = { budget, { 0 }, 0, 2 };   /* the box through the chunk runner too */
  fv_spread spread = { 0, { 0 }, 0, 0, 1, NULL, NULL };   /* always spread */
  if (fv_device_list_parse (devices, 0, spread.devices, &spread.ndevices) != FV_OK) {
    fprintf (stderr, "%s\n", fv_last_error ());
    return 1;
  }
  fv_spread chosen = spread;   /* as users get it: the runner may keep to one device */
  chosen.keep_spread = 0;
  int ndistinct = 0;
  for (int i = 0; i < spread.ndevices; i++) {
    int seen = 0;
    for (int j = 0; j < i; j++)
      seen |= spread.devices[j] == spread.devices[i];
    ndistinct += !seen;
  }
  printf ("| kernel | frame | whole frame, 1 GPU (ms) | budget %zu MB (ms) | overhead | "
      "budget, chunk runner (ms) | devices %s (ms) | speed-up | copy bound (ms) | "
      "chunks, end (ms) per GPU | as chosen (ms) |\n"
      "|---|---|---|---|---|---|---|---|---|---|---|\n", budget >> 20, devices);
  for (int s = 0; s < nsizes; s++) {
    const int side = sizes[s];
    const size_t bytes = (size_t) side * side;
    uint8_t *host = malloc (bytes);
    ff_make (host, side, side, 0);
    fv_image src = fv_image_make (fv_cuda_malloc (bytes), side, side, side, 1, FV_U8,
        FV_MEM_DEVICE);
    fv_image dst = src;
    dst.data = fv_cuda_malloc (bytes);
    if (!src.data || !dst.data) {
      fprintf (stderr, "no device memory for %d^2 frames\n", side);
      return 1;
    }
    fv_cuda_memcpy (src.data, host, bytes);
    const double m = link_ms (spread.devices, spread.ndevices, bytes);
    for (size_t k = 0; k < sizeof kernels / sizeof kernels[0]; k++) {
      char first[32];   /* --only: kernels by their first word, comma-separated */
      snprintf (first, sizeof first, "%.*s", (int) strcspn (kernels[k].name, " "),
          kernels[k].name);
      if (*only && !name_listed (only, first))
        continue;
      double t0 = time_plan (&kernels[k], side, &whole, &src, &dst, 1);
      double t1 = time_plan (&kernels[k], side, &limited, &src, &dst, 1);
      double t1r = time_plan (&kernels[k], side, &runner, &src, &dst, 1);
      double t2 = time_plan (&kernels[k], side, &spread, &src, &dst, 3);   /* bands sized after two */
      char prof[256];
      profile (prof, sizeof prof);
      double t3 = time_plan (&kernels[k], side, &chosen, &src, &dst, 6);
      /* the detector sends its frame and takes back no pixels: half the bytes */
      const double mk = strncmp (kernels[k].name, "vj", 2) ? m : m / 2;
      const double big = ndistinct > 1 && mk > t0 / (ndistinct - 1) ? mk
          : t0 / (ndistinct > 1 ? ndistinct - 1 : 1);
      const double bound = ndistinct > 1 ? t0 * big / (t0 + big) : t0;
      printf ("| %s | %d² | %.2f | %.2f | %+.0f%% | %.2f (%+.0f%%) | %.2f | %.2f× | %.2f | %s | "
          "%.2f |\n", kernels[k].name, side, t0, t1, 100 * (t1 / t0 - 1), t1r,
          100 * (t1r / t0 - 1), t2, t0 / t2, bound, prof, t3);
      fflush (stdout);
    }
    fv_cuda_free (src.data);
    fv_cuda_free (dst.data);
    free (host);
  }
  fv_cascade_free (cascade);
  return 0;
}
