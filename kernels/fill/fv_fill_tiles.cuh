/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The fill's tile kernels and the CUDA plan's state, shared by the
 * whole-frame plan (fv_fill_cuda.cu) and a chunk's passes
 * (fv_fill_chunk_cuda.cu); private. */
#ifndef FV_FILL_TILES_CUH
#define FV_FILL_TILES_CUH

#include <climits>
#include <cstdlib>
#include "fv_fill_plan.h"
#include "fv_fill_measure_cuda.h"
#include "../common/fv_cuda_check.cuh"

namespace {

constexpr int T = 32;         /* tile side: a warp's lanes, a word's bits */
constexpr int SLOTS = 4 * T;  /* edge pixels a tile: top, bottom, left, right */
constexpr int WALL = -1;
constexpr int NEWLY = -2;     /* chunked, second pass: a root the seams showed outside */
constexpr int TILES_A_BLOCK = 8;
constexpr unsigned ALL = 0xffffffffu;
constexpr int MAX_PIECES = 64;  /* a chunk on another GPU: copied in pieces */

}  // namespace

/* A chunk whose frame lies on another GPU, the home (fv_fill_chunk_cuda.cu):
 * a stream there, its scratch (a bit a pixel: the chunk's background as
 * the home packs it, and what reaches the outside as this GPU found it),
 * and the events between the two GPUs' streams, a pair a piece; made when
 * first needed. */
struct fv_fill_home {
  int device;             /* where it is made (stream not NULL: the whole of it) */
  int pieces;             /* the chunk's pieces; 0: such a chunk is read in place */
  cudaStream_t stream;
  unsigned *bg, *out;
  cudaEvent_t packed[MAX_PIECES], written[MAX_PIECES];   /* on the home, on this GPU */
  cudaEvent_t start, done;                               /* on this GPU, on the home */
};

struct fv_fill_cuda;
/* its home part freed (fv_fill_chunk_cuda.cu) */
extern "C" void fv_fill_home_close (fv_fill_cuda *c);

struct fv_fill_cuda {
  fv::PlanStream ps;
  int *slots;            /* 1 + tiles x SLOTS: the outside, then each tile's edge */
  int *edge_roots;       /* chunked: 2 (width + height), each frame edge pixel's root */
  unsigned char *seamed; /* chunked: per tile, whether it reaches a component of the edges */
  int w, h;              /* chunked: the chunk its first pass ran on, and its border */
  unsigned sides;
  unsigned *bits;        /* tiles x T: background rows, kept from pass 1 to 3; measuring,
                          * pass 3 leaves the enclosed rows in them */
  unsigned char *d_src, *d_dst;
  size_t d_pitch;
  unsigned *filled;       /* measuring parts: the filled bits */
  fv_fill_home home;      /* chunked: a chunk whose frame is on another GPU */
  bool home_here;         /* tests: a chunk whose frame is on this GPU goes through
                           * the home too (FASTVISION_FILL_HOME_HERE) */
  fv_fill_measure_dev *measure;   /* measuring: labels and sums on the device */
};

