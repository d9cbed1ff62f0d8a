/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The fill plan, shared by its CPU and CUDA halves (private). */
#ifndef FV_FILL_PLAN_H
#define FV_FILL_PLAN_H

#include "fv_fill.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A back end: chosen once per plan (FFTW's way), never tested per call. */
/* A back end (fv_plan.h); the CUDA one queues in execute and waits in wait. */
typedef FV_PLAN_BACKEND (fv_fill_plan) fv_fill_backend;

struct fv_fill_plan {
  fv_fill_params p;
  fv_backend backend;
  const fv_fill_backend *be;
  /* CPU */
  int nthreads, nseeds;
  struct fv_fill_rows *rows;   /* each row's runs of background (fv_fill_cpu.c) */
  void *thread_state;      /* per thread: fill stack, local union-find */
  uint32_t *parent;        /* global union-find over seed labels */
  uint8_t *outside;        /* per label: joined to the border label */
  uint64_t rng;
  /* what grows with the frame's content (runs, fill stacks, the measure's
   * tables) is counted here against `budget` (fv_fill_grow) */
  size_t held, budget;
  /* measure: the last frame's holes (fv_fill_regions) and parts
   * (fv_fill_parts); measured: they are the last frame's (the CUDA back end
   * measures when first asked) */
  fv_fill_region *regions, *parts;
  int nregions, regions_cap, nparts, parts_cap;
  int measured;
  /* what fv_fill_regions and fv_fill_parts hand out: regions and parts on
   * the CPU, the CUDA back end's pinned tables there */
  const fv_fill_region *shown_regions, *shown_parts;
  struct fv_fill_measure_state *measure_state;   /* the CPU measure's tables, kept */
  struct fv_fill_join_state *join_state;   /* chunks' regions joined: the arrays, kept */
  /* CUDA */
  void *state;          /* the back end's own (made by its init, freed by its free) */
};

/* The leaf back ends, in the plan table's shapes (fv_plan.h). The CPU's
 * takes host images only and returns when dst is written; its bytes count
 * the worst frame's runs. */
fv_status fv_fill_cpu_init (fv_fill_plan *plan, int device, void *stream);
fv_status fv_fill_cpu_execute (fv_fill_plan *plan, const fv_image *src, const fv_image *dst);
size_t fv_fill_cpu_bytes (const fv_fill_plan *plan);
void fv_fill_cpu_free (fv_fill_plan *plan);

fv_status fv_fill_cuda_init (fv_fill_plan *plan, int device, void *stream);
fv_status fv_fill_cuda_execute (fv_fill_plan *plan, const fv_image *src, const fv_image *dst);
fv_status fv_fill_cuda_wait (fv_fill_plan *plan);
void fv_fill_cuda_free (fv_fill_plan *plan);

/* Device bytes a whole-frame CUDA plan of width x height takes. */
size_t fv_fill_cuda_bytes (int width, int height);
size_t fv_fill_cuda_plan_bytes (const fv_fill_plan *plan);
/* The CUDA plan's regions, fetched after its frame is done. */
fv_status fv_fill_cuda_regions (fv_fill_plan *pl);
/* Room for n regions in *list (of *cap); 0 when out of memory. */
int fv_fill_regions_reserve (fv_fill_region **list, int *cap, size_t n);

/* Counts `bytes` more of content-dependent memory against the plan's
 * budget (thread-safe); 0, with nothing counted, when it would pass it. */
static inline int
fv_fill_grow (fv_fill_plan *pl, size_t bytes)
{
  if (__atomic_add_fetch (&pl->held, bytes, __ATOMIC_RELAXED) <= pl->budget)
    return 1;
  __atomic_sub_fetch (&pl->held, bytes, __ATOMIC_RELAXED);
  return 0;
}

/* The error for a frame whose content passed the budget. */
fv_status fv_fill_over_budget (const fv_fill_plan *pl, const char *what);

/* A union-find over labels: find with path halving, union by the smaller
 * label (so a set's root is its first label), shared by the CPU fill and the
 * measure. */
static inline uint32_t
fv_fill_uf_find (uint32_t *parent, uint32_t a)
{
  while (parent[a] != a) {
    parent[a] = parent[parent[a]];
    a = parent[a];
  }
  return a;
}

static inline void
fv_fill_uf_union (uint32_t *parent, uint32_t a, uint32_t b)
{
  a = fv_fill_uf_find (parent, a);
  b = fv_fill_uf_find (parent, b);
  if (a != b)
    parent[a > b ? a : b] = a < b ? a : b;
}

/* measure on the CPU: each row's runs, [x0, x1), in order, from the fill's
 * labels (fv_fill_measure.c joins them into pl->regions and pl->parts): the enclosed background's (holes), and, when filled is not
 * NULL, the filled pixels' (contour or enclosed: parts), at most
 * width / 2 + 1 of each. */
typedef struct {
  int32_t x0, x1;
} fv_fill_span;
typedef struct {
  fv_fill_span *holes;
  int nholes;
  fv_fill_span *filled;   /* NULL: parts not measured */
  int nfilled;
} fv_fill_row_spans;
typedef void (*fv_fill_spans_fn) (void *ctx, int y, fv_fill_row_spans *row);
fv_status fv_fill_measure (fv_fill_plan *pl, fv_fill_spans_fn spans, void *ctx);
/* What fv_fill_measure kept in the plan, freed. */
void fv_fill_measure_free (fv_fill_plan *pl);

