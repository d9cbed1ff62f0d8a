/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The row scan for AVX2 (fv_vj_scan_simd.h), and whether a cascade can use
 * the SIMD scans at all. */
#define FV_VJ_SCAN_TARGET "avx2"
#define FV_VJ_SCAN_NAME fv_vj_scan_row_avx2
#define FV_VJ_SCAN_ZMM 0
#include "fv_vj_scan_simd.h"

int
fv_vj_avx2_usable (const fv_vj_model *m, int nweak)
{
  /* squared window sums must fit the signed conversion in norm8 */
  if (!m->lbp && m->norm_area * 255.0 * 255.0 >= 2147483647.0)
    return 0;
  for (int i = 0; !m->stumps && i < nweak; i++)
    if (m->tree[i].nnodes > MAX_TREE_NODES)
      return 0;
  return __builtin_cpu_supports ("avx2");
}
