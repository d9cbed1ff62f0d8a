/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* fv_cuda_sync (fv_cuda_check.cuh), the wait every CUDA plan uses: it
 * returns only once the stream's work is done, whether it catches the work
 * while polling or sleeps on its event (FASTVISION_CUDA_SPIN_US 0, 50 and -1 run
 * this program in turn: meson.build); the same thread waits again after
 * its context was destroyed and another made (a GStreamer context freed
 * between pipelines while the streaming threads live on), on many threads
 * at once, and on the legacy default stream. A kernel that sleeps on the
 * GPU for a set time then writes its mark is what each wait must see.
 * Skipped (77) without a GPU. */
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>
#include "fv_cuda.h"
#include "fv_cuda_check.cuh"

static int failures;
#define CHECK(cond, ...)                                                    \
  do {                                                                      \
    if (!(cond)) {                                                          \
      failures++;                                                           \
      fprintf (stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                 \
      fprintf (stderr, __VA_ARGS__);                                        \
      fprintf (stderr, "\n");                                               \
    }                                                                       \
  } while (0)

/* Sleeps about `ns` on the GPU (in steps, as __nanosleep caps one at 1 ms),
 * then writes mark into *out. */
__global__ void
late_write (unsigned *out, unsigned mark, unsigned long long ns)
{
  for (unsigned long long slept = 0; slept < ns; slept += 500000)
    __nanosleep (500000);
  *out = mark;
}

/* One stream: a late write of each length, waited for, read at once. */
static void
waits_on (cudaStream_t s, unsigned *dev, unsigned *host, const char *what)
{
  volatile unsigned *mapped = host;
  const unsigned long long lengths[] = { 0, 20000, 200000, 3000000 };
  unsigned mark = 1;
  for (unsigned long long ns : lengths) {
    *mapped = 0;
    late_write<<<1, 1, 0, s>>> (dev, ++mark, ns);
    const cudaError_t e = fv_cuda_sync (s);
    CHECK (e == cudaSuccess, "%s, %llu ns: %s", what, ns, cudaGetErrorString (e));
    CHECK (*mapped == mark, "%s, %llu ns: the wait returned before the write (%u, wanted %u)",
        what, ns, *mapped, mark);
  }
}

/* Mapped host memory the kernel writes and the host reads without a copy,
 * so that only the wait orders the two. */
static unsigned *
mapped_word (unsigned **dev)
{
  unsigned *h = nullptr;
  if (cudaHostAlloc (&h, sizeof *h, cudaHostAllocMapped) != cudaSuccess)
    return nullptr;
  cudaHostGetDevicePointer ((void **) dev, h, 0);
  return h;
}

static void
one_context (const char *what)
{
  unsigned *dev = nullptr, *h = mapped_word (&dev);
  CHECK (h != nullptr, "%s: mapped memory", what);
  if (!h)
    return;
  cudaStream_t s;
  cudaStreamCreateWithFlags (&s, cudaStreamNonBlocking);
  waits_on (s, dev, h, what);
  cudaStreamDestroy (s);
  waits_on (0, dev, h, "the legacy default stream");
  cudaFreeHost (h);
}

int
main (void)
{
  if (fv_cuda_device_count () < 1) {
    printf ("no CUDA device: skipped\n");
    return 77;
  }
  const char *spin = getenv ("FASTVISION_CUDA_SPIN_US");
  printf ("FASTVISION_CUDA_SPIN_US=%s\n", spin ? spin : "(unset)");
  cudaSetDevice (0);
  one_context ("first context");
  /* the primary context destroyed and made again: this thread's event for
   * the old one must not be used */
  cudaDeviceReset ();
  cudaSetDevice (0);
  one_context ("context made again");
  /* many threads, each with its own stream, at once */
  std::vector<std::thread> th;
  for (int t = 0; t < 16; t++)
    th.emplace_back ([t] {
      cudaSetDevice (0);
      char what[32];
      snprintf (what, sizeof what, "thread %d", t);
      one_context (what);
    });
  for (std::thread &t : th)
    t.join ();
  printf ("%s\n", failures ? "FAILED" : "all waits saw their writes");
  return failures ? 1 : 0;
}
