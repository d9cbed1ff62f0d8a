/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The elements' file: what the plugin (plugin.c) registers once it has
 * opened this file. */
#include <gst/gst.h>
#include <gmodule.h>
#include "gstsatfilter.h"
#include "gstautofill.h"
#include "gstfftconvolve.h"
#include "gstvjdetect.h"

GST_ELEMENT_REGISTER_DECLARE (metapublish);
GST_ELEMENT_REGISTER_DECLARE (roitrack);

G_MODULE_EXPORT gboolean fv_elements_register (GstPlugin *plugin);

gboolean
fv_elements_register (GstPlugin *plugin)
{
  gboolean ok = GST_ELEMENT_REGISTER (satfilter, plugin);
  ok &= GST_ELEMENT_REGISTER (autofill, plugin);
  ok &= GST_ELEMENT_REGISTER (fftconvolve, plugin);
  ok &= GST_ELEMENT_REGISTER (vjdetect, plugin);
  ok &= GST_ELEMENT_REGISTER (metapublish, plugin);
  ok &= GST_ELEMENT_REGISTER (roitrack, plugin);
  return ok;
}
