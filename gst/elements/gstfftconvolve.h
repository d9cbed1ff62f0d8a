/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef GST_FFT_CONVOLVE_H
#define GST_FFT_CONVOLVE_H

#include "gstfvfilter.h"
#include "fv_conv.h"
#include "fv_kernel_file.h"
#include "fvplanes.h"

G_BEGIN_DECLS

#define GST_TYPE_FFT_CONVOLVE (gst_fft_convolve_get_type ())
G_DECLARE_FINAL_TYPE (GstFftConvolve, gst_fft_convolve, GST, FFT_CONVOLVE, GstFvFilter)

struct _GstFftConvolve {
  GstFvFilter parent;

  /* properties, under the object lock */
  gchar *kernel_path, *grid_path;
  gdouble sigma, bias;
  gboolean normalize;
  gboolean correlate;   /* filter2D's correlation instead of convolution */
  fv_border border;
  fv_conv_method method;

  /* streaming state */
  fv_conv_plan *plans[GST_VIDEO_MAX_PLANES];
  fv_conv_grid *grids[GST_VIDEO_MAX_PLANES];   /* with kernel-grid, instead of plans */
};

GST_ELEMENT_REGISTER_DECLARE (fftconvolve);

G_END_DECLS
#endif
