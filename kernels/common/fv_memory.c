/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <unistd.h>
#include "fv_env.h"
#include "fv_image.h"
#include "fv_memory.h"

guint64
fv_memory_limit (void)
{
  long long mb = fv_env_int (FV_ENV_MAX_MEMORY_MB, 0);
  if (mb > 0 && mb < (1LL << 40))
    return (guint64) mb << 20;
  long pages = sysconf (_SC_PHYS_PAGES), page = sysconf (_SC_PAGESIZE);
  if (pages > 0 && page > 0)
    return (guint64) pages * (guint64) page / 2;
  return G_GUINT64_CONSTANT (4) << 30;
}

gboolean
fv_memory_check (double bytes, const char *what)
{
  double limit = (double) fv_memory_limit ();
  if (bytes <= limit)
    return TRUE;
  fv_set_last_error ("%s would need up to %.0f MB, more than the %.0f MB allowed "
      "(FASTVISION_MAX_MEMORY_MB raises the limit)", what, bytes / 1048576.0, limit / 1048576.0);
  return FALSE;
}
