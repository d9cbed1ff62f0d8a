/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The budget of cores (fv_parallel.h), on private keys so that tests
 * running beside it do not share its tokens:
 *  - by default the process's own: teams take from it, no semaphore made;
 *  - FASTVISION_SHARE_CORES=1: this user's semaphore set, owner-only (0600); a set
 *    at the key that is not owner-only, or an older one-semaphore set, is
 *    not used (the process keeps its own budget, the set untouched); a set
 *    sized for one core grows to this process's cores;
 *  - a team takes what it asks for while tokens are free, fewer when fewer
 *    are free, its calling thread alone when none are, and gives them back;
 *  - a nested region takes none;
 *  - a process killed while holding tokens gives them back (SEM_UNDO);
 *  - FASTVISION_SHARE_CORES=0 turns the budget off;
 *  - the CPU kernels whose teams shrink (box filter, fill, convolution)
 *    give the same bytes with one thread as with the team they asked for. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ipc.h>
#include <sys/prctl.h>
#include <sys/sem.h>
#include <sys/wait.h>
#include "fvtest.h"
#include "fv_parallel.h"
#include "fv_box.h"
#include "fv_fill.h"
#include "fv_conv.h"

/* part 0 of a region: a team begun inside it, what it held, what was free */
static void
nested_team (void *ctx, int me, int parts)
{
  (void) parts;
  int *out = ctx;
  if (me != 0)
    return;
  fv_team n = fv_team_begin (4);
  out[0] = n.held;
  out[1] = fv_cores_free ();
  fv_team_end (n);
}

static key_t key;

/* A set at k of n semaphores with `mode`, each set to v by a semop (which
 * marks it ready, as the library's creator does). */
static int
make_set (key_t k, int n, int mode, int v)
{
  int id = semget (k, n, IPC_CREAT | IPC_EXCL | mode);
  struct sembuf ops[2] = { { 0, (short) v, 0 }, { 1, (short) v, 0 } };
  return id >= 0 && semop (id, ops, n) == 0 ? id : -1;
}

/* Runs check () in a child with FASTVISION_SHARE_CORES=share (NULL: unset) and
 * FASTVISION_CORES_KEY=k; its exit status 0 means it held. */
static int
in_child (const char *share, key_t k, int (*check) (void))
{
  pid_t pid = fork ();
  if (pid == 0) {
    char buf[32];
    snprintf (buf, sizeof buf, "%x", (unsigned) k);
    setenv ("FASTVISION_CORES_KEY", buf, 1);
    if (share)
      setenv ("FASTVISION_SHARE_CORES", share, 1);
    else
      unsetenv ("FASTVISION_SHARE_CORES");
    _exit (check ());
  }
  int status = 0;
  waitpid (pid, &status, 0);
  return WIFEXITED (status) && WEXITSTATUS (status) == 0;
}

static int
check_off (void)
{
  fv_team t = fv_team_begin (3);
  return fv_cores_free () == -1 && t.threads == 3 && t.held == 0 ? 0 : 1;
}

/* The process's own budget: teams share it; nothing at the key. */
static int
check_process (void)
{
  const int C = fv_threads_resolve (0);
  if (strcmp (fv_cores_budget (), "this process") || fv_cores_free () != C)
    return 1;
  fv_team a = fv_team_begin (C), b = fv_team_begin (2);
  const int ok = a.threads == C && a.held == C && b.threads == 1 && b.held == 0
      && fv_cores_free () == 0;
  fv_team_end (b);
  fv_team_end (a);
  return ok && fv_cores_free () == C && semget (key, 2, 0) < 0 ? 0 : 2;
}

/* A set this process must not use: it keeps its own budget. */
static int
check_refused (void)
{
  const int C = fv_threads_resolve (0);
  fv_team a = fv_team_begin (C);
  const int ok = !strcmp (fv_cores_budget (), "this process") && a.held == C;
  fv_team_end (a);
  return ok ? 0 : 1;
}

/* A set sized for one core: grown to this process's cores. */
static int
check_grown (void)
{
  const int C = fv_threads_resolve (0);
  return !strcmp (fv_cores_budget (), "this user's processes") && fv_cores_free () == C ? 0 : 1;
}

/* Box filter, fill and separable convolution of one random frame with
 * threads = 4; the three outputs concatenated into out. */
