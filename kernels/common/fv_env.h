/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Every environment variable fastvision reads, in one place; docs/tuning.md
 * says what each does. None is needed in normal use: the limit is for
 * large frames, the rest are for tuning and testing the kernels. One
 * prefix, FASTVISION_; the names of 0.1 that began FV_ (FV_CHUNK_LANES for
 * FASTVISION_CHUNK_LANES) are read where the new one is unset, for one
 * release. */
#ifndef FV_ENV_H
#define FV_ENV_H

#ifdef __cplusplus
extern "C" {
#endif

/* host memory one plan may take, in MB (default: half the RAM) */
#define FV_ENV_MAX_MEMORY_MB "FASTVISION_MAX_MEMORY_MB"
/* page-locked host memory all pools may hold, in MB (default: a quarter of
 * the RAM); frames past it use ordinary memory, with a warning */
#define FV_ENV_MAX_PINNED_MB "FASTVISION_MAX_PINNED_MB"
/* fftconvolve CPU: seconds FFTW may measure one transform (2) */
#define FV_ENV_FFT_PLAN_SECONDS "FASTVISION_FFT_PLAN_SECONDS"
/* vjdetect CPU: 1 turns the SIMD scans off (the scalar path alone) */
#define FV_ENV_VJ_NO_SIMD "FASTVISION_VJ_NO_SIMD"
/* vjdetect CPU: 1 runs the AVX2 scan where the CPU has AVX-512 */
#define FV_ENV_VJ_NO_AVX512 "FASTVISION_VJ_NO_AVX512"
/* vjdetect GPU: "a,b": stages 1..a-1 in the uber-kernel, a..b-1 in pass 3 */
#define FV_ENV_VJ_STAGES "FASTVISION_VJ_STAGES"
/* vjdetect GPU: persistent blocks per multiprocessor (16) */
#define FV_ENV_VJ_BLOCKS_PER_SM "FASTVISION_VJ_BLOCKS_PER_SM"
/* vjdetect GPU: warps per block (4) */
#define FV_ENV_VJ_WARPS_PER_BLOCK "FASTVISION_VJ_WARPS_PER_BLOCK"
/* vjdetect GPU: 0 makes deep windows read global memory, not a shared copy */
#define FV_ENV_VJ_DEEP_SHARED "FASTVISION_VJ_DEEP_SHARED"
/* vjdetect GPU: set, prints each phase's time */
#define FV_ENV_VJ_PROFILE "FASTVISION_VJ_PROFILE"
/* vjdetect GPU: first size of the raw-detection buffer (4096) */
#define FV_ENV_VJ_KEY_CAP "FASTVISION_VJ_KEY_CAP"

/* CUDA: microseconds a wait for a stream polls before it sleeps while
 * many threads wait (50; a few poll up to 2 ms); negative: the runtime's
 * own wait (cudaStreamSynchronize) */
#define FV_ENV_CUDA_SPIN_US "FASTVISION_CUDA_SPIN_US"

/* CPU: whose budget of cores parallel regions take their threads from
 * (fv_parallel.h): unset the process's, 1 this user's processes that set
 * it too, 0 none */
#define FV_ENV_SHARE_CORES "FASTVISION_SHARE_CORES"
/* CPU, for tests: the System V key of the user's budget, in hex
 * (0x6676 and the user's id) */
#define FV_ENV_CORES_KEY "FASTVISION_CORES_KEY"

/* chunked CUDA plans: entries (lanes) per listed device (3) */
#define FV_ENV_CHUNK_LANES "FASTVISION_CHUNK_LANES"
/* chunked CUDA plans over several GPUs: chunks per entry, taken as entries
 * finish (2) */
#define FV_ENV_CHUNK_PER_ENTRY "FASTVISION_CHUNK_PER_ENTRY"
/* chunked CUDA plans of two passes (the fill): 0 stages device frames of
 * other GPUs through copies rather than reading and writing them in place
 * over peer access (1) */
#define FV_ENV_CHUNK_PEER_DIRECT "FASTVISION_CHUNK_PEER_DIRECT"
/* satfilter GPU: bands host frames are cut into, to overlap copies and
 * filtering (0: none; unset: chosen from the frame and the radius) */
#define FV_ENV_BOX_BANDS "FASTVISION_BOX_BANDS"
/* satfilter GPU: "table" or "two-pass" makes the mean and threshold take
 * that path wherever it can run (unset: the plan's choice, fv_box_cuda.cu) */
#define FV_ENV_BOX_PATH "FASTVISION_BOX_PATH"
/* autofill GPU over several GPUs: pieces in which the frame's GPU sends
 * a band of its frame to another GPU as bits and writes the result back
 * (0: that GPU reads and writes the frame in place; 4) */
#define FV_ENV_FILL_PIECES "FASTVISION_FILL_PIECES"
/* for tests: autofill GPU, a band of a device frame on the band's own GPU
 * takes that way too (through a stream of its own there, as bits), so that
 * one GPU runs what several do (unset) */
#define FV_ENV_FILL_HOME_HERE "FASTVISION_FILL_HOME_HERE"
/* autofill GPU measure: set, prints each phase's time */
#define FV_ENV_FILL_MEASURE_PROFILE "FASTVISION_FILL_MEASURE_PROFILE"

/* The variable's text (or its FV_ name's, for one release); NULL when
 * neither is set. */
const char *fv_env_get (const char *name);
/* The variable as a whole number; fallback when unset or not a number. */
long long fv_env_int (const char *name, long long fallback);
/* Whether the variable is set (to anything). */
int fv_env_set (const char *name);

#ifdef __cplusplus
}
#endif
#endif
