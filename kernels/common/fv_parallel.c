/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define _GNU_SOURCE   /* sched_getaffinity, pthread_setname_np */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/sem.h>
#include <unistd.h>
#include "fv_env.h"
#include "fv_parallel.h"

/* the user budget's key: "fv" and the user's id (FASTVISION_CORES_KEY for tests) */
#define FV_CORES_KEY_BASE 0x66760000

int
fv_threads_resolve (int requested)
{
  if (requested > 0)
    return requested;
  cpu_set_t set;   /* the cores this process may run on (taskset, cgroups' cpusets) */
  int n = sched_getaffinity (0, sizeof set, &set) == 0 ? CPU_COUNT (&set) : 0;
  if (n <= 0)
    n = (int) sysconf (_SC_NPROCESSORS_ONLN);
  return n > 0 ? n : 1;
}

/* semctl's fourth argument, which the caller declares (POSIX) */
union fv_semun {
  struct semid_ds *buf;
};

/* Where tokens come from: nowhere (FASTVISION_SHARE_CORES=0), this process's own
 * count (the default), or the semaphore set this user's processes share
 * (FASTVISION_SHARE_CORES=1): token count [0] and the cores it was sized for [1]. */
enum { BUDGET_NONE, BUDGET_PROCESS, BUDGET_USER };
static int kind = BUDGET_NONE;
static int user_budget = -1;   /* the set's id */
static int process_free;       /* the process's tokens (atomic) */
static pthread_once_t budget_once = PTHREAD_ONCE_INIT;

/* Grows the set from `size` to `cores` tokens if it still holds `size`
 * (one atomic semop: a set sized by a process that saw fewer cores, such
 * as one run under taskset, is put right by the next that sees more). */
static void
grow (int id, int cores)
{
  for (int tries = 0; tries < 8; tries++) {
    int size = semctl (id, 1, GETVAL);
    if (size < 0 || size >= cores)
      return;
    /* size 0: the first op waits for zero, a check like the second */
    struct sembuf ops[4] = { { 1, (short) -size, IPC_NOWAIT }, { 1, 0, IPC_NOWAIT },
      { 1, (short) cores, 0 }, { 0, (short) (cores - size), 0 } };
    if (semop (id, ops, 4) == 0 || errno != EAGAIN)
      return;
  }
}

/* Opens (or creates) this user's set: owner-only, created and owned by
 * this user, two semaphores; anything else at the key (a set another user
 * or an older version made) is left alone and the process keeps its own
 * budget. */
static int
open_user_budget (int cores)
{
  const char *k = fv_env_get (FV_ENV_CORES_KEY);
  const key_t key = k && *k ? (key_t) strtol (k, NULL, 16)
      : (key_t) (FV_CORES_KEY_BASE | (geteuid () & 0xffff));
  int id = semget (key, 2, IPC_CREAT | IPC_EXCL | 0600);
  if (id >= 0) {
    /* the first semop marks the set as ready (its sem_otime) */
    struct sembuf init[2] = { { 0, (short) cores, 0 }, { 1, (short) cores, 0 } };
    if (semop (id, init, 2) != 0) {
      semctl (id, 0, IPC_RMID);
      return -1;
    }
    return id;
  }
  if (errno != EEXIST || (id = semget (key, 2, 0)) < 0)
    return -1;
  struct semid_ds ds;
  union fv_semun arg = { .buf = &ds };
  for (int wait = 0; wait < 100; wait++) {   /* its creator may not have set it yet */
    if (semctl (id, 0, IPC_STAT, arg) != 0)
      return -1;
    if (ds.sem_otime)
      break;
    usleep (10000);
  }
  if (ds.sem_perm.uid != geteuid () || ds.sem_perm.cuid != geteuid ()
      || (ds.sem_perm.mode & 0077) || ds.sem_nsems != 2 || !ds.sem_otime)
    return -1;
  grow (id, cores);
  return id;
}

