/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* One source row resized horizontally for the pyramid (OpenCV's bit-exact
 * linear weights, 8 fraction bits). Where four neighbouring outputs read
 * within 16 source bytes (scale factors up to 4.6), 16-byte loads and byte
 * shuffles fetch both samples of eight outputs, and two 16-bit multiplies
 * weigh them: q0 c0 + q1 c1 <= 255 * 256 fits 16 bits. */
#include <stdlib.h>
#include <string.h>
#include <immintrin.h>
#include "fv_vj_plan.h"

/* Eight outputs: the first four from the 16 source bytes at start[0], the
 * others from those at start[1]. pick[h][t] places sample t (0: left,
 * 1: right) of the outputs of half h in byte 2j of output j's lane; every
 * other byte is 0x80, which pshufb turns into zero. */
struct fv_vj_hblock {
  int32_t start[2];
  uint8_t pick[2][2][16];
  uint16_t c0[8], c1[8];
};

void
fv_vj_hblocks_init (fv_vj_axis *a, int src)
{
  a->blocks = NULL;
  a->nblocks = 0;
  if (!__builtin_cpu_supports ("ssse3") || a->hi - a->lo < 8)
    return;
  const int n = (a->hi - a->lo) / 8;
  fv_vj_hblock *b = malloc (sizeof *b * n);
  if (!b)
    return;   /* the plain loop does the same, only slower */
  int k = 0;
  for (; k < n; k++) {
    const int i0 = a->lo + 8 * k;
    /* stop at the first block that would read past 16 bytes or the row */
    int fits = 1;
    for (int h = 0; h < 2; h++) {
      const int start = a->ofs[i0 + 4 * h];
      fits &= a->ofs[i0 + 4 * h + 3] + 1 - start <= 15 && start + 16 <= src;
      b[k].start[h] = start;
    }
    if (!fits)
      break;
    memset (b[k].pick, 0x80, sizeof b[k].pick);
    for (int j = 0; j < 8; j++) {
      const int h = j / 4, rel = a->ofs[i0 + j] - b[k].start[h];
      b[k].pick[h][0][2 * j] = (uint8_t) rel;
      b[k].pick[h][1][2 * j] = (uint8_t) (rel + 1);
      b[k].c0[j] = a->coef[2 * (i0 + j)];
      b[k].c1[j] = a->coef[2 * (i0 + j) + 1];
    }
  }
  a->blocks = b;
  a->nblocks = k;
}

void
fv_vj_hblocks_clear (fv_vj_axis *a)
{
  free (a->blocks);
  a->blocks = NULL;
  a->nblocks = 0;
}

#define LOAD(p) _mm_loadu_si128 ((const __m128i *) (p))

__attribute__ ((target ("ssse3"))) static void
hline_blocks (const fv_vj_hblock *b, int n, const uint8_t *s, uint16_t *out)
{
  for (int k = 0; k < n; k++, out += 8) {
    const __m128i qa = LOAD (s + b[k].start[0]), qb = LOAD (s + b[k].start[1]);
    const __m128i q0 = _mm_or_si128 (_mm_shuffle_epi8 (qa, LOAD (b[k].pick[0][0])),
        _mm_shuffle_epi8 (qb, LOAD (b[k].pick[1][0])));
    const __m128i q1 = _mm_or_si128 (_mm_shuffle_epi8 (qa, LOAD (b[k].pick[0][1])),
        _mm_shuffle_epi8 (qb, LOAD (b[k].pick[1][1])));
    const __m128i v = _mm_add_epi16 (_mm_mullo_epi16 (q0, LOAD (b[k].c0)),
        _mm_mullo_epi16 (q1, LOAD (b[k].c1)));
    _mm_storeu_si128 ((__m128i *) out, v);
  }
}

void
fv_vj_hline (const fv_vj_axis *a, const uint8_t *s, int dst, uint16_t *out)
{
  int i = 0;
  for (; i < a->lo && i < dst; i++)
    out[i] = (uint16_t) (s[0] << 8);
  if (a->nblocks) {
    hline_blocks (a->blocks, a->nblocks, s, out + i);
    i += 8 * a->nblocks;
  }
  for (; i < a->hi; i++) {
    const uint8_t *q = s + a->ofs[i];
    out[i] = (uint16_t) (q[0] * a->coef[2 * i] + q[1] * a->coef[2 * i + 1]);
  }
  const uint16_t last = (uint16_t) (s[a->ofs[dst - 1]] << 8);
  for (; i < dst; i++)
    out[i] = last;
}
