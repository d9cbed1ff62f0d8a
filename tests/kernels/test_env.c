/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The environment variables' one prefix (fv_env.h): FASTVISION_ names read
 * as they are, the FV_ names of 0.1 read where the new one is unset (one
 * release), the new name first where both are, numbers parsed whole, and
 * names outside the prefix read only as they are. */
#include <stdlib.h>
#include <string.h>
#include "fvtest.h"
#include "fv_env.h"

int
main (void)
{
  unsetenv ("FASTVISION_CHUNK_LANES");
  unsetenv ("FV_CHUNK_LANES");
  FVT_CHECK (fv_env_int (FV_ENV_CHUNK_LANES, 7) == 7 && !fv_env_set (FV_ENV_CHUNK_LANES),
      "unset: the fallback");
  setenv ("FASTVISION_CHUNK_LANES", "2", 1);
  FVT_CHECK (fv_env_int (FV_ENV_CHUNK_LANES, 7) == 2, "the new name");
  setenv ("FV_CHUNK_LANES", "3", 1);
  FVT_CHECK (fv_env_int (FV_ENV_CHUNK_LANES, 7) == 2, "both set: the new name first");
  unsetenv ("FASTVISION_CHUNK_LANES");
  FVT_CHECK (fv_env_int (FV_ENV_CHUNK_LANES, 7) == 3 && fv_env_set (FV_ENV_CHUNK_LANES),
      "the old name, read where the new one is unset");
  setenv ("FV_CHUNK_LANES", "3x", 1);
  FVT_CHECK (fv_env_int (FV_ENV_CHUNK_LANES, 7) == 7, "not a number: the fallback");
  unsetenv ("FV_CHUNK_LANES");
  setenv ("FV_BOX_PATH", "table", 1);
  const char *path = fv_env_get (FV_ENV_BOX_PATH);
  FVT_CHECK (path && !strcmp (path, "table"), "a text variable by its old name");
  unsetenv ("FV_BOX_PATH");
  setenv ("FV_ODD", "1", 1);   /* outside the prefix: no alias is made up */
  FVT_CHECK (fv_env_get ("OTHER_ODD") == NULL, "a name outside the prefix");
  return fvt_summary ("test_env");
}
