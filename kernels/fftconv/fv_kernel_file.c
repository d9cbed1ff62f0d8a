/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <glib/gstdio.h>
#include "fv_kernel_file.h"
#include "fv_file.h"
#include "fv_memory.h"
#include "fv_image.h"

/* The largest kernel file read: a 2048x2048 text kernel of long numbers. */
#define FV_KERNEL_MAX_FILE (128u << 20)
#define FV_GRID_MAX_FILE (1u << 20)
#define FV_KERNEL_MAX_SIDE 2048

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
/* Half the step of the number p..end's last decimal when it is written
 * with three or more decimals (exponent included: 1.25e-3 has the step
 * 1e-5), else 0: the value is taken as exact. */
static gdouble
written_rounding (const gchar *p, const gchar *end)
{
  const gchar *dot = memchr (p, '.', end - p);
  if (!dot)
    return 0;
  gint decimals = 0;
  const gchar *q = dot + 1;
  while (q < end && g_ascii_isdigit (*q)) {
    decimals++;
    q++;
  }
  gint exponent = 0;
  if (q < end && (*q == 'e' || *q == 'E'))
    exponent = (gint) g_ascii_strtoll (q + 1, NULL, 10);
  const gint places = decimals - exponent;
  return places >= 3 ? 0.5 * pow (10.0, -places) : 0;
}

static gboolean
load_text (const gchar *path, const gchar *data, FvKernel *out, GError **error)
{
  GArray *taps = g_array_new (FALSE, FALSE, sizeof (gfloat));
  gchar **lines = g_strsplit (data, "\n", -1);
  gchar *bad = NULL;   /* text quoted in a message, valid UTF-8 */
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
      if (end == p) {
        bad = fv_text_excerpt (p, strlen (p), 20);
        FAIL (ln + 1, "not a number: \"%s\"", bad);
      }
      if (!isfinite (v))
        FAIL (ln + 1, "tap %d is not a finite number", count + 1);
      if (fabs (v) > G_MAXFLOAT)
        FAIL (ln + 1, "tap %d (%g) overflows a float", count + 1, v);
      if (count == FV_KERNEL_MAX_SIDE)
        FAIL (ln + 1, "more than %d taps in a row", FV_KERNEL_MAX_SIDE);
      gfloat f = (gfloat) v;
      g_array_append_val (taps, f);
      out->rounding = MAX (out->rounding, written_rounding (p, end));
      count++;
      p = end;
      if (*p && *p != ' ' && *p != '\t' && *p != ',' && *p != '\r') {
        bad = fv_text_excerpt (p, strlen (p), 1);
        FAIL (ln + 1, "unexpected \"%s\" after a number", bad);
      }
    }
    if (!count)
      continue;
    if (width && count != width)
      FAIL (ln + 1, "ragged rows: %d numbers where the first row has %d", count, width);
    if (height == FV_KERNEL_MAX_SIDE)
      FAIL (ln + 1, "more than %d rows", FV_KERNEL_MAX_SIDE);
    width = count;
    height++;
  }
  if (!height)
    FAIL (0, "no numbers in the file");
  g_strfreev (lines);
  g_free (bad);
  out->width = width;
  out->height = height;
  out->taps = (gfloat *) g_array_free (taps, FALSE);
  return TRUE;
fail:
  g_strfreev (lines);
  g_free (bad);
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
    if (e == p || scale == 0 || !isfinite (scale))
      FAIL (1, "bad PFM scale (a finite number other than 0)");
    p = e;
  } else if (!(p = pnm_token (p, end, &maxv)) || maxv < 1 || maxv > 65535) {
    FAIL (1, "bad PGM maximum value");
  }
  if (w < 1 || h < 1 || w > FV_KERNEL_MAX_SIDE || h > FV_KERNEL_MAX_SIDE)
    FAIL (1, "kernel size %ldx%ld out of range 1..%d", w, h, FV_KERNEL_MAX_SIDE);
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
      if (v > maxv)
        FAIL (0, "sample %ld (%ld) above the maximum value %ld", i + 1, v, maxv);
      out->taps[i] = (gfloat) v;
    }
  }
  return TRUE;
fail:
  fv_kernel_clear (out);
  return FALSE;
}

gboolean
fv_kernel_parse (const gchar *path, const gchar *data, gsize len, FvKernel *out,
    GError **error)
{
  memset (out, 0, sizeof *out);
  if (len >= 2 && data[0] == 'P' && (data[1] == '2' || data[1] == '5' || data[1] == 'f'))
    return load_pnm (path, data, len, out, error);
  if (memchr (data, '\0', len)) {
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s: a NUL byte: neither a text "
        "matrix nor a PGM or PFM image", path);
    return FALSE;
  }
  return load_text (path, data, out, error);
}

