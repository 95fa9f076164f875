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

#ifdef __cplusplus
}
#endif

#endif
