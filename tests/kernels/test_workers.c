/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* fv_workers (the fan-out of plans spread over devices) against its
 * contract: every taking-part slot called once a call, slot 0 on the
 * calling thread when asked, the others each on its own thread, the same
 * thread call after call (no thread started per call), all slots at once
 * (each waits, with a deadline, until all have started), slots left out or
 * past n never called, and the call returns only when all have. */
#include <pthread.h>
#include <string.h>
#include <time.h>
#include "fvtest.h"
#include "fv_workers.h"

typedef struct {
  int n, expected;             /* slots called this round */
  int calls[FV_MAX_WORKERS];
  pthread_t thread[FV_MAX_WORKERS];
  int started;                 /* slots that have started, this call */
  int all_at_once;             /* every call saw all its slots started */
  pthread_mutex_t mu;
  pthread_cond_t cv;
} Round;

static void
slot_fn (int slot, void *user)
{
  Round *r = user;
  pthread_mutex_lock (&r->mu);
  r->calls[slot]++;
  r->thread[slot] = pthread_self ();
  r->started++;
  pthread_cond_broadcast (&r->cv);
  struct timespec until;
  clock_gettime (CLOCK_REALTIME, &until);
  until.tv_sec += 10;
  while (r->started < r->expected)
    if (pthread_cond_timedwait (&r->cv, &r->mu, &until) != 0) {
      r->all_at_once = 0;   /* the others never came: not at once */
      break;
    }
  pthread_mutex_unlock (&r->mu);
}

static void
call (fv_workers *w, Round *r, int n, int here, const unsigned char *active)
{
  int expected = 0;
  for (int i = 0; i < n; i++)
    expected += !active || active[i];
  memset (r->calls, 0, sizeof r->calls);
  r->started = 0;
  r->expected = expected;
  FVT_CHECK (fv_workers_run (w, n, here, active, slot_fn, r) == FV_OK, "run: %s",
      fv_last_error ());
  int sum = 0;
  for (int i = 0; i < FV_MAX_WORKERS; i++) {
    const int want = i < n && (!active || active[i]);
    FVT_CHECK (r->calls[i] == want, "n %d: slot %d called %d times, not %d", n, i,
        r->calls[i], want);
    sum += r->calls[i];
  }
  FVT_CHECK (sum == expected, "%d calls for %d slots", sum, expected);
}

int
main (void)
{
  fv_workers *w;
  Round r = { 0 };
  pthread_mutex_init (&r.mu, NULL);
  pthread_cond_init (&r.cv, NULL);
  r.all_at_once = 1;
  FVT_CHECK (fv_workers_create (&w) == FV_OK, "create");
  const pthread_t me = pthread_self ();
  pthread_t first[FV_MAX_WORKERS];
  call (w, &r, 5, 1, NULL);
  memcpy (first, r.thread, sizeof first);
  FVT_CHECK (pthread_equal (r.thread[0], me), "slot 0 did not run on the calling thread");
  for (int i = 1; i < 5; i++) {
    FVT_CHECK (!pthread_equal (r.thread[i], me), "slot %d ran on the calling thread", i);
    for (int j = 1; j < i; j++)
      FVT_CHECK (!pthread_equal (r.thread[i], r.thread[j]), "slots %d and %d share a thread",
          j, i);
  }
  for (int k = 0; k < 200; k++) {   /* the same threads, call after call */
    call (w, &r, 5, 1, NULL);
    for (int i = 1; i < 5; i++)
      FVT_CHECK (pthread_equal (r.thread[i], first[i]), "call %d: slot %d on a new thread", k,
          i);
  }
  const unsigned char some[5] = { 1, 0, 1, 0, 1 };
  call (w, &r, 5, 1, some);   /* slots left out */
  call (w, &r, 3, 1, NULL);   /* fewer slots: 3 and 4 are not called */
  call (w, &r, 4, 0, NULL);   /* slot 0 on a thread of its own */
  FVT_CHECK (!pthread_equal (r.thread[0], me), "slot 0 ran here though not asked to");
  call (w, &r, 4, 1, NULL);   /* and back: its thread sits the call out */
  FVT_CHECK (pthread_equal (r.thread[0], me), "slot 0 not on the calling thread again");
  call (w, &r, FV_MAX_WORKERS, 1, NULL);
  FVT_CHECK (r.all_at_once, "some call's slots did not run at once");
  FVT_CHECK (fv_workers_run (w, FV_MAX_WORKERS + 1, 1, NULL, slot_fn, &r) == FV_ERR_INVALID,
      "too many slots accepted");
  fv_workers_destroy (w);
  fv_workers_destroy (NULL);
  return fvt_summary ("worker threads");
}
