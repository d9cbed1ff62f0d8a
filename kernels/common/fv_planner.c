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
  if (c->backend == FV_BACKEND_CUDA && !c->frame->roi_width
      && (st = fv_spread_chunked (&c->frame->spread, device, c->device_bytes, chunked)) != FV_OK)
    return st;
  if (!fv_memory_check (c->host_bytes[*chunked], c->what))
    return FV_ERR_INVALID;
  return FV_OK;
}

fv_status
fv_frame_check_gray (const fv_frame *f, const char *what)
{
  const int channels = f->channels ? f->channels : 1;
  const int bits = 8 * (f->sample ? (int) f->sample : FV_U8);
  if (channels != 1 || bits != 8) {
    fv_set_last_error ("%s takes one channel of 8 bits, not %d of %d bits", what, channels,
        bits);
    return FV_ERR_INVALID;
  }
  if (f->roi_width || f->roi_height || f->roi_x || f->roi_y) {
    fv_set_last_error ("%s computes whole frames: no window (roi %dx%d at %d,%d)", what,
        f->roi_width, f->roi_height, f->roi_x, f->roi_y);
    return FV_ERR_INVALID;
  }
  return FV_OK;
}