namespace {

struct Frame {
  const unsigned char *src;
  size_t sstride;
  int w, h, thr, tiles_x, tiles;
  bool conn8;
  unsigned sides;   /* which of its sides are the border (top 1, bottom 2, left 4, right 8):
                     * all of a whole frame's, a chunk's own where it meets the frame's */
};

constexpr unsigned ALL_SIDES = 15;

/* Slot s of tile t: top row 0..31, bottom row 32..63, left column 64..95,
 * right column 96..127 (corners twice, always equal). A tile cut by the
 * frame's bottom (right) edge has its last row (column) as its bottom
 * (right): a chunk's edges are then always slots. */
__device__ __forceinline__ int
slot_id (int tile, int s)
{
  return 1 + tile * SLOTS + s;
}

/* This lane's row of the tile: background bits, and the frame's border
 * pixels in it (outside by definition). */
struct TileRow {
  int x0, y0, lane;
  unsigned bg, border;
};

/* The frame's border pixels that are background in row y0 + lane of the
 * tile at (x0, y0), whose background bits are bg */
__device__ __forceinline__ unsigned
border_bits (const Frame &f, int x0, int y0, int lane, unsigned bg)
{
  const int y = y0 + lane, cols = min (T, f.w - x0);
  if (y >= f.h)
    return 0;
  const bool row = (y == 0 && (f.sides & 1)) || (y == f.h - 1 && (f.sides & 2));
  unsigned b = row ? (cols == T ? ALL : (1u << cols) - 1) : 0;
  if (x0 == 0 && (f.sides & 4))
    b |= 1u;
  if (x0 + cols == f.w && (f.sides & 8))
    b |= 1u << (cols - 1);
  return b & bg;
}

__device__ TileRow
load_row (const Frame &f, int tile)
{
  TileRow t;
  t.lane = threadIdx.x & 31;
  t.x0 = tile % f.tiles_x * T;
  t.y0 = tile / f.tiles_x * T;
  t.bg = 0;
  /* a row at a time across the warp, coalesced; its ballot is row r's word
   * (four rows a step from word loads measured slower: 76 against 66 us at
   * 8K shapes) */
  for (int r = 0; r < T; r++) {
    const int x = t.x0 + t.lane, y = t.y0 + r;
    const bool b = x < f.w && y < f.h && f.src[(size_t) y * f.sstride + x] <= f.thr;
    const unsigned word = __ballot_sync (ALL, b);
    if (r == t.lane)
      t.bg = word;
  }
  t.border = border_bits (f, t.x0, t.y0, t.lane, t.bg);
  return t;
}

/* This lane's row of the tile from background bits packed already (by
 * load_row, on the frame's GPU) */
__device__ TileRow
bits_row (const Frame &f, int tile, const unsigned *bits)
{
  TileRow t;
  t.lane = threadIdx.x & 31;
  t.x0 = tile % f.tiles_x * T;
  t.y0 = tile / f.tiles_x * T;
  t.bg = bits[(size_t) tile * T + t.lane];
  t.border = border_bits (f, t.x0, t.y0, t.lane, t.bg);
  return t;
}

/* the bits of s's runs of m (s within m): carries fill toward the high
 * bits, the same on the reversed words toward the low */
__device__ __forceinline__ unsigned
fill_runs (unsigned s, unsigned m)
{
  const unsigned up = (((m + s) ^ m) & m) | s;
  const unsigned rs = __brev (s), rm = __brev (m);
  return up | __brev ((((rm + rs) ^ rm) & rm) | rs);
}

/* Masks for the doubling shifts: down[k] has the bits that are background
 * in this row and the 2^k - 1 rows above it, up[k] in the rows below. */
struct Columns {
  unsigned down[5], up[5];
};

__device__ Columns
columns (unsigned m, int lane)
{
  Columns c;
  c.down[0] = c.up[0] = m;
  for (int k = 1, d = 1; k < 5; k++, d *= 2) {
    const unsigned a = __shfl_up_sync (ALL, c.down[k - 1], d);
    const unsigned b = __shfl_down_sync (ALL, c.up[k - 1], d);
    c.down[k] = c.down[k - 1] & (lane >= d ? a : 0);
    c.up[k] = c.up[k - 1] & (lane + d < T ? b : 0);
  }
  return c;
}

/* Everything background reaches from r (within m) inside the tile: runs
 * along rows, then columns by shifts of 1, 2, 4, 8, 16 rows (each through
 * background only), and with 8-connectivity one diagonal step; a round at
 * a time until the filled runs have no background neighbour outside them
 * (checked with one shift each way before the column steps, so that a
 * component of one run, most of them in noise, costs a fill and a check). */
__device__ unsigned
flood (unsigned r, unsigned m, const Columns &c, int lane, bool conn8)
{
  for (;;) {
    r = fill_runs (r, m);
    {
      const unsigned a = __shfl_up_sync (ALL, r, 1), b = __shfl_down_sync (ALL, r, 1);
      unsigned n = (lane > 0 ? a : 0) | (lane < T - 1 ? b : 0);
      if (conn8)
        n |= n << 1 | n >> 1;
      if (!__any_sync (ALL, n & m & ~r))
        return r;
    }
    for (int k = 0, d = 1; k < 5; k++, d *= 2) {
      const unsigned a = __shfl_up_sync (ALL, r, d);
      r |= lane >= d ? a & c.down[k] : 0;
    }
    for (int k = 0, d = 1; k < 5; k++, d *= 2) {
      const unsigned b = __shfl_down_sync (ALL, r, d);
      r |= lane + d < T ? b & c.up[k] : 0;
    }
    if (conn8) {
      const unsigned a = __shfl_up_sync (ALL, r, 1), b = __shfl_down_sync (ALL, r, 1);
      unsigned n = (lane > 0 ? a : 0) | (lane < T - 1 ? b : 0);
      r |= (n | n << 1 | n >> 1) & m;
    }
  }
}

/* The tile's last row and column inside the frame: its bottom and right. */
__device__ __forceinline__ int
last_row (const Frame &f, int y0)
{
  return min (T - 1, f.h - 1 - y0);
}

__device__ __forceinline__ int
last_col (const Frame &f, int x0)
{
  return min (T - 1, f.w - 1 - x0);
}

/* The edge pixels of this lane's row: the left and right ends of every row,
 * all of the first and last. */
__device__ __forceinline__ unsigned
edge_mask (int lane, int lr, int lc)
{
  return lane == 0 || lane == lr ? ALL : 1u | 1u << lc;
}

/* FROM_BITS: no pixels, the bits are packed already (a chunk of another
 * GPU's frame); a template, so that the frame's own path compiles as it
 * did (a run-time branch here cost the whole-frame fill 5% on the H200) */
template <bool FROM_BITS>
__global__ void __launch_bounds__ (32 * TILES_A_BLOCK)
label_edges (Frame f, int *slots, unsigned *bits, int t0, int t1)
{
  __shared__ int lab[TILES_A_BLOCK][SLOTS];
  const int warp = threadIdx.x / 32, tile = t0 + blockIdx.x * TILES_A_BLOCK + warp;
  if (tile >= t1)
    return;   /* whole warps: the shuffles below see all their lanes */
  const TileRow t = FROM_BITS ? bits_row (f, tile, bits) : load_row (f, tile);
  const int lane = t.lane;
  if (!FROM_BITS)
    bits[(size_t) tile * T + lane] = t.bg;
  if (tile == 0 && lane == 0)
    slots[0] = 0;   /* the outside, its own root */
  for (int i = lane; i < SLOTS; i += 32)
    lab[warp][i] = WALL;
  __syncwarp ();
  const Columns c = columns (t.bg, lane);
  const int lr = last_row (f, t.y0), lc = last_col (f, t.x0);
  unsigned cand = t.bg & edge_mask (lane, lr, lc);
  for (;;) {
    const unsigned rows = __ballot_sync (ALL, cand != 0);
    if (!rows)
      break;
    const int lead = __ffs (rows) - 1;
    const int bit = __ffs (__shfl_sync (ALL, cand, lead)) - 1;
    const unsigned r = flood (lane == lead ? 1u << bit : 0, t.bg, c, lane, f.conn8);
    const int first = lead == 0 ? bit : lead == lr ? T + bit : bit == 0 ? 2 * T + lead
        : 3 * T + lead;
    const int v = __any_sync (ALL, r & t.border) ? 0 : slot_id (tile, first);
    const unsigned top = __shfl_sync (ALL, r, 0), bottom = __shfl_sync (ALL, r, lr);
    if (top >> lane & 1)
      lab[warp][lane] = v;
    if (bottom >> lane & 1)
      lab[warp][T + lane] = v;
    if (r & 1)
      lab[warp][2 * T + lane] = v;
    if (r >> lc & 1)
      lab[warp][3 * T + lane] = v;
    cand &= ~r;
  }
  __syncwarp ();
  for (int i = lane; i < SLOTS; i += 32)
    slots[slot_id (tile, i)] = lab[warp][i];
}

/* The root of p, halving the path on the way (each node visited points
 * to its grandparent after): the outside's tree spans the whole frame, and
 * unions link it tile by tile, so without this its paths grow hundreds
 * long (8K rings). A node's parent only ever moves to an ancestor, which
 * keeps concurrent unions sound. */
template <typename P>
__device__ __forceinline__ int
root_of (P L, int p)
{
  for (;;) {
    const int q = L[p];
    if (q == p)
      return p;
    const int r = L[q];
    if (r == q)
      return q;
    L[p] = r;
    p = r;
  }
}

/* union by smaller index; L volatile so every read sees other threads' writes */
template <typename P>
__device__ void
unite (P L, int a, int b)
{
  bool done = false;
  while (!done) {
    a = root_of (L, a);
    b = root_of (L, b);
    if (a < b) {
      int old = atomicMin ((int *) &L[b], a);
      done = old == b;
      b = old;
    } else if (b < a) {
      int old = atomicMin ((int *) &L[a], b);
      done = old == a;
      a = old;
    } else {
      done = true;
    }
  }
}

/* Edge pixel i of tile (tx, ty)'s side: its slot, or -1 off the grid */
__device__ __forceinline__ int
side_slot (const Frame &f, int tx, int ty, int side, int i)
{
  const int tiles_y = f.tiles / f.tiles_x;
  if (i < 0) {   /* the neighbouring tile's last pixel on that side */
    if (side >= 2) ty--; else tx--;
    i = T - 1;
  } else if (i >= T) {
    if (side >= 2) ty++; else tx++;
    i = 0;
  }
  if (tx < 0 || ty < 0 || tx >= f.tiles_x || ty >= tiles_y)
    return -1;
  return slot_id (ty * f.tiles_x + tx, side * T + i);
}

/* One thread per edge pixel on the right side (blockIdx.y 0) or the bottom
 * side (1) of every tile but the last column (row): joined to the facing
 * pixel of the next tile, and with 8-connectivity to its two neighbours.
 * Unions another pair already makes are skipped: a straight pair whose
 * both pixels carry the labels of the pair before it (the same components
 * at the time of reading; sets only ever merge), a diagonal one where
 * either pixel's straight partner is background (joined through it). */
__global__ void
join_edges (Frame f, int *slots)
{
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= f.tiles * T)
    return;
  const int tile = i / T, j = i % T, tx = tile % f.tiles_x, ty = tile / f.tiles_x;
  const bool right = blockIdx.y == 0;
  if (right ? tx + 1 >= f.tiles_x : ty + 1 >= f.tiles / f.tiles_x)
    return;
  const int own = right ? 3 : 1, side = right ? 2 : 0;   /* next tile's left column, top row */
  const int a = slot_id (tile, own * T + j);
  const int la = slots[a];
  if (la == WALL)
    return;
  volatile int *vL = slots;
  const int nx = right ? tx + 1 : tx, ny = right ? ty : ty + 1;
  const int b = side_slot (f, nx, ny, side, j), lb = slots[b];
  if (lb != WALL && !(j > 0 && slots[a - 1] == la && slots[b - 1] == lb))
    unite (vL, a, b);
  if (!f.conn8 || lb != WALL)
    return;
  for (int d = -1; d <= 1; d += 2) {
    const int bd = side_slot (f, nx, ny, side, j + d), ad = side_slot (f, tx, ty, own, j + d);
    if (bd >= 0 && slots[bd] != WALL && (ad < 0 || slots[ad] == WALL))
      unite (vL, a, bd);
  }
}

