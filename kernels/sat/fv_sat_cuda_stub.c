/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Builds without CUDA: CUDA plans cannot be made. */
#include "fv_box_plan.h"
#include "fv_sat_plan.h"

static fv_status
no_cuda (void)
{
  fv_set_last_error ("fastvision was built without CUDA");
  return FV_ERR_NO_CUDA;
}

fv_status fv_box_cuda_init (fv_box_plan *plan, int device, void *stream) { return no_cuda (); }
fv_status fv_box_cuda_execute (fv_box_plan *plan, const fv_image *s, const fv_image *d) { return no_cuda (); }
void fv_box_cuda_free (fv_box_plan *plan) { }
fv_status
fv_box_cuda_execute_rows (fv_box_plan *plan, const fv_image *s, const fv_image *d, int row0,
    int rows)
{
  return no_cuda ();
}
size_t fv_box_cuda_bytes (const fv_box_params *p, int width, int height) { return 0; }
fv_status fv_sat_cuda_init (fv_sat_plan *plan, int device, void *stream) { return no_cuda (); }
fv_status fv_sat_cuda_execute (fv_sat_plan *plan, const fv_image *s, void *t, size_t ts) { return no_cuda (); }
void fv_sat_cuda_free (fv_sat_plan *plan) { }
