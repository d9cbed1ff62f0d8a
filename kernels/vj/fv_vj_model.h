/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A cascade flattened for scanning: features turned into offsets into the
 * integral planes (one row stride for every pyramid level, so the offsets
 * hold at every scale), and the window test shared by the CPU and the GPU.
 *
 * The arithmetic follows OpenCV 4.6 operation by operation (float feature
 * sums, double stage sums, the variance factor in double then float) and
 * is never contracted into FMAs: on the host the files are built with
 * -ffp-contract=off, on the device the _rn intrinsics are used. */
#ifndef FV_VJ_MODEL_H
#define FV_VJ_MODEL_H

#include <stdint.h>
#include <stddef.h>

#ifdef __CUDACC__
#define FV_VJ_HD __host__ __device__ __forceinline__
#else
#define FV_VJ_HD static inline
#endif

#ifdef __CUDA_ARCH__
#define FV_FMUL(a, b) __fmul_rn ((a), (b))
#define FV_FADD(a, b) __fadd_rn ((a), (b))
#define FV_DMUL(a, b) __dmul_rn ((a), (b))
#define FV_DSUB(a, b) __dsub_rn ((a), (b))
#else
#define FV_FMUL(a, b) ((a) * (b))
#define FV_FADD(a, b) ((a) + (b))
#define FV_DMUL(a, b) ((a) * (b))
#define FV_DSUB(a, b) ((a) - (b))
#endif

/* OpenCV lowers every stage threshold by this before comparing. */
#define FV_VJ_STAGE_EPS 1e-5f

typedef struct {
  int32_t ofs[3][4];   /* corners of each rectangle: +ofs0 -ofs1 -ofs2 +ofs3 */
  float weight[3];     /* weight[2] == 0 for two-rectangle features */
} fv_vj_haar;

typedef struct { int32_t ofs[16]; } fv_vj_lbp;   /* the 4x4 corners of the 3x3 blocks */

/* Weak classifier with one node: OpenCV's stump fast path. */
typedef struct {
  int32_t feature;
  float threshold;     /* HAAR; LBP uses the node's subset */
  float left, right;   /* leaf values */
} fv_vj_stump;

typedef struct { int32_t feature; float threshold; int32_t left, right; } fv_vj_node;
typedef struct { int32_t first_node, first_leaf, nnodes; } fv_vj_tree;
typedef struct { int32_t first, count; float threshold; } fv_vj_stage;

typedef struct {
  int lbp;               /* 0: HAAR (variance normalised), 1: LBP */
  int stumps;            /* every weak classifier is one node */
  int win_w, win_h;
  int nstages;
  const fv_vj_stage *stages;   /* first/count index stumps or trees */
  const fv_vj_stump *stump;
  const fv_vj_tree *tree;
  const fv_vj_node *node;
  const float *leaf;
  const int32_t *subset;       /* LBP: 8 words per stump or node */
  const fv_vj_haar *haar;
  const fv_vj_lbp *lbpf;
  int32_t norm_ofs[4];         /* the window less a one-pixel border */
  double norm_area;
  ptrdiff_t sq_plane;          /* squared sums, from the sums (elements) */
} fv_vj_model;

/* A window found: its level, y and x in one sortable 64-bit key, the same
 * on the CPU and the GPU (x and y below 2^21). */
FV_VJ_HD uint64_t
fv_vj_key (int level, int y, int x)
{
  return ((uint64_t) level << 42) | ((uint64_t) y << 21) | (uint64_t) x;
}

FV_VJ_HD int fv_vj_key_level (uint64_t k) { return (int) (k >> 42); }
FV_VJ_HD int fv_vj_key_y (uint64_t k) { return (int) ((k >> 21) & 0x1fffff); }
FV_VJ_HD int fv_vj_key_x (uint64_t k) { return (int) (k & 0x1fffff); }

/* A rectangle's sum at element i of the planes at P (the host passes its
 * window's pointer and 0; the device the planes and the window's index,
 * whose 32 bits then reach every corner in one add: a plan's three planes
 * stay below 2^31 elements, fv_vj.c). */
FV_VJ_HD int32_t
fv_vj_rect_at (const uint32_t *P, int32_t i, const int32_t *o)
{
  return (int32_t) (P[i + o[0]] - P[i + o[1]] - P[i + o[2]] + P[i + o[3]]);
}

FV_VJ_HD int32_t
fv_vj_rect (const uint32_t *p, const int32_t *o)
{
  return fv_vj_rect_at (p, 0, o);
}

/* Variance test: 0 rejects the window (flat or nearly so, as OpenCV does);
 * otherwise *nf is the factor that normalises feature values. */
