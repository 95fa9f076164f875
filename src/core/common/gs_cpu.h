/* CPU resources: thread count and host memory. */
#ifndef GS_CPU_H
#define GS_CPU_H

#include <stddef.h>

/* The numerical kernels call fma() throughout; without the FMA instructions
 * (not in the x86-64 baseline) each call is a slow library emulation. CPU
 * loops therefore get an FMA clone, chosen at load time where the processor
 * has it. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__)
#define GS_CPU_DISPATCH __attribute__((target_clones("arch=haswell", "default")))
#else
#define GS_CPU_DISPATCH
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* requested <= 0: every core OpenMP sees. */
int gs_cpu_threads(int requested);

/* Physical memory of the host in bytes (0 if unknown). */
double gs_host_memory_bytes(void);

/* The threads of R's BLAS: > 1 for a multi-threaded one (OpenBLAS, BLIS,
 * MKL). Such a BLAS should be called from one thread with large blocks:
 * OpenBLAS's pthread build serializes calls made from several threads. */
int gs_blas_threads(void);

/* A monotonic clock in seconds, for the timings the core reports. */
double gs_wall_seconds(void);

#ifdef __cplusplus
}
#endif

#endif
