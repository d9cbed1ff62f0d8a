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
  if (p->width < 1 || p->height < 1 || p->width > FV_BOX_MAX_SIDE || p->height > FV_BOX_MAX_SIDE) {
    fv_set_last_error ("a %dx%d frame: the box filter takes sides of 1 to %d pixels", p->width,
        p->height, 1 << 20);
    return FV_ERR_INVALID;
  }
  if (p->channels < 1 || p->channels > 4) {
    fv_set_last_error ("channels %d out of range 1..4", p->channels);
    return FV_ERR_INVALID;
  }
  if (p->sample != FV_U8 && p->sample != FV_U16) {
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
  if (p->threads < 0) {
    fv_set_last_error ("threads %d negative", p->threads);
    return FV_ERR_INVALID;
  }
  if (p->roi_width && (p->roi_width < 1 || p->roi_height < 1 || p->roi_x < 0 || p->roi_y < 0
          || p->roi_width > p->width - p->roi_x || p->roi_height > p->height - p->roi_y)) {
    fv_set_last_error ("window %dx%d at (%d, %d) outside the %dx%d frame", p->roi_width,
        p->roi_height, p->roi_x, p->roi_y, p->width, p->height);
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
    if (nx > (unsigned long long) p->width) nx = p->width;
    if (ny > (unsigned long long) p->height) ny = p->height;
  }
  unsigned long long maxv = p->sample == FV_U8 ? 255 : 65535;
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
  if (im->width != p->width || im->height != p->height || im->channels != p->channels
      || im->sample != p->sample) {
    fv_set_last_error ("%s image %dx%dx%d (%d-bit) does not match the plan %dx%dx%d (%d-bit)",
        what, im->width, im->height, im->channels, im->sample * 8, p->width,
        p->height, p->channels, p->sample * 8);
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