/* How write_tiles runs: a whole frame; a chunk's first pass, while the
 * roots of components on the chunk's edges are claimed (edge_claim: below
 * WALL), noting in `seamed` the tiles that reach one; a chunk's second pass,
 * in the tiles with an edge pixel whose root is NEWLY, turning off the
 * pixels those components hold (everything else is as the first pass wrote
 * it; measuring, the bits it kept lose them too). */
enum WriteMode { WRITE_WHOLE, WRITE_FIRST, WRITE_FIX };

/* An output pixel from its background bit and whether the outside reaches
 * it: contour on_contour, background reached 0, enclosed fv. */
__device__ __forceinline__ unsigned
out_pixel (unsigned bg, unsigned reached, unsigned char fv, unsigned char on_contour)
{
  return !(bg & 1) ? on_contour : (reached & 1) ? 0 : fv;
}

/* A tile's pixels from its background rows m and what of them reaches the
 * outside (each lane its row) */
__device__ __forceinline__ void
store_tile (const Frame &f, int x0, int y0, int lane, unsigned m, unsigned out,
    unsigned char *dst, size_t dstride, unsigned char fv, unsigned char on_contour, bool aligned)
{
  if (aligned) {   /* four rows at a time, four pixels a lane */
    const int q = lane % 8 * 4, x = x0 + q;
    for (int r0 = 0; r0 < T; r0 += 4) {
      const int r = r0 + lane / 8, y = y0 + r;
      const unsigned bg = __shfl_sync (ALL, m, r) >> q, o = __shfl_sync (ALL, out, r) >> q;
      unsigned word = 0;
      for (int k = 0; k < 4; k++)
        word |= out_pixel (bg >> k, o >> k, fv, on_contour) << 8 * k;
      unsigned char *row = dst + (size_t) y * dstride;
      if (y >= f.h || x >= f.w)
        continue;
      if (x + 3 < f.w)
        *(unsigned *) (row + x) = word;
      else
        for (int k = 0; x + k < f.w; k++)
          row[x + k] = (unsigned char) (word >> 8 * k);
    }
    return;
  }
  /* a row at a time across the warp again, coalesced */
  for (int r = 0; r < T; r++) {
    const unsigned bg = __shfl_sync (ALL, m, r), o = __shfl_sync (ALL, out, r);
    const int x = x0 + lane, y = y0 + r;
    if (x < f.w && y < f.h)
      dst[(size_t) y * dstride + x] = (unsigned char) out_pixel (bg >> lane, o >> lane, fv,
          on_contour);
  }
}