gboolean
fv_kernel_load (const gchar *path, FvKernel *out, GError **error)
{
  gchar *data = NULL;
  gsize len = 0;
  memset (out, 0, sizeof *out);
  if (!fv_file_read (path, "kernel file", FV_KERNEL_MAX_FILE, &data, &len, error))
    return FALSE;
  gchar *shown = fv_file_display_name (path);
  gboolean ok = fv_kernel_parse (shown, data, len, out, error);
  g_free (shown);
  g_free (data);
  return ok;
}

void
fv_kernel_grid_clear (FvKernelGrid *g)
{
  for (gint i = 0; g->kernels && i < g->cols * g->rows; i++)
    fv_kernel_clear (&g->kernels[i]);
  g_free (g->kernels);
  g_strfreev (g->paths);
  memset (g, 0, sizeof *g);
}

gboolean
fv_kernel_grid_parse (const gchar *path, const gchar *data, gint *cols_out, gint *rows_out,
    gchar ***names_out, GError **error)
{
  gchar **names = NULL, *first = g_strndup (data, strcspn (data, "\n"));
  const gchar *rest = data + strlen (first);
  gint cols, rows, n = 0;
  gchar extra;
  *names_out = NULL;
  if (sscanf (first, "%d %d %c", &cols, &rows, &extra) != 2)
    FAIL (1, "the first line must be \"COLS ROWS\"");
  if (cols < 1 || rows < 1 || cols > 64 || rows > 64)
    FAIL (1, "grid %dx%d out of range 1..64", cols, rows);
  /* the paths as a shell splits words: quote a path with spaces */
  GError *shell_err = NULL;
  if (strspn (rest, " \t\r\n") < strlen (rest) && !g_shell_parse_argv (rest, &n, &names, &shell_err)) {
    gchar *why = g_utf8_make_valid (shell_err->message, -1);
    g_error_free (shell_err);
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s: the kernel paths: %s", path, why);
    g_free (why);
    goto fail;
  }
  if (n != cols * rows)
    FAIL (0, "%d kernel paths for a %dx%d grid (%d needed)", n, cols, rows, cols * rows);
  *cols_out = cols;
  *rows_out = rows;
  *names_out = names;
  g_free (first);
  return TRUE;
fail:
  g_strfreev (names);
  g_free (first);
  return FALSE;
}

/* The line of the grid file (1 = "COLS ROWS") that names kernel i. */
static gint
member_line (const gchar *data, gint i)
{
  gchar **lines = g_strsplit (data, "\n", -1);
  gint seen = 0, line = 0;
  for (gint l = 1; lines[0] && lines[l] && !line; l++) {
    gint argc = 0;
    gchar **argv = NULL;
    if (strspn (lines[l], " \t\r") < strlen (lines[l])
        && g_shell_parse_argv (lines[l], &argc, &argv, NULL)) {
      if (i < seen + argc)
        line = l + 1;
      seen += argc;
      g_strfreev (argv);
    }
  }
  g_strfreev (lines);
  return line ? line : 2;
}

gboolean
fv_kernel_grid_load (const gchar *file, FvKernelGrid *out, GError **error)
{
  gchar *data = NULL, *dir = NULL, **names = NULL, *path = fv_file_display_name (file);
  gsize len;
  gint cols, rows;
  memset (out, 0, sizeof *out);
  if (!fv_file_read (file, "kernel grid", FV_GRID_MAX_FILE, &data, &len, error))
    goto fail;
  if (memchr (data, '\0', len))
    FAIL (0, "a NUL byte in the grid file");
  if (!fv_kernel_grid_parse (path, data, &cols, &rows, &names, error))
    goto fail;
  dir = g_path_get_dirname (file);
  const gint n = cols * rows;
  out->paths = g_new0 (gchar *, (gsize) n + 1);
  /* the kernels' memory, at most 4 bytes a tap and a tap a file byte,
   * before any is read: one file named 4096 times counts 4096 times */
  gdouble need = 0;
  for (gint i = 0; i < n; i++) {
    out->paths[i] = g_path_is_absolute (names[i]) ? g_strdup (names[i])
        : g_build_filename (dir, names[i], NULL);
    GStatBuf st;
    if (g_stat (out->paths[i], &st) == 0)
      need += 4.0 * MIN ((gdouble) st.st_size, (gdouble) FV_KERNEL_MAX_SIDE * FV_KERNEL_MAX_SIDE);
  }
  if (!fv_memory_check (need, "the grid's kernels"))
    FAIL (0, "%s", fv_last_error ());
  out->cols = cols;
  out->rows = rows;
  out->kernels = g_new0 (FvKernel, n);
  for (gint i = 0; i < n; i++)
    if (!fv_kernel_load (out->paths[i], &out->kernels[i], error)) {
      /* the member's error, with where the grid names it */
      g_prefix_error (error, "%s:%d: kernel %d of %d: ", path, member_line (data, i), i + 1, n);
      goto fail;
    }
  g_strfreev (names);
  g_free (dir);
  g_free (data);
  g_free (path);
  return TRUE;
fail:
  fv_kernel_grid_clear (out);
  g_strfreev (names);
  g_free (dir);
  g_free (data);
  g_free (path);
  return FALSE;
}
