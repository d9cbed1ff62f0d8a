/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* fv_fft.h from FFTW: shared plans, wisdom and FFTW's one-time set-up,
 * behind one lock. */
#include <glib.h>
#include <glib/gstdio.h>
#include <pthread.h>
#include <string.h>
#include <utime.h>
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
static char *wisdom_dir;       /* fv_conv_wisdom_use: one file a transform */

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

/* Wisdom is kept one file a transform (direction, size, threads), so that
 * the store can keep the sizes used recently and drop the rest: FFTW's
 * wisdom of several sizes cannot be told apart once mixed. Before a
 * transform is planned FFTW forgets what it knew and imports that
 * transform's file alone (plans already made do not need wisdom), so
 * that what it exports afterwards is that transform's. */
static char *
wisdom_file (int inverse, int n0, int n1, int nthreads)
{
  return wisdom_dir ? g_strdup_printf ("%s/%s-%dx%d-t%d", wisdom_dir, inverse ? "c2r" : "r2c",
      n0, n1, nthreads) : NULL;
}

/* Under lock: FFTW knows that transform's wisdom only; its text, or NULL. */
static char *
wisdom_begin (const char *file)
{
  fftwf_forget_wisdom ();
  char *text = NULL;
  if (file && g_file_get_contents (file, &text, NULL, NULL)
      && !fftwf_import_wisdom_from_string (text)) {
    g_free (text);   /* not wisdom (cut short, another FFTW): measured again */
    text = NULL;
    fftwf_forget_wisdom ();
  }
  return text;
}

static int
by_line (const void *a, const void *b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

static gint
by_mtime (gconstpointer a, gconstpointer b)
{
  const gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;
  return x < y ? -1 : x > y;
}

/* Keeps the FV_FFT_WISDOM_KEEP transforms used last, by modification time. */
static void
wisdom_prune (void)
{
  GDir *d = g_dir_open (wisdom_dir, 0, NULL);
  if (!d)
    return;
  GArray *files = g_array_new (FALSE, FALSE, sizeof (gint64) * 2);   /* mtime, name index */
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  const char *name;
  while ((name = g_dir_read_name (d))) {
    if (!g_str_has_prefix (name, "r2c-") && !g_str_has_prefix (name, "c2r-"))
      continue;   /* another process's temporary file, say */
    char *path = g_build_filename (wisdom_dir, name, NULL);
    GStatBuf st;
    if (g_stat (path, &st) == 0) {
      gint64 e[2] = { (gint64) st.st_mtim.tv_sec * G_GINT64_CONSTANT (1000000000)
        + st.st_mtim.tv_nsec, names->len };
      g_array_append_vals (files, e, 1);
      g_ptr_array_add (names, path);
    } else {
      g_free (path);
    }
  }
  g_dir_close (d);
  if (files->len > FV_FFT_WISDOM_KEEP) {
    g_array_sort (files, by_mtime);
    for (guint i = 0; i < files->len - FV_FFT_WISDOM_KEEP; i++)
      g_unlink (g_ptr_array_index (names, ((gint64 *) files->data)[2 * i + 1]));
  }
  g_array_free (files, TRUE);
  g_ptr_array_free (names, TRUE);
}

/* Whether two exports hold the same wisdom: the same lines, in any order
 * (FFTW writes its table in an order of its own). */
static int
same_wisdom (const char *a, const char *b)
{
  gchar **x = g_strsplit (a, "\n", -1), **y = g_strsplit (b, "\n", -1);
  const guint n = g_strv_length (x);
  int same = n == g_strv_length (y);
  if (same) {
    qsort (x, n, sizeof *x, by_line);
    qsort (y, n, sizeof *y, by_line);
    for (guint i = 0; same && i < n; i++)
      same = strcmp (x[i], y[i]) == 0;
  }
  g_strfreev (x);
  g_strfreev (y);
  return same;
}

/* Under lock, after planning: the file is rewritten only when FFTW learnt
 * something (written aside, then renamed, so that two processes saving at
 * once never leave it cut short), otherwise only marked as used now. */
static void
wisdom_end (const char *file, char *before)
{
  if (!file)
    return;
  char *now = fftwf_export_wisdom_to_string ();
  if (now && (!before || !same_wisdom (now, before))) {
    g_mkdir_with_parents (wisdom_dir, 0700);
    g_file_set_contents (file, now, -1, NULL);
  } else if (before) {
    g_utime (file, NULL);
  }
  fftwf_free (now);
  g_free (before);
  wisdom_prune ();
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
    char *file = measure ? wisdom_file (inverse, n0, n1, nthreads) : NULL;
    char *before = wisdom_begin (file);
    fftwf_plan_with_nthreads (nthreads);
    plan = inverse ? fftwf_plan_dft_c2r_2d (n0, n1, c, r, flags)
        : fftwf_plan_dft_r2c_2d (n0, n1, r, c, flags);
    planner_calls++;
    wisdom_end (file, before);
    g_free (file);
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
  char *file = wisdom_file (inverse, n0, n1, nthreads);
  g_free (wisdom_begin (file));
  g_free (file);
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

void
fv_conv_wisdom_use (const char *dir)
{
  pthread_mutex_lock (&lock);
  ready ();
  g_free (wisdom_dir);
  wisdom_dir = dir ? g_strdup (dir) : NULL;
  pthread_mutex_unlock (&lock);
}