static void
run_kernels (const fv_image *src, uint8_t *out)
{
  const int W = src->width, H = src->height;
  fv_image d = fv_image_make (out, W, W, H, 1, FV_U8, FV_MEM_HOST);
  fv_box_params bp = { 0 };
  bp.frame.width = W; bp.frame.height = H; bp.frame.channels = 1; bp.channel_mask = 1;
  bp.frame.sample = FV_U8; bp.radius_x = 7; bp.radius_y = 4; bp.frame.threads = 4;
  fv_box_plan *box;
  FVT_CHECK (fv_box_plan_create (&box, &bp, FV_BACKEND_CPU, 0, NULL) == FV_OK, "box plan: %s",
      fv_last_error ());
  FVT_CHECK (fv_box_execute (box, src, &d) == FV_OK, "box: %s", fv_last_error ());
  fv_box_plan_destroy (box);

  d.data = out + (size_t) W * H;
  fv_fill_params fp = { .frame.width = W, .frame.height = H, .threshold = 100, .fill_value = 255,
      .connectivity = 4, .output = FV_FILL_FILLED, .frame.threads = 4 };
  fv_fill_plan *fill;
  FVT_CHECK (fv_fill_plan_create (&fill, &fp, FV_BACKEND_CPU, 0, NULL) == FV_OK, "fill plan: %s",
      fv_last_error ());
  FVT_CHECK (fv_fill_execute (fill, src, &d) == FV_OK, "fill: %s", fv_last_error ());
  fv_fill_plan_destroy (fill);

  d.data = out + 2 * (size_t) W * H;
  float k[5 * 5];
  for (int i = 0; i < 25; i++)
    k[i] = (float) (1 + i % 3) / 50.0f;
  fv_conv_params cp = { 0 };
  cp.frame.width = W; cp.frame.height = H; cp.frame.channels = 1; cp.channel_mask = 1;
  cp.frame.sample = FV_U8;
  cp.kernel = k; cp.kernel_width = cp.kernel_height = 5; cp.frame.threads = 4;
  cp.method = FV_CONV_DIRECT;
  fv_conv_plan *conv;
  FVT_CHECK (fv_conv_plan_create (&conv, &cp, FV_BACKEND_CPU, 0, NULL) == FV_OK,
      "conv plan: %s", fv_last_error ());
  FVT_CHECK (fv_conv_execute (conv, src, &d) == FV_OK, "conv: %s", fv_last_error ());
  fv_conv_plan_destroy (conv);
}

