/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The fill of a chunk of a larger frame in two passes, and the seams'
 * union-find between them (fv_fill_plan.h; fv_fill_chunked.c runs them). */
#include "fv_fill_tiles.cuh"

namespace {

/* ---- a chunk of a larger frame (fv_fill_chunked.c) ----
 * Its first pass labels it as a frame of its own whose border is only the
 * frame's (Frame::sides), tells each of its edge pixels' component (-1
 * contour, 0 outside already, else 1 + the first edge pixel, in the order
 * top, bottom, left, right, of the same component) and writes the chunk as
 * if no seam led outside, noting the tiles that reach a component of the
 * chunk's edges. The second marks the roots of the components the seams
 * showed outside NEWLY and writes again only the noted tiles that reach
 * one: a component that touches no tile edge is inside one tile, and is
 * outside only if it holds the frame's border, known in the first pass. */

/* Edge pixel p of the chunk: its slot */
__device__ __forceinline__ int
edge_slot (const Frame &f, int p)
{
  const int tiles_y = f.tiles / f.tiles_x;
  if (p < f.w)
    return slot_id (p / T, p % T);
  if ((p -= f.w) < f.w)
    return slot_id ((tiles_y - 1) * f.tiles_x + p / T, T + p % T);
  if ((p -= f.w) < f.h)
    return slot_id (p / T * f.tiles_x, 2 * T + p % T);
  p -= f.h;
  return slot_id (p / T * f.tiles_x + f.tiles_x - 1, 3 * T + p % T);
}

/* roots[p]: WALL, 0 (the outside) or the root of edge pixel p's slot */
__global__ void
edge_roots (Frame f, const int *slots, int *roots)
{
  const int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= 2 * (f.w + f.h))
    return;
  int r = slots[edge_slot (f, p)];
  if (r != WALL)
    while (slots[r] != r)
      r = slots[r];
  roots[p] = r;
}

/* A root's first edge pixel, held in the root's own slot for a moment
 * (below every slot and WALL, so atomicMin keeps the first) */
constexpr int CLAIMED = INT_MIN;

__global__ void
edge_claim (int n, const int *roots, int *slots)
{
  const int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p < n && roots[p] > 0)
    atomicMin (&slots[roots[p]], CLAIMED + p);
}

__global__ void
edge_first (int n, const int *roots, const int *slots, int *edges)
{
  const int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p < n)
    edges[p] = roots[p] > 0 ? slots[roots[p]] - CLAIMED + 1 : roots[p];
}

/* the roots' slots back to themselves; with `outside`, those whose edge
 * pixel the seams showed outside to the outside (many pixels of one root
 * write the same) */
__global__ void
edge_release (int n, const int *roots, const unsigned char *outside, int *slots)
{
  const int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p < n && roots[p] > 0)
    slots[roots[p]] = outside && outside[p] ? NEWLY : roots[p];
}

/* ---- the seams between chunks (fv_fill_chunked.c's settle) ----
 * Nodes: 0 the outside, then each chunk's edge pixels. seam_init copies
 * each seam side's components to the device (ed) and makes each pixel's
 * node point to its component's first pixel (or the outside); seam_join
 * joins facing background pixels (the unions of join_edges); seam_flags
 * tells each side's pixels whose set holds the outside. */
constexpr int NO_NODE = -1;

__global__ void
seam_init (const fv_fill_side *sides, int *parent, int *ed)
{
  const fv_fill_side sd = sides[blockIdx.y];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 0 && blockIdx.y == 0)
    parent[0] = 0;   /* the outside, its own root */
  if (i >= sd.n)
    return;
  const int v = sd.e[i];
  ed[sd.node0 + i] = v;
  parent[sd.node0 + i] = v < 0 ? NO_NODE : v == 0 ? 0 : sd.base + v - 1;
}

__global__ void
seam_join (const fv_fill_seam *seams, int nseams, const fv_fill_pair *pairs, int npairs,
    int reach, int *parent, const int *ed)
{
  volatile int *vL = parent;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (blockIdx.y == (unsigned) nseams) {   /* the corners' diagonal pairs */
    if (i < npairs && parent[pairs[i].a] != NO_NODE && parent[pairs[i].b] != NO_NODE)
      unite (vL, pairs[i].a, pairs[i].b);
    return;
  }
  const fv_fill_seam sm = seams[blockIdx.y];
  if (i >= sm.n)
    return;
  const int *ea = ed + sm.a0, *eb = ed + sm.b0;
  if (ea[i] < 0)
    return;
  for (int d = -reach; d <= reach; d++) {
    const int j = i + d;
    if (j < 0 || j >= sm.n || eb[j] < 0)
      continue;
    /* joined already through the pair before it (the same components) */
    if (i > 0 && j > 0 && ea[i - 1] == ea[i] && eb[j - 1] == eb[j])
      continue;
    unite (vL, sm.a0 + i, sm.b0 + j);
  }
}

__global__ void
seam_flags (const fv_fill_side *sides, int *parent, const int *ed)
{
  const fv_fill_side sd = sides[blockIdx.y];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= sd.n)
    return;
  sd.out[i] = ed[sd.node0 + i] > 0 && root_of (parent, sd.node0 + i) == 0;
}

}  // namespace

