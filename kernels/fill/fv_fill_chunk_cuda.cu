/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The fill of a chunk of a larger frame in two passes, and the seams'
 * union-find between them (fv_fill_plan.h; fv_fill_chunked.c runs them). */
#include "fv_fill_tiles.cuh"
#include "../common/fv_cuda.h"
#include "../common/fv_env.h"
#include <cstring>

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

/* ---- a chunk whose frame lies on another GPU, the home ----
 * Its pixels would cross the link between the GPUs twice (read, then
 * written: device 1's band of a 16384^2 frame on two H200 took 4-5 times
 * what device 0's pixels took, read in place or staged by copy engines).
 * Instead the home packs the chunk's background into bits, a bit a pixel,
 * in pieces of whole tile rows, and copies each piece here, where it is
 * labelled as it arrives; once the tiles are joined, each piece's bits of
 * what reaches the outside are written back into the home's scratch, and
 * the home writes the pixels from both. A pixel crosses as two bits. */

/* The home's stream, events and scratch for chunks up to the plan's size
 * (bands resized over the first frames need no more), made (again) when
 * the home changes; none left made when that fails. */
static cudaError_t
home_open (fv_fill_cuda *c, const fv_fill_plan *pl, int device)
{
  fv_fill_home *h = &c->home;
  if (h->stream && h->device == device)
    return cudaSuccess;
  fv_fill_home_close (c);
  h->pieces = (int) fv_env_int (FV_ENV_FILL_PIECES, 4);
  h->pieces = h->pieces < 0 ? 0 : h->pieces > MAX_PIECES ? MAX_PIECES : h->pieces;
  const size_t words = (size_t) frame_of (pl, nullptr, 0, pl->p.frame.width,
      pl->p.frame.height, ALL_SIDES).tiles * T;
  cudaError_t e = cudaSuccess;
  for (int k = 0; k < MAX_PIECES && e == cudaSuccess; k++)
    e = cudaEventCreateWithFlags (&h->written[k], cudaEventDisableTiming);
  if (e == cudaSuccess)
    e = cudaEventCreateWithFlags (&h->start, cudaEventDisableTiming);
  if (e == cudaSuccess)
    e = fv_cuda_use_device (device);
  /* the home's own chunks fill its SMs: its blocks for this chunk go
   * first as SMs free up, or this GPU would wait for the home's frame */
  int least = 0, greatest = 0;
  if (e == cudaSuccess)
    e = cudaDeviceGetStreamPriorityRange (&least, &greatest);
  if (e == cudaSuccess)
    e = cudaStreamCreateWithPriority (&h->stream, cudaStreamNonBlocking, greatest);
  h->device = device;
  for (int k = 0; k < MAX_PIECES && e == cudaSuccess; k++)
    e = cudaEventCreateWithFlags (&h->packed[k], cudaEventDisableTiming);
  if (e == cudaSuccess)
    e = cudaEventCreateWithFlags (&h->done, cudaEventDisableTiming);
  if (e == cudaSuccess)
    e = cudaMalloc (&h->bg, words * sizeof (unsigned));
  if (e == cudaSuccess)
    e = cudaMalloc (&h->out, words * sizeof (unsigned));
  cudaError_t back = fv_cuda_use_device (c->ps.device);
  if (e != cudaSuccess)
    fv_fill_home_close (c);
  return e != cudaSuccess ? e : back;
}

/* Pieces of whole tile rows, about `want`, none empty. */
static int
pieces_of (const Frame &f, int want)
{
  const int rows = f.tiles / f.tiles_x, per = (rows + want - 1) / want;
  return (rows + per - 1) / per;
}

/* Tiles of piece k of n (pieces_of's n; the last takes the rest). */
static void
piece_tiles (const Frame &f, int k, int n, int *t0, int *t1)
{
  const int rows = f.tiles / f.tiles_x, per = (rows + n - 1) / n;
  const int r0 = k * per, r1 = r0 + per < rows ? r0 + per : rows;
  *t0 = r0 * f.tiles_x;
  *t1 = r1 * f.tiles_x;
}

/* pack_tiles' and unpack_tiles' blocks for tiles [t0, t1) (whole rows) */
static dim3
pack_grid (const Frame &f, int t0, int t1)
{
  return dim3 ((f.tiles_x + PACK_TILES - 1) / PACK_TILES, (t1 - t0) / f.tiles_x);
}

/* The home packs the n pieces of the chunk (at_home: its pixels there) and
 * copies each into this plan's bits, once this stream's earlier work
 * (which may still read the bits) is done; queued. */
static fv_status
home_pack (fv_fill_cuda *c, const Frame &at_home, int n)
{
  fv_fill_home *h = &c->home;
  FV_CUDA_TRY (cudaEventRecord (h->start, c->ps.stream));
  FV_CUDA_TRY (fv_cuda_use_device (h->device));
  FV_CUDA_TRY (cudaStreamWaitEvent (h->stream, h->start, 0));
  for (int k = 0; k < n; k++) {
    int t0, t1;
    piece_tiles (at_home, k, n, &t0, &t1);
    pack_tiles<<<pack_grid (at_home, t0, t1), PACK_THREADS, 0, h->stream>>> (at_home, h->bg, t0,
        t1);
    FV_CUDA_TRY (cudaMemcpyAsync (c->bits + (size_t) t0 * T, h->bg + (size_t) t0 * T,
        (size_t) (t1 - t0) * T * sizeof (unsigned), cudaMemcpyDefault, h->stream));
    FV_CUDA_TRY (cudaEventRecord (h->packed[k], h->stream));
  }
  FV_CUDA_TRY (cudaGetLastError ());
  FV_CUDA_TRY (fv_cuda_use_device (c->ps.device));
  return FV_OK;
}

