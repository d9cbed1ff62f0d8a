/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * SECTION:element-fftconvolve
 * @title: fftconvolve
 *
 * 2D convolution with any kernel: by FFT (FFTW3 on the CPU, cuFFT on an
 * NVIDIA GPU; sizes padded to the next 2^a 3^b 5^c 7^d, kernel spectrum
 * computed once) or, on the CPU, by direct summation where that is cheaper
 * (`method=auto` decides from a cost model): in two passes, kh + kw taps
 * a pixel, for kernels that are the outer product of a column and a row
 * (Gaussians, boxes, Sobel's). The
 * kernel comes from a file (`kernel`: a text matrix, PGM or PFM) or is a
 * Gaussian (`gaussian-sigma`). Colour channels of RGB formats are each
 * convolved (alpha passes through); of YUV formats, luma only.
 *
 * The operation is true convolution, as scipy.ndimage.convolve and
 * MATLAB's conv2(..., 'same'): out(x,y) = sum K[j][i] * I(x-i+cx, y-j+cy),
 * centre cx = width/2, cy = height/2 (for even sizes the tap right of and
 * below the middle). With `correlate=true`, the correlation OpenCV's
 * filter2D computes: sum K[j][i] * I(x+i-cx, y+j-cy).
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 videotestsrc ! video/x-raw,format=GRAY8 ! fftconvolve gaussian-sigma=8 ! \
 *     videoconvert ! autovideosink
 * ]| A wide Gaussian blur.
 * |[
 * gst-launch-1.0 v4l2src ! videoconvert ! video/x-raw,format=GRAY8 ! \
 *     fftconvolve kernel=pipelines/kernels/edges.txt normalize=false bias=128 ! videoconvert ! autovideosink
 * ]| An edge kernel with negative taps, offset to mid-grey.
 */
#include <math.h>
#include <string.h>
#include <glib/gstdio.h>
#include "gstfftconvolve.h"
#include "fv_config.h"
#include "fv_file.h"

GST_DEBUG_CATEGORY_STATIC (gst_fft_convolve_debug);
#define GST_CAT_DEFAULT gst_fft_convolve_debug

enum {
  PROP_0,
  PROP_KERNEL,
  PROP_KERNEL_GRID,
  PROP_SIGMA,
  PROP_NORMALIZE,
  PROP_CORRELATE,
  PROP_BIAS,
  PROP_BORDER,
  PROP_METHOD,
};

#define FORMATS "{ GRAY8, GRAY16_LE, RGB, BGR, RGBA, BGRA, RGBx, BGRx, I420, NV12, Y444 }"
#define CUDA_FORMATS "{ RGB, BGR, RGBA, BGRA, RGBx, BGRx, I420, NV12, Y444 }"


#define GST_TYPE_FFT_CONVOLVE_BORDER (gst_fft_convolve_border_get_type ())
static GType
gst_fft_convolve_border_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {FV_BORDER_RENORMALIZE, "Divide by the kernel weight inside the frame", "renormalize"},
    {FV_BORDER_REPLICATE, "Edge pixels repeated outwards", "replicate"},
    {FV_BORDER_MIRROR, "Reflected about the edge pixel", "mirror"},
    {FV_BORDER_ZERO, "Zero outside the frame", "zero"},
    {FV_BORDER_WRAP, "The frame repeats (periodic)", "wrap"},
    {0, NULL, NULL},
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstFftConvolveBorder", values));
  return type;
}

#define GST_TYPE_FFT_CONVOLVE_METHOD (gst_fft_convolve_method_get_type ())
static GType
gst_fft_convolve_method_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {FV_CONV_AUTO, "Direct, separable or FFT, whichever the cost model finds cheaper", "auto"},
    {FV_CONV_FFT, "By FFT", "fft"},
    {FV_CONV_DIRECT, "By direct summation", "direct"},
    {FV_CONV_SEPARABLE, "By direct summation down the columns, then along the rows (kernels "
          "that are the outer product of a column and a row; on the GPU: as auto)", "separable"},
    {0, NULL, NULL},
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type, g_enum_register_static ("GstFftConvolveMethod", values));
  return type;
}

