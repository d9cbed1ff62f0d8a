/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bench_chunks' copy bound: how fast device 0's links move a frame's bytes
 * to the other devices and back at once. */
#include <cstddef>
#include <cuda_runtime.h>
#include "bench_time.h"

/* ms device 0 takes to send `bytes` to the other devices and take as much
 * back from them at the same time, shares split evenly: the links' bound
 * on a spread frame. */
extern "C" double
link_ms (const int *devices, int n, size_t bytes)
{
  int others[16], m = 0;
  for (int i = 0; i < n; i++)
    if (devices[i] != 0) {
      int seen = 0;
      for (int j = 0; j < m; j++)
        seen |= others[j] == devices[i];
      if (!seen)
        others[m++] = devices[i];
    }
  if (!m)
    return 0;
  const size_t share = bytes / m;
  void *a[16], *b[16], *ra[16], *rb[16];
  cudaStream_t st[32];
  for (int i = 0; i < m; i++) {
    cudaSetDevice (others[i]);
    cudaDeviceEnablePeerAccess (0, 0);
    cudaMalloc (&ra[i], share);
    cudaMalloc (&rb[i], share);
    cudaStreamCreate (&st[2 * i + 1]);
    cudaSetDevice (0);
    cudaDeviceEnablePeerAccess (others[i], 0);
    cudaMalloc (&a[i], share);
    cudaMalloc (&b[i], share);
    cudaStreamCreate (&st[2 * i]);
  }
  cudaGetLastError ();
  double t[5];
  for (int r = 0; r < 6; r++) {
    cudaDeviceSynchronize ();
    double t0 = now_ms ();
    for (int i = 0; i < m; i++) {
      cudaMemcpyPeerAsync (ra[i], others[i], a[i], 0, share, st[2 * i]);
      cudaMemcpyPeerAsync (b[i], 0, rb[i], others[i], share, st[2 * i + 1]);
    }
    for (int i = 0; i < 2 * m; i++)
      cudaStreamSynchronize (st[i]);
    if (r)
      t[r - 1] = now_ms () - t0;
  }
  for (int i = 0; i < m; i++) {
    cudaFree (a[i]); cudaFree (b[i]); cudaFree (ra[i]); cudaFree (rb[i]);
    cudaStreamDestroy (st[2 * i]); cudaStreamDestroy (st[2 * i + 1]);
  }
  cudaSetDevice (0);
  return median (t, 5);
}