/* TO_BITS: a chunk of another GPU's frame, whose pixels are written there
 * from the bits of what reaches the outside (outb); a template as above */
template <bool TO_BITS>
__global__ void __launch_bounds__ (32 * TILES_A_BLOCK)
write_tiles (Frame f, const int *slots, unsigned *bits, unsigned char *dst,
    size_t dstride, unsigned char fv, unsigned char on_contour, bool aligned, bool keep_enclosed,
    unsigned *filled, WriteMode mode, unsigned char *seamed, int t0, int t1, unsigned *outb)
{
  const int warp = threadIdx.x / 32, tile = t0 + blockIdx.x * TILES_A_BLOCK + warp;
  if (tile >= t1 || (mode == WRITE_FIX && !seamed[tile]))
    return;
  const int lane = threadIdx.x & 31;
  const int x0 = tile % f.tiles_x * T, y0 = tile / f.tiles_x * T;
  unsigned *const own = &bits[(size_t) tile * T + lane];   /* read by this lane alone */
  const unsigned m = *own;
  /* seeds: edge pixels whose root is the outside, and the frame's border */
  /* whether this lane's slot of side k reaches the outside: one chase per
   * distinct label across the warp (a tile's 128 slots hold a few; every
   * slot chasing its own cost 140 us at 8K noise), plain loads, as the
   * unions are over */
  bool newly = false, claimed = false;
  auto outside = [&] (int k) {
    const int v = slots[slot_id (tile, k * T + lane)];
    const int leader = __ffs (__match_any_sync (ALL, v)) - 1;
    int root = v;
    if (lane == leader && v != WALL)
      for (int n; root >= 0 && (n = slots[root]) != root;)
        root = n;
    root = __shfl_sync (ALL, root, leader);
    newly |= v != WALL && root == NEWLY;
    claimed |= v != WALL && root < NEWLY;
    return v != WALL && (root == 0 || root == NEWLY);
  };
  const unsigned top = __ballot_sync (ALL, outside (0));
  const unsigned bottom = __ballot_sync (ALL, outside (1));
  const bool left = outside (2), right = outside (3);
  const bool any_claimed = __any_sync (ALL, claimed), any_newly = __any_sync (ALL, newly);
  if (mode == WRITE_FIRST && lane == 0)
    seamed[tile] = any_claimed;
  if (mode == WRITE_FIX && !any_newly)
    return;
  const int lr = last_row (f, y0), lc = last_col (f, x0);
  unsigned seed = border_bits (f, x0, y0, lane, m) | (left ? 1u : 0) | (right ? 1u << lc : 0);
  seed |= lane == 0 ? top : 0;
  seed |= lane == lr ? bottom : 0;
  const Columns c = columns (m, lane);
  const unsigned out = flood (seed & m, m, c, lane, f.conn8);
  if (keep_enclosed)
    *own = m & ~out;   /* measuring, m is what the first pass left enclosed */
  if (filled)   /* contour, or background the outside never reached */
    filled[(size_t) tile * T + lane] = mode == WRITE_FIX ? filled[(size_t) tile * T + lane] & ~out
        : ~out;
  if (mode == WRITE_FIX) {   /* the components the seams showed outside, off */
    for (int r = 0; r < T; r++) {
      const unsigned o = __shfl_sync (ALL, out, r);
      const int x = x0 + lane, y = y0 + r;
      if (x < f.w && y < f.h && (o >> lane & 1))
        dst[(size_t) y * dstride + x] = 0;
    }
    return;
  }
  if (TO_BITS) {
    outb[(size_t) tile * T + lane] = out;
    return;
  }
  store_tile (f, x0, y0, lane, m, out, dst, dstride, fv, on_contour, aligned);
}

