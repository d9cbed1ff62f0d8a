/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Private to the detector: the pyramid's geometry, the flattened cascade
 * and the plan that the CPU and CUDA back ends share. */
#ifndef FV_VJ_PLAN_H
#define FV_VJ_PLAN_H

#include <math.h>
#include <stdint.h>
#include "fv_vj.h"
#include "fv_vj_model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One axis of OpenCV's bit-exact linear resize: destination i reads source
 * ofs[i] and ofs[i]+1 with weights coef[2i], coef[2i+1] (8 fraction bits);
 * i < lo repeats source 0, i >= hi repeats the last source sample. */
typedef struct fv_vj_hblock fv_vj_hblock;
typedef struct {
  int32_t *ofs;
  uint16_t *coef;
  int lo, hi;
  fv_vj_hblock *blocks;   /* the CPU's shuffles for outputs lo, lo + 8, ... (fv_vj_hline.c) */
  int nblocks;
} fv_vj_axis;

/* The horizontal axis's shuffle blocks (none where the CPU lacks SSSE3 or
 * memory runs out: the plain loop then does it all), and one source row of
 * src_w bytes resized to dst outputs with 8 fraction bits. */
void fv_vj_hblocks_init (fv_vj_axis *a, int src_w);
void fv_vj_hblocks_clear (fv_vj_axis *a);
void fv_vj_hline (const fv_vj_axis *a, const uint8_t *s, int dst, uint16_t *out);

typedef struct {
  float scale;           /* frame pixels per level pixel, as OpenCV keeps it (float) */
  int w, h;              /* the level's image */
  int step;              /* window step: 2, or 1 from scale 2 on */
  int work_w, work_h;    /* window positions: x < work_w, y < work_h */
  int win_w, win_h;      /* the window on the frame */
  int64_t origin;        /* (0, 0) of the level's integrals in each plane */
  int rows;              /* window rows: ceil(work_h / step) */
  int y0;                /* the level's rows above the plan's band (0 unbanded) */
  int identity;          /* the level is the frame itself (sizes equal) */
  fv_vj_axis ax, ay;
} fv_vj_level;

typedef struct {
  int nlevels;
  fv_vj_level *lv;
  int stride;            /* elements per row of every plane */
  int64_t plane;         /* elements per plane */
  int64_t rows;          /* window rows over all levels */
  int64_t windows;       /* upper bound of windows over all levels */
  int src_y0, src_h;     /* the frame rows the levels read (a band reads fewer) */
  int cpu;               /* laid out for the CPU (fv_vj_pyramid_init) */
  size_t table_bytes;    /* host bytes of the levels and their resize tables */
} fv_vj_pyramid;

/* A plan for part of the detection, as the chunked plan (fv_vj_chunked.c)
 * makes them; all zero: the whole detection. */
typedef struct {
  /* only the pyramid levels [first_level, first_level + levels) of those
   * the sizes allow (levels 0: all); a detector split by levels */
  int first_level, levels;
  /* with levels = 1: only window rows [band_first, band_first + band_rows)
   * of that level (band_rows 0: all), read from the frame rows they need;
   * a level split into bands of rows that overlap by a window */
  int band_first, band_rows;
  /* CUDA: the plan's device buffers come from fv_vj_cuda_set_workspace
   * (several plans run in turn in one) */
  int shared_workspace;
} fv_vj_part;

/* fv_vj_plan_create for a part (NULL: the whole). */
fv_status fv_vj_plan_create_part (fv_vj_plan **plan, const fv_cascade *cascade,
    const fv_vj_params *params, const fv_vj_part *part, fv_backend backend, int device,
    void *stream);

/* Levels as OpenCV 4.6 chooses them (of part, NULL: all); fails only on
 * absurd sizes. cpu: laid out for the CPU back end (levels of step 2 own
 * their rows, so that they can be built split, and the resize gets its
 * shuffle blocks); the CUDA back end's layout packs levels side by side
 * wherever they fit. */
fv_status fv_vj_pyramid_init (fv_vj_pyramid *py, const fv_cascade *c, const fv_vj_params *p,
    const fv_vj_part *part, int cpu);
void fv_vj_pyramid_clear (fv_vj_pyramid *py);

