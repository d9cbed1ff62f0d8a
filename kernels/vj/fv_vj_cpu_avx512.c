/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The row scan compiled for AVX-512 (fv_vj_scan_simd.h): still eight
 * windows a vector, but the eight stage sums add up in one register of
 * doubles, and the compiler has 32 vector registers and broadcast
 * operands. The same windows as the AVX2 scan. */
#define FV_VJ_SCAN_TARGET "avx2,avx512f,avx512vl,avx512dq"
#define FV_VJ_SCAN_NAME fv_vj_scan_row_avx512
#define FV_VJ_SCAN_ZMM 1
#include "fv_vj_scan_simd.h"

int
fv_vj_avx512_usable (void)
{
  return __builtin_cpu_supports ("avx512f") && __builtin_cpu_supports ("avx512vl")
      && __builtin_cpu_supports ("avx512dq");
}
