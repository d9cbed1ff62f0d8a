/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The FFTs of the CPU convolution (private to kernels/fftconv), from one of
 * two libraries chosen at build time (meson option fft):
 *   fftw     FFTW 3 (GPL-2+: a plugin built with it is, in practice, GPL):
 *            measured plans, wisdom, FFTW's threads (fv_conv_fftw.c);
 *   gstfft   GStreamer's FFT library from gst-plugins-base (kissfft, LGPL):
 *            1D real transforms composed into 2D, threads by the worker pool
 *            (fv_conv_gstfft.c); sizes even and 5-smooth.
 * Both compute FFTW's unnormalised real 2D transforms with its layouts
 * (n0 rows of n1 reals; n0 rows of n1 / 2 + 1 complex numbers).
 *
 * FFTW's planner is not thread-safe: every call here takes one lock. Plans
 * are kept per transform (direction, size, threads, measure) and shared, so
 * that a new kernel, a second element or a restart at the same size plans
 * nothing. Executed with the new-array functions on arrays from
 * fv_fft_alloc_*, as the shared plans require; an execution may overwrite
 * its input. */
#ifndef FV_FFT_H
#define FV_FFT_H

#include <stddef.h>
#include "fv_config.h"

#if FV_FFT_FFTW
#include <fftw3.h>
typedef fftwf_complex fv_fft_complex;
typedef fftwf_plan fv_fft_plan;
static inline void
fv_fft_r2c (fv_fft_plan p, float *r, fv_fft_complex *c)
{
  fftwf_execute_dft_r2c (p, r, c);
}
static inline void
fv_fft_c2r (fv_fft_plan p, fv_fft_complex *c, float *r)
{
  fftwf_execute_dft_c2r (p, c, r);
}
#define fv_fft_alloc_real fftwf_alloc_real
#define fv_fft_alloc_complex fftwf_alloc_complex
#define fv_fft_free fftwf_free
#else
typedef float fv_fft_complex[2];
typedef struct fv_fft_plan_s *fv_fft_plan;
void fv_fft_r2c (fv_fft_plan p, float *r, fv_fft_complex *c);
void fv_fft_c2r (fv_fft_plan p, fv_fft_complex *c, float *r);
float *fv_fft_alloc_real (size_t n);
fv_fft_complex *fv_fft_alloc_complex (size_t n);
void fv_fft_free (void *p);
#endif

/* A 2D real transform of n0 x n1 (rows x columns): forward r -> c, or
 * inverse c -> r. The arrays may be overwritten when it is measured. NULL
 * if it cannot be planned (gstfft: odd sizes). */
fv_fft_plan fv_fft_plan_2d (int inverse, int n0, int n1, int nthreads, int measure, float *r,
    fv_fft_complex *c);

/* Hands a plan back: it stays ready for the next plan of its kind (the 16
 * least recently used idle ones are kept). */
void fv_fft_release (fv_fft_plan plan);

/* Whether this transform plans without measuring (FFTW: the wisdom in
 * memory covers it; gstfft: always), for tests. */
int fv_fft_wisdom_covers (int inverse, int n0, int n1, int nthreads);

/* How many times fv_fft_plan_2d has planned anew (for tests). */
long fv_fft_planner_calls (void);

#endif
