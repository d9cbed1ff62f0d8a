/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Device lists as users write them ("0", "0,1", "all"). */
#include "fv_config.h"   /* FV_HAVE_CUDA */
#include <stdlib.h>
#include <string.h>
#include <glib.h>
#include "fv_devices.h"
#include "fv_chunk_run.h"
#include "fv_plan.h"
#include "fv_cuda.h"
#include "fv_env.h"

fv_status
fv_device_list_parse (const char *s, int fallback, int *devices, int *n)
{
  *n = 0;
  if (!s || !*s) {
    devices[(*n)++] = fallback;
    return FV_OK;
  }
  const int have = fv_cuda_device_count ();
  if (g_ascii_strcasecmp (s, "all") == 0) {
    if (have < 1) {
      fv_set_last_error ("cuda-device-ids=all, but no CUDA device is usable");
      return FV_ERR_NO_CUDA;
    }
    for (int d = 0; d < have && d < FV_MAX_DEVICE_ENTRIES; d++)
      devices[(*n)++] = d;
    return FV_OK;
  }
  gchar **parts = g_strsplit (s, ",", -1);
  fv_status st = FV_OK;
  for (gchar **q = parts; *q && st == FV_OK; q++) {
    gchar *t = g_strstrip (*q), *end = NULL;
    gint64 d = g_ascii_strtoll (t, &end, 10);
    if (!*t || *end || d < 0 || d > 1024) {
      fv_set_last_error ("cuda-device-ids \"%s\": \"%s\" is not a device number "
          "(write \"0\", \"0,1\" or \"all\")", s, t);
      st = FV_ERR_INVALID;
    } else if (*n == FV_MAX_DEVICE_ENTRIES) {
      fv_set_last_error ("cuda-device-ids \"%s\": at most %d entries", s, FV_MAX_DEVICE_ENTRIES);
      st = FV_ERR_INVALID;
    } else if (d >= have) {
      fv_set_last_error ("cuda-device-ids \"%s\": device %d, but %d CUDA device(s) usable", s,
          (int) d, have);
      st = FV_ERR_NO_CUDA;
    } else {
      devices[(*n)++] = (int) d;
    }
  }
  g_strfreev (parts);
  return st;
}

void
fv_spread_run_params (const fv_spread *s, int device, int width, int height, int channels,
    fv_sample sample, int halo_x, int halo_y, fv_chunk_run_params *rp)
{
  *rp = (fv_chunk_run_params) {
    .width = width, .height = height, .channels = channels, .sample = sample,
    .halo_x = halo_x, .halo_y = halo_y,
    .budget = s->max_device_bytes, .min_chunks = s->min_chunks,
    .ndevices = s->ndevices > 0 ? s->ndevices : 1,
  };
  /* three lanes a device: copies of chunks overlap the filter of another
   * (measured on two H200s: 3 beats 2 and 4, docs/benchmarks.md) */
  long long lanes = fv_env_int (FV_ENV_CHUNK_LANES, 3);
  lanes = lanes < 1 ? 1 : lanes > 4 ? 4 : lanes;
  while (lanes > 1 && rp->ndevices * lanes > FV_MAX_DEVICE_ENTRIES)
    lanes--;
  rp->lanes = (int) lanes;
  /* over several GPUs, chunks an entry: entries take them as they finish,
   * so the frame's own GPU, which copies nothing, takes more; two, or for
   * large frames up to six, chunks of 24 MB or more (finer shares start
   * and end their copies sooner, but each chunk costs a wait: satfilter on
   * two H200 at 16384², 2, 3, 4 and 6 an entry 0.68, 0.72, 0.71 and 0.80
   * ms a frame; at 32768², 36 chunks 2.12 ms against 2.19-2.47 for 12;
   * docs/benchmarks.md) */
  long long per = fv_env_int (FV_ENV_CHUNK_PER_ENTRY, 0);
  if (per <= 0) {
    const double bytes = (double) width * height * channels * sample;
    per = (long long) (bytes / (24.0 * (1 << 20) * rp->ndevices * rp->lanes));
    per = per < 2 ? 2 : per > 6 ? 6 : per;
  }
  rp->per_entry = (int) (per > 16 ? 16 : per);
  rp->keep_spread = s->keep_spread;
  rp->note = s->note;
  rp->note_user = s->note_user;
  for (int i = 0; i < rp->ndevices; i++)
    rp->devices[i] = s->ndevices > 0 ? s->devices[i] : device;
}

fv_status
fv_spread_fits_alone (const fv_spread *s, int device, size_t whole_bytes, int *alone)
{
  fv_spread one = *s;
  one.ndevices = 0;
  int chunked = 1;
  fv_status st = fv_spread_chunked (&one, device, whole_bytes, &chunked);
  *alone = st == FV_OK && !chunked;
  return st;
}

fv_status
fv_spread_chunked (const fv_spread *s, int device, size_t whole_bytes, int *chunked)
{
  *chunked = 0;
  if (s->ndevices > 1 || s->min_chunks > 1 || (s->ndevices == 1 && s->devices[0] != device)) {
    *chunked = 1;
    return FV_OK;
  }
  if (s->max_device_bytes == (size_t) -1 || !whole_bytes)
    return FV_OK;
  fv_chunk_run_params rp;
  fv_spread_run_params (s, device, 1, 1, 1, FV_U8, 0, 0, &rp);
  size_t budget = s->max_device_bytes;
  if (!budget) {
#if FV_HAVE_CUDA
    fv_status st = fv_chunk_run_budget (&rp, 0, &budget);
#else
    fv_status st = fv_plan_backend_check (FV_BACKEND_CUDA, NULL);   /* no device to ask */
#endif
    if (st != FV_OK)
      return st;
  }
  *chunked = whole_bytes > budget;
  return FV_OK;
}
