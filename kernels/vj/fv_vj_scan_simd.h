/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The SIMD scan of one window row: eight windows at a time through the
 * variance test and the stages while any of them lives. HAAR and LBP
 * features, stumps and trees of up to seven nodes (every cascade in
 * opencv-data). Lane for lane the arithmetic is the scalar code's (no FMA,
 * the same rounding, stage sums added in the same order), so the windows
 * found are the same.
 *
 * Compiled once per instruction set by the file that includes it, which
 * defines FV_VJ_SCAN_TARGET (the target attribute's string),
 * FV_VJ_SCAN_NAME (the function) and FV_VJ_SCAN_ZMM (1: stage sums in one
 * 512-bit register, AVX-512). */
#include <immintrin.h>
#include "fv_vj_plan.h"

#define SIMD __attribute__ ((target (FV_VJ_SCAN_TARGET)))
#define INLINE __attribute__ ((always_inline)) inline
#define MAX_TREE_NODES 7   /* a tree's nodes and leaves fit one register */

/* p[o], ... p[o + 7]: eight neighbouring windows' samples */
static INLINE SIMD __m256i
load8 (const uint32_t *p)
{
  return _mm256_loadu_si256 ((const __m256i *) p);
}

static INLINE SIMD __m256i
rect8 (const uint32_t *p, const int32_t *o)
{
  __m256i s = _mm256_sub_epi32 (load8 (p + o[0]), load8 (p + o[1]));
  s = _mm256_sub_epi32 (s, load8 (p + o[2]));
  return _mm256_add_epi32 (s, load8 (p + o[3]));
}

/* The variance test of eight windows: their factors and the lanes that pass. */
static INLINE SIMD int
norm8 (const fv_vj_model *m, const uint32_t *p, __m256 *nf)
{
  if (m->lbp) {
    *nf = _mm256_set1_ps (1.0f);
    return 0xff;
  }
  __m256i s = rect8 (p, m->norm_ofs), q = rect8 (p + m->sq_plane, m->norm_ofs);
  const __m256d area = _mm256_set1_pd (m->norm_area), one = _mm256_set1_pd (1.0);
  __m256d vs[2];
  for (int h = 0; h < 2; h++) {
    __m128i sh = h ? _mm256_extracti128_si256 (s, 1) : _mm256_castsi256_si128 (s);
    __m128i qh = h ? _mm256_extracti128_si256 (q, 1) : _mm256_castsi256_si128 (q);
    __m256d sd = _mm256_cvtepi32_pd (sh), qd = _mm256_cvtepi32_pd (qh);
    vs[h] = _mm256_sub_pd (_mm256_mul_pd (area, qd), _mm256_mul_pd (sd, sd));
  }
  /* A window passes only where area / sqrt(v), rounded to float, is below
   * 0.1: v above about 100 area^2. Below 99.99 area^2 it surely fails, so a
   * block of such windows (flat image) skips the square roots. */
  const __m256d sure_fail = _mm256_set1_pd (99.99 * m->norm_area * m->norm_area);
  if (!(_mm256_movemask_pd (_mm256_cmp_pd (vs[0], sure_fail, _CMP_GE_OQ))
          | _mm256_movemask_pd (_mm256_cmp_pd (vs[1], sure_fail, _CMP_GE_OQ)))) {
    *nf = _mm256_set1_ps (1.0f);
    return 0;
  }
  __m128 f[2];
  int pass = 0;
  for (int h = 0; h < 2; h++) {
    const __m256d v = vs[h];
    __m256d pos = _mm256_cmp_pd (v, _mm256_setzero_pd (), _CMP_GT_OQ);
    __m256d safe = _mm256_blendv_pd (one, v, pos);
    __m128 ff = _mm256_cvtpd_ps (_mm256_div_pd (one, _mm256_sqrt_pd (safe)));
    ff = _mm_blendv_ps (_mm_set1_ps (1.0f), ff, _mm256_cvtpd_ps (pos));
    __m256d ok = _mm256_and_pd (pos, _mm256_cmp_pd (_mm256_mul_pd (area, _mm256_cvtps_pd (ff)),
            _mm256_set1_pd (1e-1), _CMP_LT_OQ));
    pass |= _mm256_movemask_pd (ok) << (4 * h);
    f[h] = ff;
  }
  *nf = _mm256_set_m128 (f[1], f[0]);
  return pass;
}

static INLINE SIMD __m256
haar8 (const fv_vj_haar *f, const uint32_t *p, __m256 nf)
{
  __m256 r = _mm256_add_ps (
      _mm256_mul_ps (_mm256_set1_ps (f->weight[0]), _mm256_cvtepi32_ps (rect8 (p, f->ofs[0]))),
      _mm256_mul_ps (_mm256_set1_ps (f->weight[1]), _mm256_cvtepi32_ps (rect8 (p, f->ofs[1]))));
  if (f->weight[2] != 0.0f)
    r = _mm256_add_ps (r, _mm256_mul_ps (_mm256_set1_ps (f->weight[2]),
            _mm256_cvtepi32_ps (rect8 (p, f->ofs[2]))));
  return _mm256_mul_ps (r, nf);
}

/* LBP codes of eight windows (fv_vj_lbp_code lane by lane). */
static INLINE SIMD __m256i
lbp8 (const fv_vj_lbp *f, const uint32_t *p)
{
  const int32_t *o = f->ofs;
  __m256i v[16];
  for (int k = 0; k < 16; k++)
    v[k] = load8 (p + o[k]);
#define BLOCK(a, b, c, d) _mm256_add_epi32 (_mm256_sub_epi32 (_mm256_sub_epi32 (v[a], v[b]), v[c]), v[d])
  const __m256i c = BLOCK (5, 6, 9, 10);
  const __m256i blocks[8] = { BLOCK (0, 1, 4, 5), BLOCK (1, 2, 5, 6), BLOCK (2, 3, 6, 7),
    BLOCK (6, 7, 10, 11), BLOCK (10, 11, 14, 15), BLOCK (9, 10, 13, 14), BLOCK (8, 9, 12, 13),
    BLOCK (4, 5, 8, 9) };
#undef BLOCK
  __m256i code = _mm256_setzero_si256 ();
  for (int k = 0; k < 8; k++) {   /* bit 7 - k set where block >= centre */
    __m256i lt = _mm256_cmpgt_epi32 (c, blocks[k]);
    code = _mm256_or_si256 (code, _mm256_andnot_si256 (lt, _mm256_set1_epi32 (128 >> k)));
  }
  return code;
}

/* Lanes (all ones) that go left at node k (stump or tree node). */
static INLINE SIMD __m256
go_left8 (const fv_vj_model *m, int k, int feature, float threshold, const uint32_t *p,
    __m256 nf)
{
  if (!m->lbp)
    return _mm256_cmp_ps (haar8 (&m->haar[feature], p, nf), _mm256_set1_ps (threshold),
        _CMP_LT_OQ);
  __m256i code = lbp8 (&m->lbpf[feature], p);
  __m256i words = _mm256_loadu_si256 ((const __m256i *) (m->subset + 8 * k));
  __m256i w = _mm256_permutevar8x32_epi32 (words, _mm256_srli_epi32 (code, 5));
  __m256i bit = _mm256_and_si256 (_mm256_srlv_epi32 (w, _mm256_and_si256 (code,
              _mm256_set1_epi32 (31))), _mm256_set1_epi32 (1));
  return _mm256_castsi256_ps (_mm256_cmpeq_epi32 (bit, _mm256_set1_epi32 (1)));
}

/* Leaf values of weak classifier i for eight windows. */
static INLINE SIMD __m256
weak8 (const fv_vj_model *m, int i, const uint32_t *p, __m256 nf)
{
  if (m->stumps) {
    const fv_vj_stump *w = &m->stump[i];
    return _mm256_blendv_ps (_mm256_set1_ps (w->right), _mm256_set1_ps (w->left),
        go_left8 (m, i, w->feature, w->threshold, p, nf));
  }
  const fv_vj_tree *t = &m->tree[i];
  /* children come after their parents: visiting the nodes in order walks
   * every lane down its own path, and a node no lane reaches costs nothing.
   * cur: the lane's node, or -(leaf) once out (INT32_MIN for leaf 0) */
  __m256i cur = _mm256_setzero_si256 ();
  for (int k = 0; k < t->nnodes; k++) {
    const __m256i here = _mm256_cmpeq_epi32 (cur, _mm256_set1_epi32 (k));
    if (_mm256_testz_si256 (here, here))
      continue;
    const fv_vj_node *n = &m->node[t->first_node + k];
    __m256 left = go_left8 (m, t->first_node + k, n->feature, n->threshold, p, nf);
    __m256i next = _mm256_castps_si256 (_mm256_blendv_ps (
            _mm256_castsi256_ps (_mm256_set1_epi32 (n->right ? n->right : INT32_MIN)),
            _mm256_castsi256_ps (_mm256_set1_epi32 (n->left ? n->left : INT32_MIN)),
            left));
    cur = _mm256_blendv_epi8 (cur, next, here);
  }
  /* leaves: -cur (INT32_MIN stands for leaf 0) */
  __m256i leaf = _mm256_blendv_epi8 (_mm256_sub_epi32 (_mm256_setzero_si256 (), cur),
      _mm256_setzero_si256 (), _mm256_cmpeq_epi32 (cur, _mm256_set1_epi32 (INT32_MIN)));
  float lv[8] = { 0 };
  for (int k = 0; k <= t->nnodes && k < 8; k++)
    lv[k] = m->leaf[t->first_leaf + k];
  return _mm256_permutevar8x32_ps (_mm256_loadu_ps (lv), leaf);
}

/* A HAAR stump's leaf values for eight windows: the common case, kept
 * free of the general path's branches. */
static INLINE SIMD __m256
haar_stump8 (const fv_vj_model *m, int i, const uint32_t *p, __m256 nf)
{
  const fv_vj_stump *w = &m->stump[i];
  __m256 left = _mm256_cmp_ps (haar8 (&m->haar[w->feature], p, nf),
      _mm256_set1_ps (w->threshold), _CMP_LT_OQ);
  return _mm256_blendv_ps (_mm256_set1_ps (w->right), _mm256_set1_ps (w->left), left);
}

/* Stage s on eight windows: the lanes whose sum reaches the threshold.
 * haar_stumps is a constant at each call, so each case gets its own loop. */
static INLINE SIMD int
stage8 (const fv_vj_model *m, int s, const uint32_t *p, __m256 nf, const int haar_stumps)
{
  const fv_vj_stage *st = &m->stages[s];
#if FV_VJ_SCAN_ZMM   /* the eight sums in one register of doubles */
  __m512d sum = _mm512_setzero_pd ();
  for (int i = st->first; i < st->first + st->count; i++) {
    __m256 leaf = haar_stumps ? haar_stump8 (m, i, p, nf) : weak8 (m, i, p, nf);
    sum = _mm512_add_pd (sum, _mm512_cvtps_pd (leaf));
  }
  return _mm512_cmp_pd_mask (sum, _mm512_set1_pd ((double) st->threshold), _CMP_GE_OQ);
#else
  __m256d lo = _mm256_setzero_pd (), hi = _mm256_setzero_pd ();
  for (int i = st->first; i < st->first + st->count; i++) {
    __m256 leaf = haar_stumps ? haar_stump8 (m, i, p, nf) : weak8 (m, i, p, nf);
    lo = _mm256_add_pd (lo, _mm256_cvtps_pd (_mm256_castps256_ps128 (leaf)));
    hi = _mm256_add_pd (hi, _mm256_cvtps_pd (_mm256_extractf128_ps (leaf, 1)));
  }
  const __m256d t = _mm256_set1_pd ((double) st->threshold);
  return _mm256_movemask_pd (_mm256_cmp_pd (lo, t, _CMP_GE_OQ))
      | _mm256_movemask_pd (_mm256_cmp_pd (hi, t, _CMP_GE_OQ)) << 4;
#endif
}

static INLINE SIMD int
scan_row (const fv_vj_model *m, const fv_vj_level *lv, const uint32_t *row, int *out,
    const int haar_stumps)
{
  const int npos = (lv->work_w + lv->step - 1) / lv->step;
  int n = 0, next = 0;   /* next: the first position OpenCV visits in this block */
  for (int b = 0; b < npos; b += 8) {
    const uint32_t *p = row + b;
    const int lanes = npos - b < 8 ? npos - b : 8, valid = (1 << lanes) - 1;
    __m256 nf;
    int var = norm8 (m, p, &nf) & valid;
    /* a block whose windows all fail the variance test needs no stage */
    int alive = var && m->nstages ? stage8 (m, 0, p, nf, haar_stumps) & var : var;
    /* OpenCV's walk: a window that fails the first stage (after passing
     * the variance test) makes it skip the next one */
    int visited = 0;
    while (next < b + lanes) {
      int k = next - b;
      visited |= 1 << k;
      next += ((var >> k) & 1) && !((alive >> k) & 1) ? 2 : 1;
    }
    alive &= visited;
    /* even one live lane is cheaper here than the scalar code */
    for (int s = 1; alive && s < m->nstages; s++)
      alive &= stage8 (m, s, p, nf, haar_stumps);
    for (int k = 0; k < 8; k++)
      if ((alive >> k) & 1)
        out[n++] = (b + k) * lv->step;
  }
  return n;
}

/* Windows x = 0, ... < work_w of one row; the x of each window that
 * passes every stage goes to out, in order. Returns their count. Levels of
 * step 2 must be built split (m with the split offsets): eight neighbouring
 * windows are then eight neighbouring elements, one load. */
SIMD int
FV_VJ_SCAN_NAME (const fv_vj_model *m, const fv_vj_level *lv, const uint32_t *row, int *out)
{
  if (m->stumps && !m->lbp)
    return scan_row (m, lv, row, out, 1);
  return scan_row (m, lv, row, out, 0);
}
