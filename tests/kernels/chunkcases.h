/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the chunked-plan tests share (chunkcases.c): the spreads tried,
 * frames copied to the device, rows compared, and a plan run on host or
 * device frames with its padding checked. */
#ifndef CHUNKCASES_H
#define CHUNKCASES_H

#include "fvtest.h"
#include "fv_chunk_run.h"

typedef struct {
  const char *name;
  fv_spread s;
} Spread;


/* Whether device 0 can be used; if not, says why (a skip) */
int have_gpu (void);

#define NSPREADS 5
extern Spread spreads[NSPREADS];

/* Copies a host image to device memory (same stride). */
fv_image to_device (const fv_image *h);
long rows_differ (const fv_image *a, const fv_image *b);

/* Runs `plan` on src into a fresh image, on host or device memory. */
typedef fv_status (*ExecFn) (void *plan, const fv_image *src, const fv_image *dst);
fv_image run_on (ExecFn exec, void *plan, const fv_image *src, int device, const char *what);
fv_status box_exec (void *p, const fv_image *s, const fv_image *d);
fv_status conv_exec (void *p, const fv_image *s, const fv_image *d);
fv_status fill_exec (void *p, const fv_image *s, const fv_image *d);

#endif
