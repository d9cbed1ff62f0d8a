/* SPDX-License-Identifier: LGPL-2.1-or-later */
#define _GNU_SOURCE   /* sched_getaffinity, pthread_setname_np */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/sem.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/futex.h>
#include <sys/syscall.h>
#endif
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

/* The pool. A region is one of FV_POOL_JOBS job slots, which live as long
 * as the process: `parts` calls claimed one at a time by compare-and-swap
 * on a word that holds the slot's use count (high half) and the parts
 * claimed (low half: a mask, or a count for teams past 32), so a worker
 * that read a slot as it was being reused claims nothing (claim ()). A
 * slot is reused in three steps: its word is closed first (the new use
 * with every part taken), then the fields change, then the word opens.
 * Without the first step a worker could read the last use's word (every
 * part of a smaller team taken), then the new, larger part count, and
 * claim a part the old word still showed free: that part ran twice and
 * the region ended before its last part (test_pool's regions from six
 * threads: a wrong sum in 5-10% of runs on two cores, and crashes). The
 * fields are stored with release and read with acquire, so a worker that
 * sees a new field sees the closed word too. The
 * calling thread runs part 0, takes what the workers left, then waits for
 * their parts and frees the slot. Workers with nothing to do spin on the
 * count of jobs posted, then sleep on a futex of their own; a caller waits
 * for its last parts the same way, on the job's count of parts done. No
 * lock on the way of a region. */
#define FV_POOL_SPIN 1000   /* rounds of a pause instruction: libgomp's count for a busy machine */
#define FV_POOL_MAX 1024    /* workers at most */
#define FV_POOL_JOBS 64     /* regions at once; more run on their calling threads */

typedef struct {
  uint64_t word;   /* use count << 32 | parts claimed (atomic; claim ()) */
  void (*fn) (void *ctx, int me, int parts);
  void *ctx;
  int parts;
  int done;        /* parts returned (atomic; a futex) */
  int waiting;     /* the caller sleeps on done (atomic) */
} job;

static struct {
  job jobs[FV_POOL_JOBS];
  uint64_t free_mask, open_mask;   /* atomic: slots free; slots with parts maybe unclaimed */
  int posted;                      /* jobs posted (atomic; a futex) */
  struct {
    int word;       /* a futex: bumped to wake the worker */
    int sleeping;   /* asleep or about to be (atomic) */
  } wk[FV_POOL_MAX + 1];           /* by worker index, from 1 */
  pthread_mutex_t mu;              /* starting workers */
  int workers;
} pool = { .free_mask = ~(uint64_t) 0, .mu = PTHREAD_MUTEX_INITIALIZER };

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