#define gst_fft_convolve_parent_class parent_class
G_DEFINE_TYPE (GstFftConvolve, gst_fft_convolve, GST_TYPE_FV_FILTER);
GST_ELEMENT_REGISTER_DEFINE (fftconvolve, "fftconvolve", GST_RANK_NONE, GST_TYPE_FFT_CONVOLVE);

/* FFTW wisdom under the user's cache folder: the second start plans at once. */
static gchar *
wisdom_path (void)
{
  return g_build_filename (g_get_user_cache_dir (), "fastvision", "fftw-wisdom.d", NULL);
}

/* What kernels came from, for messages: "the kernel file X", "the kernel
 * grid X" or "a Gaussian of sigma S" (valid UTF-8, paths cut). */
static gchar *
describe_source (const gchar *path, const gchar *grid, gdouble sigma)
{
  const gchar *file = grid ? grid : path;
  gchar *shown = file ? fv_file_display_name (file) : NULL;
  gchar *s = grid ? g_strdup_printf ("the kernel grid %s", shown)
      : file ? g_strdup_printf ("the kernel file %s", shown)
      : g_strdup_printf ("a Gaussian of sigma %g", sigma);
  g_free (shown);
  return s;
}

/* The kernels the settings ask for: a grid when kernel-grid is set (one
 * kernel otherwise, in a 1x1 grid); FALSE with *error on a bad file.
 * *source says what was loaded, from the same reading of the properties,
 * so that a refusal names it whatever changed since. */
static gboolean
load_kernels (GstFftConvolve *self, FvKernelGrid *g, gboolean *is_grid, gchar **source,
    GError **error)
{
  GST_OBJECT_LOCK (self);
  gchar *path = g_strdup (self->kernel_path), *grid = g_strdup (self->grid_path);
  gdouble sigma = self->sigma;
  GST_OBJECT_UNLOCK (self);
  *source = describe_source (path, grid, sigma);
  gboolean ok = TRUE;
  memset (g, 0, sizeof *g);
  *is_grid = grid != NULL;
  if (grid) {
    ok = fv_kernel_grid_load (grid, g, error);
  } else {
    g->cols = g->rows = 1;
    g->kernels = g_new0 (FvKernel, 1);
    if (path)
      ok = fv_kernel_load (path, &g->kernels[0], error);
    else
      fv_kernel_gaussian (sigma, &g->kernels[0]);
    if (!ok)
      fv_kernel_grid_clear (g);
  }
  g_free (path);
  g_free (grid);
  return ok;
}

static void
free_plans (GstFftConvolve *self)
{
  for (gint p = 0; p < GST_VIDEO_MAX_PLANES; p++) {
    fv_conv_plan_destroy (self->plans[p]);
    fv_conv_grid_destroy (self->grids[p]);
    self->plans[p] = NULL;
    self->grids[p] = NULL;
  }
}

static void
gst_fft_convolve_release (GstFvFilter *filter)
{
  free_plans (GST_FFT_CONVOLVE (filter));
}

/* Says that the kernel cannot be used (gst_fv_filter_refuse: a warning
 * keeping the old kernel while playing, else an error). source names what
 * was loaded (NULL: why names the file itself). */
static void
refuse_kernel (GstFftConvolve *self, const gchar *source, const gchar *why)
{
  gst_fv_filter_refuse (GST_FV_FILTER (self), GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
      NULL, "Cannot use %s: %s.", source ? source : "the kernel", why);
}

/* The kernels and what they came from, or FALSE after refusing them: a file
 * that is not there or cannot be opened as filesrc says it (NOT_FOUND,
 * OPEN_READ, the path in the debug part), one whose content is no kernel
 * as a bad setting. */
