/* Convolution kernels from files: a text matrix (rows of numbers separated
 * by spaces or commas, '#' starts a comment), a PGM (P2 or P5) or a PFM
 * (grey "Pf") image. Errors name the file, the line and the reason. */
#ifndef FV_KERNEL_FILE_H
#define FV_KERNEL_FILE_H

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  gint width, height;
  gfloat *taps;     /* height rows of width taps */
} FvKernel;

gboolean fv_kernel_load (const gchar *path, FvKernel *out, GError **error);

/* A normalized-shape Gaussian of side 2*ceil(3 sigma)+1 (not normalized:
 * the filter's normalize property does that). */
void fv_kernel_gaussian (gdouble sigma, FvKernel *out);

void fv_kernel_clear (FvKernel *k);

G_END_DECLS
#endif

G_BEGIN_DECLS

/* A grid of kernels: first line "COLS ROWS", then COLS*ROWS kernel file
 * paths in row order (any whitespace between them), relative to the grid
 * file's folder. */
typedef struct {
  gint cols, rows;
  FvKernel *kernels;   /* rows * cols */
} FvKernelGrid;

gboolean fv_kernel_grid_load (const gchar *path, FvKernelGrid *out, GError **error);
void fv_kernel_grid_clear (FvKernelGrid *g);

G_END_DECLS