/* Sleeps while *addr == val (or not at all). */
static void
sleep_on (int *addr, int val)
{
#ifdef __linux__
  syscall (SYS_futex, addr, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
#else
  (void) addr;
  (void) val;
  usleep (50);
#endif
}

/* Wakes up to n threads asleep on addr. */
static void
wake (int *addr, int n)
{
#ifdef __linux__
  syscall (SYS_futex, addr, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
#else
  (void) addr;
  (void) n;
#endif
}

static void
run_part (job *jb, void (*fn) (void *, int, int), void *ctx, int me, int parts)
{
  in_region++;
  fn (ctx, me, parts);
  in_region--;
  if (__atomic_add_fetch (&jb->done, 1, __ATOMIC_SEQ_CST) == parts
      && __atomic_load_n (&jb->waiting, __ATOMIC_SEQ_CST))
    wake (&jb->done, 1);   /* at worst a slot reused since: its waiter looks again */
}

/* Part `me` claimed in the word *w of a job of `parts` (use count `use`),
 * or -1: none left, or the slot reused since *w was read. Teams of up to
 * 32 parts claim by a mask, a part by number (`prefer` when it is free,
 * -1: the lowest free one), so that a worker runs the same part in every
 * pass of a frame and finds that part's data in its cache; larger teams
 * count parts off in order. */
static inline uint32_t
all_parts (int parts)   /* the mask of a team of up to 32 */
{
  return parts == 32 ? 0xffffffffu : (1u << parts) - 1;
}

static int
claim (job *jb, uint64_t *w, uint64_t use, int parts, int prefer)
{
  for (;;) {
    if ((*w >> 32) != use)
      return -1;
    const uint32_t low = (uint32_t) *w;
    int me;
    uint64_t to;
    if (parts > 32) {
      if (low >= (uint32_t) parts)   /* a closed word's all-ones too */
        return -1;
      me = (int) low;
      to = *w + 1;
    } else {
      const uint32_t free = ~low & all_parts (parts);
      if (!free)
        return -1;
      me = prefer >= 0 && prefer < parts && (free >> prefer & 1) ? prefer : __builtin_ctz (free);
      to = *w | (uint64_t) 1 << me;
    }
    if (__atomic_compare_exchange_n (&jb->word, w, to, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
      return me;
  }
}

/* TRUE once every part of the job's use is claimed. */
static int
all_claimed (uint64_t w, uint64_t use, int parts)
{
  if ((w >> 32) != use)
    return 1;
  const uint32_t low = (uint32_t) w;
  return parts > 32 ? low >= (uint32_t) parts : (low & all_parts (parts)) == all_parts (parts);
}

static __thread int worker_index;   /* 1, 2, ... on the pool's workers */

/* Claims and runs one part of any open job; FALSE when there was none. A
 * worker takes part `worker_index` of a team by mask, or another free one
 * where that one is taken; it leaves teams too small for its index to the
 * workers they fit and to the caller. */
static int
work_once (void)
{
  uint64_t open = __atomic_load_n (&pool.open_mask, __ATOMIC_ACQUIRE);
  while (open) {
    const int i = __builtin_ctzll (open);
    open &= open - 1;
    job *jb = &pool.jobs[i];
    uint64_t w = __atomic_load_n (&jb->word, __ATOMIC_ACQUIRE);
    const int parts = __atomic_load_n (&jb->parts, __ATOMIC_ACQUIRE);
    void (*fn) (void *, int, int) = __atomic_load_n (&jb->fn, __ATOMIC_ACQUIRE);
    void *ctx = __atomic_load_n (&jb->ctx, __ATOMIC_ACQUIRE);
    if (parts <= 32 && worker_index >= parts)
      continue;
    /* a claim holds only if the word is still this use's: the fields read
     * with it are then this use's too */
    const int me = claim (jb, &w, w >> 32, parts, worker_index);
    if (me >= 0) {
      run_part (jb, fn, ctx, me, parts);
      return 1;
    }
  }
  return 0;
}

static int next_index;   /* atomic */

static void *
worker (void *unused)
{
  (void) unused;
  worker_index = __atomic_add_fetch (&next_index, 1, __ATOMIC_RELAXED);
  for (;;) {
    const int seen = __atomic_load_n (&pool.posted, __ATOMIC_SEQ_CST);
    if (work_once ())
      continue;
    int i = 0;
    while (i < FV_POOL_SPIN && __atomic_load_n (&pool.posted, __ATOMIC_ACQUIRE) == seen) {
      relax ();
      i++;
    }
    if (i < FV_POOL_SPIN)
      continue;
    /* asleep on a word of its own, so that a team wakes the workers whose
     * parts it has */
    const int v = __atomic_load_n (&pool.wk[worker_index].word, __ATOMIC_SEQ_CST);
    __atomic_store_n (&pool.wk[worker_index].sleeping, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n (&pool.posted, __ATOMIC_SEQ_CST) == seen)
      sleep_on (&pool.wk[worker_index].word, v);
    __atomic_store_n (&pool.wk[worker_index].sleeping, 0, __ATOMIC_SEQ_CST);
  }
  return NULL;
}

/* a child of fork () has none of the parent's workers, and no region of
 * another thread is running in it */
static void
forget_workers (void)
{
  next_index = 0;
  pthread_mutex_init (&pool.mu, NULL);
  pool.workers = 0;
  memset (pool.wk, 0, sizeof pool.wk);
  pool.free_mask = ~(uint64_t) 0;
  pool.open_mask = 0;
}

static pthread_once_t fork_once = PTHREAD_ONCE_INIT;

static void
watch_fork (void)
{
  pthread_atfork (NULL, NULL, forget_workers);
}

/* Starts workers up to `want`. A worker that cannot start leaves its parts
 * to the callers. Workers take no signals: they stay the application's
 * threads' to handle. */
static void
grow_pool (int want)
{
  if (want > FV_POOL_MAX)
    want = FV_POOL_MAX;
  if (__atomic_load_n (&pool.workers, __ATOMIC_ACQUIRE) >= want)
    return;
  pthread_once (&fork_once, watch_fork);
  pthread_mutex_lock (&pool.mu);
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
    __atomic_add_fetch (&pool.workers, 1, __ATOMIC_RELEASE);
  }
  pthread_attr_destroy (&attr);
  pthread_sigmask (SIG_SETMASK, &old, NULL);
  pthread_mutex_unlock (&pool.mu);
}

/* A free job slot, or -1. */
static int
take_slot (void)
{
  uint64_t f = __atomic_load_n (&pool.free_mask, __ATOMIC_ACQUIRE);
  while (f) {
    const int i = __builtin_ctzll (f);
    if (__atomic_compare_exchange_n (&pool.free_mask, &f, f & ~((uint64_t) 1 << i), 0,
        __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
      return i;
  }
  return -1;
}

void
fv_team_run (fv_team team, void (*fn) (void *ctx, int me, int parts), void *ctx)
{
  const int parts = team.threads > 1 ? team.threads : 1;
  const int slot = parts > 1 && !in_region ? take_slot () : -1;
  if (slot < 0) {   /* alone, nested, or every slot busy: every part here, in turn */
    in_region++;
    for (int me = 0; me < parts; me++)
      fn (ctx, me, parts);
    in_region--;
    return;
  }
  grow_pool (parts - 1);
  job *jb = &pool.jobs[slot];
  const uint64_t bit = (uint64_t) 1 << slot;
  /* closed (the new use, every part taken: no claim holds) before any
   * field changes; the acquire keeps the stores below after it */
  const uint64_t use = (__atomic_load_n (&jb->word, __ATOMIC_RELAXED) >> 32) + 1;
  __atomic_exchange_n (&jb->word, use << 32 | 0xffffffffu, __ATOMIC_ACQ_REL);
  __atomic_store_n (&jb->fn, fn, __ATOMIC_RELEASE);
  __atomic_store_n (&jb->ctx, ctx, __ATOMIC_RELEASE);
  __atomic_store_n (&jb->parts, parts, __ATOMIC_RELEASE);
  __atomic_store_n (&jb->done, 0, __ATOMIC_RELAXED);
  __atomic_store_n (&jb->waiting, 0, __ATOMIC_RELAXED);
  __atomic_store_n (&jb->word, use << 32, __ATOMIC_RELEASE);   /* open: nothing claimed */
  __atomic_or_fetch (&pool.open_mask, bit, __ATOMIC_RELEASE);
  __atomic_add_fetch (&pool.posted, 1, __ATOMIC_SEQ_CST);
  /* the workers of parts 1 to parts - 1 (by mask) or as many (in order) */
  const int workers = __atomic_load_n (&pool.workers, __ATOMIC_ACQUIRE);
  for (int k = 1; k < parts && k <= workers; k++)
    if (__atomic_load_n (&pool.wk[k].sleeping, __ATOMIC_SEQ_CST)) {
      __atomic_add_fetch (&pool.wk[k].word, 1, __ATOMIC_SEQ_CST);
      wake (&pool.wk[k].word, 1);
    }
  /* part 0 here; then, after the workers had a spin's time to take their
   * own, whatever is left */
  uint64_t w = use << 32;
  int me = claim (jb, &w, use, parts, 0);
  if (me >= 0)
    run_part (jb, fn, ctx, me, parts);
  for (int i = 0; i < FV_POOL_SPIN && !all_claimed (w = __atomic_load_n (&jb->word,
          __ATOMIC_ACQUIRE), use, parts); i++)
    relax ();
  while ((me = claim (jb, &w, use, parts, -1)) >= 0) {
    run_part (jb, fn, ctx, me, parts);
    w = __atomic_load_n (&jb->word, __ATOMIC_ACQUIRE);
  }
  __atomic_and_fetch (&pool.open_mask, ~bit, __ATOMIC_RELEASE);
  for (int i = 0; i < FV_POOL_SPIN && __atomic_load_n (&jb->done, __ATOMIC_ACQUIRE) < parts; i++)
    relax ();
  int d;
  while ((d = __atomic_load_n (&jb->done, __ATOMIC_SEQ_CST)) < parts) {
    __atomic_store_n (&jb->waiting, 1, __ATOMIC_SEQ_CST);
    if ((d = __atomic_load_n (&jb->done, __ATOMIC_SEQ_CST)) < parts)
      sleep_on (&jb->done, d);
  }
  __atomic_or_fetch (&pool.free_mask, bit, __ATOMIC_RELEASE);
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
    long lo, hi;
    fv_split_range_long (l->n, parts, me, &lo, &hi);
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