/* The host arrays behind an fv_vj_model, and the model pointing at them. */
typedef struct {
  fv_vj_model m;
  fv_vj_stage *stages;
  fv_vj_stump *stump;
  fv_vj_tree *tree;
  fv_vj_node *node;
  float *leaf;
  int32_t *subset;
  fv_vj_haar *haar;
  fv_vj_lbp *lbpf;
  int nweak, nnodes, nleaves, nfeatures;
  int has_tilted;
} fv_vj_model_host;

/* planes: sums, squared sums, then tilted sums when a feature is tilted. */
fv_status fv_vj_model_init (fv_vj_model_host *mh, const fv_cascade *c, int stride, int64_t plane);
/* The same for levels built split (fv_vj_level_build): offsets for windows
 * at even columns 2j, taken from row + j. */
fv_status fv_vj_model_init_split (fv_vj_model_host *mh, const fv_cascade *c, int stride,
    int half, int64_t plane);
void fv_vj_model_clear (fv_vj_model_host *mh);

/* Where column c of a level's row is kept: in place, or in a split row
 * (half > 0) the even columns first and the odd ones half elements on. */
static inline int
fv_vj_col (int c, int half)
{
  return half ? (c >> 1) + (c & 1) * half : c;
}

/* CPU: resize the frame into level l and write its integrals into the
 * planes starting at base; tmp holds fv_vj_scratch_bytes(). src is the
 * whole frame; the level reads rows [py->src_y0, + py->src_h) of it.
 * split (levels of step 2 of a CPU pyramid, which own their rows): each row holds the
 * even columns, then from py->stride / 2 on the odd ones, so that the SIMD
 * scan loads eight windows two columns apart as one vector. */
size_t fv_vj_scratch_bytes (const fv_vj_pyramid *py);
void fv_vj_level_build (const fv_vj_pyramid *py, int l, const uint8_t *src, size_t src_stride,
    uint8_t *tmp, uint32_t *base, int tilted, int split);
/* Only the level's rows [ya, yb), their sums starting from zero at ya (a
 * window's sums within them are exact, as a band's: band_init); and the
 * source rows [*s0, *s1) those rows read. */
void fv_vj_level_build_rows (const fv_vj_pyramid *py, int l, const uint8_t *src,
    size_t src_stride, uint8_t *tmp, uint32_t *base, int tilted, int split, int ya, int yb);
void fv_vj_level_source_rows (const fv_vj_pyramid *py, int l, int ya, int yb, int *s0, int *s1);

/* A part of the frame to search (an execute's restriction): only windows
 * whose rectangle lies in the columns [x0, x1) and rows [y0, y1) and whose
 * width is in [min_w, max_w]. The CPU back end builds only the level rows
 * such windows need and scans only their columns (from a window whose
 * visit OpenCV's walk along the row does not depend on, so that the
 * windows it finds are the whole scan's); the others search everything
 * (the caller keeps the windows it asked for: the same). */
typedef struct { int y0, y1, min_w, max_w, x0, x1; } fv_vj_rows;

/* For each level, the window rows the restriction keeps: [*ya, *yb) level
 * rows to build (ya == yb: none) and keep[r] for window row r. */
void fv_vj_rows_of_level (const fv_vj_pyramid *py, const fv_cascade *c, int l,
    const fv_vj_rows *rows, int nrows, unsigned char *keep, int *ya, int *yb);

/* The raw rectangle of a window, as OpenCV rounds it. */
static inline fv_rect
fv_vj_window_rect (const fv_vj_level *lv, int x, int y)
{
  fv_rect r = { (int) lrintf ((float) x * lv->scale), (int) lrintf ((float) y * lv->scale),
      lv->win_w, lv->win_h };
  return r;
}

#define FV_VJ_GROUP_EPS 0.2   /* OpenCV's GROUP_EPS */

/* fv_vj_execute without the grouping: the raw windows only (pl->raw);
 * with rows (nrows > 0), at least the windows they allow (fv_vj_rows). */
fv_status fv_vj_execute_rows (fv_vj_plan *pl, const fv_image *gray, const fv_vj_rows *rows,
    int nrows);
/* The frame rows [*s0, *s1) such an execute reads (all of them but on the
 * CPU; none: *s0 == *s1). */
void fv_vj_rows_source (const fv_vj_plan *pl, const fv_vj_rows *rows, int nrows, int *s0,
    int *s1);

