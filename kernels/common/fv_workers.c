/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* fv_workers.h: a mutex, two conditions and a call counter. A thread waits
 * for the counter to pass the last call it took, runs its slot if the
 * slot takes part, and counts itself done. */
#include <pthread.h>
#include <stdlib.h>
#include "fv_workers.h"

typedef struct {
  fv_workers *w;
  int slot;
  pthread_t thread;
  int started;
  unsigned seen;          /* the last call this thread took */
} Slot;

struct fv_workers {
  pthread_mutex_t mu;
  pthread_cond_t go, done;
  unsigned call;          /* calls handed out */
  int pending;            /* threads not done with this call */
  int quit;
  /* this call */
  int n, slot0_here;
  const unsigned char *active;
  void (*fn) (int slot, void *user);
  void *user;
  Slot s[FV_MAX_WORKERS];
};

static int
takes_part (const fv_workers *w, int i)
{
  return i < w->n && (!w->active || w->active[i]) && !(i == 0 && w->slot0_here);
}

static void *
worker (void *data)
{
  Slot *s = data;
  fv_workers *w = s->w;
  pthread_mutex_lock (&w->mu);
  for (;;) {
    while (!w->quit && s->seen == w->call)
      pthread_cond_wait (&w->go, &w->mu);
    if (w->quit)
      break;
    s->seen = w->call;
    const int run = takes_part (w, s->slot);
    pthread_mutex_unlock (&w->mu);
    if (run)
      w->fn (s->slot, w->user);
    pthread_mutex_lock (&w->mu);
    if (--w->pending == 0)
      pthread_cond_signal (&w->done);
  }
  pthread_mutex_unlock (&w->mu);
  return NULL;
}

fv_status
fv_workers_create (fv_workers **out)
{
  fv_workers *w = calloc (1, sizeof *w);
  *out = w;
  if (!w)
    return FV_ERR_NOMEM;
  pthread_mutex_init (&w->mu, NULL);
  pthread_cond_init (&w->go, NULL);
  pthread_cond_init (&w->done, NULL);
  for (int i = 0; i < FV_MAX_WORKERS; i++) {
    w->s[i].w = w;
    w->s[i].slot = i;
  }
  return FV_OK;
}

fv_status
fv_workers_run (fv_workers *w, int n, int slot0_here, const unsigned char *active,
    void (*fn) (int slot, void *user), void *user)
{
  if (n < 0 || n > FV_MAX_WORKERS) {
    fv_set_last_error ("%d worker slots (at most %d)", n, FV_MAX_WORKERS);
    return FV_ERR_INVALID;
  }
  int threads = 0;
  for (int i = 0; i < FV_MAX_WORKERS; i++) {   /* slots past n may have threads: they wake too */
    Slot *s = &w->s[i];
    const int wanted = i < n && (!active || active[i]) && !(i == 0 && slot0_here);
    if (wanted && !s->started) {
      s->seen = w->call;
      s->started = pthread_create (&s->thread, NULL, worker, s) == 0;
      if (!s->started) {
        fv_set_last_error ("cannot start a worker thread");
        return FV_ERR_NOMEM;
      }
    }
    threads += s->started;
  }
  pthread_mutex_lock (&w->mu);
  w->n = n;
  w->slot0_here = slot0_here;
  w->active = active;
  w->fn = fn;
  w->user = user;
  /* a thread of slot 0 (started while it ran elsewhere) sits this one out */
  w->pending = threads;
  w->call++;
  pthread_cond_broadcast (&w->go);
  pthread_mutex_unlock (&w->mu);
  if (slot0_here && n > 0 && (!active || active[0]))
    fn (0, user);
  pthread_mutex_lock (&w->mu);
  while (w->pending > 0)
    pthread_cond_wait (&w->done, &w->mu);
  pthread_mutex_unlock (&w->mu);
  return FV_OK;
}

void
fv_workers_destroy (fv_workers *w)
{
  if (!w)
    return;
  pthread_mutex_lock (&w->mu);
  w->quit = 1;
  pthread_cond_broadcast (&w->go);
  pthread_mutex_unlock (&w->mu);
  for (int i = 0; i < FV_MAX_WORKERS; i++)
    if (w->s[i].started)
      pthread_join (w->s[i].thread, NULL);
  pthread_cond_destroy (&w->go);
  pthread_cond_destroy (&w->done);
  pthread_mutex_destroy (&w->mu);
  free (w);
}