extern "C" fv_status
fv_fill_cuda_seams (void *stream, int *parent, int *ed, const fv_fill_side *sides, int nsides,
    const fv_fill_seam *seams, int nseams, const fv_fill_pair *pairs, int npairs, int longest,
    int conn8)
{
  cudaStream_t st = (cudaStream_t) stream;
  const int bx = (longest + 255) / 256;
  if (nsides > 0)
    seam_init<<<dim3 (bx, nsides), 256, 0, st>>> (sides, parent, ed);
  if (nseams > 0 || npairs > 0) {
    const int jx = (longest > npairs ? longest : npairs) + 255;
    seam_join<<<dim3 (jx / 256, nseams + 1), 256, 0, st>>> (seams, nseams, pairs, npairs,
        conn8 ? 1 : 0, parent, ed);
  }
  if (nsides > 0)
    seam_flags<<<dim3 (bx, nsides), 256, 0, st>>> (sides, parent, ed);
  FV_CUDA_TRY (cudaGetLastError ());
  FV_CUDA_TRY (fv_cuda_sync (st));
  return FV_OK;
}

extern "C" fv_status
fv_fill_cuda_first (fv_fill_plan *pl, const fv_image *src, unsigned sides, int *edges,
    const fv_image *dst)
{
  fv_fill_cuda *c = (fv_fill_cuda *) pl->state;
  if (src->mem == FV_MEM_HOST || dst->mem == FV_MEM_HOST || src->width > pl->p.frame.width
      || src->height > pl->p.frame.height || dst->width != src->width
      || dst->height != src->height) {
    fv_set_last_error ("a chunk's first pass takes device memory of at most the plan's size");
    return FV_ERR_INVALID;
  }
  FV_CUDA_TRY (fv_cuda_use_device (c->ps.device));
  c->w = src->width;
  c->h = src->height;
  c->sides = sides;
  const Frame f = frame_of (pl, src->data, src->stride, c->w, c->h, sides);
  label (c, f);
  const int n = 2 * (c->w + c->h), blocks = (n + 255) / 256;
  edge_roots<<<blocks, 256, 0, c->ps.stream>>> (f, c->slots, c->edge_roots);
  edge_claim<<<blocks, 256, 0, c->ps.stream>>> (n, c->edge_roots, c->slots);
  edge_first<<<blocks, 256, 0, c->ps.stream>>> (n, c->edge_roots, c->slots, edges);
  write (c, &pl->p, f, (unsigned char *) dst->data, dst->stride, WRITE_FIRST);
  edge_release<<<blocks, 256, 0, c->ps.stream>>> (n, c->edge_roots, nullptr, c->slots);
  FV_CUDA_TRY (cudaGetLastError ());
  return FV_OK;   /* queued */
}

extern "C" fv_status
fv_fill_cuda_second (fv_fill_plan *pl, const unsigned char *outside, const fv_image *dst)
{
  fv_fill_cuda *c = (fv_fill_cuda *) pl->state;
  if (dst->mem == FV_MEM_HOST || dst->width != c->w || dst->height != c->h) {
    fv_set_last_error ("a chunk's second pass writes device memory of its first's size");
    return FV_ERR_INVALID;
  }
  FV_CUDA_TRY (fv_cuda_use_device (c->ps.device));
  const Frame f = frame_of (pl, nullptr, 0, c->w, c->h, c->sides);
  const int n = 2 * (c->w + c->h);
  edge_release<<<(n + 255) / 256, 256, 0, c->ps.stream>>> (n, c->edge_roots, outside,
      c->slots);
  write (c, &pl->p, f, (unsigned char *) dst->data, dst->stride, WRITE_FIX);
  FV_CUDA_TRY (cudaGetLastError ());
  return FV_OK;   /* queued */
}

extern "C" fv_status
fv_fill_cuda_chunk_measure (fv_fill_plan *pl, int *w, int *h)
{
  fv_fill_cuda *c = (fv_fill_cuda *) pl->state;
  pl->nregions = pl->nparts = 0;
  *w = c->w;
  *h = c->h;
  if (!c->measure) {
    fv_set_last_error ("the chunk's plan was made without measuring");
    return FV_ERR_INVALID;
  }
  FV_CUDA_TRY (fv_cuda_use_device (c->ps.device));
  return fv_fill_measure_dev_run (c->measure, pl, c->w, c->h, c->bits, c->filled,
      c->ps.stream);
}

extern "C" fv_status
fv_fill_cuda_chunk_pieces (fv_fill_plan *pl, int k, int *first, int *edge, int *ncontacts)
{
  fv_fill_cuda *c = (fv_fill_cuda *) pl->state;
  FV_CUDA_TRY (fv_cuda_use_device (c->ps.device));
  return fv_fill_measure_dev_pieces (c->measure, k, k ? pl->nparts : pl->nregions, first, edge,
      ncontacts, c->ps.stream);
}

extern "C" fv_status
fv_fill_cuda_chunk_contacts (fv_fill_plan *pl, int *list, int n)
{
  fv_fill_cuda *c = (fv_fill_cuda *) pl->state;
  FV_CUDA_TRY (fv_cuda_use_device (c->ps.device));
  return fv_fill_measure_dev_contacts (c->measure, list, n, c->ps.stream);
}
