# SPDX-License-Identifier: LGPL-2.1-or-later
"""Bookkeeping of the Python tests: every check counted, failures printed,
one summary line and the exit status at the end (as tests/common/fvtest.h
does for the C tests)."""


class Checks:
    def __init__(self):
        self.checks = self.failed = 0

    def __call__(self, ok, what):
        """Counts one check; prints FAIL and what when ok is false."""
        self.checks += 1
        if not ok:
            self.failed += 1
            print(f"FAIL {what}")
        return ok

    def summary(self):
        """Prints how many passed and failed; the exit status to return."""
        print(f"{self.checks - self.failed} passed, {self.failed} failed")
        return 1 if self.failed else 0
