/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Leaks on purpose, inside a parallel region on the worker pool, as a bug
 * of ours would: under tests/run.sh --sanitize, LeakSanitizer with the
 * project's suppressions (tests/sanitize/lsan.supp) must still report it,
 * so the test expects this program to fail. A suppression as wide as
 * "every stack through a worker thread" would hide it. */
#include <stdio.h>
#include <stdlib.h>
#include "fv_parallel.h"

static void *volatile sink;

static void
leak (void *ctx, int me, int parts)
{
  (void) ctx;
  (void) parts;
  char *p = malloc (4096 + me);
  p[0] = 1;
  sink = p;   /* kept only in a variable the next part overwrites */
}

int
main (void)
{
  fv_team_run ((fv_team) { 2, 0 }, leak, NULL);
  sink = NULL;
  printf ("leaked two blocks inside a parallel region\n");
  return 0;
}
