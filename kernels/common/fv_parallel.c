/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/sem.h>
#include <omp.h>
#include "fv_env.h"
#include "fv_parallel.h"

#define FV_CORES_KEY_DEFAULT 0x66764331   /* "fvC1" */

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
  int val;
};

static int budget = -1;   /* the semaphore set's id, -1 without one */
static pthread_once_t budget_once = PTHREAD_ONCE_INIT;

/* Opens the machine's budget, creating it with one token per core this
 * process may run on. A process that finds it being created (value still 0)
 * runs its regions alone until the creator has set it: harmless. */
static void
open_budget (void)
{
  if (fv_env_set (FV_ENV_SHARE_CORES) && fv_env_int (FV_ENV_SHARE_CORES, 1) == 0)
    return;
  const char *k = getenv (FV_ENV_CORES_KEY);
  key_t key = k && *k ? (key_t) strtol (k, NULL, 16) : (key_t) FV_CORES_KEY_DEFAULT;
  int id = semget (key, 1, IPC_CREAT | IPC_EXCL | 0666);
  if (id >= 0) {
    union fv_semun v = { .val = fv_threads_resolve (0) };
    if (semctl (id, 0, SETVAL, v) != 0)
      return;
  } else if (errno == EEXIST) {
    id = semget (key, 1, 0);
  }
  budget = id;
}

int
fv_cores_free (void)
{
  pthread_once (&budget_once, open_budget);
  return budget < 0 ? -1 : semctl (budget, 0, GETVAL);
}

/* Takes n tokens if they are free, without waiting. */
static int
take (int n)
{
  struct sembuf op = { 0, (short) -n, IPC_NOWAIT | SEM_UNDO };
  return semop (budget, &op, 1) == 0;
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
  if (budget < 0)
    return t;
  if (take (want)) {
    t.held = want;
    return t;
  }
  /* fewer than asked are free: take what is there (another thread may take
   * them first; a few tries, then alone) */
  for (int tries = 0; tries < 3; tries++) {
    int v = semctl (budget, 0, GETVAL);
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
  if (team.held <= 0 || budget < 0)
    return;
  struct sembuf op = { 0, (short) team.held, SEM_UNDO };
  while (semop (budget, &op, 1) != 0 && errno == EINTR)
    ;
}
