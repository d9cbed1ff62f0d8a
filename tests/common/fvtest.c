/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "fvtest.h"
#include "fv_conv.h"

int fvt_failures, fvt_checks;

fv_image
fvt_image_new (int w, int h, int channels, fv_sample sample, int pad, fvt_rng *rng)
{
  size_t stride = ((size_t) w * channels + pad) * sample;
  uint8_t *data = malloc (stride * h + 1);
  /* padding holds a pattern that must survive the filter */
  memset (data, 0xA5, stride * h + 1);
  fv_image im = fv_image_make (data, stride, w, h, channels, sample, FV_MEM_HOST);
  if (rng)
    fvt_image_fill (&im, rng, sample == FV_U8 ? 255 : 65535);
  return im;
}

void
fvt_image_free (fv_image *im)
{
  free (im->data);
  im->data = NULL;
}

uint32_t
fvt_get (const fv_image *im, int x, int y, int c)
{
  const uint8_t *row = (const uint8_t *) im->data + (size_t) y * im->stride;
  size_t i = (size_t) x * im->channels + c;
  return im->sample == FV_U8 ? row[i] : fv_load_u16 ((const char *) row + 2 * i);
}

void
fvt_set (fv_image *im, int x, int y, int c, uint32_t v)
{
  uint8_t *row = (uint8_t *) im->data + (size_t) y * im->stride;
  size_t i = (size_t) x * im->channels + c;
  if (im->sample == FV_U8)
    row[i] = (uint8_t) v;
  else
    fv_store_u16 ((char *) row + 2 * i, (uint16_t) v);
}

void
fvt_image_fill (fv_image *im, fvt_rng *rng, uint32_t max)
{
  for (int y = 0; y < im->height; y++)
    for (int x = 0; x < im->width; x++)
      for (int c = 0; c < im->channels; c++)
        fvt_set (im, x, y, c, fvt_next (rng) % (max + 1));
}

fv_image *
fvt_load_pnm (const char *path)
{
  FILE *f = fopen (path, "rb");
  if (!f)
    return NULL;
  char magic[3] = { 0 };
  int w, h, maxv;
  if (fscanf (f, "%2s %d %d %d", magic, &w, &h, &maxv) != 4 || maxv != 255
      || (strcmp (magic, "P5") && strcmp (magic, "P6"))) {
    fclose (f);
    return NULL;
  }
  fgetc (f);
  int ch = magic[1] == '6' ? 3 : 1;
  fv_image *im = malloc (sizeof *im);
  *im = fvt_image_new (w, h, ch, FV_U8, 0, NULL);
  size_t n = (size_t) w * h * ch;
  if (fread (im->data, 1, n, f) != n) {
    fvt_image_free (im);
    free (im);
    im = NULL;
  }
  fclose (f);
  return im;
}

/* Border completion, written plainly from each mode's description. */
static int
ref_map (long j, int n, fv_border b, int *inside)
{
  *inside = j >= 0 && j < n;
  if (*inside)
    return (int) j;
  switch (b) {
    case FV_BORDER_REPLICATE:
      return j < 0 ? 0 : n - 1;
    case FV_BORDER_MIRROR:
      if (n == 1)
        return 0;
      while (j < 0 || j >= n)   /* reflect about the edge samples */
        j = j < 0 ? -j : 2L * (n - 1) - j;
      return (int) j;
    default:
      return -1;
  }
}

