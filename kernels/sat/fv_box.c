/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the box filter's back ends share: parameter and frame checks (the
 * planner, fv_box_planner.c, calls the back ends; they call nothing of it). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "fv_box_plan.h"
#include "../common/fv_memory.h"

fv_status
fv_box_params_validate (const fv_box_params *p)
{
  if (!p) {
    fv_set_last_error ("no parameters");
    return FV_ERR_INVALID;
  }
  if (p->frame.width < 1 || p->frame.height < 1 || p->frame.width > FV_BOX_MAX_SIDE
      || p->frame.height > FV_BOX_MAX_SIDE) {
    fv_set_last_error ("a %dx%d frame: the box filter takes sides of 1 to %d pixels",
        p->frame.width,
        p->frame.height, 1 << 20);
    return FV_ERR_INVALID;
  }
  if (p->frame.channels < 1 || p->frame.channels > 4) {
    fv_set_last_error ("channels %d out of range 1..4", p->frame.channels);
    return FV_ERR_INVALID;
  }
  if (p->frame.sample != FV_U8 && p->frame.sample != FV_U16) {
    fv_set_last_error ("sample type must be 8 or 16 bit");
    return FV_ERR_INVALID;
  }
  if (p->radius_x < 0 || p->radius_y < 0 || p->radius_x > FV_BOX_MAX_RADIUS
      || p->radius_y > FV_BOX_MAX_RADIUS) {
    fv_set_last_error ("radius %dx%d out of range 0..%d", p->radius_x, p->radius_y,
        FV_BOX_MAX_RADIUS);
    return FV_ERR_INVALID;
  }
  if ((unsigned) p->mode > FV_BOX_THRESHOLD || (unsigned) p->border > FV_BORDER_ZERO) {
    fv_set_last_error ("unknown mode or border");
    return FV_ERR_INVALID;
  }
  if (!(p->sensitivity >= 0.0 && p->sensitivity <= 1.0)) {
    fv_set_last_error ("sensitivity %g out of range 0..1", p->sensitivity);
    return FV_ERR_INVALID;
  }
  if (p->frame.threads < 0) {
    fv_set_last_error ("threads %d negative", p->frame.threads);
    return FV_ERR_INVALID;
  }
  if (p->frame.roi_width && (p->frame.roi_width < 1 || p->frame.roi_height < 1
      || p->frame.roi_x < 0 || p->frame.roi_y < 0
          || p->frame.roi_width > p->frame.width - p->frame.roi_x
              || p->frame.roi_height > p->frame.height - p->frame.roi_y)) {
    fv_set_last_error ("window %dx%d at (%d, %d) outside the %dx%d frame", p->frame.roi_width,
        p->frame.roi_height, p->frame.roi_x, p->frame.roi_y, p->frame.width, p->frame.height);
    return FV_ERR_INVALID;
  }
  return FV_OK;
}

int
fv_box_needs_acc64 (const fv_box_params *p)
{
  unsigned long long nx = 2ULL * p->radius_x + 1, ny = 2ULL * p->radius_y + 1;
  if (p->border == FV_BORDER_RENORMALIZE || p->border == FV_BORDER_ZERO) {
    /* only samples inside the frame are summed */
    if (nx > (unsigned long long) p->frame.width) nx = p->frame.width;
    if (ny > (unsigned long long) p->frame.height) ny = p->frame.height;
  }
  unsigned long long maxv = p->frame.sample == FV_U8 ? 255 : 65535;
  unsigned long long big = nx * ny * maxv;
  if (p->mode == FV_BOX_STDDEV)
    big *= maxv;
  /* 31 bits, so that CPU sums convert to double as signed 32-bit integers */
  return big > 0x7fffffffULL;
}

fv_status
fv_box_check_image (const fv_box_params *p, const fv_image *im, const char *what)
{
  if (!im || !im->data) {
    fv_set_last_error ("%s image missing", what);
    return FV_ERR_INVALID;
  }
  if (im->width != p->frame.width || im->height != p->frame.height
      || im->channels != p->frame.channels
      || im->sample != p->frame.sample) {
    fv_set_last_error ("%s image %dx%dx%d (%d-bit) does not match the plan %dx%dx%d (%d-bit)",
        what, im->width, im->height, im->channels, im->sample * 8, p->frame.width,
        p->frame.height, p->frame.channels, p->frame.sample * 8);
    return FV_ERR_INVALID;
  }
  if (im->stride < fv_image_row_bytes (im)) {
    fv_set_last_error ("%s stride %zu smaller than a row", what, im->stride);
    return FV_ERR_INVALID;
  }
  if (im->mem == FV_MEM_DEVICE && !fv_box_aligned (im)) {
    fv_set_last_error ("%s device image: 16-bit samples at an odd address or stride", what);
    return FV_ERR_INVALID;
  }
  return FV_OK;
}

int
fv_box_aligned (const fv_image *im)
{
  return im->stride % im->sample == 0 && (uintptr_t) im->data % im->sample == 0;
}

