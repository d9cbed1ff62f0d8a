/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The fastvision plugin: registers its elements. */
#include <gst/gst.h>
#include "gstsatfilter.h"
#include "gstautofill.h"
#include "gstfftconvolve.h"
#include "gstvjdetect.h"

GST_ELEMENT_REGISTER_DECLARE (metapublish);
GST_ELEMENT_REGISTER_DECLARE (roitrack);

#include "fv_config.h"   /* FV_VERSION and the rest, from meson.build */

#define PACKAGE FV_PACKAGE

static gboolean
plugin_init (GstPlugin *plugin)
{
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
