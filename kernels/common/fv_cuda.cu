/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Device discovery, streams and pinned memory through the static CUDA
 * runtime, which opens the driver itself: without one every call here
 * fails cleanly and the caller falls back to the CPU. */
#include <atomic>
#include <mutex>
#include <unordered_map>
#include <cstdio>
#include <dlfcn.h>
#include <unistd.h>
#include "fv_clock.h"
#include "fv_cuda.h"
#include "fv_cuda_check.cuh"
#include "fv_env.h"

extern "C" int
fv_cuda_built (void)
{
  return 1;
}

extern "C" int
fv_cuda_device_count (void)
{
  int n = 0;
  if (cudaGetDeviceCount (&n) != cudaSuccess) {
    cudaGetLastError ();  /* clear the sticky "no driver" state */
    return 0;
  }
  return n;
}

extern "C" fv_status
fv_cuda_check_device (int device, char *why, size_t why_len)
{
  int n = 0;
  cudaError_t err = cudaGetDeviceCount (&n);
  if (err != cudaSuccess) {
    cudaGetLastError ();
    /* the static runtime opens the driver's library itself and, when there
     * is none, says the driver is "insufficient": say what is true */
    void *driver = dlopen ("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (!driver)
      snprintf (why, why_len, "no NVIDIA driver (libcuda.so.1 cannot be loaded): no GPU "
          "can be used");
    else if (err == cudaErrorNoDevice)
      snprintf (why, why_len, "no NVIDIA GPU found (the driver is installed)");
    else
      snprintf (why, why_len, "no usable CUDA driver or GPU (%s)", cudaGetErrorString (err));
    if (driver)
      dlclose (driver);
    return FV_ERR_NO_CUDA;
  }
  if (device < 0 || device >= n) {
    snprintf (why, why_len, "cuda-device-id %d out of range: %d CUDA device(s) present",
        device, n);
    return FV_ERR_NO_CUDA;
  }
  cudaDeviceProp prop;
  err = cudaGetDeviceProperties (&prop, device);
  if (err != cudaSuccess) {
    snprintf (why, why_len, "cannot query CUDA device %d (%s)", device,
        cudaGetErrorString (err));
    return FV_ERR_NO_CUDA;
  }
  if (prop.major < 7 || (prop.major == 7 && prop.minor < 5)) {
    snprintf (why, why_len, "CUDA device %d (%s) has compute capability %d.%d; "
        "fastvision needs 7.5 or newer", device, prop.name, prop.major, prop.minor);
    return FV_ERR_NO_CUDA;
  }
  /* Touch the context so a broken driver shows up now, not mid-stream. */
  err = fv_cuda_use_device (device);
  if (err == cudaSuccess)
    err = cudaFree (0);
  if (err != cudaSuccess) {
    snprintf (why, why_len, "cannot create a context on CUDA device %d (%s)",
        device, cudaGetErrorString (err));
    cudaGetLastError ();
    return FV_ERR_NO_CUDA;
  }
  if (why_len)
    why[0] = '\0';
  return FV_OK;
}

extern "C" fv_status
fv_cuda_stream_create (int device, void **stream)
{
  cudaStream_t s;
  FV_CUDA_TRY (fv_cuda_use_device (device));
  FV_CUDA_TRY (cudaStreamCreateWithFlags (&s, cudaStreamNonBlocking));
  *stream = (void *) s;
  return FV_OK;
}

extern "C" void
fv_cuda_stream_destroy (void *stream)
{
  if (stream)
    cudaStreamDestroy ((cudaStream_t) stream);
}

extern "C" void *
fv_cuda_host_alloc (size_t size)
{
  void *p = NULL;
  if (cudaHostAlloc (&p, size, cudaHostAllocPortable) != cudaSuccess) {
    cudaGetLastError ();
    return NULL;
  }
  return p;
}

extern "C" void
fv_cuda_host_free (void *ptr)
{
  if (ptr)
    cudaFreeHost (ptr);
}

/* What this process holds through fv_cuda_malloc, for tests that measure
 * a plan's own device memory (the device's free memory also moves with
 * other processes' work). */
static std::mutex alloc_lock;
static std::unordered_map<void *, size_t> *alloc_sizes;
static size_t alloc_total;

extern "C" void *
fv_cuda_malloc (size_t size)
{
  void *p = NULL;
  if (cudaMalloc (&p, size) != cudaSuccess) {
    cudaGetLastError ();
    return NULL;
  }
  std::lock_guard<std::mutex> g (alloc_lock);
  if (!alloc_sizes)
    alloc_sizes = new std::unordered_map<void *, size_t> ();
  (*alloc_sizes)[p] = size;
  alloc_total += size;
  return p;
}

extern "C" void
fv_cuda_free (void *ptr)
{
  if (!ptr)
    return;
  {
    std::lock_guard<std::mutex> g (alloc_lock);
    if (alloc_sizes) {
      auto it = alloc_sizes->find (ptr);
      if (it != alloc_sizes->end ()) {
        alloc_total -= it->second;
        alloc_sizes->erase (it);
      }
    }
  }
  cudaFree (ptr);
}

extern "C" size_t
fv_cuda_allocated (void)
{
  std::lock_guard<std::mutex> g (alloc_lock);
  return alloc_total;
}

extern "C" fv_status
fv_cuda_memcpy (void *dst, const void *src, size_t size)
{
  FV_CUDA_TRY (cudaMemcpy (dst, src, size, cudaMemcpyDefault));
  /* from pageable memory cudaMemcpy may return before the DMA lands, and
   * plans' non-blocking streams would not wait for it */
  FV_CUDA_TRY (cudaStreamSynchronize (0));
  return FV_OK;
}

extern "C" fv_status
fv_cuda_stream_sync (void *stream)
{
  FV_CUDA_TRY (fv_cuda_sync ((cudaStream_t) stream));
  return FV_OK;
}

static thread_local void *deferred_stream;

extern "C" void
fv_cuda_defer_begin (void *stream)
{
  deferred_stream = stream;
}

extern "C" void
fv_cuda_defer_end (void)
{
  deferred_stream = nullptr;
}

extern "C" fv_status
fv_cuda_finish (void *stream, int dst_on_device)
{
  if (dst_on_device && stream && stream == deferred_stream)
    return FV_OK;
  FV_CUDA_TRY (fv_cuda_sync ((cudaStream_t) stream));
  return FV_OK;
}

extern "C" fv_status
fv_cuda_stream_wait (void *waiter, void *signaler)
{
  if (waiter == signaler)
    return FV_OK;
  /* the event may be destroyed at once: the wait keeps what it needs */
  cudaEvent_t ev;
  FV_CUDA_TRY (cudaEventCreateWithFlags (&ev, cudaEventDisableTiming));
  cudaError_t err = cudaEventRecord (ev, (cudaStream_t) signaler);
  if (err == cudaSuccess)
    err = cudaStreamWaitEvent ((cudaStream_t) waiter, ev, 0);
  cudaEventDestroy (ev);
  FV_CUDA_TRY (err);
  return FV_OK;
}

extern "C" fv_status
fv_cuda_copy_rows (void *dst, size_t dst_stride, const void *src, size_t src_stride,
    size_t row_bytes, int rows, void *stream)
{
  if (rows <= 0 || row_bytes == 0)
    return FV_OK;
  FV_CUDA_TRY (cudaMemcpy2DAsync (dst, dst_stride, src, src_stride, row_bytes, rows,
      cudaMemcpyDefault, (cudaStream_t) stream));
  bool on_device = false;
  if (stream && stream == deferred_stream) {   /* only then does it matter where dst is */
    cudaPointerAttributes a;
    on_device = cudaPointerGetAttributes (&a, dst) == cudaSuccess
        && (a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged);
    cudaGetLastError ();   /* an unregistered host pointer is not an error here */
  }
  return fv_cuda_finish (stream, on_device);
}

__global__ void
fill_rect_kernel (unsigned char *plane, size_t stride, int pstride, int x0, int y0, int w,
    int h, unsigned char v)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    plane[(size_t) (y0 + y) * stride + (size_t) (x0 + x) * pstride] = v;
}

