#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fvkernelfile.h"

#define FAIL(line, ...)                                                         \
  do {                                                                          \
    gchar *why_ = g_strdup_printf (__VA_ARGS__);                                \
    if ((line) > 0)                                                             \
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s:%d: %s", path,  \
          (line), why_);                                                        \
    else                                                                        \
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s: %s", path, why_); \
    g_free (why_);                                                              \
    goto fail;                                                                  \
  } while (0)

void
fv_kernel_clear (FvKernel *k)
{
  g_free (k->taps);
  k->taps = NULL;
  k->width = k->height = 0;
}

void
fv_kernel_gaussian (gdouble sigma, FvKernel *out)
{
  gint r = (gint) ceil (3.0 * sigma), n = 2 * r + 1;
  out->width = out->height = n;
  out->taps = g_new (gfloat, (gsize) n * n);
  for (gint j = 0; j < n; j++)
    for (gint i = 0; i < n; i++)
      out->taps[j * n + i] = (gfloat) exp (-((i - r) * (i - r) + (j - r) * (j - r))
          / (2.0 * sigma * sigma));
}

/* Text matrix. */
static gboolean
load_text (const gchar *path, const gchar *data, FvKernel *out, GError **error)
{
  GArray *taps = g_array_new (FALSE, FALSE, sizeof (gfloat));
  gchar **lines = g_strsplit (data, "\n", -1);
  gint width = 0, height = 0;
  for (gint ln = 0; lines[ln]; ln++) {
    gchar *l = lines[ln], *hash = strchr (l, '#');
    if (hash)
      *hash = '\0';
    gint count = 0;
    gchar *p = l;
    while (*p) {
      while (*p == ' ' || *p == '\t' || *p == ',' || *p == '\r')
        p++;
      if (!*p)
        break;
      gchar *end;
      gdouble v = g_ascii_strtod (p, &end);
      if (end == p)
        FAIL (ln + 1, "not a number: \"%.20s\"", p);
      if (!isfinite (v))
        FAIL (ln + 1, "tap %d is not a finite number", count + 1);
      gfloat f = (gfloat) v;
      g_array_append_val (taps, f);
      count++;
      p = end;
      if (*p && *p != ' ' && *p != '\t' && *p != ',' && *p != '\r')
        FAIL (ln + 1, "unexpected \"%c\" after a number", *p);
    }
    if (!count)
      continue;
    if (width && count != width)
      FAIL (ln + 1, "ragged rows: %d numbers where the first row has %d", count, width);
    width = count;
    height++;
  }
  if (!height)
    FAIL (0, "no numbers in the file");
  g_strfreev (lines);
  out->width = width;
  out->height = height;
  out->taps = (gfloat *) g_array_free (taps, FALSE);
  return TRUE;
fail:
  g_strfreev (lines);
  g_array_free (taps, TRUE);
  return FALSE;
}

/* Next whitespace-separated header token of a PNM, skipping comments. */
static const gchar *
pnm_token (const gchar *p, const gchar *end, glong *value)
{
  while (p < end) {
    if (*p == '#') {
      while (p < end && *p != '\n')
        p++;
    } else if (g_ascii_isspace (*p)) {
      p++;
    } else {
      break;
    }
  }
  if (p >= end || !g_ascii_isdigit (*p))
    return NULL;
  gchar *e;
  *value = strtol (p, &e, 10);
  return e;
}