static void
open_budget (void)
{
  const long long share = fv_env_set (FV_ENV_SHARE_CORES)
      ? fv_env_int (FV_ENV_SHARE_CORES, 0) : -1;
  if (share == 0)
    return;
  const int cores = fv_threads_resolve (0);
  if (share > 0 && (user_budget = open_user_budget (cores)) >= 0) {
    kind = BUDGET_USER;
    return;
  }
  __atomic_store_n (&process_free, cores, __ATOMIC_RELAXED);
  kind = BUDGET_PROCESS;
}

static int
free_now (void)
{
  if (kind == BUDGET_USER)
    return semctl (user_budget, 0, GETVAL);
  return kind == BUDGET_PROCESS ? __atomic_load_n (&process_free, __ATOMIC_RELAXED) : -1;
}

int
fv_cores_free (void)
{
  pthread_once (&budget_once, open_budget);
  return free_now ();
}

const char *
fv_cores_budget (void)
{
  pthread_once (&budget_once, open_budget);
  return kind == BUDGET_USER ? "this user's processes" : kind == BUDGET_PROCESS
      ? "this process" : "none";
}

/* Takes n tokens if they are free, without waiting. */
static int
take (int n)
{
  if (kind == BUDGET_USER) {
    struct sembuf op = { 0, (short) -n, IPC_NOWAIT | SEM_UNDO };
    return semop (user_budget, &op, 1) == 0;
  }
  int v = __atomic_load_n (&process_free, __ATOMIC_RELAXED);
  while (v >= n)
    if (__atomic_compare_exchange_n (&process_free, &v, v - n, 1, __ATOMIC_ACQ_REL,
        __ATOMIC_RELAXED))
      return 1;
  return 0;
}

static fv_team_notice notice_fn;
static void *notice_data;

void
fv_team_set_notice (fv_team_notice fn, void *data)
{
  __atomic_store_n (&notice_data, data, __ATOMIC_RELEASE);
  __atomic_store_n (&notice_fn, fn, __ATOMIC_RELEASE);
}

static fv_team take_team (int want);

fv_team
fv_team_begin (int want)
{
  fv_team t = take_team (want);
  fv_team_notice fn = __atomic_load_n (&notice_fn, __ATOMIC_ACQUIRE);
  if (fn && want > 1)
    fn (want, t.threads, __atomic_load_n (&notice_data, __ATOMIC_ACQUIRE));
  return t;
}

static fv_team
take_team (int want)
{
  fv_team t = { want > 1 ? want : 1, 0 };
  /* one thread needs no token; a nested region runs on its thread alone,
   * and its team's tokens are already held */
  if (fv_in_region ())
    t.threads = 1;
  if (t.threads <= 1)
    return t;
  pthread_once (&budget_once, open_budget);
  if (kind == BUDGET_NONE)
    return t;
  if (take (want)) {
    t.held = want;
    return t;
  }
  /* fewer than asked are free: take what is there (another thread may take
   * them first; a few tries, then alone) */
  for (int tries = 0; tries < 3; tries++) {
    int v = free_now ();
    if (v <= 0)
      break;
    int n = v < want ? v : want;
    if (take (n)) {
      t.threads = t.held = n;
      return t;
    }
  }
  t.threads = 1;
  return t;
}

void
fv_team_end (fv_team team)
{
  if (team.held <= 0 || kind == BUDGET_NONE)
    return;
  if (kind == BUDGET_PROCESS) {
    __atomic_add_fetch (&process_free, team.held, __ATOMIC_ACQ_REL);
    return;
  }
  struct sembuf op = { 0, (short) team.held, SEM_UNDO };
  while (semop (user_budget, &op, 1) != 0 && errno == EINTR)
    ;
}

