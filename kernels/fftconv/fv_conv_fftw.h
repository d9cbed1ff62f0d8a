/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* FFTW for the CPU convolution (private to kernels/fftconv). FFTW's
 * planner is not thread-safe: every call here takes one lock. Threads are
 * set up before anything else, as FFTW requires; measuring stops after
 * 2 s a transform. Plans are kept per transform (direction, size, threads,
 * measure) and shared, so that a new kernel, a second element or a restart
 * at the same size plans nothing. Executed with the new-array functions on
 * arrays from fftwf_alloc_*, as the shared plans require. */
#ifndef FV_CONV_FFTW_H
#define FV_CONV_FFTW_H

#include <fftw3.h>

/* A 2D real transform of n0 x n1 (rows x columns): forward r -> c, or
 * inverse c -> r. The arrays may be overwritten when it is measured. NULL
 * if FFTW cannot plan it. */
fftwf_plan fv_fftw_plan (int inverse, int n0, int n1, int nthreads, int measure, float *r,
    fftwf_complex *c);

/* Hands a plan back: it stays ready for the next plan of its kind (the 16
 * least recently used idle ones are kept). */
void fv_fftw_release (fftwf_plan plan);

/* Whether the wisdom in memory plans this transform without measuring
 * (FFTW_WISDOM_ONLY), for tests. */
int fv_fftw_wisdom_covers (int inverse, int n0, int n1, int nthreads);

/* How many times fv_fftw_plan has called FFTW's planner (for tests). */
long fv_fftw_planner_calls (void);

#endif