static gboolean
load_pnm (const gchar *path, const gchar *data, gsize len, FvKernel *out, GError **error)
{
  const gchar *end = data + len, *p = data + 2;
  gboolean binary = data[1] == '5' || data[1] == 'f';
  glong w, h, maxv = 0;
  gdouble scale = 0;
  out->taps = NULL;
  if (!(p = pnm_token (p, end, &w)) || !(p = pnm_token (p, end, &h)))
    FAIL (1, "bad image header");
  if (data[1] == 'f') {
    gchar *e;
    while (p < end && g_ascii_isspace (*p))
      p++;
    scale = g_ascii_strtod (p, &e);
    if (e == p || scale == 0)
      FAIL (1, "bad PFM scale");
    p = e;
  } else if (!(p = pnm_token (p, end, &maxv)) || maxv < 1 || maxv > 65535) {
    FAIL (1, "bad PGM maximum value");
  }
  if (w < 1 || h < 1 || w > 2048 || h > 2048)
    FAIL (1, "kernel size %ldx%ld out of range 1..2048", w, h);
  out->width = (gint) w;
  out->height = (gint) h;
  out->taps = g_new (gfloat, (gsize) w * h);
  if (binary) {
    p++;   /* the single whitespace after the header */
    gsize bps = data[1] == 'f' ? 4 : maxv > 255 ? 2 : 1, need = (gsize) w * h * bps;
    if (p > end || (gsize) (end - p) < need)
      FAIL (0, "truncated: %zu bytes of samples where %zu are needed",
          (gsize) (end > p ? end - p : 0), need);
    for (glong j = 0; j < h; j++)
      for (glong i = 0; i < w; i++) {
        const guint8 *s = (const guint8 *) p + (j * w + i) * bps;
        gfloat v;
        if (bps == 4) {   /* PFM: rows bottom to top, endianness from the scale's sign */
          guint32 u;
          memcpy (&u, s, 4);
          if ((scale < 0) != (G_BYTE_ORDER == G_LITTLE_ENDIAN))
            u = GUINT32_SWAP_LE_BE (u);
          memcpy (&v, &u, 4);
          if (!isfinite (v))
            FAIL (0, "sample %ld,%ld is not a finite number", i, j);
          out->taps[(h - 1 - j) * w + i] = v;
          continue;
        }
        v = bps == 2 ? (gfloat) (s[0] << 8 | s[1]) : s[0];
        out->taps[j * w + i] = v;
      }
  } else {
    for (glong i = 0; i < w * h; i++) {
      glong v;
      if (!(p = pnm_token (p, end, &v)))
        FAIL (0, "sample %ld missing or not a number", i + 1);
      out->taps[i] = (gfloat) v;
    }
  }
  return TRUE;
fail:
  fv_kernel_clear (out);
  return FALSE;
}

gboolean
fv_kernel_load (const gchar *path, FvKernel *out, GError **error)
{
  gchar *data = NULL;
  gsize len = 0;
  memset (out, 0, sizeof *out);
  if (!g_file_get_contents (path, &data, &len, error))
    return FALSE;
  gboolean ok;
  if (len >= 2 && data[0] == 'P' && (data[1] == '2' || data[1] == '5' || data[1] == 'f'))
    ok = load_pnm (path, data, len, out, error);
  else
    ok = load_text (path, data, out, error);
  g_free (data);
  return ok;
}

void
fv_kernel_grid_clear (FvKernelGrid *g)
{
  for (gint i = 0; g->kernels && i < g->cols * g->rows; i++)
    fv_kernel_clear (&g->kernels[i]);
  g_free (g->kernels);
  memset (g, 0, sizeof *g);
}

gboolean
fv_kernel_grid_load (const gchar *path, FvKernelGrid *out, GError **error)
{
  gchar *data = NULL, *dir = NULL, **tok = NULL;
  memset (out, 0, sizeof *out);
  if (!g_file_get_contents (path, &data, NULL, error))
    return FALSE;
  dir = g_path_get_dirname (path);
  gchar *nl = strchr (data, '\n');
  gchar *rest = nl ? nl + 1 : data + strlen (data);
  if (nl)
    *nl = '\0';
  gint cols, rows;
  gchar extra;
  if (sscanf (data, "%d %d %c", &cols, &rows, &extra) != 2)
    FAIL (1, "the first line must be \"COLS ROWS\"");
  if (cols < 1 || rows < 1 || cols > 64 || rows > 64)
    FAIL (1, "grid %dx%d out of range 1..64", cols, rows);
  tok = g_strsplit_set (g_strstrip (rest), " \t\r\n", -1);
  GPtrArray *names = g_ptr_array_new ();
  for (gint i = 0; tok[i]; i++)
    if (*tok[i])
      g_ptr_array_add (names, tok[i]);
  if ((gint) names->len != cols * rows) {
    gint n = names->len;
    g_ptr_array_free (names, TRUE);
    FAIL (0, "%d kernel paths for a %dx%d grid (%d needed)", n, cols, rows, cols * rows);
  }
  out->cols = cols;
  out->rows = rows;
  out->kernels = g_new0 (FvKernel, cols * rows);
  for (gint i = 0; i < cols * rows; i++) {
    const gchar *name = g_ptr_array_index (names, i);
    gchar *kp = g_path_is_absolute (name) ? g_strdup (name) : g_build_filename (dir, name, NULL);
    gboolean ok = fv_kernel_load (kp, &out->kernels[i], error);
    g_free (kp);
    if (!ok) {
      g_ptr_array_free (names, TRUE);
      goto fail;
    }
  }
  g_ptr_array_free (names, TRUE);
  g_strfreev (tok);
  g_free (dir);
  g_free (data);
  return TRUE;
fail:
  fv_kernel_grid_clear (out);
  g_strfreev (tok);
  g_free (dir);
  g_free (data);
  return FALSE;
}