int
main (void)
{
  char k[32];
  key = (key_t) (0x5f760000 | (getpid () & 0xfff));   /* the library's own are 0x6676.... */
  snprintf (k, sizeof k, "%x", (unsigned) key);
  setenv ("FASTVISION_CORES_KEY", k, 1);

  const int C = fv_threads_resolve (0);
  FVT_CHECK (in_child ("0", key, check_off), "FASTVISION_SHARE_CORES=0 keeps a budget");
  FVT_CHECK (in_child (NULL, key, check_process), "the process's own budget: wrong");
  /* sets at the key this process must not use, each left as it was */
  const key_t open_key = key ^ 0x1000, old_key = key ^ 0x2000, small_key = key ^ 0x3000;
  const int open_set = make_set (open_key, 2, 0666, C), old_set = make_set (old_key, 1, 0600, C);
  FVT_CHECK (open_set >= 0 && old_set >= 0, "cannot make the test's sets");
  FVT_CHECK (in_child ("1", open_key, check_refused), "a set others may write was used");
  FVT_CHECK (in_child ("1", old_key, check_refused), "a one-semaphore set was used");
  FVT_CHECK (semctl (open_set, 0, GETVAL) == C && semctl (old_set, 0, GETVAL) == C,
      "a refused set was changed");
  /* a set sized for one core (a first process under taskset -c 0) grows */
  const int small_set = make_set (small_key, 2, 0600, 1);
  FVT_CHECK (small_set >= 0 && in_child ("1", small_key, check_grown)
      && semctl (small_set, 1, GETVAL) == C, "a set sized for 1 core did not grow to %d", C);
  /* and one whose size reads 0 (both counts at 0): both grow */
  const key_t empty_key = key ^ 0x4000;
  const int empty_set = make_set (empty_key, 2, 0600, 0);
  FVT_CHECK (empty_set >= 0 && in_child ("1", empty_key, check_grown)
      && semctl (empty_set, 1, GETVAL) == C, "a set sized for 0 cores did not grow to %d", C);
  semctl (open_set, 0, IPC_RMID);
  semctl (old_set, 0, IPC_RMID);
  semctl (small_set, 0, IPC_RMID);
  semctl (empty_set, 0, IPC_RMID);

  /* this user's processes from here on */
  setenv ("FASTVISION_SHARE_CORES", "1", 1);
  FVT_CHECK (fv_cores_free () == C, "a new budget holds %d tokens, not one a core (%d)",
      fv_cores_free (), C);

  fv_team a = fv_team_begin (C);
  FVT_CHECK (a.threads == C && a.held == C, "a lone team of %d got %d threads, %d tokens", C,
      a.threads, a.held);
  struct semid_ds ds;
  union { int val; struct semid_ds *buf; } arg = { .buf = &ds };
  FVT_CHECK (semctl (semget (key, 2, 0), 0, IPC_STAT, arg) == 0
      && (ds.sem_perm.mode & 0777) == 0600 && ds.sem_perm.uid == geteuid (),
      "the user's set is not owner-only (mode %o)", ds.sem_perm.mode & 0777);
  fv_team b = fv_team_begin (2);
  FVT_CHECK (b.threads == 1 && b.held == 0 && fv_cores_free () == 0,
      "with no token free a team of 2 got %d threads, %d tokens (%d free)", b.threads, b.held,
      fv_cores_free ());
  fv_team_end (b);
  fv_team_end (a);
  FVT_CHECK (fv_cores_free () == C, "tokens not given back: %d free of %d", fv_cores_free (), C);

  /* fewer free than asked: the team takes what is there (all but one
   * token taken here as another process would) */
  const int id = semget (key, 2, 0);
  struct sembuf hold = { 0, (short) -(C - 1), 0 }, give = { 0, (short) (C - 1), 0 };
  FVT_CHECK (C == 1 || semop (id, &hold, 1) == 0, "cannot take %d tokens", C - 1);
  fv_team rest = fv_team_begin (C + 3);
  FVT_CHECK (rest.threads == 1 && rest.held == 1,
      "asking %d with 1 free gave %d threads, %d tokens", C + 3, rest.threads, rest.held);
  fv_team_end (rest);
  FVT_CHECK (C == 1 || semop (id, &give, 1) == 0, "cannot give %d tokens back", C - 1);

  /* a nested region takes no token */
  int nested[2] = { -1, -1 };
  fv_team_run ((fv_team) { 2, 0 }, nested_team, nested);
  const int nested_held = nested[0], nested_free = nested[1];
  FVT_CHECK (nested_held == 0 && nested_free == C, "a nested team took %d tokens (%d free)",
      nested_held, nested_free);

  /* a process killed while it holds every token gives them back */
  int ready[2];
  FVT_CHECK (pipe (ready) == 0, "pipe");
  pid_t holder = fork ();
  if (holder == 0) {
    prctl (PR_SET_PDEATHSIG, SIGKILL);   /* never outlives a failed test */
    fv_team t = fv_team_begin (C);
    char c = t.held == C ? 'y' : 'n';
    if (write (ready[1], &c, 1) != 1)
      _exit (2);
    pause ();
    _exit (0);
  }
  char c = 0;
  FVT_CHECK (read (ready[0], &c, 1) == 1 && c == 'y', "the child could not take the tokens");
  FVT_CHECK (fv_cores_free () == 0, "%d tokens free while another process holds them all",
      fv_cores_free ());

  /* while none is free, the kernels run on one thread: the same bytes */
  fvt_rng rng = { 0x9e3779b97f4a7c15ull };
  const int W = 333, H = 211;
  fv_image src = fvt_image_new (W, H, 1, FV_U8, 5, &rng);
  /* closed rings to fill on noise above, one run of background every
   * other pixel below (the most runs a row can hold: a lone thread's strip
   * is the whole frame) */
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      int dx = x % 40 - 20, dy = y % 40 - 20, r2 = dx * dx + dy * dy;
      if (y >= H / 3 ? x % 2 : r2 >= 100 && r2 < 144)
        fvt_set (&src, x, y, 0, 200);
      else if (fvt_get (&src, x, y, 0) > 100)
        fvt_set (&src, x, y, 0, fvt_get (&src, x, y, 0) % 100);
    }
  uint8_t *alone = malloc (3 * (size_t) W * H), *team = malloc (3 * (size_t) W * H);
  run_kernels (&src, alone);
  kill (holder, SIGKILL);
  int status = 0;
  waitpid (holder, &status, 0);
  FVT_CHECK (fv_cores_free () == C, "a killed holder left %d of %d tokens", fv_cores_free (), C);
  run_kernels (&src, team);
  FVT_CHECK (!memcmp (alone, team, (size_t) W * H), "box filter: one thread differs from a team");
  FVT_CHECK (!memcmp (alone + (size_t) W * H, team + (size_t) W * H, (size_t) W * H),
      "fill: one thread differs from a team");
  FVT_CHECK (!memcmp (alone + 2 * (size_t) W * H, team + 2 * (size_t) W * H, (size_t) W * H),
      "convolution: one thread differs from a team");
  free (alone);
  free (team);
  fvt_image_free (&src);

  semctl (semget (key, 2, 0), 0, IPC_RMID);
  return fvt_summary ("test_cores");
}
