/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the detector's kernel tests share (vjcases.c): the data folder and
 * back end from the command line, cascades by name, sorted raw windows,
 * frames of noise with the astronaut's face, and the four kinds of
 * cascade to run a case on. */
#ifndef VJCASES_H
#define VJCASES_H

#include "fvtest.h"
#include "fv_vj.h"

extern const char *data_dir;
extern fv_backend backend;

/* test_vj [--cuda] DATA_DIR (or FV_TEST_DATA): 0 to go on, else the exit
 * status (2 usage, 77 no CUDA device) */
int vjc_args (int argc, char **argv, const char *program);
void sort_rects (fv_rect *r, int n);
const char *cascade_path (const char *name);
fv_image mixed_frame (int w, int h, fvt_rng *rng, const fv_image *photo);

/* The four kinds of cascade (HAAR stumps, trees with tilted features, LBP,
 * HAAR with tilted features), each called on frames of noise with the
 * astronaut's face in them. */
typedef void (*cascade_fn) (const fv_cascade *c, const char *name, size_t k,
    const fv_image *photo, fvt_rng *rng);

void with_cascades (uint64_t seed, cascade_fn fn);

#endif
