/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The fastvision plugin: one file, its elements and kernels inside. Loading
 * it changes nothing in the process: no environment variable is set, and
 * the CPU kernels' threads (fv_parallel.h: one pool of workers that spin
 * briefly, then sleep) start when a frame first needs them. */
#include <gst/gst.h>
#include "gstsatfilter.h"
#include "gstautofill.h"
#include "gstfftconvolve.h"
#include "gstvjdetect.h"
#include "fvmeta.h"
#include "fv_parallel.h"
#include "fv_config.h"   /* FV_VERSION and the rest, from meson.build */

#define PACKAGE FV_PACKAGE

GST_DEBUG_CATEGORY_STATIC (fv_threads_debug);

GST_ELEMENT_REGISTER_DECLARE (metapublish);
GST_ELEMENT_REGISTER_DECLARE (roitrack);

/* The budget of cores is shared by the process's pipelines (or this user's
 * processes, FASTVISION_SHARE_CORES=1): a region that gets fewer threads than it
 * asked for says so (INFO when the team's
 * size changes, DEBUG every time), so that a budget someone shrank is
 * seen in the log (GST_DEBUG=fvthreads:4). */
static void
team_notice (int want, int got, void *data)
{
  static gint last_got = -1;
  if (g_atomic_int_get (&last_got) != got) {
    g_atomic_int_set (&last_got, got);
    if (got < want)
      GST_CAT_INFO (fv_threads_debug, "a parallel region got %d of the %d threads it asked "
          "for: the budget of cores had %d free (shared by %s; FASTVISION_SHARE_CORES, "
          "docs/tuning.md)", got, want, fv_cores_free (), fv_cores_budget ());
    else
      GST_CAT_INFO (fv_threads_debug, "parallel regions get the %d threads they ask for", want);
  } else if (got < want) {
    GST_CAT_DEBUG (fv_threads_debug, "a parallel region got %d of %d threads", got, want);
  }
}

static gboolean
plugin_init (GstPlugin *plugin)
{
  GST_DEBUG_CATEGORY_INIT (fv_threads_debug, "fvthreads", 0,
      "fastvision's CPU threads: teams smaller than asked");
  fv_team_set_notice (team_notice, NULL);
  fv_meta_register ();   /* the detection mark, with its tags and transforms */
  gboolean ok = GST_ELEMENT_REGISTER (satfilter, plugin);
  ok &= GST_ELEMENT_REGISTER (autofill, plugin);
  ok &= GST_ELEMENT_REGISTER (fftconvolve, plugin);
  ok &= GST_ELEMENT_REGISTER (vjdetect, plugin);
  ok &= GST_ELEMENT_REGISTER (metapublish, plugin);
  ok &= GST_ELEMENT_REGISTER (roitrack, plugin);
  return ok;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, fastvision,
    "Fast box filtering, FFT convolution, cascade detection and contour filling "
    "on the CPU and NVIDIA GPUs", plugin_init, FV_VERSION, FV_LICENSE, FV_PACKAGE, FV_ORIGIN)