static gboolean
load_or_refuse (GstFftConvolve *self, FvKernelGrid *g, gboolean *is_grid, gchar **source)
{
  GError *err = NULL;
  if (load_kernels (self, g, is_grid, source, &err))
    return TRUE;
  GST_OBJECT_LOCK (self);
  gchar *path = g_strdup (self->grid_path ? self->grid_path : self->kernel_path);
  GST_OBJECT_UNLOCK (self);
  gchar *debug = NULL;
  const gint code = gst_fv_filter_file_error (path, err, GST_RESOURCE_ERROR_SETTINGS, &debug);
  gst_fv_filter_refuse (GST_FV_FILTER (self), GST_RESOURCE_ERROR, code, debug,
      "Cannot use the kernel: %s.", err->message);
  g_free (debug);
  g_free (path);
  g_error_free (err);
  g_clear_pointer (source, g_free);
  return FALSE;
}

static gboolean
gst_fft_convolve_validate (GstFvFilter *filter)
{
  GstFftConvolve *self = GST_FFT_CONVOLVE (filter);
  FvKernelGrid g;
  gboolean is_grid;
  gchar *source = NULL;
  if (!load_or_refuse (self, &g, &is_grid, &source))
    return FALSE;
  GST_OBJECT_LOCK (self);
  gboolean normalize = self->normalize, separable = self->method == FV_CONV_SEPARABLE;
  GST_OBJECT_UNLOCK (self);
  for (gint c = 0; c < g.cols * g.rows; c++) {
    const FvKernel *k = &g.kernels[c];
    if (fv_conv_kernel_check (k->taps, k->width, k->height, normalize) != FV_OK
        || (separable && fv_conv_separable_check (k->taps, k->width, k->height, k->rounding)
            != FV_OK)) {
      gchar *shown = g.paths ? g_filename_display_name (g.paths[c]) : NULL;
      gchar *why = shown ? g_strdup_printf ("kernel %d of %d (%s): %s", c + 1, g.cols * g.rows,
          shown, fv_last_error ()) : g_strdup (fv_last_error ());
      refuse_kernel (self, source, why);
      g_free (shown);
      g_free (why);
      g_free (source);
      fv_kernel_grid_clear (&g);
      return FALSE;
    }
  }
  g_free (source);
  fv_kernel_grid_clear (&g);
  return TRUE;
}

/* The convolution settings of the properties (all but size and kernel). */
static fv_conv_params
settings (GstFftConvolve *self, const GstFvRebuild *r)
{
  fv_conv_params cp = { 0 };
  GST_OBJECT_LOCK (self);
  cp.normalize = self->normalize;
  cp.convolve = !self->correlate;
  cp.bias = self->bias;
  cp.border = self->border;
  cp.method = self->method;
  GST_OBJECT_UNLOCK (self);
  cp.frame.threads = r->threads;
  cp.frame.spread = r->spread;
  cp.measure = TRUE;
  return cp;
}