extern "C" fv_status
fv_cuda_fill_rect (void *plane, size_t stride, int pstride, int x0, int y0, int x1, int y1,
    unsigned char v, void *stream)
{
  const int w = x1 - x0, h = y1 - y0;
  if (w <= 0 || h <= 0)
    return FV_OK;
  const dim3 block (32, 8), grid ((w + 31) / 32, (h + 7) / 8);
  fill_rect_kernel<<<grid, block, 0, (cudaStream_t) stream>>> ((unsigned char *) plane, stride,
      pstride, x0, y0, w, h, v);
  FV_CUDA_TRY (cudaGetLastError ());
  return FV_OK;
}

extern "C" void *
fv_cuda_host_alloc_mapped (size_t size)
{
  void *p = NULL;
  if (cudaHostAlloc (&p, size, cudaHostAllocPortable | cudaHostAllocMapped) != cudaSuccess) {
    cudaGetLastError ();
    return NULL;
  }
  return p;
}

extern "C" int
fv_cuda_image_device (const fv_image *im)
{
  cudaPointerAttributes at;
  const bool ok = im->mem == FV_MEM_DEVICE
      && cudaPointerGetAttributes (&at, im->data) == cudaSuccess
      && at.type == cudaMemoryTypeDevice;
  cudaGetLastError ();
  return ok ? at.device : -1;
}

