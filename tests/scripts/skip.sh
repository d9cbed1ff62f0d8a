#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# A test that cannot run here: says why and exits 77 (meson's skip).
echo "skipped: $*"
exit 77
