/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* CPU threading: one pool of persistent worker threads for the process,
 * started as regions first need them, that every plan's parallel regions
 * run on; "threads = 0" means every core this process may run on. A
 * worker with nothing to do spins briefly (FV_POOL_SPIN rounds, a few
 * microseconds: a frame's next region finds it awake) and then sleeps, so
 * that pipelines sharing a machine do not spin against each other. No
 * OpenMP: its waiting policy can only be chosen through the environment,
 * before it loads.
 *
 * Every parallel region asks for its team through fv_team_begin: the
 * threads come out of a budget of cores, one token per core this process
 * may run on. A lone pipeline gets every core it asks for; several
 * pipelines at once get teams that together fit the cores instead of
 * spinning and waiting for each other's descheduled workers. A region
 * never waits for tokens: with none free it runs on its calling thread
 * alone. Whose budget (FASTVISION_SHARE_CORES, read once):
 *  - unset: this process's own (an atomic count);
 *  - 1: shared by this user's processes that set it too: a System V
 *    semaphore set private to the user (mode 0600, key from the user's id
 *    or FASTVISION_CORES_KEY; one made by anyone else, or not owner-only, is not
 *    used, and the process keeps its own); the kernel gives a process's
 *    tokens back when it exits, however it ends, and a set sized for fewer
 *    cores than a process sees grows to them;
 *  - 0: none (each region takes all it asks for). */
#ifndef FV_PARALLEL_H
#define FV_PARALLEL_H

#ifdef __cplusplus
extern "C" {
#endif

/* Threads to use for a request: 0 = all cores, otherwise the number asked. */
int fv_threads_resolve (int requested);

/* One parallel region's team: `threads` taking part (1 to the number
 * asked), `held` tokens to give back. Code in the region must not assume
 * the team has the size asked for: per-thread scratch is indexed by the
 * part's number `me`, which stays below the size asked. */
typedef struct {
  int threads, held;
} fv_team;

/* Team for a region of up to `want` threads (a resolved count, >= 1). */
fv_team fv_team_begin (int want);
/* Gives the team's tokens back; call once the region has ended. */
void fv_team_end (fv_team team);

/* A region's team as it was given (got threads of want asked), told to a
 * function the host sets (the plugin logs it: a shrunken budget must not be
 * silent); NULL to stop. Called from the thread that begins the region. */
typedef void (*fv_team_notice) (int want, int got, void *data);
void fv_team_set_notice (fv_team_notice fn, void *data);

/* Runs fn (ctx, me, parts) for every part me < parts = team.threads, on
 * this thread and the pool's workers at once; returns when every call has
 * returned. A part must not wait for another: when the workers are busy,
 * this thread runs the parts nobody took, one after another. A region
 * begun inside a part runs on its thread alone (fv_team_begin gives it one
 * thread). */
void fv_team_run (fv_team team, void (*fn) (void *ctx, int me, int parts), void *ctx);

/* A parallel loop: body (ctx, i, me) for every i in [0, n), me the part
 * running it. chunk 0: each part one contiguous range (fv_split_range);
 * chunk > 0: parts take `chunk` indices at a time, in order, as they
 * finish (for uneven work). */
void fv_team_for (fv_team team, long n, int chunk, void (*body) (void *ctx, long i, int me),
    void *ctx);

/* TRUE on a thread that runs a part of a region now. */
int fv_in_region (void);

/* Tokens free in the budget now, or -1 when there is none (turned off).
 * For tests and logs. */
int fv_cores_free (void);

/* Whose budget it is, in words: "this process", "this user's processes"
 * or "none". For logs. */
const char *fv_cores_budget (void);

/* Split [0, n) into `parts` nearly equal ranges; range i is [*lo, *hi). */
static inline void
fv_split_range_long (long n, int parts, int i, long *lo, long *hi)
{
  const long q = n / parts, r = n % parts;
  *lo = i * q + (i < r ? i : r);
  *hi = *lo + q + (i < r ? 1 : 0);
}

static inline void
fv_split_range (int n, int parts, int i, int *lo, int *hi)
{
  long l, h;
  fv_split_range_long (n, parts, i, &l, &h);
  *lo = (int) l;
  *hi = (int) h;
}

#ifdef __cplusplus
}
#endif
#endif