extern "C" int
fv_cuda_image_on_device (const fv_image *im, int device)
{
  const int d = fv_cuda_image_device (im);
  return d >= 0 && d == device;
}

/* The calling thread's CUDA context (fv_cuda_place), through the driver's
 * entry points as the runtime offers them: no link to libcuda. */
typedef int (*CtxGetFn) (void **ctx);
typedef int (*CtxSetFn) (void *ctx);

static void *
driver_fn (const char *name)
{
  void *fn = NULL;
  cudaDriverEntryPointQueryResult q;
  if (cudaGetDriverEntryPointByVersion (name, &fn, 12000, cudaEnableDefault, &q) != cudaSuccess
      || q != cudaDriverEntryPointSuccess) {
    cudaGetLastError ();
    return NULL;
  }
  return fn;
}

/* looked up once (thread-safe static initialisation) */
static CtxSetFn
ctx_set_fn (void)
{
  static const CtxSetFn fn = (CtxSetFn) driver_fn ("cuCtxSetCurrent");
  return fn;
}

static void *
current_ctx (void)
{
  static const CtxGetFn get = (CtxGetFn) driver_fn ("cuCtxGetCurrent");
  void *ctx = NULL;
  return get && get (&ctx) == 0 ? ctx : NULL;
}

/* Whether kernels on `device` may read and write im where it lies: device
 * memory of another GPU that `device` has peer access to, in that GPU's
 * primary context (the one peer access, once enabled, reaches). */
typedef int (*PtrAttrFn) (void *data, int attribute, unsigned long long ptr);
typedef int (*DeviceGetFn) (int *dev, int ordinal);
typedef int (*PrimaryRetainFn) (void **ctx, int dev);
typedef int (*PrimaryReleaseFn) (int dev);

extern "C" int
fv_cuda_image_peer (const fv_image *im, int device)
{
  static const PtrAttrFn attr = (PtrAttrFn) driver_fn ("cuPointerGetAttribute");
  static const DeviceGetFn get = (DeviceGetFn) driver_fn ("cuDeviceGet");
  static const PrimaryRetainFn retain = (PrimaryRetainFn) driver_fn ("cuDevicePrimaryCtxRetain");
  static const PrimaryReleaseFn release =
      (PrimaryReleaseFn) driver_fn ("cuDevicePrimaryCtxRelease");
  cudaPointerAttributes at;
  int ok = 0, dev = 0;
  if (im->mem != FV_MEM_DEVICE || cudaPointerGetAttributes (&at, im->data) != cudaSuccess
      || at.type != cudaMemoryTypeDevice || at.device == device
      || cudaDeviceCanAccessPeer (&ok, device, at.device) != cudaSuccess || !ok) {
    cudaGetLastError ();
    return 0;
  }
  void *ctx = NULL, *primary = NULL;
  const int CONTEXT = 1;   /* CU_POINTER_ATTRIBUTE_CONTEXT */
  if (!attr || !get || !retain || !release
      || attr (&ctx, CONTEXT, (unsigned long long) (uintptr_t) im->data) != 0
      || get (&dev, at.device) != 0 || retain (&primary, dev) != 0)
    return 0;
  release (dev);
  return ctx == primary;
}


/* fv_cuda_sync's events: one blocking event per context a thread waits in
 * (an event records only on streams of its own context), kept for the
 * thread's life. Contexts are told apart by the driver's id, unique for
 * the process's life, not by address: GStreamer's context of one pipeline
 * may be freed and another made at the same address while the streaming
 * threads live on, and the old event went with the old context. An entry
 * pushed out (a thread waiting in more than WAIT_CTXS contexts) is dropped,
 * not destroyed, as its context may be gone. */
