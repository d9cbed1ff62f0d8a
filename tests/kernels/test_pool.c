/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The CPU worker pool (fv_parallel.h: fv_team_run, fv_team_for), written
 * from its contract:
 *  - every part of a region runs exactly once, with its number and the
 *    part count, whatever the team (1, the cores, more than the cores);
 *  - a loop visits every index exactly once, static and in chunks, for
 *    counts smaller and larger than the team;
 *  - parts run at once on several threads when workers are free (a part
 *    that waits for all the others to start ends, on a machine with two
 *    or more cores);
 *  - a region begun inside a part runs on that part's thread alone, and
 *    the nested loop is still whole;
 *  - regions from several application threads at once, thousands each,
 *    teams of 1 to 4 parts in turn (a slot reused by a larger team while
 *    a worker still reads its last use once ran a part twice), all
 *    complete with their own results;
 *  - the workers take no signals: a signal sent to the process reaches an
 *    application thread;
 *  - a child made by fork () runs regions too (it has no workers: the
 *    calling thread runs every part). */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include "fvtest.h"
#include "fv_parallel.h"

typedef struct {
  int parts_seen;
  int *hits;
} run_check;

static void
count_part (void *ctx, int me, int parts)
{
  run_check *c = ctx;
  __atomic_add_fetch (&c->hits[me], 1, __ATOMIC_RELAXED);
  __atomic_store_n (&c->parts_seen, parts, __ATOMIC_RELAXED);
}

static void
count_index (void *ctx, long i, int me)
{
  (void) me;
  int *hits = ctx;
  __atomic_add_fetch (&hits[i], 1, __ATOMIC_RELAXED);
}

static int
all_once (const int *hits, long n)
{
  for (long i = 0; i < n; i++)
    if (hits[i] != 1)
      return 0;
  return 1;
}

/* parts that wait (a while at most) until every part has started */
typedef struct {
  int started, parts;
  pthread_t thread[64];
} meeting;

static void
meet (void *ctx, int me, int parts)
{
  meeting *m = ctx;
  m->thread[me] = pthread_self ();
  __atomic_add_fetch (&m->started, 1, __ATOMIC_ACQ_REL);
  for (int i = 0; i < 2000 && __atomic_load_n (&m->started, __ATOMIC_ACQUIRE) < parts; i++)
    usleep (1000);
}

/* a nested region inside each part */
typedef struct {
  int nested_threads[8];
  int ok[8];
  pthread_t thread[8];
} nesting;

typedef struct {
  pthread_t outer;
  int same_thread;
} inner_check;

static void
inner_part (void *ctx, int me, int parts)
{
  (void) me;
  (void) parts;
  inner_check *c = ctx;
  if (!pthread_equal (pthread_self (), c->outer))
    __atomic_store_n (&c->same_thread, 0, __ATOMIC_RELAXED);
}

static void
outer_part (void *ctx, int me, int parts)
{
  (void) parts;
  nesting *n = ctx;
  fv_team t = fv_team_begin (4);
  n->nested_threads[me] = t.threads;
  int hits[100] = { 0 };
  fv_team_for (t, 100, 3, count_index, hits);
  inner_check c = { pthread_self (), 1 };
  fv_team_run (t, inner_part, &c);
  fv_team_end (t);
  n->ok[me] = all_once (hits, 100) && c.same_thread && fv_in_region ();
}

/* many regions from several application threads at once */
typedef struct {
  int id, ok;
} stress_arg;

typedef struct {
  long sum;   /* atomic */
} stress_job;

static void
add_index (void *ctx, long i, int me)
{
  (void) me;
  stress_job *s = ctx;
  __atomic_add_fetch (&s->sum, i + 1, __ATOMIC_RELAXED);
}

static void *
stress (void *data)
{
  stress_arg *a = data;
  a->ok = 1;
  for (int r = 0; r < 20000; r++) {
    const long n = 1 + (r * 7 + a->id * 13) % 97;
    stress_job s = { 0 };
    fv_team t = fv_team_begin (1 + (r + a->id) % 4);
    fv_team_for (t, n, r % 2 ? 0 : 5, add_index, &s);
    fv_team_end (t);
    if (s.sum != n * (n + 1) / 2)
      a->ok = 0;
  }
  return NULL;
}

static volatile sig_atomic_t got_signal;
static pthread_t main_thread;
static volatile int signal_on_main = -1;

