/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The one order of every kernel's planner (fv_planner.h). */
#include "fv_config.h"
#include "fv_planner.h"
#include "fv_memory.h"

fv_status
fv_plan_choose (const fv_plan_choice *c, int device, int *chunked)
{
  *chunked = 0;
  fv_status st = fv_plan_backend_check (c->backend, c->leaf_init);
  if (st != FV_OK)
    return st;
  if (c->backend == FV_BACKEND_CUDA && c->can_chunk && c->spread
      && (st = fv_spread_chunked (c->spread, device, c->device_bytes, chunked)) != FV_OK)
    return st;
  if (!fv_memory_check (c->host_bytes[*chunked], c->what))
    return FV_ERR_INVALID;
  return FV_OK;
}
