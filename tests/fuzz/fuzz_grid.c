/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libFuzzer target: a kernel grid file's text through its parser (the
 * size line and the quoted kernel paths). */
#include <stdint.h>
#include <string.h>
#include <glib.h>
#include "fv_kernel_file.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  if (memchr (data, '\0', size))
    return 0;   /* the loader refuses NUL bytes before parsing */
  gchar *text = g_strndup ((const gchar *) data, size);
  gint cols, rows;
  gchar **names = NULL;
  GError *err = NULL;
  if (fv_kernel_grid_parse ("fuzz-grid.txt", text, &cols, &rows, &names, &err)) {
    if ((gint) g_strv_length (names) != cols * rows)
      __builtin_trap ();
    g_strfreev (names);
  } else if (!g_utf8_validate (err->message, -1, NULL)) {
    __builtin_trap ();
  }
  g_clear_error (&err);
  g_free (text);
  return 0;
}
