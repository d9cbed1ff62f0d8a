/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* autofill's files share this: the element (gstautofill.c) and the report
 * of what `measure` found (gstautofill-report.c: metas, ids along the belt,
 * drawing, the bus message). */
#ifndef GST_AUTO_FILL_PRIVATE_H
#define GST_AUTO_FILL_PRIVATE_H

#include "gstautofill.h"

G_BEGIN_DECLS

GST_DEBUG_CATEGORY_EXTERN (gst_auto_fill_debug);

#define DEFAULT_ROI_TYPE "region"
#define DEFAULT_PART_ROI_TYPE "part"
#define DEFAULT_UNIT "px"
/* scale: units a pixel; beyond these a length would lose its meaning */
#define MIN_SCALE 1e-9
#define MAX_SCALE 1e9
#define DEFAULT_MAX_REGIONS 256
/* 1.24+: OD Mtds for at most this many listed regions a frame (parts
 * first): a relation meta's table of relations grows with the square of
 * its Mtds (24,000 regions would take 576 MB) */
#define MAX_OD_MTDS 1024
/* a listed region's host memory, its meta and its message entry each (an
 * upper estimate: a ROI meta with one param structure of two fields, a
 * structure of seven fields in a GstValueList) */
#define REGION_HOST_BYTES 1024

/* measure: the holes and parts `plan` found in the frame it just filled,
 * as metas, ids, drawing and the message (gstautofill-report.c). */
fv_status gst_auto_fill_report (GstAutoFill *self, fv_fill_plan *plan, GstVideoFrame *frame);

G_END_DECLS
#endif