/* The pool. A region is a job on the list of open jobs: `parts` calls to
 * hand out, claimed one at a time by an atomic counter. Its calling thread
 * claims parts until none is left, then takes the job off the list and
 * waits for the parts the workers run. A worker claims one part at a time
 * under the lock (so the job it finds is still listed, hence alive), runs
 * it, and counts it done; the job's last part wakes the callers. Workers
 * with nothing to do spin on the count of jobs posted, then sleep. */
#define FV_POOL_SPIN 1000   /* rounds of a pause instruction: libgomp's count for a busy machine */
#define FV_POOL_MAX 1024    /* workers at most */

typedef struct job {
  void (*fn) (void *ctx, int me, int parts);
  void *ctx;
  int parts;
  int next;   /* the next part to claim (atomic; passes parts when all are claimed) */
  int done;   /* parts returned (atomic) */
  struct job *prev, *after;
} job;

static struct {
  pthread_mutex_t mu;
  pthread_cond_t work, finished;
  job *open;          /* jobs with parts maybe unclaimed */
  unsigned posted;    /* jobs posted so far (atomic) */
  int workers, sleeping;
} pool = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER,
  NULL, 0, 0, 0 };

static __thread int in_region;

int
fv_in_region (void)
{
  return in_region;
}

static inline void
relax (void)
{
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause ();
#elif defined(__aarch64__)
  __asm__ __volatile__ ("yield");
#endif
}

static void
run_part (void (*fn) (void *, int, int), void *ctx, int me, int parts, int *done)
{
  in_region++;
  fn (ctx, me, parts);
  in_region--;
  if (__atomic_add_fetch (done, 1, __ATOMIC_ACQ_REL) == parts) {
    /* the job may be gone from here on: only the pool is touched */
    pthread_mutex_lock (&pool.mu);
    pthread_cond_broadcast (&pool.finished);
    pthread_mutex_unlock (&pool.mu);
  }
}

static void *
worker (void *unused)
{
  (void) unused;
  pthread_mutex_lock (&pool.mu);
  for (;;) {
    job *jb = pool.open;
    int me = 0;
    for (; jb; jb = jb->after)
      if ((me = __atomic_fetch_add (&jb->next, 1, __ATOMIC_ACQ_REL)) < jb->parts)
        break;
    if (jb) {
      void (*fn) (void *, int, int) = jb->fn;
      void *ctx = jb->ctx;
      const int parts = jb->parts;
      int *done = &jb->done;
      pthread_mutex_unlock (&pool.mu);
      run_part (fn, ctx, me, parts, done);
      pthread_mutex_lock (&pool.mu);
      continue;
    }
    const unsigned seen = __atomic_load_n (&pool.posted, __ATOMIC_ACQUIRE);
    pthread_mutex_unlock (&pool.mu);
    for (int i = 0; i < FV_POOL_SPIN && __atomic_load_n (&pool.posted, __ATOMIC_ACQUIRE) == seen; i++)
      relax ();
    pthread_mutex_lock (&pool.mu);
    pool.sleeping++;
    while (__atomic_load_n (&pool.posted, __ATOMIC_ACQUIRE) == seen)
      pthread_cond_wait (&pool.work, &pool.mu);
    pool.sleeping--;
  }
  return NULL;
}

/* a child of fork () has none of the parent's workers */
static void
forget_workers (void)
{
  pthread_mutex_init (&pool.mu, NULL);
  pthread_cond_init (&pool.work, NULL);
  pthread_cond_init (&pool.finished, NULL);
  pool.open = NULL;
  pool.workers = pool.sleeping = 0;
}

static pthread_once_t fork_once = PTHREAD_ONCE_INIT;

static void
watch_fork (void)
{
  pthread_atfork (NULL, NULL, forget_workers);
}

/* Starts workers up to `want` (under the lock). A worker that cannot start
 * leaves its parts to the callers. Workers take no signals: they stay the
 * application's threads' to handle. */
