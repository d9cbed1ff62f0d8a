/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/sem.h>
#include <unistd.h>
#include <omp.h>
#include "fv_env.h"
#include "fv_parallel.h"

/* the user budget's key: "fv" and the user's id (FASTVISION_CORES_KEY for tests) */
#define FV_CORES_KEY_BASE 0x66760000

int
fv_threads_resolve (int requested)
{
  if (requested > 0)
    return requested;
  int n = omp_get_num_procs ();
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
  /* one thread needs no token; a nested region runs on its thread alone
   * (OpenMP's default), and its team's tokens are already held */
  if (want <= 1 || omp_in_parallel ())
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