/* A back end: chosen once per plan (FFTW's way), never tested per call. */
/* A back end (fv_plan.h); execute's dst is NULL: the windows it finds go
 * into the plan's raw list. */
typedef FV_PLAN_BACKEND (fv_vj_plan) fv_vj_backend;

struct fv_vj_plan {
  fv_vj_params p;
  fv_vj_part part;       /* what part of the detection (all zero: the whole) */
  fv_backend backend;
  const fv_vj_backend *be;
  const fv_cascade *cascade;
  fv_vj_pyramid py;
  fv_vj_model_host mh;
  fv_rect *raw;          /* raw windows of the last frame */
  int nraw, raw_cap;
  fv_detection *det;
  int ndet;
  size_t host_bytes;     /* what the plan takes on the host (fv_vj_plan_bytes) */
  const fv_vj_rows *rows; /* this execute's restriction (nrows 0: none) */
  int nrows;
  void *state;            /* the back end's state */
};


fv_status fv_vj_cpu_init (fv_vj_plan *pl);
/* The host bytes fv_vj_cpu_init allocates for pl's pyramid and model. */
size_t fv_vj_cpu_bytes (const fv_vj_plan *pl);
fv_status fv_vj_cpu_execute (fv_vj_plan *pl, const fv_image *gray);
void fv_vj_cpu_destroy (fv_vj_plan *pl);
fv_status fv_vj_cuda_init (fv_vj_plan *pl, int device, void *stream);
fv_status fv_vj_cuda_execute (fv_vj_plan *pl, const fv_image *gray, const fv_image *unused);
void fv_vj_cuda_destroy (fv_vj_plan *pl);

/* SIMD row scans (fv_vj_scan_simd.h): HAAR and LBP, stumps and small
 * trees; AVX2, and AVX-512 where the CPU has it. Levels of step 2 built
 * split, with the split model's offsets. */
int fv_vj_avx2_usable (const fv_vj_model *m, int nweak);
int fv_vj_avx512_usable (void);
typedef int (*fv_vj_scan_fn) (const fv_vj_model *m, const fv_vj_level *lv, const uint32_t *row,
    int *xs);
int fv_vj_scan_row_avx2 (const fv_vj_model *m, const fv_vj_level *lv, const uint32_t *row, int *xs);
int fv_vj_scan_row_avx512 (const fv_vj_model *m, const fv_vj_level *lv, const uint32_t *row,
    int *xs);

/* Window keys (fv_vj_key) sorted, so that grouping sees
 * the same order on every run and back end, and turned into pl->raw. */
void fv_vj_keys_to_raw (fv_vj_plan *pl, uint64_t *keys, int n);   /* fv_vj_raw.c */

/* Makes room for n raw windows and detections. */
fv_status fv_vj_raw_reserve (fv_vj_plan *pl, int n);

/* A CUDA plan made with shared_workspace: the bytes its workspace takes,
 * and the workspace (on its device) that its executes use. */
size_t fv_vj_cuda_workspace_bytes (const fv_vj_plan *pl);
void fv_vj_cuda_set_workspace (fv_vj_plan *pl, void *workspace);

/* Copies the first count elements of a CUDA plan's sums (the planes of
 * pl->py, after an execute) to host; for tests. */
fv_status fv_vj_cuda_read_sums (fv_vj_plan *pl, uint32_t *host, size_t count);

/* Device bytes the CUDA plan pl takes, from its pyramid (an upper
 * estimate); and a plan of the levels and rows of `part` of pl's frame
 * (fv_vj_cuda.cu, beside the allocations), with whether its sums fit
 * 32-bit offsets. */
size_t fv_vj_cuda_bytes (const fv_vj_plan *pl);
fv_status fv_vj_cuda_part_bytes (const fv_vj_plan *pl, const fv_vj_part *part, size_t *bytes,
    int *offsets_fit);
/* CUDA plans beyond the budget or over several devices: groups of whole
 * pyramid levels (fv_vj_chunked.c). */
fv_status fv_vj_chunked_init (fv_vj_plan *pl, int device, void *stream);
fv_status fv_vj_chunked_execute (fv_vj_plan *pl, const fv_image *gray, const fv_image *unused);
void fv_vj_chunked_destroy (fv_vj_plan *pl);

#ifdef __cplusplus
}
#endif

#endif