/* A chunk of a larger frame, in two passes (fv_fill_cuda.cu says how),
 * queued on the plan's stream, on device memory. The first takes src up to
 * the plan's size; sides: which of its sides are the frame's border (top 1,
 * bottom 2, left 4, right 8); edges (device or mapped host memory) gets
 * 2 (width + height) ints, for its edge pixels in the order top, bottom,
 * left, right: -1 contour, 0 outside, else 1 + the first edge pixel of the
 * same component; dst (src's size) gets the fill as if no seam led outside.
 * The second writes into that dst again where the components of the edge
 * pixels marked in `outside` (a byte each, device or mapped host memory)
 * change it; the plan must still hold that chunk's first pass. src and
 * dst on another GPU (peer access enabled both ways): the first pass has
 * that GPU pack src into bits and write dst from bits, in pieces
 * (FASTVISION_FILL_PIECES), on a stream of its own there. */
fv_status fv_fill_cuda_first (fv_fill_plan *plan, const fv_image *src, unsigned sides,
    int *edges, const fv_image *dst);
fv_status fv_fill_cuda_second (fv_fill_plan *plan, const unsigned char *outside,
    const fv_image *dst);

/* The seams' union-find on the current device (fv_fill_chunked.c): sides
 * of chunks that face another (n pixels; their nodes from node0; e, the
 * first pass's edges there, whose first pixels count from the chunk's node
 * base; out, a byte each: outside by a seam), seams (n facing pixels, side
 * a's nodes from a0 against side b's from b0, i against i - 1, i, i + 1
 * with 8-way background) and single pairs of nodes (corners). parent and
 * ed: device memory of a node each. Descriptors, e and out: memory the
 * device reads and writes (mapped host memory). Returns when out is
 * written. */
typedef struct {
  int n, node0, base;
  const int *e;
  unsigned char *out;
} fv_fill_side;
typedef struct {
  int n, a0, b0;
} fv_fill_seam;
typedef struct {
  int a, b;
} fv_fill_pair;
fv_status fv_fill_cuda_seams (void *stream, int *parent, int *ed, const fv_fill_side *sides,
    int nsides, const fv_fill_seam *seams, int nseams, const fv_fill_pair *pairs, int npairs,
    int longest, int conn8);

/* A chunk's edge pixels in one list, as the first pass's `edges`, the
 * measure's edge regions and the seams' nodes all order them: the top row,
 * the bottom row, the left column, the right column; fv_fill_edge_start
 * gives where a side's first pixel lies in that list for a w x h chunk. */
enum { FV_FILL_TOP, FV_FILL_BOTTOM, FV_FILL_LEFT, FV_FILL_RIGHT };

static inline int
fv_fill_edge_start (int w, int h, int side)
{
  return side == FV_FILL_TOP ? 0 : side == FV_FILL_BOTTOM ? w
      : side == FV_FILL_LEFT ? 2 * w : 2 * w + h;
}

/* A chunk measured after its second pass, as a frame of its own (its
 * plan made with measure): its holes and parts into the plan's shown
 * tables (coordinates in the chunk; every pixel outside it counted as not
 * in a region), its size in w, h. Then, for plane k (holes 0, parts 1),
 * into host memory: each region's first pixel (y * w + x in the chunk) and
 * the region of each of the chunk's edge pixels, top, bottom, left, right
 * (-1: none; 2 (w + h) ints). They return when the results are there. */
fv_status fv_fill_cuda_chunk_measure (fv_fill_plan *plan, int *w, int *h);
fv_status fv_fill_cuda_chunk_pieces (fv_fill_plan *plan, int k, int *first, int *edge,
    int *ncontacts);
/* The kind joined 4-ways (ncontacts not NULL above): the contacts of
 * fv_fill_pieces, n triples, into host memory. */
fv_status fv_fill_cuda_chunk_contacts (fv_fill_plan *plan, int *list, int n);

/* What measuring a chunk gave (fv_fill_cuda_chunk_measure and _pieces), in
 * host memory, k: holes 0, parts 1. */
typedef struct {
  int x, y, w, h;            /* the chunk measured, in the frame */
  fv_fill_region *rows[2];
  int *first[2];
  int *edge[2];              /* 2 (w + h) each */
  int n[2], cap[2];
  size_t edge_cap;
  /* the kind joined 4-ways (holes of a 4-connected background, or parts of
   * an 8-connected one): its pixels diagonal to each other with neither
   * pixel of their 2x2 block between them set, in two different regions
   * that both reach the chunk's edge (the seams may join them): a triple
   * each, the two regions and DIR_D 2 or DIR_A 3 (fv_fill_chunk_measure.c) */
  int *contacts;
  int ncontacts, contacts_cap;
  size_t counted;            /* bytes counted against the frame's plan */
} fv_fill_pieces;

/* The regions of a grid of cols x rows chunks (row-major, tiling pl's
 * frame; their rows and columns line up) joined across the seams into
 * pl->regions and pl->parts, exactly the whole frame's
 * (fv_fill_chunk_measure.c). */
fv_status fv_fill_pieces_join (fv_fill_plan *pl, int cols, int rows,
    const fv_fill_pieces *pieces);
/* What fv_fill_pieces_join kept in the plan, freed. */
void fv_fill_pieces_join_free (fv_fill_plan *pl);

/* Frames beyond the budget or over several devices (fv_fill_chunked.c). */
fv_status fv_fill_chunked_init (fv_fill_plan *plan, int device, void *stream);
fv_status fv_fill_chunked_execute (fv_fill_plan *plan, const fv_image *src,
    const fv_image *dst);
void fv_fill_chunked_free (fv_fill_plan *plan);

#ifdef __cplusplus
}
#endif
#endif
