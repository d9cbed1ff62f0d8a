/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Device lists as users write them (fv_devices.c). */
#ifndef FV_DEVICES_H
#define FV_DEVICES_H

#include "fv_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Parses a device list: "0", "0,1", "1,0,0", "all"; NULL or "" gives
 * `fallback` alone. FV_ERR_INVALID with the reason for anything else, or
 * a device the machine does not have. */
fv_status fv_device_list_parse (const char *s, int fallback, int *devices, int *n);

#ifdef __cplusplus
}
#endif
#endif
