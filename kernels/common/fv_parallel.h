/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* CPU threading: OpenMP underneath, so that nested elements share one pool
 * per streaming thread and "threads = 0" means every core.
 *
 * Every parallel region asks for its team through fv_team_begin: the
 * threads come out of one budget of cores for the whole machine, shared by
 * every thread and process that runs fastvision's kernels (a System V
 * semaphore holding one token per core; the kernel gives a process's tokens
 * back when it exits, however it ends). A lone pipeline gets every core it
 * asks for; several pipelines at once, in one process or many, get teams
 * that together fit the cores instead of spinning and waiting for each
 * other's descheduled workers. A region never waits for tokens: with none
 * free it runs on its calling thread alone. FV_SHARE_CORES=0 turns the
 * budget off (each region takes all it asks for, as before). */
#ifndef FV_PARALLEL_H
#define FV_PARALLEL_H

#ifdef __cplusplus
extern "C" {
#endif

/* Threads to use for a request: 0 = all cores, otherwise the number asked. */
int fv_threads_resolve (int requested);

/* One parallel region's team: `threads` to pass to num_threads (1 to the
 * number asked), `held` tokens to give back. Code in the region must not
 * assume the team has the size asked for: per-thread scratch is indexed by
 * omp_get_thread_num (), which stays below the size asked. */
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

/* Tokens free in the budget now, or -1 when there is no budget (turned
 * off, or the system refused the semaphore). For tests and logs. */
int fv_cores_free (void);

/* Split [0, n) into `parts` nearly equal ranges; range i is [*lo, *hi). */
static inline void
fv_split_range (int n, int parts, int i, int *lo, int *hi)
{
  long q = n / parts, r = n % parts;
  *lo = (int) (i * q + (i < r ? i : r));
  *hi = *lo + (int) q + (i < r ? 1 : 0);
}

#ifdef __cplusplus
}
#endif
#endif
