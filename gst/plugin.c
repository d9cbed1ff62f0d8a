/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The fastvision plugin. It holds no element: it chooses how idle OpenMP
 * workers wait, then opens the elements' file beside it and registers what
 * that holds.
 *
 * Why: libgomp reads its waiting policy once, when it is loaded, and by
 * default a worker with nothing to do spins for some 300,000 rounds before
 * it sleeps. Several pipelines on one machine (several processes, or
 * serve.py's mounts) then spin against each other and against their own
 * decoders: four privacy-filter pipelines as four processes on a 2-core
 * machine took 98.8 s, against 19.8 s with threads=1 (docs/benchmarks.md).
 * The count libgomp itself uses once a process has more workers than cores
 * (GOMP_SPINCOUNT=1000) keeps one pipeline as fast as before and makes the
 * four take 21.4 s. So, when the process has not chosen (OMP_WAIT_POLICY or
 * GOMP_SPINCOUNT set) and libgomp is not loaded yet, that count is set
 * while the elements' file, and libgomp with it, is loaded, and the
 * environment is put back afterwards. An application that loaded libgomp
 * first keeps what it chose. */
#define _GNU_SOURCE   /* dladdr */
#include <dlfcn.h>
#include <gst/gst.h>
#include <gmodule.h>
#include "fv_config.h"   /* FV_VERSION and the rest, from meson.build */

#define PACKAGE FV_PACKAGE
#define FV_SPINCOUNT "1000"

GST_DEBUG_CATEGORY_STATIC (fv_plugin_debug);
#define GST_CAT_DEFAULT fv_plugin_debug

/* Sets the spin count for libgomp's start; TRUE when it was set here. */
static gboolean
choose_omp_waiting (void)
{
  if (g_getenv ("OMP_WAIT_POLICY") || g_getenv ("GOMP_SPINCOUNT")) {
    GST_INFO ("OpenMP waiting chosen by the environment");
    return FALSE;
  }
  void *gomp = dlopen ("libgomp.so.1", RTLD_LAZY | RTLD_NOLOAD);
  if (gomp) {
    dlclose (gomp);
    GST_INFO ("libgomp already loaded: its waiting policy stands");
    return FALSE;
  }
  GST_INFO ("OpenMP workers spin " FV_SPINCOUNT " rounds before sleeping (GOMP_SPINCOUNT)");
  return g_setenv ("GOMP_SPINCOUNT", FV_SPINCOUNT, FALSE);
}

/* The elements' file, in the plugin's own folder. */
static gchar *
elements_path (void)
{
  Dl_info info;
  if (!dladdr ((void *) elements_path, &info) || !info.dli_fname)
    return g_strdup (FV_ELEMENTS_FILE);
  gchar *dir = g_path_get_dirname (info.dli_fname);
  gchar *path = g_build_filename (dir, FV_ELEMENTS_FILE, NULL);
  g_free (dir);
  return path;
}

static gboolean
plugin_init (GstPlugin *plugin)
{
  GST_DEBUG_CATEGORY_INIT (fv_plugin_debug, "fastvision", 0, "fastvision plugin loading");
  const gboolean set = choose_omp_waiting ();
  gchar *path = elements_path ();
  GModule *m = g_module_open (path, G_MODULE_BIND_LOCAL);
  if (set)
    g_unsetenv ("GOMP_SPINCOUNT");
  gboolean (*reg) (GstPlugin *) = NULL;
  if (!m || !g_module_symbol (m, "fv_elements_register", (gpointer *) &reg)) {
    GST_ERROR ("cannot open the fastvision elements in %s: %s", path, g_module_error ());
    g_printerr ("fastvision: cannot open its elements in %s: %s\n", path, g_module_error ());
    g_free (path);
    if (m)
      g_module_close (m);
    return FALSE;
  }
  g_free (path);
  g_module_make_resident (m);
  return reg (plugin);
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, fastvision,
    "Fast box filtering, FFT convolution, cascade detection and contour filling "
    "on the CPU and NVIDIA GPUs", plugin_init, FV_VERSION, FV_LICENSE, FV_PACKAGE, FV_ORIGIN)
