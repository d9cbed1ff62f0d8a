/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Flattens a parsed cascade into fv_vj_model: stage thresholds lowered by
 * OpenCV's epsilon, features turned into offsets for one row stride. */
#include <stdlib.h>
#include <string.h>
#include "fv_vj_plan.h"

/* The offset of column x, row y from a window's corner, in plain or split
 * rows (fv_vj_col), for windows at even columns in split ones. */
static int32_t
at (int x, int y, int stride, int half)
{
  return fv_vj_col (x, half) + stride * y;
}

static void
rect_ofs (int32_t o[4], int x, int y, int w, int h, int stride, int half, int tilted,
    int64_t tplane)
{
  if (tilted) {   /* OpenCV's corners of a 45-degree rectangle in the tilted integral */
    o[0] = (int32_t) (tplane + at (x, y, stride, half));
    o[1] = (int32_t) (tplane + at (x - h, y + h, stride, half));
    o[2] = (int32_t) (tplane + at (x + w, y + w, stride, half));
    o[3] = (int32_t) (tplane + at (x + w - h, y + w + h, stride, half));
  } else {
    o[0] = at (x, y, stride, half);
    o[1] = at (x + w, y, stride, half);
    o[2] = at (x, y + h, stride, half);
    o[3] = at (x + w, y + h, stride, half);
  }
}

/* The host arrays the model points at; FALSE when memory runs out. */
static int
model_alloc (fv_vj_model_host *mh, const fv_cascade *c)
{
  fv_vj_model *m = &mh->m;
  mh->stages = calloc (c->nstages, sizeof *mh->stages);
  mh->subset = m->lbp ? calloc ((size_t) 8 * c->nnodes, sizeof (int32_t)) : NULL;
  if (m->stumps)
    mh->stump = calloc (c->nweak, sizeof *mh->stump);
  else {
    mh->tree = calloc (c->nweak, sizeof *mh->tree);
    mh->node = calloc (c->nnodes, sizeof *mh->node);
    mh->leaf = calloc (c->nleaves, sizeof *mh->leaf);
  }
  if (m->lbp)
    mh->lbpf = calloc (c->nfeatures, sizeof *mh->lbpf);
  else
    mh->haar = calloc (c->nfeatures, sizeof *mh->haar);
  return mh->stages && (!m->lbp || (mh->subset && mh->lbpf)) && (m->lbp || mh->haar)
      && (m->stumps ? mh->stump != NULL : (mh->tree && mh->node && mh->leaf));
}

/* Features as offsets for one row stride: LBP's 4x4 block corners, HAAR's
 * rectangles (tilted ones in the tilted plane). */
static void
model_features (fv_vj_model_host *mh, const fv_cascade *c, int stride, int half, int64_t plane)
{
  fv_vj_model *m = &mh->m;
  for (int f = 0; f < c->nfeatures; f++) {
    const fv_cascade_feature *cf = &c->features[f];
    if (cf->tilted)
      mh->has_tilted = 1;
    if (m->lbp) {
      const fv_cascade_rect *r = &cf->rect[0];
      for (int j = 0; j < 4; j++)
        for (int i = 0; i < 4; i++)
          mh->lbpf[f].ofs[j * 4 + i] = at (r->x + i * r->w, r->y + j * r->h, stride, half);
      continue;
    }
    for (int r = 0; r < 3; r++) {
      if (r < cf->nrects) {
        const fv_cascade_rect *q = &cf->rect[r];
        rect_ofs (mh->haar[f].ofs[r], q->x, q->y, q->w, q->h, stride, half, cf->tilted,
            2 * plane);
        mh->haar[f].weight[r] = q->weight;
      } else {   /* a harmless rectangle with no weight */
        memset (mh->haar[f].ofs[r], 0, sizeof mh->haar[f].ofs[r]);
        mh->haar[f].weight[r] = 0.0f;
      }
    }
  }
}

fv_status
fv_vj_model_init_split (fv_vj_model_host *mh, const fv_cascade *c, int stride, int half,
    int64_t plane)
{
  memset (mh, 0, sizeof *mh);
  fv_vj_model *m = &mh->m;
  m->lbp = c->type == FV_FEATURE_LBP;
  m->win_w = c->width;
  m->win_h = c->height;
  m->nstages = c->nstages;
  m->stumps = 1;
  for (int i = 0; i < c->nweak; i++)
    if (c->weak[i].nnodes != 1)
      m->stumps = 0;
  mh->nweak = c->nweak;
  mh->nnodes = c->nnodes;
  mh->nleaves = c->nleaves;
  mh->nfeatures = c->nfeatures;
  if (!model_alloc (mh, c)) {
    fv_vj_model_clear (mh);
    return FV_ERR_NOMEM;
  }
  for (int s = 0; s < c->nstages; s++) {
    mh->stages[s].first = c->stages[s].first_weak;
    mh->stages[s].count = c->stages[s].nweak;
    mh->stages[s].threshold = c->stages[s].threshold - FV_VJ_STAGE_EPS;
  }
  for (int i = 0; i < c->nweak; i++) {
    const fv_cascade_weak *w = &c->weak[i];
    if (m->stumps) {
      const fv_cascade_node *n = &c->nodes[w->first_node];
      fv_vj_stump *st = &mh->stump[i];
      st->feature = n->feature;
      st->threshold = n->threshold;
      st->left = c->leaves[w->first_leaf];       /* as OpenCV reads stumps */
      st->right = c->leaves[w->first_leaf + 1];
    } else {
      mh->tree[i].first_node = w->first_node;
      mh->tree[i].first_leaf = w->first_leaf;
      mh->tree[i].nnodes = w->nnodes;
    }
  }
  for (int k = 0; k < c->nnodes; k++) {
    if (!m->stumps) {
      fv_vj_node *n = &mh->node[k];
      n->feature = c->nodes[k].feature;
      n->threshold = c->nodes[k].threshold;
      n->left = c->nodes[k].left;
      n->right = c->nodes[k].right;
    }
    if (m->lbp)
      memcpy (mh->subset + 8 * k, c->nodes[k].subset, 8 * sizeof (int32_t));
  }
  if (!m->stumps)
    memcpy (mh->leaf, c->leaves, sizeof (float) * c->nleaves);
  model_features (mh, c, stride, half, plane);
  /* the variance is taken over the window less a one-pixel border */
  rect_ofs (m->norm_ofs, 1, 1, c->width - 2, c->height - 2, stride, half, 0, 0);
  m->norm_area = (double) (c->width - 2) * (c->height - 2);
  m->sq_plane = plane;
  m->stages = mh->stages;
  m->stump = mh->stump;
  m->tree = mh->tree;
  m->node = mh->node;
  m->leaf = mh->leaf;
  m->subset = mh->subset;
  m->haar = mh->haar;
  m->lbpf = mh->lbpf;
  return FV_OK;
}

fv_status
fv_vj_model_init (fv_vj_model_host *mh, const fv_cascade *c, int stride, int64_t plane)
{
  return fv_vj_model_init_split (mh, c, stride, 0, plane);
}

void
fv_vj_model_clear (fv_vj_model_host *mh)
{
  free (mh->stages);
  free (mh->stump);
  free (mh->tree);
  free (mh->node);
  free (mh->leaf);
  free (mh->subset);
  free (mh->haar);
  free (mh->lbpf);
  memset (mh, 0, sizeof *mh);
}
