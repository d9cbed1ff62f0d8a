/* SPDX-License-Identifier: LGPL-2.1-or-later */
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
  /* how far a tap may be from the value meant: half the step of the last
   * decimal of the coarsest tap written with three decimals or more
   * ("0.0625" rounds to 0.00005); 0 where the taps are taken as exact
   * (integers, few decimals, images, a Gaussian of ours) */
  gdouble rounding;
} FvKernel;

/* Regular files of at most 128 MB; errors name the file (and line) and
 * the reason, in valid UTF-8. */
gboolean fv_kernel_load (const gchar *path, FvKernel *out, GError **error);

/* The same from the file's bytes; path is what errors call it. */
gboolean fv_kernel_parse (const gchar *path, const gchar *data, gsize len, FvKernel *out,
    GError **error);

/* A normalized-shape Gaussian of side 2*ceil(3 sigma)+1 (not normalized:
 * the filter's normalize property does that). */
void fv_kernel_gaussian (gdouble sigma, FvKernel *out);

void fv_kernel_clear (FvKernel *k);

G_END_DECLS
#endif

G_BEGIN_DECLS

/* A grid of kernels: first line "COLS ROWS", then COLS*ROWS kernel file
 * paths in row order (any whitespace between them; quoted as in the shell
 * where a path holds spaces), relative to the grid file's folder. */
typedef struct {
  gint cols, rows;
  FvKernel *kernels;   /* rows * cols */
  gchar **paths;       /* each kernel's file, NULL-terminated (NULL for a Gaussian) */
} FvKernelGrid;

/* Refuses a grid whose kernels could pass fv_memory_limit() before
 * reading them. */
gboolean fv_kernel_grid_load (const gchar *path, FvKernelGrid *out, GError **error);

/* The grid file's text: its size and kernel paths as written. */
gboolean fv_kernel_grid_parse (const gchar *path, const gchar *data, gint *cols, gint *rows,
    gchar ***names, GError **error);
void fv_kernel_grid_clear (FvKernelGrid *g);

G_END_DECLS