/* A chunk of another GPU's frame, on that GPU: its tiles' background bits
 * packed (then copied to the chunk's GPU, which labels them) and its
 * pixels written back from them and the bits of what reaches the outside
 * (as write_tiles would have). Streaming kernels, so that the frame's GPU,
 * busy with its own chunk, spends little on them: a block a row of tiles
 * PACK_TILES wide, each thread 16 pixels of a row at a time (one 16-byte
 * load or store where aligned), the bits through shared memory so that
 * the block reads and writes them whole. */
constexpr int PACK_TILES = 16;
constexpr int PACK_THREADS = 256;

/* The 16 pixels of row y from column x: background bits (src <= thr) */
__device__ __forceinline__ unsigned
pack16 (const Frame &f, int x, int y)
{
  if (y >= f.h || x >= f.w)
    return 0;
  const unsigned char *p = f.src + (size_t) y * f.sstride + x;
  unsigned m = 0;
  if (x + 16 <= f.w && ((uintptr_t) p & 15) == 0) {
    const uint4 v = *(const uint4 *) p;
    const unsigned w[4] = { v.x, v.y, v.z, v.w };
    for (int k = 0; k < 16; k++)
      m |= (unsigned) ((int) (w[k / 4] >> 8 * (k % 4) & 255) <= f.thr) << k;
    return m;
  }
  for (int k = 0; k < 16 && x + k < f.w; k++)
    m |= (unsigned) (p[k] <= f.thr) << k;
  return m;
}