/* A plan (or grid) for each convolved plane, into plans/grids. */
static fv_status
make_plans (GstFftConvolve *self, const GstFvRebuild *r, const FvKernelGrid *g,
    gboolean is_grid, fv_conv_plan **plans, fv_conv_grid **grids)
{
  const FvPlaneLayout *layout = r->layout;
  const FvDevice *dev = r->dev;
  const gint n = g->cols * g->rows;
  const float **taps = g_new (const float *, n);
  gint *kw = g_new (gint, n), *kh = g_new (gint, n);
  for (gint c = 0; c < n; c++) {
    taps[c] = g->kernels[c].taps;
    kw[c] = g->kernels[c].width;
    kh[c] = g->kernels[c].height;
  }
  fv_conv_params cp = settings (self, r);
  fv_status st = FV_OK;
  for (gint p = 0; p < r->planes && st == FV_OK; p++) {
    const FvPlaneDesc *d = &layout->plane[p];
    cp.frame.width = d->width;
    cp.frame.height = d->height;
    cp.frame.channels = d->channels;
    cp.channel_mask = d->channel_mask;
    cp.frame.sample = d->sample;
    cp.kernel = taps[0];
    cp.kernel_width = kw[0];
    cp.kernel_height = kh[0];
    cp.kernel_rounding = is_grid ? 0 : g->kernels[0].rounding;   /* the file's decimals */
    if (is_grid)
      st = fv_conv_grid_create (&grids[p], &cp, g->cols, g->rows, taps, kw, kh, dev->active,
          dev->stream_device, dev->stream);
    else
      st = fv_conv_plan_create (&plans[p], &cp, dev->active, dev->stream_device, dev->stream);
  }
  g_free (taps);
  g_free (kw);
  g_free (kh);
  return st;
}

static gboolean
gst_fft_convolve_rebuild (GstFvFilter *filter, const GstFvRebuild *r)
{
  GstFftConvolve *self = GST_FFT_CONVOLVE (filter);
  FvKernelGrid g;
  gboolean is_grid;
  gchar *source = NULL;
  if (!load_or_refuse (self, &g, &is_grid, &source))
    return FALSE;   /* while playing: the old kernel stays (gst_fv_filter_refuse) */
  fv_conv_plan *plans[GST_VIDEO_MAX_PLANES] = { NULL };
  fv_conv_grid *grids[GST_VIDEO_MAX_PLANES] = { NULL };
  gchar *wisdom = wisdom_path ();
  fv_conv_wisdom_use (wisdom);
  /* FFTW measures new transform sizes: seconds on a first start (bounded by
   * FASTVISION_FFT_PLAN_SECONDS a size), said on the bus and in the log */
  const gint64 t0 = g_get_monotonic_time ();
  GST_INFO_OBJECT (self, "planning %s%dx%d kernel%s for %d plane(s) (wisdom %s)",
      is_grid ? "a grid of " : "", g.kernels[0].width, g.kernels[0].height, is_grid ? "s" : "",
      r->planes, wisdom);
  gst_element_post_message (GST_ELEMENT (self), gst_message_new_progress (GST_OBJECT (self),
          GST_PROGRESS_TYPE_START, "plan", "Planning the convolution (FFT sizes new to this "
          "machine are measured, up to FASTVISION_FFT_PLAN_SECONDS each)"));
  fv_status st = make_plans (self, r, &g, is_grid, plans, grids);
  const double ms = (g_get_monotonic_time () - t0) / 1000.0;
  gst_element_post_message (GST_ELEMENT (self), gst_message_new_progress (GST_OBJECT (self),
          st == FV_OK ? GST_PROGRESS_TYPE_COMPLETE : GST_PROGRESS_TYPE_ERROR, "plan",
          st == FV_OK ? "Convolution planned" : "Convolution planning failed"));
  if (st == FV_OK && !is_grid)
    for (gint p = 0; p < r->planes; p++) {
      static const char *const names[] = { "auto", "fft", "direct", "separable" };
      GST_INFO_OBJECT (self, "plane %d: method %s", p,
          names[fv_conv_plan_method (plans[p])]);
    }
  GST_INFO_OBJECT (self, "planned in %.1f ms", ms);
  fv_kernel_grid_clear (&g);
  if (st != FV_OK) {
    gchar *why = g_strdup (fv_last_error ());
    for (gint p = 0; p < GST_VIDEO_MAX_PLANES; p++) {
      fv_conv_plan_destroy (plans[p]);
      fv_conv_grid_destroy (grids[p]);
    }
    g_free (wisdom);
    refuse_kernel (self, source, why);
    g_free (why);
    g_free (source);
    return FALSE;
  }
  g_free (source);
  g_free (wisdom);
  free_plans (self);
  memcpy (self->plans, plans, sizeof plans);
  memcpy (self->grids, grids, sizeof grids);
  return TRUE;
}

