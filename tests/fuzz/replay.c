/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Replays inputs through a fuzz target without libFuzzer, so that the
 * normal test run (any compiler) covers the seed corpus and every crash
 * reproducer ever found: each argument is a file or a folder of files. A
 * crash fails the test; the count replayed is printed. */
#include <stdint.h>
#include <stdio.h>
#include <glib.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static int
replay_file (const char *path)
{
  gchar *data = NULL;
  gsize len = 0;
  if (!g_file_get_contents (path, &data, &len, NULL))
    return 0;
  LLVMFuzzerTestOneInput ((const uint8_t *) data, len);
  g_free (data);
  return 1;
}

int
main (int argc, char **argv)
{
  int n = 0;
  for (int i = 1; i < argc; i++) {
    GDir *dir = g_dir_open (argv[i], 0, NULL);
    if (!dir) {
      n += replay_file (argv[i]);
      continue;
    }
    const char *name;
    while ((name = g_dir_read_name (dir))) {
      gchar *p = g_build_filename (argv[i], name, NULL);
      if (g_file_test (p, G_FILE_TEST_IS_REGULAR))
        n += replay_file (p);
      g_free (p);
    }
    g_dir_close (dir);
  }
  printf ("%s: %d inputs replayed, no crash\n", argv[0], n);
  return n > 0 ? 0 : 77;
}