__global__ void __launch_bounds__ (PACK_THREADS)
pack_tiles (Frame f, unsigned *bg, int t0, int t1)
{
  __shared__ unsigned short half[2 * PACK_TILES][T];
  const int ty = t0 / f.tiles_x + blockIdx.y, tx0 = blockIdx.x * PACK_TILES;
  for (int i = threadIdx.x; i < 2 * PACK_TILES * T; i += PACK_THREADS) {
    const int r = i / (2 * PACK_TILES), s = i % (2 * PACK_TILES);
    half[s][r] = (unsigned short) pack16 (f, tx0 * T + 16 * s, ty * T + r);
  }
  __syncthreads ();
  const int first = ty * f.tiles_x + tx0;
  for (int i = threadIdx.x; i < PACK_TILES * T; i += PACK_THREADS) {
    const int j = i / T, r = i % T;
    if (tx0 + j < f.tiles_x && first + j < t1)
      bg[(size_t) (first + j) * T + r] = half[2 * j][r] | (unsigned) half[2 * j + 1][r] << 16;
  }
}

__global__ void __launch_bounds__ (PACK_THREADS)
unpack_tiles (Frame f, const unsigned *bg, const unsigned *outb, unsigned char *dst,
    size_t dstride, unsigned char fv, unsigned char on_contour, int t0, int t1)
{
  __shared__ unsigned m[PACK_TILES * T], o[PACK_TILES * T];
  const int ty = t0 / f.tiles_x + blockIdx.y, tx0 = blockIdx.x * PACK_TILES;
  const int first = ty * f.tiles_x + tx0;
  for (int i = threadIdx.x; i < PACK_TILES * T; i += PACK_THREADS) {
    const bool in = tx0 + i / T < f.tiles_x && first + i / T < t1;
    m[i] = in ? bg[(size_t) first * T + i] : 0;
    o[i] = in ? outb[(size_t) first * T + i] : 0;
  }
  __syncthreads ();
  for (int i = threadIdx.x; i < 2 * PACK_TILES * T; i += PACK_THREADS) {
    const int r = i / (2 * PACK_TILES), s = i % (2 * PACK_TILES);
    const int x = tx0 * T + 16 * s, y = ty * T + r;
    if (y >= f.h || x >= f.w)
      continue;
    const int sh = 16 * (s & 1);
    const unsigned mb = m[s / 2 * T + r] >> sh, ob = o[s / 2 * T + r] >> sh;
    unsigned w[4] = { 0, 0, 0, 0 };
    for (int k = 0; k < 16; k++)
      w[k / 4] |= out_pixel (mb >> k, ob >> k, fv, on_contour) << 8 * (k % 4);
    unsigned char *p = dst + (size_t) y * dstride + x;
    if (x + 16 <= f.w && ((uintptr_t) p & 15) == 0) {
      *(uint4 *) p = make_uint4 (w[0], w[1], w[2], w[3]);
    } else {
      for (int k = 0; k < 16 && x + k < f.w; k++)
        p[k] = (unsigned char) (w[k / 4] >> 8 * (k % 4));
    }
  }
}

