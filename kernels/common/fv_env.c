/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdlib.h>
#include "fv_env.h"

long long
fv_env_int (const char *name, long long fallback)
{
  const char *s = getenv (name);
  if (!s || !*s)
    return fallback;
  char *end;
  long long v = strtoll (s, &end, 10);
  return *end ? fallback : v;
}

int
fv_env_set (const char *name)
{
  return getenv (name) != NULL;
}
