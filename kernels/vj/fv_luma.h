/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Luma of packed RGB pixels exactly as OpenCV 4.6's cvtColor(RGB2GRAY)
 * computes it for 8 bits: (9798 R + 19235 G + 3735 B + 2^14) >> 15. */
#ifndef FV_LUMA_H
#define FV_LUMA_H

#include "../common/fv_image.h"

#ifdef __cplusplus
extern "C" {
#endif

/* rgb: host, 3 or 4 interleaved 8-bit channels; r, g, b: each one's index
 * in a pixel. gray: host GRAY8 of the same size. threads: 0 = all cores. */
fv_status fv_luma_from_rgb (const fv_image *rgb, int r, int g, int b, const fv_image *gray,
    int threads);

/* The same on a CUDA device: rgb and gray in device memory, queued on
 * `stream` (not waited for). */
fv_status fv_luma_from_rgb_cuda (const fv_image *rgb, int r, int g, int b, const fv_image *gray,
    void *stream);

/* FV_OK when rgb, gray and the channel indices fit together, both in `mem`. */
fv_status fv_luma_check (const fv_image *rgb, int r, int g, int b, const fv_image *gray,
    fv_mem mem);

#ifdef __cplusplus
}
#endif
#endif
