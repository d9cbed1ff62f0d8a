/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Scratch memory for the elements (vjdetect's luma, satfilter's regions):
 * grown on demand; on the host page-locked when the element runs on CUDA
 * so that uploads from it are plain DMA, ordinary memory otherwise (or
 * when page-locked memory is not to be had); or on the CUDA device, for
 * frames that stay there. */
#ifndef FV_SCRATCH_H
#define FV_SCRATCH_H

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  guint8 *data;
  gsize size;
  gboolean pinned;
  gboolean device;
} FvScratch;

/* At least size bytes (contents not kept); FALSE when none can be had. */
gboolean fv_scratch_ensure (FvScratch *s, gsize size, gboolean want_pinned);
/* At least size bytes of device memory, in the current CUDA context. */
gboolean fv_scratch_ensure_device (FvScratch *s, gsize size);
void fv_scratch_free (FvScratch *s);

G_END_DECLS
#endif
