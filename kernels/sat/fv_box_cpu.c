/* CPU box filter: rows split in one strip per thread, each strip streams
 * its SAT rows (see fv_box_cpu_rows.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "fv_box_plan.h"
#include "fv_box_math.h"
#include "fv_sat_cpu_util.h"
#include "../common/fv_parallel.h"

#define TIN uint8_t
#define TACC uint32_t
#define FV_ROWS rows_u8_a32
#include "fv_box_cpu_rows.h"
#undef TACC
#undef FV_ROWS
#define TACC uint64_t
#define FV_ROWS rows_u8_a64
#include "fv_box_cpu_rows.h"
#undef TIN
#undef TACC
#undef FV_ROWS
#define TIN uint16_t
#define TACC uint32_t
#define FV_ROWS rows_u16_a32
#include "fv_box_cpu_rows.h"
#undef TACC
#undef FV_ROWS
#define TACC uint64_t
#define FV_ROWS rows_u16_a64
#include "fv_box_cpu_rows.h"
#undef TIN
#undef TACC
#undef FV_ROWS

typedef void (*rows_fn) (const fv_box_plan *, const fv_image *, const fv_image *,
    int, int, char *);

fv_status
fv_box_cpu_init (fv_box_plan *plan)
{
  const fv_box_params *p = &plan->p;
  int n = fv_threads_resolve (p->threads);
  if (n > p->height)
    n = p->height;
  /* Each strip starts with a full window of rows: keep strips well taller
   * than the window so that start-up stays a small part of the work. */
  long min_rows = 2L * p->radius_y + 1;
  if (min_rows < 16)
    min_rows = 16;
  while (n > 1 && (long) p->height / n < min_rows)
    n--;
  plan->nthreads = n;
  size_t acc = plan->acc64 ? 8 : 4, wc = (size_t) p->width * p->channels;
  size_t bytes = acc * (4 * wc + 2 * (size_t) p->channels) + sizeof (int) * (size_t) p->height;
  plan->scratch_stride = (bytes + 63) & ~(size_t) 63;
  plan->scratch = aligned_alloc (64, plan->scratch_stride * n);
  if (!plan->scratch) {
    fv_set_last_error ("cannot allocate %zu bytes of scratch", plan->scratch_stride * n);
    return FV_ERR_NOMEM;
  }
  return FV_OK;
}

fv_status
fv_box_cpu_execute (fv_box_plan *plan, const fv_image *src, const fv_image *dst)
{
  const fv_box_params *p = &plan->p;
  rows_fn fn = p->sample == FV_U8 ? (plan->acc64 ? rows_u8_a64 : rows_u8_a32)
      : (plan->acc64 ? rows_u16_a64 : rows_u16_a32);
  const int n = plan->nthreads;
#pragma omp parallel for num_threads(n) schedule(static, 1)
  for (int t = 0; t < n; t++) {
    int y0, y1;
    fv_split_range (p->height, n, t, &y0, &y1);
    fn (plan, src, dst, y0, y1, (char *) plan->scratch + plan->scratch_stride * t);
  }
  return FV_OK;
}

void
fv_box_cpu_free (fv_box_plan *plan)
{
  free (plan->scratch);
  plan->scratch = NULL;
}