static void
grow_pool (int want)
{
  if (want > FV_POOL_MAX)
    want = FV_POOL_MAX;
  if (pool.workers >= want)
    return;
  pthread_once (&fork_once, watch_fork);
  sigset_t all, old;
  sigfillset (&all);
  pthread_sigmask (SIG_SETMASK, &all, &old);
  pthread_attr_t attr;
  pthread_attr_init (&attr);
  pthread_attr_setdetachstate (&attr, PTHREAD_CREATE_DETACHED);
  while (pool.workers < want) {
    pthread_t t;
    if (pthread_create (&t, &attr, worker, NULL) != 0)
      break;
#ifdef __GLIBC__
    pthread_setname_np (t, "fv-worker");
#endif
    pool.workers++;
  }
  pthread_attr_destroy (&attr);
  pthread_sigmask (SIG_SETMASK, &old, NULL);
}

void
fv_team_run (fv_team team, void (*fn) (void *ctx, int me, int parts), void *ctx)
{
  const int parts = team.threads > 1 ? team.threads : 1;
  if (parts == 1 || in_region) {   /* nested: every part here, in turn */
    in_region++;
    for (int me = 0; me < parts; me++)
      fn (ctx, me, parts);
    in_region--;
    return;
  }
  job jb = { fn, ctx, parts, 0, 0, NULL, NULL };
  pthread_mutex_lock (&pool.mu);
  grow_pool (parts - 1);
  jb.after = pool.open;
  if (pool.open)
    pool.open->prev = &jb;
  pool.open = &jb;
  __atomic_add_fetch (&pool.posted, 1, __ATOMIC_ACQ_REL);
  for (int i = 0; i < parts - 1 && i < pool.sleeping; i++)
    pthread_cond_signal (&pool.work);
  pthread_mutex_unlock (&pool.mu);
  int me;
  while ((me = __atomic_fetch_add (&jb.next, 1, __ATOMIC_ACQ_REL)) < parts)
    run_part (fn, ctx, me, parts, &jb.done);
  pthread_mutex_lock (&pool.mu);   /* every part is claimed: off the list */
  if (jb.prev)
    jb.prev->after = jb.after;
  else
    pool.open = jb.after;
  if (jb.after)
    jb.after->prev = jb.prev;
  pthread_mutex_unlock (&pool.mu);
  for (int i = 0; i < FV_POOL_SPIN && __atomic_load_n (&jb.done, __ATOMIC_ACQUIRE) < parts; i++)
    relax ();
  if (__atomic_load_n (&jb.done, __ATOMIC_ACQUIRE) < parts) {
    pthread_mutex_lock (&pool.mu);
    while (__atomic_load_n (&jb.done, __ATOMIC_ACQUIRE) < parts)
      pthread_cond_wait (&pool.finished, &pool.mu);
    pthread_mutex_unlock (&pool.mu);
  }
}

typedef struct {
  long n;
  int chunk;
  long next;   /* atomic, for chunk > 0 */
  void (*body) (void *ctx, long i, int me);
  void *ctx;
} loop;

static void
loop_part (void *data, int me, int parts)
{
  loop *l = data;
  if (l->chunk <= 0) {
    const long q = l->n / parts, r = l->n % parts;
    const long lo = me * q + (me < r ? me : r), hi = lo + q + (me < r ? 1 : 0);
    for (long i = lo; i < hi; i++)
      l->body (l->ctx, i, me);
    return;
  }
  long lo;
  while ((lo = __atomic_fetch_add (&l->next, l->chunk, __ATOMIC_RELAXED)) < l->n) {
    const long hi = lo + l->chunk < l->n ? lo + l->chunk : l->n;
    for (long i = lo; i < hi; i++)
      l->body (l->ctx, i, me);
  }
}

void
fv_team_for (fv_team team, long n, int chunk, void (*body) (void *ctx, long i, int me),
    void *ctx)
{
  if (n <= 0)
    return;
  loop l = { n, chunk, 0, body, ctx };
  if (team.threads > n)   /* no part without an index */
    team.threads = (int) n;
  fv_team_run (team, loop_part, &l);
}
