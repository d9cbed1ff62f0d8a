/* One strip of output rows of the CPU box filter, for one pair of sample
 * and accumulator types (included by fv_box_cpu.c with TIN, TACC and
 * FV_ROWS defined).
 *
 * The vertical window sums V(x) of each row are the difference of two SAT
 * rows; their running prefix P along the row is that SAT difference summed
 * horizontally, so each output is P(x+r) - P(x-r-1): four SAT lookups, done
 * as a streaming SAT that never stores the whole table. Sums wrap modulo
 * the accumulator width, which is exact as long as one window's sum fits. */

static void
FV_ROWS (const fv_box_plan *pl, const fv_image *src, const fv_image *dst,
    int y0, int y1, char *scratch)
{
  const fv_box_params *p = &pl->p;
  const int W = p->width, H = p->height, C = p->channels, WC = W * C;
  const int rx = p->radius_x, ry = p->radius_y, border = p->border;
  const int want_sq = p->mode == FV_BOX_STDDEV;
  const TIN maxv = (TIN) (p->sample == FV_U8 ? 255 : 65535);
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
    /* running horizontal prefix, per channel */
    for (int i = 0; i < WC; i++)
      Pz[i + C] = Pz[i] + V[i];
    if (want_sq)
      for (int i = 0; i < WC; i++)
        PQz[i + C] = PQz[i] + VQ[i];

    const TIN *in = SROW (y);
    TIN *out = (TIN *) (dbase + (size_t) y * dst->stride);
    const int ny = fv_window_count (y, ry, H, border);
    /* interior columns: the whole window inside the row */
    int xl = rx < W ? rx : W, xr = W - 1 - rx >= xl ? W - rx : xl;

    if (p->mode == FV_BOX_MEAN) {
      const uint64_t n = (uint64_t) (2 * rx + 1) * ny;
      const double inv = 1.0 / (2.0 * (double) n), nd = (double) n;
      const int lo = (rx + 1) * C, hi = rx * C;
      for (int i = xl * C; i < xr * C; i++) {
        TACC s = Pz[i + lo] - Pz[i - hi];
        out[i] = (TIN) floor (((double) s * 2.0 + nd) * inv + 0x1p-33);
      }
    }
    for (int x = 0; x < W; x++) {
      if (p->mode == FV_BOX_MEAN && x >= xl && x < xr)
        continue;
      const uint64_t n = (uint64_t) fv_window_count (x, rx, W, border) * ny;
      int ia[8], ib[8];
      int64_t ca[8], cb[8];
      int na = fv_border_terms (x + (long) rx, W, border, ia, ca);
      int nb = fv_border_terms (x - (long) rx - 1, W, border, ib, cb);
      for (int c = 0; c < C; c++) {
        TACC s = 0, q = 0;
        for (int t = 0; t < na; t++)
          s += (TACC) ca[t] * Pz[(size_t) (ia[t] + 1) * C + c];
        for (int t = 0; t < nb; t++)
          s -= (TACC) cb[t] * Pz[(size_t) (ib[t] + 1) * C + c];
        if (want_sq) {
          for (int t = 0; t < na; t++)
            q += (TACC) ca[t] * PQz[(size_t) (ia[t] + 1) * C + c];
          for (int t = 0; t < nb; t++)
            q -= (TACC) cb[t] * PQz[(size_t) (ib[t] + 1) * C + c];
        }
        const int i = x * C + c;
        switch (p->mode) {
          case FV_BOX_MEAN:
            out[i] = (TIN) fv_round_mean (s, n, 1.0 / (2.0 * (double) n));
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
