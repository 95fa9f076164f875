/* CPU resources: threads and host memory. */
#ifndef GS_CPU_H
#define GS_CPU_H

#include <stddef.h>

#include "gs_common.h"

/* The numerical kernels call fma() throughout; without the FMA instructions
 * (not in the x86-64 baseline) each call is a slow library emulation. CPU
 * loops therefore get an FMA clone, chosen at load time where the processor
 * has it. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__) && __GNUC__ >= 12
/* x86-64-v3 (AVX2, FMA) is chosen by the processor's features; "arch=haswell"
 * would be chosen only on an Intel Haswell by model, so never on AMD or newer
 * Intel processors. */
#define GS_CPU_DISPATCH __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define GS_CPU_DISPATCH
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The thread policy of every parallel region of the package.
 *
 * gs_cpu_threads(requested) is the most threads a call may use: `requested`
 * (the gpustats.threads option), or for requested <= 0 the request last
 * recorded by gs_cpu_set_request, or for none the value of OMP_NUM_THREADS
 * or else every core; never more than the cores OpenMP sees,
 * OMP_THREAD_LIMIT (CRAN sets it to 2) or GS_CPU_MAX_THREADS. The
 * environment is read at each call, so Sys.setenv() from R takes effect.
 *
 * gs_cpu_threads_for(requested, work) is what a parallel region asks for:
 * the same limit, and one thread per GS_CPU_WORK_PER_THREAD units of
 * `work`, so that little work runs on few threads (a thread then has at
 * least tens of microseconds to do, against the few microseconds that
 * waking it costs). A unit of work is one element evaluation of the
 * numerical kernels (a Bessel K, a covariance entry, a grid cell update), or
 * the copy of GS_CPU_BYTES_PER_WORK bytes. */
#define GS_CPU_MAX_THREADS 1024
#define GS_CPU_WORK_PER_THREAD 1024.0
#define GS_CPU_BYTES_PER_WORK 256.0
int gs_cpu_threads(int requested);
int gs_cpu_threads_for(int requested, double work);
/* Records the request that stands for requested <= 0 (0: none). The R glue
 * records the gpustats.threads option whenever a call reads it, so that the
 * regions that are given no request (the host copies of the GPU backends)
 * honour it too. */
void gs_cpu_set_request(int requested);

/* Physical memory of the host in bytes (0 if unknown). */
double gs_host_memory_bytes(void);
/* Memory this process can be given now without swapping, in bytes:
 * MemAvailable of /proc/meminfo on Linux, else the free pages, else the
 * physical memory, capped by what the process's limits (ulimit -v, -d) leave
 * (0 if unknown). */
double gs_host_available_bytes(void);
/* GS_ERR_NOMEM, with a message saying how much `what` needs and how much
 * memory is available, when `bytes` exceeds the available memory; GS_OK
 * otherwise (also when the available memory is unknown). */
gs_status gs_host_memory_check(double bytes, const char *what, char *msg);

/* The threads of R's BLAS: > 1 for a multi-threaded one (OpenBLAS, BLIS,
 * MKL). Such a BLAS should be called from one thread with large blocks:
 * OpenBLAS's pthread build serializes calls made from several threads. */
int gs_blas_threads(void);

/* A monotonic clock in seconds, for the timings the core reports. */
double gs_wall_seconds(void);

/* The next size of a batch of work meant to take about `target` seconds:
 * doubled after one that took under half of it, halved (not below `least`)
 * after one over twice it, so that progress and interrupt checks come at a
 * steady pace whatever the problem and the machine's load. */
static inline size_t gs_batch_resize(size_t batch, double took, double target, size_t least)
{
  if (took < target / 2) return 2 * batch;
  if (took > 2 * target && batch > least) return batch / 2;
  return batch;
}

#ifdef __cplusplus
}
#endif

#endif
