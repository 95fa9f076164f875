/* GPU queries and per-device state. Implemented by gpu_context.cu when the
 * package is built with CUDA, and by gpu_none.c (no devices) otherwise. */
#ifndef GS_GPU_H
#define GS_GPU_H

#include "gs_common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  char name[256];
  double total_memory, free_memory; /* bytes */
  int cc_major, cc_minor;
  int driver_version, runtime_version; /* e.g. 13000 for 13.0 */
  int multiprocessors;
} gs_gpu_props;

/* Number of usable devices; 0 without CUDA, without a driver or without a GPU. */
int gs_gpu_count(void);
gs_status gs_gpu_props_get(int device, gs_gpu_props *p, char *msg);
/* Frees every device's streams, handles and workspace (package unload). */
void gs_gpu_release_all(void);

#ifdef __cplusplus
}
#endif

#endif