uint32_t
fvt_ref_box (const fv_box_params *p, const fv_image *src, int x, int y, int c)
{
  typedef unsigned __int128 u128;
  u128 sum = 0, sumsq = 0;
  uint64_t n = 0;
  for (long dy = -p->radius_y; dy <= p->radius_y; dy++) {
    int iny, sy = ref_map (y + dy, p->frame.height, p->border, &iny);
    for (long dx = -p->radius_x; dx <= p->radius_x; dx++) {
      int inx, sx = ref_map (x + dx, p->frame.width, p->border, &inx);
      int inside = inx && iny;
      if (p->border == FV_BORDER_RENORMALIZE && !inside)
        continue;       /* not part of the window at all */
      n++;
      if (sx < 0 || sy < 0)
        continue;       /* zero border: counted, adds nothing */
      uint64_t v = fvt_get (src, sx, sy, c);
      sum += v;
      sumsq += (u128) v * v;
    }
  }
  uint32_t maxv = p->frame.sample == FV_U8 ? 255 : 65535;
  switch (p->mode) {
    case FV_BOX_MEAN:     /* round(sum/n), ties up */
      return (uint32_t) ((2 * sum + n) / (2 * (u128) n));
    case FV_BOX_STDDEV: { /* round(sqrt(sumsq/n - (sum/n)^2)) = round(sqrt(v)/n) */
      u128 v = n * sumsq - sum * sum, n2 = (u128) n * n;
      uint64_t q = (uint64_t) floorl (sqrtl ((long double) v) / n + 0.5L);
      /* settle ties exactly: q is right iff (2q-1)^2 n^2 <= 4v < (2q+1)^2 n^2 */
      while (q > 0 && (u128) (2 * q - 1) * (2 * q - 1) * n2 > 4 * v)
        q--;
      while ((u128) (2 * q + 1) * (2 * q + 1) * n2 <= 4 * v)
        q++;
      return (uint32_t) q;
    }
    default: {            /* pixel > mean*(1-s), times n on both sides */
      uint32_t px = fvt_get (src, x, y, c);
      return (double) px * (double) n > (double) (uint64_t) sum * (1.0 - p->sensitivity)
          ? maxv : 0;
    }
  }
}

long
fvt_check_box (const fv_box_params *p, const fv_image *src, const fv_image *dst,
    const char *label)
{
  long bad = 0;
  for (int y = 0; y < p->frame.height; y++)
    for (int x = 0; x < p->frame.width; x++)
      for (int c = 0; c < p->frame.channels; c++) {
        uint32_t want = (p->channel_mask >> c) & 1 ? fvt_ref_box (p, src, x, y, c)
            : fvt_get (src, x, y, c);
        uint32_t got = fvt_get (dst, x, y, c);
        if (want != got && bad++ < 3)
          fprintf (stderr, "  %s: (%d,%d,c%d) got %u want %u\n", label, x, y, c, got, want);
      }
  /* padding after each row must be untouched */
  size_t row = fv_image_row_bytes (dst);
  for (int y = 0; y < dst->height; y++)
    for (size_t i = row; i < dst->stride; i++)
      if (((uint8_t *) dst->data)[(size_t) y * dst->stride + i] != 0xA5) {
        if (bad++ < 3)
          fprintf (stderr, "  %s: padding of row %d overwritten\n", label, y);
        break;
      }
  return bad;
}

/* The definition: background (<= thr) reachable from the border through
 * background, 4- or 8-connected, is outside; everything else is filled. */
void
fvt_ref_fill (const fv_image *src, unsigned thr, int conn, int output, unsigned fv,
    uint8_t *out)
{
  const int W = src->width, H = src->height;
  uint8_t *seen = calloc ((size_t) W * H, 1);
  int *queue = malloc (sizeof (int) * (size_t) W * H);
  size_t qh = 0, qt = 0;
#define BGR(x, y) (((uint8_t *) src->data)[(size_t) (y) * src->stride + (x)] <= thr)
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++)
      if ((x == 0 || y == 0 || x == W - 1 || y == H - 1) && BGR (x, y)) {
        seen[(size_t) y * W + x] = 1;
        queue[qt++] = y * W + x;
      }
  while (qh < qt) {
    int p = queue[qh++], x = p % W, y = p / W;
    for (int dy = -1; dy <= 1; dy++)
      for (int dx = -1; dx <= 1; dx++) {
        if ((!dx && !dy) || (conn == 4 && dx && dy))
          continue;
        int nx = x + dx, ny = y + dy;
        if (nx < 0 || ny < 0 || nx >= W || ny >= H || seen[(size_t) ny * W + nx] || !BGR (nx, ny))
          continue;
        seen[(size_t) ny * W + nx] = 1;
        queue[qt++] = ny * W + nx;
      }
  }
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      int contour = !BGR (x, y);
      int enclosed = !contour && !seen[(size_t) y * W + x];
      out[(size_t) y * W + x] = enclosed || (contour && output == 0) ? fv : 0;
    }
  free (seen);
  free (queue);
}

