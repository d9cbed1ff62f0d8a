/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* One strip of output rows of the CPU box filter, for one pair of sample
 * and accumulator types (included by fv_box_cpu.c with TIN, TACC and
 * FV_ROWS defined).
 *
 * The vertical window sums V(x) of each row are the difference of two SAT
 * rows; their running prefix P along the row is that SAT difference summed
 * horizontally, so each output is P(x+r) - P(x-r-1): four SAT lookups, done
 * as a streaming SAT that never stores the whole table. Sums wrap modulo
 * the accumulator width, which is exact as long as one window's sum fits. */

FV_CLONES static void
FV_ROWS (const fv_box_plan *pl, const fv_image *src, const fv_image *dst,
    int y0, int y1, char *scratch)
{
  const fv_box_params *p = &pl->p;
  const fv_box_cpu *cpu = pl->state;
  const int W = p->frame.width, H = p->frame.height, C = p->frame.channels, WC = W * C;
  const int rx = p->radius_x, ry = p->radius_y, border = p->border;
  const int want_sq = p->mode == FV_BOX_STDDEV;
  const TIN maxv = (TIN) (p->frame.sample == FV_U8 ? 255 : 65535);
  const double k_thr = 1.0 - p->sensitivity;
  const char *sbase = (const char *) src->data;
  char *dbase = (char *) dst->data;
#define SROW(y) ((const TIN *) (sbase + (size_t) (y) * src->stride))

  /* scratch: V, VQ (WC each), Pz, PQz (WC + C each, a zero pixel first), mult (H) */
  TACC *V = (TACC *) scratch;
  TACC *VQ = V + WC;
  TACC *Pz = VQ + WC;
  TACC *PQz = Pz + WC + C;
  int *mult = (int *) (PQz + WC + C);

  /* vertical sums of the first row's window, from row multiplicities */
  fv_border_multiplicity (y0 - (long) ry, y0 + (long) ry, H, border, mult);
  memset (V, 0, sizeof (TACC) * WC);
  if (want_sq)
    memset (VQ, 0, sizeof (TACC) * WC);
  for (int s = 0; s < H; s++) {
    if (!mult[s])
      continue;
    const TIN *r = SROW (s);
    const TACC m = (TACC) mult[s];
    for (int i = 0; i < WC; i++)
      V[i] += m * r[i];
    if (want_sq)
      for (int i = 0; i < WC; i++)
        VQ[i] += m * ((TACC) r[i] * r[i]);
  }
  for (int i = 0; i < C; i++)
    Pz[i] = PQz[i] = 0;

  for (int y = y0; y < y1; y++) {
    if (y > y0) {  /* slide the window down one row */
      int a = fv_border_map (y + (long) ry, H, border);
      int b = fv_border_map (y - (long) ry - 1, H, border);
      if (a != b) {
        if (a >= 0) {
          const TIN *ra = SROW (a);
          for (int i = 0; i < WC; i++)
            V[i] += ra[i];
          if (want_sq)
            for (int i = 0; i < WC; i++)
              VQ[i] += (TACC) ra[i] * ra[i];
        }
        if (b >= 0) {
          const TIN *rb = SROW (b);
          for (int i = 0; i < WC; i++)
            V[i] -= rb[i];
          if (want_sq)
            for (int i = 0; i < WC; i++)
              VQ[i] -= (TACC) rb[i] * rb[i];
        }
      }
    }
    /* running horizontal prefix, per channel, sums kept in registers */
    FV_PREFIX (Pz, V, W, C);
    if (want_sq)
      FV_PREFIX (PQz, VQ, W, C);

    const TIN *in = SROW (y);
    TIN *out = (TIN *) (dbase + (size_t) y * dst->stride);
    const int ny = fv_window_count (y, ry, H, border);
    const int xl = cpu->xl, xr = cpu->xr;
    const int lo = (rx + 1) * C, hi = rx * C;

    /* interior columns: the window lies inside the row, n is constant */
    const uint64_t n_in = (uint64_t) (2 * rx + 1) * ny;
    const double inv_in = 1.0 / (double) n_in;
    if (p->mode == FV_BOX_MEAN) {
      for (int i = xl * C; i < xr * C; i++) {
        TACC s = Pz[i + lo] - Pz[i - hi];
        out[i] = (TIN) (int32_t) ((double) (SACC) s * inv_in + FV_HALF_UP);
      }
    } else if (p->mode == FV_BOX_THRESHOLD) {
      const double nd = (double) n_in;
      for (int i = xl * C; i < xr * C; i++) {
        TACC s = Pz[i + lo] - Pz[i - hi];
        out[i] = (double) in[i] * nd > (double) (SACC) s * k_thr ? maxv : 0;
      }
    } else {
      for (int i = xl * C; i < xr * C; i++)
        out[i] = (TIN) fv_round_stddev (Pz[i + lo] - Pz[i - hi], PQz[i + lo] - PQz[i - hi], n_in);
    }

    /* border columns: the extended row's prefix, from precomputed terms */
    for (int x = 0; x < W; x++) {
      if (x == xl && xr > xl)
        x = xr;
      if (x >= W)
        break;
      const fv_col_terms *ct = &cpu->cols[x];
      const uint64_t n = (uint64_t) ct->count * ny;
      for (int c = 0; c < C; c++) {
        TACC s = 0, q = 0;
        for (int t = 0; t < ct->n; t++)
          s += (TACC) ct->coef[t] * Pz[(size_t) ct->idx[t] * C + c];
        if (want_sq)
          for (int t = 0; t < ct->n; t++)
            q += (TACC) ct->coef[t] * PQz[(size_t) ct->idx[t] * C + c];
        const int i = x * C + c;
        switch (p->mode) {
          case FV_BOX_MEAN:
            out[i] = (TIN) fv_round_mean (s, 1.0 / (double) n);
            break;
          case FV_BOX_STDDEV:
            out[i] = (TIN) fv_round_stddev (s, q, n);
            break;
          case FV_BOX_THRESHOLD:
            out[i] = fv_threshold_above (in[i], s, n, k_thr) ? maxv : 0;
            break;
        }
      }
    }
    /* channels outside the mask (alpha, padding) pass through */
    if (p->channel_mask != (1u << C) - 1)
      for (int c = 0; c < C; c++)
        if (!(p->channel_mask & (1u << c)))
          for (int x = 0; x < W; x++)
            out[x * C + c] = in[x * C + c];
  }
#undef SROW
}