namespace {
typedef int (*CtxIdFn) (void *ctx, unsigned long long *id);
struct WaitEvent {
  unsigned long long ctx_id;
  cudaEvent_t ev;
};
constexpr int WAIT_CTXS = 4;
thread_local WaitEvent wait_events[WAIT_CTXS];
thread_local int wait_next;

long long
spin_us (void)
{
  static const long long us = fv_env_int (FV_ENV_CUDA_SPIN_US, 50);
  return us;
}

/* The current context's id; false without a context or the entry point
 * (drivers before 12.0). */
bool
current_ctx_id (unsigned long long *id)
{
  static const CtxIdFn get_id = (CtxIdFn) driver_fn ("cuCtxGetId");
  void *ctx = current_ctx ();
  return ctx && get_id && get_id (ctx, id) == 0;
}

cudaEvent_t
wait_event (unsigned long long ctx_id)
{
  for (WaitEvent &w : wait_events)
    if (w.ev && w.ctx_id == ctx_id)
      return w.ev;
  WaitEvent &slot = wait_events[wait_next];
  wait_next = (wait_next + 1) % WAIT_CTXS;
  slot.ev = nullptr;
  if (cudaEventCreateWithFlags (&slot.ev, cudaEventBlockingSync | cudaEventDisableTiming)
      != cudaSuccess) {
    cudaGetLastError ();
    slot.ev = nullptr;
  }
  slot.ctx_id = ctx_id;
  return slot.ev;
}

}  // namespace

/* Threads of the process inside fv_cuda_sync now, and how many of them
 * may poll for long: a quarter of the cores (at least one), so that a lone
 * stream, or a few, wait without a wake-up's delay (a sleeping wait adds
 * about 0.1 ms to a 0.7 ms detection on the H100 host), while many streams
 * leave the cores to the threads that feed the GPU. */
static std::atomic<int> waiting;
constexpr long long SPIN_ALONE_US = 2000;

static int
long_spinners (void)
{
  static const int n = [] {
    const long cores = sysconf (_SC_NPROCESSORS_ONLN);
    return cores >= 8 ? (int) (cores / 4) : 1;
  }();
  return n;
}

extern "C" cudaError_t
fv_cuda_sync (cudaStream_t s)
{
  const long long short_spin = spin_us ();
  unsigned long long id;
  cudaEvent_t ev = short_spin >= 0 && current_ctx_id (&id) ? wait_event (id) : nullptr;
  if (!ev || cudaEventRecord (ev, s) != cudaSuccess) {   /* a stream of another context, say */
    cudaGetLastError ();
    return cudaStreamSynchronize (s);
  }
  const int others = waiting.fetch_add (1);
  const long long spin = others < long_spinners () ? SPIN_ALONE_US : short_spin;
  const double t0 = spin > 0 ? 1e3 * fv_now_ms () : 0;   /* spin is in microseconds */
  cudaError_t e = cudaErrorNotReady;
  while (spin > 0) {
    e = cudaEventQuery (ev);
    if (e != cudaErrorNotReady || 1e3 * fv_now_ms () - t0 > (double) spin)
      break;
  }
  if (e == cudaErrorNotReady)
    e = cudaEventSynchronize (ev);
  waiting.fetch_sub (1);
  return e;
}

extern "C" void
fv_cuda_place_save (fv_cuda_place *p)
{
  p->ctx = current_ctx ();
  if (cudaGetDevice (&p->device) != cudaSuccess) {
    cudaGetLastError ();
    p->device = -1;
  }
}

extern "C" void
fv_cuda_place_restore (const fv_cuda_place *p)
{
  CtxSetFn set = ctx_set_fn ();
  if (p->ctx && set)
    set (p->ctx);
  else if (p->device >= 0)
    fv_cuda_use_device (p->device);
  cudaGetLastError ();
}

extern "C" fv_status
fv_cuda_place_enter (const fv_cuda_place *saved, int device)
{
  CtxSetFn set = ctx_set_fn ();
  if (device == saved->device && saved->ctx && set)
    return set (saved->ctx) == 0 ? FV_OK : FV_ERR_CUDA;
  FV_CUDA_TRY (fv_cuda_use_device (device));
  return FV_OK;
}

extern "C" fv_status
fv_cuda_free_budget (size_t *budget)
{
  size_t free_b = 0, total_b = 0;
  FV_CUDA_TRY (cudaMemGetInfo (&free_b, &total_b));
  const size_t margin = total_b / 16 + ((size_t) 64 << 20);
  *budget = free_b > margin ? free_b - margin : 0;
  return FV_OK;
}