static void
on_signal (int sig)
{
  (void) sig;
  got_signal = 1;
  signal_on_main = pthread_equal (pthread_self (), main_thread);
}

static void
idle_part (void *ctx, int me, int parts)
{
  (void) ctx;
  (void) me;
  (void) parts;
}

int
main (void)
{
  const int C = fv_threads_resolve (0);
  setenv ("FASTVISION_SHARE_CORES", "0", 1);   /* teams of the size asked, for these checks */
  FVT_CHECK (C >= 1, "cores: %d", C);

  /* every part once, for teams of 1, the cores and more */
  const int sizes[] = { 1, 2, C, C + 3, 17, 40 };   /* 40: past the 32 parts claimed by mask */
  for (unsigned s = 0; s < sizeof sizes / sizeof *sizes; s++) {
    int hits[64] = { 0 };
    run_check c = { 0, hits };
    fv_team t = { sizes[s], 0 };
    for (int rep = 0; rep < 50; rep++)
      fv_team_run (t, count_part, &c);
    int ok = c.parts_seen == sizes[s];
    for (int i = 0; i < 64; i++)
      ok &= hits[i] == (i < sizes[s] ? 50 : 0);
    FVT_CHECK (ok, "a team of %d: parts ran the wrong number of times", sizes[s]);
  }

  /* loops: every index once, static and in chunks */
  const long counts[] = { 1, 3, 7, 100, 1001, 65537 };
  const int chunks[] = { 0, 1, 4, 1000 };
  for (unsigned k = 0; k < sizeof counts / sizeof *counts; k++)
    for (unsigned c = 0; c < sizeof chunks / sizeof *chunks; c++)
      for (int th = 1; th <= 9; th += 4) {
        int *hits = calloc (counts[k], sizeof *hits);
        fv_team t = { th, 0 };
        fv_team_for (t, counts[k], chunks[c], count_index, hits);
        FVT_CHECK (all_once (hits, counts[k]), "loop of %ld, chunk %d, team %d: an index "
            "not visited exactly once", counts[k], chunks[c], th);
        free (hits);
      }
  int none = 0;
  fv_team_for ((fv_team) { 4, 0 }, 0, 0, count_index, &none);
  FVT_CHECK (none == 0, "an empty loop ran its body");

  /* parts at once on several threads */
  if (C >= 2) {
    meeting m = { 0, 2, { 0 } };
    fv_team_run ((fv_team) { 2, 0 }, meet, &m);
    FVT_CHECK (m.started == 2 && !pthread_equal (m.thread[0], m.thread[1]),
        "two parts did not run at once on two threads");
  }

  /* nested regions: on the part's thread alone, still whole */
  nesting n;
  memset (&n, 0, sizeof n);
  fv_team_run ((fv_team) { 3, 0 }, outer_part, &n);
  for (int i = 0; i < 3; i++)
    FVT_CHECK (n.nested_threads[i] == 1 && n.ok[i], "nested region %d: %d threads, ok %d", i,
        n.nested_threads[i], n.ok[i]);
  FVT_CHECK (!fv_in_region (), "still in a region after it ended");

  /* regions from several threads at once */
  pthread_t th[6];
  stress_arg args[6];
  for (int i = 0; i < 6; i++) {
    args[i].id = i;
    pthread_create (&th[i], NULL, stress, &args[i]);
  }
  for (int i = 0; i < 6; i++) {
    pthread_join (th[i], NULL);
    FVT_CHECK (args[i].ok, "thread %d: a region's result was wrong", i);
  }

  /* signals reach the application's thread, not a worker */
  main_thread = pthread_self ();
  signal (SIGUSR1, on_signal);
  fv_team_run ((fv_team) { C + 1, 0 }, idle_part, NULL);   /* workers exist */
  kill (getpid (), SIGUSR1);
  for (int i = 0; i < 1000 && !got_signal; i++)
    usleep (1000);
  FVT_CHECK (got_signal && signal_on_main == 1, "the signal was taken by %s",
      got_signal ? "a worker" : "nobody");

  /* a child of fork () */
  pid_t pid = fork ();
  if (pid == 0) {
    stress_arg a = { 9, 0 };
    alarm (60);
    stress (&a);
    _exit (a.ok ? 0 : 1);
  }
  int status = 0;
  waitpid (pid, &status, 0);
  FVT_CHECK (WIFEXITED (status) && WEXITSTATUS (status) == 0,
      "regions in a child of fork () failed (status %d)", status);
  return fvt_summary ("test_pool");
}