/* The home writes dst's pixels, each piece once this GPU has written its
 * bits of what reaches the outside; this stream's end waits for it. */
static fv_status
home_unpack (fv_fill_cuda *c, const fv_fill_params *p, const Frame &f, const fv_image *dst,
    int n)
{
  fv_fill_home *h = &c->home;
  const unsigned char fv = (unsigned char) p->fill_value;
  FV_CUDA_TRY (fv_cuda_use_device (h->device));
  for (int k = 0; k < n; k++) {
    int t0, t1;
    piece_tiles (f, k, n, &t0, &t1);
    FV_CUDA_TRY (cudaStreamWaitEvent (h->stream, h->written[k], 0));
    unpack_tiles<<<pack_grid (f, t0, t1), PACK_THREADS, 0, h->stream>>> (f, h->bg, h->out,
        (unsigned char *) dst->data, dst->stride, fv, p->output == FV_FILL_FILLED ? fv : 0, t0,
        t1);
  }
  FV_CUDA_TRY (cudaEventRecord (h->done, h->stream));
  FV_CUDA_TRY (cudaGetLastError ());
  FV_CUDA_TRY (fv_cuda_use_device (c->ps.device));
  FV_CUDA_TRY (cudaStreamWaitEvent (c->ps.stream, h->done, 0));
  return FV_OK;
}

extern "C" void
fv_fill_home_close (fv_fill_cuda *c)
{
  fv_fill_home *h = &c->home;
  if (h->stream)   /* nothing here writes the home's scratch any more */
    cudaStreamSynchronize (c->ps.stream);
  for (int k = 0; k < MAX_PIECES; k++)
    if (h->written[k])
      cudaEventDestroy (h->written[k]);
  if (h->start)
    cudaEventDestroy (h->start);
  if (h->stream && fv_cuda_use_device (h->device) == cudaSuccess) {
    cudaStreamSynchronize (h->stream);
    for (int k = 0; k < MAX_PIECES; k++)
      if (h->packed[k])
        cudaEventDestroy (h->packed[k]);
    if (h->done)
      cudaEventDestroy (h->done);
    cudaFree (h->bg);
    cudaFree (h->out);
    cudaStreamDestroy (h->stream);
    fv_cuda_use_device (c->ps.device);
  }
  cudaGetLastError ();
  memset (h, 0, sizeof *h);
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
  /* src and dst on one other GPU (read and written in place over peer
   * access): through that GPU, as bits, in pieces (else one piece, here);
   * home_here takes that way on this GPU too, so that one GPU tests it */
  const int home = fv_cuda_image_device (src);
  bool from_home = false;
  if (home >= 0 && (home != c->ps.device || c->home_here)
      && fv_cuda_image_device (dst) == home) {
    FV_CUDA_TRY (home_open (c, pl, home));
    from_home = c->home.pieces > 0;
  }
  const int n = from_home ? pieces_of (f, c->home.pieces) : 1;
  Frame here = f;   /* from the home: the bits alone */
  if (from_home) {
    here.src = nullptr;
    here.sstride = 0;
    const fv_status st = home_pack (c, f, n);
    if (st != FV_OK)
      return st;
  }
  for (int k = 0; k < n; k++) {
    int t0, t1;
    piece_tiles (here, k, n, &t0, &t1);
    if (from_home)
      FV_CUDA_TRY (cudaStreamWaitEvent (c->ps.stream, c->home.packed[k], 0));
    label_tiles (c, here, t0, t1);
  }
  join (c, here);
  const int ne = 2 * (c->w + c->h), blocks = (ne + 255) / 256;
  edge_roots<<<blocks, 256, 0, c->ps.stream>>> (here, c->slots, c->edge_roots);
  edge_claim<<<blocks, 256, 0, c->ps.stream>>> (ne, c->edge_roots, c->slots);
  edge_first<<<blocks, 256, 0, c->ps.stream>>> (ne, c->edge_roots, c->slots, edges);
  for (int k = 0; k < n; k++) {
    int t0, t1;
    piece_tiles (here, k, n, &t0, &t1);
    if (from_home) {
      write_range (c, &pl->p, here, nullptr, 0, WRITE_FIRST, t0, t1, c->home.out);
      FV_CUDA_TRY (cudaEventRecord (c->home.written[k], c->ps.stream));
    } else {
      write_range (c, &pl->p, here, (unsigned char *) dst->data, dst->stride, WRITE_FIRST, t0,
          t1);
    }
  }
  edge_release<<<blocks, 256, 0, c->ps.stream>>> (ne, c->edge_roots, nullptr, c->slots);
  FV_CUDA_TRY (cudaGetLastError ());
  return from_home ? home_unpack (c, &pl->p, here, dst, n) : FV_OK;   /* queued */
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
