/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Leaks on purpose, inside an OpenMP parallel region, as a bug of ours
 * would: under tests/run.sh --sanitize, LeakSanitizer with the project's
 * suppressions (tests/sanitize/lsan.supp) must still report it, so the
 * test expects this program to fail. A suppression as wide as "every stack
 * through libgomp" would hide it. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static void *volatile sink;

int
main (void)
{
#pragma omp parallel num_threads(2)
  {
    char *p = malloc (4096 + omp_get_thread_num ());
    p[0] = 1;
    sink = p;   /* kept only in a variable the next thread overwrites */
  }
  sink = NULL;
  printf ("leaked two blocks inside a parallel region\n");
  return 0;
}