static long
ref_index (long j, int n, fv_border b)
{
  if (j >= 0 && j < n) return j;
  switch (b) {
    case FV_BORDER_REPLICATE: return j < 0 ? 0 : n - 1;
    case FV_BORDER_MIRROR:
      if (n == 1) return 0;
      while (j < 0 || j >= n) j = j < 0 ? -j : 2L * (n - 1) - j;
      return j;
    case FV_BORDER_WRAP: return ((j % n) + n) % n;
    default: return -1;
  }
}

double
fvt_ref_conv (const void *params, const fv_image *src, int x, int y, int c)
{
  const fv_conv_params *p = params;
  const int kw = p->kernel_width, kh = p->kernel_height, cx = kw / 2, cy = kh / 2;
  /* correlation reads I(x + i - cx); true convolution I(x - i + cx) */
  const int sgn = p->convolve ? -1 : 1;
  double acc = 0, ksum = 0, inside = 0;
  for (int j = 0; j < kh; j++)
    for (int i = 0; i < kw; i++) {
      double k = p->kernel[j * kw + i];
      ksum += k;
      long ux = (long) x + sgn * (i - cx), uy = (long) y + sgn * (j - cy);
      long sx = ref_index (ux, p->frame.width, p->border);
      long sy = ref_index (uy, p->frame.height, p->border);
      if (sx < 0 || sy < 0)
        continue;
      if (ux >= 0 && ux < p->frame.width && uy >= 0 && uy < p->frame.height)
        inside += k;
      acc += k * fvt_get (src, (int) sx, (int) sy, c);
    }
  double s = p->normalize ? 1.0 / ksum : 1.0;
  if (p->border == FV_BORDER_RENORMALIZE) {
    double kabs = 0;
    for (int i = 0; i < kw * kh; i++)
      kabs += fabs (p->kernel[i]);
    if (fabs (ksum) > 1e-9 * kabs && fabs (inside) > 1e-6 * kabs)
      s = p->normalize ? 1.0 / inside : ksum / inside;
  }
  double v = acc * s + p->bias, maxv = p->frame.sample == FV_U8 ? 255 : 65535;
  return v < 0 ? 0 : v > maxv ? maxv : v;
}

int
fvt_summary (const char *name)
{
  printf ("%s: %d checks, %d failed\n", name, fvt_checks, fvt_failures);
  return fvt_failures ? 1 : 0;
}

/* The enclosed regions from their definition: components (conn) of the
 * background pixels the reference fill turned on, found by a breadth-first
 * search from each unvisited one in raster order, so listed by first pixel. */
/* The regions of the pixels where in[] is set, joined in conn, numbered in
 * raster order of their first pixel, each pixel's region in label[] (-1:
 * none), every field of fv_fill_region counted pixel by pixel. */
int
fvt_ref_label (int W, int H, const uint8_t *in, int conn, int *label, fvt_region **out)
{
  int *queue = malloc (sizeof (int) * (size_t) W * H);
  int n = 0, cap = 16;
  fvt_region *r = malloc (sizeof *r * cap);
  for (size_t i = 0; i < (size_t) W * H; i++)
    label[i] = -1;
  for (int y0 = 0; y0 < H; y0++)
    for (int x0 = 0; x0 < W; x0++) {
      if (label[(size_t) y0 * W + x0] >= 0 || !in[(size_t) y0 * W + x0])
        continue;
      size_t qh = 0, qt = 0;
      label[(size_t) y0 * W + x0] = n;
      queue[qt++] = y0 * W + x0;
      while (qh < qt) {
        int p = queue[qh++], x = p % W, y = p / W;
        for (int dy = -1; dy <= 1; dy++)
          for (int dx = -1; dx <= 1; dx++) {
            int nx = x + dx, ny = y + dy;
            if ((!dx && !dy) || (conn == 4 && dx && dy) || nx < 0 || ny < 0 || nx >= W
                || ny >= H || label[(size_t) ny * W + nx] >= 0 || !in[(size_t) ny * W + nx])
              continue;
            label[(size_t) ny * W + nx] = n;
            queue[qt++] = ny * W + nx;
          }
      }
      if (n == cap)
        r = realloc (r, sizeof *r * (cap *= 2));
      r[n++] = (fvt_region) { .x = W, .y = H, .part = -1 };
    }
  /* every field from the pixels: box, sums, and for each direction the
   * pixel's two neighbours that way that are not in its region */
  static const int dir[4][2] = { { 1, 0 }, { 0, 1 }, { 1, 1 }, { -1, 1 } };
  int *x1 = calloc ((size_t) n + 1, sizeof *x1), *y1 = calloc ((size_t) n + 1, sizeof *y1);
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      const int l = label[(size_t) y * W + x];
      if (l < 0)
        continue;
      fvt_region *g = &r[l];
      g->x = x < g->x ? x : g->x;
      g->y = y < g->y ? y : g->y;
      x1[l] = x > x1[l] ? x : x1[l];
      y1[l] = y > y1[l] ? y : y1[l];
      g->area++;
      g->sum_x += x;
      g->sum_y += y;
      g->sum_xx += (int64_t) x * x;
      g->sum_yy += (int64_t) y * y;
      g->sum_xy += (int64_t) x * y;
      int64_t *cross[4] = { &g->cross_h, &g->cross_v, &g->cross_d, &g->cross_a };
      for (int d = 0; d < 4; d++)
        for (int s = -1; s <= 1; s += 2) {
          const int nx = x + s * dir[d][0], ny = y + s * dir[d][1];
          *cross[d] += nx < 0 || ny < 0 || nx >= W || ny >= H || label[(size_t) ny * W + nx] != l;
        }
    }
  for (int l = 0; l < n; l++) {
    r[l].width = x1[l] - r[l].x + 1;
    r[l].height = y1[l] - r[l].y + 1;
  }
  free (x1);
  free (y1);
  free (queue);
  *out = r;
  return n;
}

