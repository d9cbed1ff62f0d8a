/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Boosted cascades in OpenCV's "opencv-cascade-classifier" XML format
 * (Debian's opencv-data): HAAR features (stumps and trees, tilted features)
 * and LBP features, parsed with GLib's GMarkup into flat arrays that a CPU
 * or GPU detector can walk. The old "opencv-haar-classifier" format is
 * refused with a message that says so. */
#ifndef FV_CASCADE_H
#define FV_CASCADE_H

#include <stdint.h>
#include "../common/fv_image.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { FV_FEATURE_HAAR = 0, FV_FEATURE_LBP = 1 } fv_feature_type;

typedef struct { int x, y, w, h; float weight; } fv_cascade_rect;

typedef struct {
  fv_cascade_rect rect[3];  /* HAAR: 2 or 3 weighted rectangles; LBP: rect[0], a 3x3 block grid */
  int nrects;
  int tilted;               /* HAAR: rectangles rotated by 45 degrees */
} fv_cascade_feature;

/* A node of a weak classifier's tree: go left when the feature's value is
 * below threshold (HAAR) or its LBP code is in the subset (LBP). Children
 * > 0 are node offsets within the tree; <= 0 are -(leaf index). */
typedef struct {
  int left, right, feature;
  float threshold;
  int32_t subset[8];
} fv_cascade_node;

typedef struct { int first_node, nnodes, first_leaf, nleaves; } fv_cascade_weak;
typedef struct { float threshold; int first_weak, nweak; } fv_cascade_stage;

typedef struct {
  fv_feature_type type;
  int width, height;        /* the detection window */
  int max_cat_count;        /* 0 for HAAR, 256 for LBP */
  int nstages, nweak, nnodes, nleaves, nfeatures;
  fv_cascade_stage *stages;
  fv_cascade_weak *weak;
  fv_cascade_node *nodes;
  float *leaves;
  fv_cascade_feature *features;
} fv_cascade;

/* The largest cascade file read (Debian's largest is 2.6 MB), and the
 * largest detection window accepted (OpenCV's cascades are 20 to 60). */
#define FV_CASCADE_MAX_FILE (64u << 20)
#define FV_CASCADE_MAX_WINDOW 1024

/* NULL on failure, with the file, the reason and, where it helps, the line
 * and the part of the cascade at fault in fv_last_error(). Only regular
 * files are read. */
fv_cascade *fv_cascade_load (const char *path);

/* The same from a cascade already in memory; name is what errors call it. */
fv_cascade *fv_cascade_parse (const char *data, size_t len, const char *name);
void fv_cascade_free (fv_cascade *c);

#ifdef __cplusplus
}
#endif
#endif
