/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* fv_fft.h from FFTW: shared plans, wisdom and FFTW's one-time set-up,
 * behind one lock. */
#include <glib.h>
#include <pthread.h>
#include "fv_conv.h"
#include "fv_fft.h"
#include "../common/fv_env.h"

#define MAX_IDLE 16

typedef struct {
  int inverse, n0, n1, nthreads, measure;
  fftwf_plan plan;
  int refs;
  unsigned long last_use;
} cached_plan;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static GArray *cache;          /* of cached_plan */
static unsigned long clock_ticks;
static long planner_calls;

/* Under lock: threads before wisdom or plans (imported threaded wisdom is
 * otherwise not used, and planning starts over). */
static void
ready (void)
{
  static int done;
  if (done)
    return;
  fftwf_init_threads ();
  /* a measurement cut short saves no wisdom for its size (FFTW keeps only
   * what it finished): a slow machine may want more than the default */
  fftwf_set_timelimit ((double) fv_env_int (FV_ENV_FFT_PLAN_SECONDS, 2));
  cache = g_array_new (FALSE, FALSE, sizeof (cached_plan));
  done = 1;
}

fftwf_plan
fv_fft_plan_2d (int inverse, int n0, int n1, int nthreads, int measure, float *r, fftwf_complex *c)
{
  pthread_mutex_lock (&lock);
  ready ();
  fftwf_plan plan = NULL;
  for (guint i = 0; i < cache->len && !plan; i++) {
    cached_plan *e = &g_array_index (cache, cached_plan, i);
    if (e->inverse == inverse && e->n0 == n0 && e->n1 == n1 && e->nthreads == nthreads
        && e->measure >= measure) {
      e->refs++;
      e->last_use = ++clock_ticks;
      plan = e->plan;
    }
  }
  if (!plan) {
    unsigned flags = measure ? FFTW_MEASURE : FFTW_ESTIMATE;
    fftwf_plan_with_nthreads (nthreads);
    plan = inverse ? fftwf_plan_dft_c2r_2d (n0, n1, c, r, flags)
        : fftwf_plan_dft_r2c_2d (n0, n1, r, c, flags);
    planner_calls++;
    if (plan) {
      cached_plan e = { inverse, n0, n1, nthreads, measure, plan, 1, ++clock_ticks };
      g_array_append_val (cache, e);
    }
  }
  pthread_mutex_unlock (&lock);
  return plan;
}

void
fv_fft_release (fftwf_plan plan)
{
  if (!plan)
    return;
  pthread_mutex_lock (&lock);
  guint idle = 0;
  for (guint i = 0; i < cache->len; i++) {
    cached_plan *e = &g_array_index (cache, cached_plan, i);
    if (e->plan == plan)
      e->refs--;
    idle += e->refs == 0;
  }
  /* too many idle plans (a long run through many frame sizes): the least
   * recently used go */
  while (idle > MAX_IDLE) {
    guint oldest = 0;
    unsigned long t = G_MAXULONG;
    for (guint i = 0; i < cache->len; i++) {
      cached_plan *e = &g_array_index (cache, cached_plan, i);
      if (e->refs == 0 && e->last_use < t) {
        t = e->last_use;
        oldest = i;
      }
    }
    fftwf_destroy_plan (g_array_index (cache, cached_plan, oldest).plan);
    g_array_remove_index_fast (cache, oldest);
    idle--;
  }
  pthread_mutex_unlock (&lock);
}

int
fv_fft_wisdom_covers (int inverse, int n0, int n1, int nthreads)
{
  const size_t nc = (size_t) n0 * (n1 / 2 + 1);
  float *r = fftwf_alloc_real ((size_t) n0 * n1);
  fftwf_complex *c = fftwf_alloc_complex (nc);
  pthread_mutex_lock (&lock);
  ready ();
  fftwf_plan_with_nthreads (nthreads);
  unsigned flags = FFTW_MEASURE | FFTW_WISDOM_ONLY;
  fftwf_plan p = r && c ? (inverse ? fftwf_plan_dft_c2r_2d (n0, n1, c, r, flags)
      : fftwf_plan_dft_r2c_2d (n0, n1, r, c, flags)) : NULL;
  if (p)
    fftwf_destroy_plan (p);
  pthread_mutex_unlock (&lock);
  fftwf_free (r);
  fftwf_free (c);
  return p != NULL;
}

long
fv_fft_planner_calls (void)
{
  pthread_mutex_lock (&lock);
  long n = planner_calls;
  pthread_mutex_unlock (&lock);
  return n;
}

int
fv_conv_wisdom_load (const char *path)
{
  pthread_mutex_lock (&lock);
  ready ();
  int ok = fftwf_import_wisdom_from_filename (path);
  pthread_mutex_unlock (&lock);
  return ok;
}

/* The wisdom file is replaced whole (written aside, then renamed), so that
 * two processes saving at once never leave it cut short. */
int
fv_conv_wisdom_save (const char *path)
{
  pthread_mutex_lock (&lock);
  ready ();
  char *text = fftwf_export_wisdom_to_string ();
  pthread_mutex_unlock (&lock);
  int ok = text && g_file_set_contents (path, text, -1, NULL);
  fftwf_free (text);
  return ok;
}