void
fvt_print_region (const char *what, const fvt_region *r)
{
  fprintf (stderr, "    %s (%d,%d %dx%d) area %lld sums %lld %lld %lld %lld %lld crossings %lld "
      "%lld %lld %lld part %d holes %d of %lld\n", what, r->x, r->y, r->width, r->height,
      (long long) r->area, (long long) r->sum_x, (long long) r->sum_y, (long long) r->sum_xx,
      (long long) r->sum_yy, (long long) r->sum_xy, (long long) r->cross_h,
      (long long) r->cross_v, (long long) r->cross_d, (long long) r->cross_a, r->part, r->holes,
      (long long) r->hole_area);
}

#define REF_PIX(im, x, y) (((uint8_t *) (im)->data)[(size_t) (y) * (im)->stride + (x)])

int
fvt_ref_regions (const fv_image *src, unsigned thr, int conn, const uint8_t *want,
    fvt_region **out)
{
  const int W = src->width, H = src->height;
  uint8_t *in = calloc ((size_t) W * H, 1);
  int *label = malloc (sizeof (int) * (size_t) W * H);
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++)
      in[(size_t) y * W + x] = REF_PIX (src, x, y) <= thr && want[(size_t) y * W + x];
  const int n = fvt_ref_label (W, H, in, conn, label, out);
  free (in);
  free (label);
  return n;
}

int
fvt_ref_parts (const fv_image *src, unsigned thr, int conn, const uint8_t *want,
    fvt_region *holes, int nholes, fvt_region **out)
{
  const int W = src->width, H = src->height;
  uint8_t *in = calloc ((size_t) W * H, 1);
  int *label = malloc (sizeof (int) * (size_t) W * H);
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++)
      in[(size_t) y * W + x] = REF_PIX (src, x, y) > thr || want[(size_t) y * W + x];
  const int n = fvt_ref_label (W, H, in, conn == 8 ? 4 : 8, label, out);
  /* the holes' own labels, to find each one's first pixel */
  int *hole_label = malloc (sizeof (int) * (size_t) W * H);
  fvt_region *again;
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++)
      in[(size_t) y * W + x] = REF_PIX (src, x, y) <= thr && want[(size_t) y * W + x];
  fvt_ref_label (W, H, in, conn, hole_label, &again);
  free (again);
  for (int k = 0; k < nholes; k++) {
    int x = 0;
    while (hole_label[(size_t) holes[k].y * W + x] != k)
      x++;
    holes[k].part = label[(size_t) holes[k].y * W + x];
    (*out)[holes[k].part].holes++;
    (*out)[holes[k].part].hole_area += holes[k].area;
  }
  free (hole_label);
  free (in);
  free (label);
  return n;
}

