/* CPU resources: thread count and host memory. */
#ifndef GS_CPU_H
#define GS_CPU_H

#include <stddef.h>

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