static Frame
frame_of (const fv_fill_plan *pl, const void *src, size_t stride, int w, int h, unsigned sides)
{
  const int tiles_x = (w + T - 1) / T;
  return Frame { (const unsigned char *) src, stride, w, h, (int) pl->p.threshold, tiles_x,
    tiles_x * ((h + T - 1) / T), pl->p.connectivity == 8, sides };
}

/* Pass 1 over tiles [t0, t1): their edge pixels labelled. */
static void
label_tiles (fv_fill_cuda *c, const Frame &f, int t0, int t1)
{
  const int blocks = (t1 - t0 + TILES_A_BLOCK - 1) / TILES_A_BLOCK;
  const auto kernel = f.src ? label_edges<false> : label_edges<true>;
  if (blocks > 0)
    kernel<<<blocks, 32 * TILES_A_BLOCK, 0, c->ps.stream>>> (f, c->slots, c->bits, t0, t1);
}

/* Pass 2: the tiles' edge pixels joined. */
static void
join (fv_fill_cuda *c, const Frame &f)
{
  if (f.tiles > 1)
    join_edges<<<dim3 ((f.tiles * T + 255) / 256, 2), 256, 0, c->ps.stream>>> (f, c->slots);
}

/* Passes 1 and 2 over every tile. */
static inline void
label (fv_fill_cuda *c, const Frame &f)
{
  label_tiles (c, f, 0, f.tiles);
  join (c, f);
}

/* Pass 3 over tiles [t0, t1), into out (device memory; its tile rows as
 * the frame's) */
static void
write_range (fv_fill_cuda *c, const fv_fill_params *p, const Frame &f, unsigned char *out,
    size_t ostride, WriteMode mode, int t0, int t1, unsigned *outb = nullptr)
{
  const int blocks = (t1 - t0 + TILES_A_BLOCK - 1) / TILES_A_BLOCK;
  const unsigned char fv = (unsigned char) p->fill_value;
  const bool aligned = ((uintptr_t) out | ostride) % 4 == 0;   /* word stores */
  const auto kernel = outb ? write_tiles<true> : write_tiles<false>;
  if (blocks > 0)
    kernel<<<blocks, 32 * TILES_A_BLOCK, 0, c->ps.stream>>> (f, c->slots, c->bits, out, ostride,
        fv, p->output == FV_FILL_FILLED ? fv : 0, aligned, p->measure != 0, c->filled, mode,
        c->seamed, t0, t1, outb);
}

/* Pass 3 over every tile */
static void
write (fv_fill_cuda *c, const fv_fill_params *p, const Frame &f, unsigned char *out,
    size_t ostride, WriteMode mode)
{
  write_range (c, p, f, out, ostride, mode, 0, f.tiles);
}

}  // namespace
#endif