static void
gst_fft_convolve_set_property (GObject *object, guint prop_id, const GValue *value,
    GParamSpec *pspec)
{
  GstFftConvolve *self = GST_FFT_CONVOLVE (object);
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_KERNEL:
      g_free (self->kernel_path);
      self->kernel_path = gst_fv_dup_nonempty (value);
      break;
    case PROP_KERNEL_GRID:
      g_free (self->grid_path);
      self->grid_path = gst_fv_dup_nonempty (value);
      break;
    case PROP_SIGMA: self->sigma = g_value_get_double (value); break;
    case PROP_NORMALIZE: self->normalize = g_value_get_boolean (value); break;
    case PROP_CORRELATE: self->correlate = g_value_get_boolean (value); break;
    case PROP_BIAS: self->bias = g_value_get_double (value); break;
    case PROP_BORDER: self->border = g_value_get_enum (value); break;
    case PROP_METHOD: self->method = g_value_get_enum (value); break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      GST_OBJECT_UNLOCK (self);
      return;
  }
  GST_OBJECT_UNLOCK (self);
  gst_fv_base_mark_changed (GST_FV_BASE (self));
}

static void
gst_fft_convolve_get_property (GObject *object, guint prop_id, GValue *value,
    GParamSpec *pspec)
{
  GstFftConvolve *self = GST_FFT_CONVOLVE (object);
  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_KERNEL: g_value_set_string (value, self->kernel_path); break;
    case PROP_KERNEL_GRID: g_value_set_string (value, self->grid_path); break;
    case PROP_SIGMA: g_value_set_double (value, self->sigma); break;
    case PROP_NORMALIZE: g_value_set_boolean (value, self->normalize); break;
    case PROP_CORRELATE: g_value_set_boolean (value, self->correlate); break;
    case PROP_BIAS: g_value_set_double (value, self->bias); break;
    case PROP_BORDER: g_value_set_enum (value, self->border); break;
    case PROP_METHOD: g_value_set_enum (value, self->method); break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static GstFlowReturn
gst_fft_convolve_process (GstFvFilter *filter, GstVideoFrame *in, GstVideoFrame *out)
{
  GstFftConvolve *self = GST_FFT_CONVOLVE (filter);
  const FvPlaneLayout *layout = gst_fv_filter_layout (GST_FV_FILTER (self));
  /* YUV: luma only (luma_only: the base class copies the chroma) */
  for (gint p = 0; p < gst_fv_filter_planes (filter); p++) {
    fv_image src = fv_plane_image (layout, in, p);
    fv_image dst = fv_plane_image (layout, out, p);
    fv_status st = self->grids[p] ? fv_conv_grid_execute (self->grids[p], &src, &dst)
        : fv_conv_execute (self->plans[p], &src, &dst);
    if (st != FV_OK)
      return gst_fv_filter_frame_failed (GST_FV_FILTER (self), st, "Convolution failed");
  }
  return GST_FLOW_OK;
}

static void
gst_fft_convolve_finalize (GObject *object)
{
  g_free (GST_FFT_CONVOLVE (object)->kernel_path);
  g_free (GST_FFT_CONVOLVE (object)->grid_path);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_fft_convolve_class_init (GstFftConvolveClass *klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstFvFilterClass *fv_class = GST_FV_FILTER_CLASS (klass);
  const GParamFlags rw = FV_PARAM_CONTROLLABLE;

  GST_DEBUG_CATEGORY_INIT (gst_fft_convolve_debug, "fftconvolve", 0, "fftconvolve");
  GST_FV_BASE_CLASS (klass)->debug = gst_fft_convolve_debug;
  gobject_class->set_property = gst_fft_convolve_set_property;
  gobject_class->get_property = gst_fft_convolve_get_property;
  gobject_class->finalize = gst_fft_convolve_finalize;

  g_object_class_install_property (gobject_class, PROP_KERNEL,
      g_param_spec_string ("kernel", "Kernel file", "Path of a kernel: a text matrix "
          "(rows of numbers, spaces or commas, # comments), a PGM or a PFM image; "
          "unset: a Gaussian of gaussian-sigma", NULL, FV_PARAM_RW));
  g_object_class_install_property (gobject_class, PROP_KERNEL_GRID,
      g_param_spec_string ("kernel-grid", "Kernel grid", "Path of a grid file for kernels "
          "that vary across the frame: first line COLS ROWS, then COLS*ROWS kernel paths in "
          "row order (relative to the grid file); each pixel blends the four nearest "
          "kernels bilinearly. Overrides kernel", NULL, FV_PARAM_RW));
  g_object_class_install_property (gobject_class, PROP_SIGMA,
      g_param_spec_double ("gaussian-sigma", "Gaussian sigma", "Without a kernel file: "
          "a Gaussian of this sigma, side 2*ceil(3 sigma)+1", 0.1, 300.0, 2.0, rw));
  g_object_class_install_property (gobject_class, PROP_NORMALIZE,
      g_param_spec_boolean ("normalize", "Normalize", "Divide by the sum of the kernel",
          TRUE, rw));
  g_object_class_install_property (gobject_class, PROP_CORRELATE,
      g_param_spec_boolean ("correlate", "Correlate", "Correlate instead of convolving: the "
          "kernel is not flipped (OpenCV filter2D's convention); false: true convolution, as "
          "scipy.ndimage.convolve and MATLAB's conv2", FALSE, rw));
  g_object_class_install_property (gobject_class, PROP_BIAS,
      g_param_spec_double ("bias", "Bias", "Added before rounding and clamping (for "
          "kernels with negative taps)", -65535.0, 65535.0, 0.0, rw));
  g_object_class_install_property (gobject_class, PROP_BORDER,
      g_param_spec_enum ("border", "Border", "How the frame is extended",
          GST_TYPE_FFT_CONVOLVE_BORDER, FV_BORDER_RENORMALIZE, rw));
  g_object_class_install_property (gobject_class, PROP_METHOD,
      g_param_spec_enum ("method", "Method", "FFT or direct summation",
          GST_TYPE_FFT_CONVOLVE_METHOD, FV_CONV_AUTO, rw));

  gst_element_class_set_static_metadata (element_class, "FFT convolution",
      "Filter/Effect/Video", "2D convolution with any kernel by FFT (FFTW3 on the CPU, "
      "cuFFT on the GPU) or direct summation, whichever is cheaper", FV_AUTHOR);
  gst_fv_base_class_add_templates (GST_FV_BASE_CLASS (klass),
      FV_FILTER_CAPS (FORMATS, CUDA_FORMATS), G_MAXINT);

  fv_class->luma_only = TRUE;   /* YUV: the luma plane; the chroma passes through */
  fv_class->rebuild = GST_DEBUG_FUNCPTR (gst_fft_convolve_rebuild);
  fv_class->release = GST_DEBUG_FUNCPTR (gst_fft_convolve_release);
  fv_class->process = GST_DEBUG_FUNCPTR (gst_fft_convolve_process);
  fv_class->validate = GST_DEBUG_FUNCPTR (gst_fft_convolve_validate);

  gst_type_mark_as_plugin_api (GST_TYPE_FFT_CONVOLVE_BORDER, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_FFT_CONVOLVE_METHOD, 0);
  gst_fv_base_class_install_backend (GST_FV_BASE_CLASS (klass), FALSE);
}

static void
gst_fft_convolve_init (GstFftConvolve *self)
{
  self->sigma = 2.0;
  self->normalize = TRUE;
  self->border = FV_BORDER_RENORMALIZE;
  self->method = FV_CONV_AUTO;
}