FV_VJ_HD int
fv_vj_window_norm_at (const fv_vj_model *m, const uint32_t *P, int32_t i, float *nf)
{
  if (m->lbp) {
    *nf = 1.0f;
    return 1;
  }
  int32_t s = fv_vj_rect_at (P, i, m->norm_ofs);
  uint32_t sq = (uint32_t) fv_vj_rect_at (P + m->sq_plane, i, m->norm_ofs);
  double v = FV_DSUB (FV_DMUL (m->norm_area, (double) sq), FV_DMUL ((double) s, (double) s));
  if (v > 0.) {
    float f = (float) (1. / sqrt (v));
    *nf = f;
    return FV_DMUL (m->norm_area, (double) f) < 1e-1;
  }
  *nf = 1.0f;
  return 0;
}

FV_VJ_HD int
fv_vj_window_norm (const fv_vj_model *m, const uint32_t *p, float *nf)
{
  return fv_vj_window_norm_at (m, p, 0, nf);
}

FV_VJ_HD float
fv_vj_haar_value_at (const fv_vj_haar *f, const uint32_t *P, int32_t i, float nf)
{
  float r = FV_FADD (FV_FMUL (f->weight[0], (float) fv_vj_rect_at (P, i, f->ofs[0])),
      FV_FMUL (f->weight[1], (float) fv_vj_rect_at (P, i, f->ofs[1])));
  if (f->weight[2] != 0.0f)
    r = FV_FADD (r, FV_FMUL (f->weight[2], (float) fv_vj_rect_at (P, i, f->ofs[2])));
  return FV_FMUL (r, nf);
}

FV_VJ_HD float
fv_vj_haar_value (const fv_vj_haar *f, const uint32_t *p, float nf)
{
  return fv_vj_haar_value_at (f, p, 0, nf);
}

FV_VJ_HD int
fv_vj_lbp_code (const fv_vj_lbp *f, const uint32_t *p)
{
  const int32_t *o = f->ofs;
#define FV_LBP_BLOCK(a, b, c, d) ((int32_t) (p[o[a]] - p[o[b]] - p[o[c]] + p[o[d]]))
  int32_t c = FV_LBP_BLOCK (5, 6, 9, 10);
  return (FV_LBP_BLOCK (0, 1, 4, 5) >= c ? 128 : 0) | (FV_LBP_BLOCK (1, 2, 5, 6) >= c ? 64 : 0)
      | (FV_LBP_BLOCK (2, 3, 6, 7) >= c ? 32 : 0) | (FV_LBP_BLOCK (6, 7, 10, 11) >= c ? 16 : 0)
      | (FV_LBP_BLOCK (10, 11, 14, 15) >= c ? 8 : 0) | (FV_LBP_BLOCK (9, 10, 13, 14) >= c ? 4 : 0)
      | (FV_LBP_BLOCK (8, 9, 12, 13) >= c ? 2 : 0) | (FV_LBP_BLOCK (4, 5, 8, 9) >= c ? 1 : 0);
#undef FV_LBP_BLOCK
}

FV_VJ_HD int
fv_vj_in_subset (const int32_t *subset, int c)
{
  return ((uint32_t) subset[c >> 5] & (1u << (c & 31))) != 0;
}

/* The value weak classifier i adds to its stage's sum. */
FV_VJ_HD float
fv_vj_weak (const fv_vj_model *m, int i, const uint32_t *p, float nf)
{
  if (m->stumps) {
    const fv_vj_stump *s = &m->stump[i];
    int left = m->lbp ? fv_vj_in_subset (m->subset + 8 * i, fv_vj_lbp_code (&m->lbpf[s->feature], p))
        : fv_vj_haar_value (&m->haar[s->feature], p, nf) < s->threshold;
    return left ? s->left : s->right;
  }
  const fv_vj_tree *t = &m->tree[i];
  int ofs = 0;
  do {
    int k = t->first_node + ofs;
    const fv_vj_node *n = &m->node[k];
    int left = m->lbp ? fv_vj_in_subset (m->subset + 8 * k, fv_vj_lbp_code (&m->lbpf[n->feature], p))
        : fv_vj_haar_value (&m->haar[n->feature], p, nf) < n->threshold;
    ofs = left ? n->left : n->right;
  } while (ofs > 0);
  return m->leaf[t->first_leaf - ofs];
}

/* Runs stages [first, nstages): 1 when the window passes them all, else
 * -(the failing stage), so 0 means the first stage failed. */
FV_VJ_HD int
fv_vj_stages (const fv_vj_model *m, int first, const uint32_t *p, float nf)
{
  for (int s = first; s < m->nstages; s++) {
    const fv_vj_stage *st = &m->stages[s];
    double sum = 0.;
    for (int i = st->first; i < st->first + st->count; i++)
      sum += (double) fv_vj_weak (m, i, p, nf);
    if (sum < (double) st->threshold)
      return -s;
  }
  return 1;
}

/* OpenCV's runAt: -1 for a window the variance test rejects. */
FV_VJ_HD int
fv_vj_window (const fv_vj_model *m, const uint32_t *p)
{
  float nf;
  if (!fv_vj_window_norm (m, p, &nf))
    return -1;
  return fv_vj_stages (m, 0, p, nf);
}

#endif
