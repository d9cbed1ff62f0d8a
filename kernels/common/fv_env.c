/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fv_env.h"

const char *
fv_env_get (const char *name)
{
  const char *s = getenv (name);
  if (s || strncmp (name, "FASTVISION_", 11) != 0)
    return s;
  char old[128];   /* the name before 0.2: FV_ and the rest */
  snprintf (old, sizeof old, "FV_%s", name + 11);
  return getenv (old);
}

long long
fv_env_int (const char *name, long long fallback)
{
  const char *s = fv_env_get (name);
  if (!s || !*s)
    return fallback;
  char *end;
  long long v = strtoll (s, &end, 10);
  return *end ? fallback : v;
}

int
fv_env_set (const char *name)
{
  return fv_env_get (name) != NULL;
}
