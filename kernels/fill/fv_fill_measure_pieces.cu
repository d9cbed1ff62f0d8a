/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A chunk's measure, read for the join across its seams
 * (fv_fill_chunk_measure.c): after fv_fill_measure_dev_run, each region's
 * first pixel, the region of each of the chunk's edge pixels, and for a
 * plane joined 4-ways the diagonal contacts between two of its regions on
 * the edge. */
#include "fv_fill_plan.h"
#include "fv_fill_measure_dev.cuh"
#include "../common/fv_cuda_check.cuh"

using namespace fv_measure;

namespace {

/* the region of each of the frame's edge pixels, in the order top, bottom,
 * left, right (-1: not set), for joining a chunk's regions to its
 * neighbours' (fv_fill_chunk_measure.c) */
__global__ void
edge_regions (Bits b, const int *L, int *out)
{
  const int w = b.width, h = b.height;
  int p = blockIdx.x * blockDim.x + threadIdx.x, x, y;
  if (p >= 2 * (w + h))
    return;
  const int i = p;
  if (p < w) {
    x = p; y = 0;
  } else if ((p -= w) < w) {
    x = p; y = h - 1;
  } else if ((p -= w) < h) {
    x = 0; y = p;
  } else {
    x = w - 1; y = p - h;
  }
  out[i] = b.at (x, y) ? number_of (L, y * w + x) : -1;
}

/* touch[r]: 1 for the regions r on the frame's edge (edge_regions' list) */
__global__ void
mark_touch (const int *edges, int n, unsigned char *touch)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && edges[i] >= 0)
    touch[edges[i]] = 1;
}

/* A plane joined 4-ways: pixels diagonal to each other, neither other pixel
 * of their 2x2 block set, of two regions on the frame's edge (which seams
 * to other chunks may join): a triple each into list (the regions, and 2
 * for the diagonal (x,y)-(x+1,y+1), 3 for the anti-diagonal), counted in
 * *count even past cap */
__global__ void
contacts (Bits b, const int *L, const unsigned char *touch, int *list, int cap, int *count)
{
  const int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x + 1 >= b.width || y + 1 >= b.height)
    return;
  const int W = b.width;
  const bool p = b.at (x, y), q = b.at (x + 1, y + 1), r = b.at (x + 1, y), t = b.at (x, y + 1);
  int u, v, dir;
  if (p && q && !r && !t) {
    u = number_of (L, y * W + x);
    v = number_of (L, (y + 1) * W + x + 1);
    dir = 2;
  } else if (r && t && !p && !q) {
    u = number_of (L, y * W + x + 1);
    v = number_of (L, (y + 1) * W + x);
    dir = 3;
  } else {
    return;
  }
  if (u == v || !touch[u] || !touch[v])
    return;
  const int i = atomicAdd (count, 1);
  if (i < cap) {
    list[3 * i] = u;
    list[3 * i + 1] = v;
    list[3 * i + 2] = dir;
  }
}

}  // namespace

extern "C" fv_status
fv_fill_measure_dev_pieces (fv_fill_measure_dev *m, int k, int n, int *first, int *edge,
    int *ncontacts, void *stream)
{
  cudaStream_t s = (cudaStream_t) stream;
  if (!m->bits[k]) {
    fv_set_last_error ("no %s measured", k ? "parts" : "holes");
    return FV_ERR_INVALID;
  }
  const int ne = 2 * (m->width + m->height);
  const Bits b = { m->bits[k], m->width, m->height, m->tiles_x };
  edge_regions<<<(ne + 255) / 256, 256, 0, s>>> (b, m->labels[k], m->edges);
  FV_CUDA_TRY (cudaGetLastError ());
  FV_CUDA_TRY (cudaMemcpyAsync (edge, m->edges, sizeof (int) * ne, cudaMemcpyDeviceToHost, s));
  if (n > 0)
    FV_CUDA_TRY (cudaMemcpyAsync (first, m->roots[k], sizeof (int) * n, cudaMemcpyDeviceToHost,
        s));
  if (ncontacts) {
    *ncontacts = 0;
    if (n > m->touch_cap) {
      cudaFree (m->touch);
      m->touch = nullptr;
      m->touch_cap = 0;
      FV_CUDA_TRY (cudaMalloc (&m->touch, n));
      m->touch_cap = n;
    }
    if (n > 0) {
      FV_CUDA_TRY (cudaMemsetAsync (m->touch, 0, n, s));
      mark_touch<<<(ne + 255) / 256, 256, 0, s>>> (m->edges, ne, m->touch);
    }
    const dim3 block (32, ROWS), grid (m->tiles_x, (m->height + ROWS - 1) / ROWS);
    for (int round = 0; n > 0 && round < 2; round++) {   /* again when the list was short */
      FV_CUDA_TRY (cudaMemsetAsync (&m->count[2], 0, sizeof (int), s));
      contacts<<<grid, block, 0, s>>> (b, m->labels[k], m->touch, m->contacts, m->contacts_cap,
          &m->count[2]);
      FV_CUDA_TRY (cudaGetLastError ());
      FV_CUDA_TRY (cudaMemcpyAsync (&m->host_count[2], &m->count[2], sizeof (int),
          cudaMemcpyDeviceToHost, s));
      FV_CUDA_TRY (fv_cuda_sync (s));
      *ncontacts = m->host_count[2];
      if (*ncontacts <= m->contacts_cap)
        break;
      cudaFree (m->contacts);
      m->contacts = nullptr;
      m->contacts_cap = 0;
      FV_CUDA_TRY (cudaMalloc (&m->contacts, 3 * sizeof (int) * (size_t) *ncontacts));
      m->contacts_cap = *ncontacts;
    }
  }
  FV_CUDA_TRY (fv_cuda_sync (s));
  return FV_OK;
}

extern "C" fv_status
fv_fill_measure_dev_contacts (fv_fill_measure_dev *m, int *list, int n, void *stream)
{
  cudaStream_t s = (cudaStream_t) stream;
  if (n > m->contacts_cap) {
    fv_set_last_error ("%d contacts asked for, %d found", n, m->contacts_cap);
    return FV_ERR_INVALID;
  }
  if (n > 0)
    FV_CUDA_TRY (cudaMemcpyAsync (list, m->contacts, 3 * sizeof (int) * (size_t) n,
        cudaMemcpyDeviceToHost, s));
  FV_CUDA_TRY (fv_cuda_sync (s));
  return FV_OK;
}

