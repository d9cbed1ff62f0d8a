/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the GPU measure's two files share (private): the measure's state,
 * the bit planes as its kernels read them, and a labelled pixel's region
 * (fv_fill_measure_cuda.cu labels and sums; fv_fill_measure_pieces.cu
 * reads a chunk's edges for the join across seams). */
#ifndef FV_FILL_MEASURE_DEV_CUH
#define FV_FILL_MEASURE_DEV_CUH

#include "fv_fill_measure_cuda.h"

/* a named namespace: fv_fill_measure_dev below holds them */
namespace fv_measure {

/* A region as the device sums it. */
struct DevRegion {
  unsigned long long area, sx, sy, sxx, syy, sxy, ph, pv, pd, pa;
  int xmin, ymin, xmax, ymax;
  int first;   /* its first pixel, y * width + x */
  int part;    /* a hole's part */
};

struct Bits {
  const unsigned *w;
  int width, height, tiles_x;

  __device__ __forceinline__ unsigned word (int tx, int y) const
  {
    return w[((size_t) (y / 32) * tiles_x + tx) * 32 + y % 32];
  }
  /* pixel (x, y), 0 outside the frame */
  __device__ __forceinline__ bool at (int x, int y) const
  {
    if (x < 0 || y < 0 || x >= width || y >= height)
      return false;
    return word (x / 32, y) >> (x % 32) & 1;
  }
};

/* the frame's bits in valid columns only (the last word's tail is not) */
__device__ __forceinline__ unsigned
row_word (const Bits &b, int tx, int y)
{
  const unsigned w = b.word (tx, y);
  const int valid = b.width - tx * 32;
  return valid >= 32 ? w : w & ((1u << valid) - 1);
}

/* the root of p (a pixel index) and its region's number */
__device__ __forceinline__ int
root_of (const int *L, int p)
{
  const int v = L[p];
  return v < 0 ? p : v;
}

__device__ __forceinline__ int
number_of (const int *L, int p)
{
  const int v = L[p];
  return v < 0 ? -v - 1 : -L[v] - 1;
}

constexpr int ROWS = 8;   /* rows a block: 32 x 8 threads */

}  // namespace fv_measure

struct fv_fill_measure_dev {
  int max_w, max_h;         /* the largest frame it measures */
  int width, height, tiles_x;   /* the last frame's */
  const unsigned *bits[2];  /* the last frame's planes */
  int *edges;               /* 2 (max_w + max_h): edge_regions' */
  unsigned char *touch;     /* a byte a region: on the edge */
  int touch_cap;
  int *contacts;            /* triples (contacts ()) */
  int contacts_cap;
  int *labels[2];           /* holes, parts */
  int *roots[2];            /* each plane's, up to width x height / 2 + 1, in raster order */
  int *count;               /* holes, parts, contacts */
  int *host_count;          /* pinned */
  void *temp;               /* CUB's */
  size_t temp_bytes;
  fv_measure::DevRegion *table[2];      /* the sums, on the device */
  fv_fill_region *rows[2];  /* the rows, on the device */
  fv_fill_region *host_rows[2];   /* pinned: what fv_fill_regions hands out */
  int cap[2];
};

#endif
