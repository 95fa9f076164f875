/* The GPU layer of a build without CUDA: no devices, plain host memory, and
 * every GPU entry point of every domain explains why (gs_gpu_missing). */
#include <stdlib.h>

#include "gs_gpu.h"

gs_status gs_gpu_missing(char *msg)
{
  return gs_set_msg(msg, GS_ERR_NO_GPU, "gpustats was built without CUDA; reinstall it on a machine with the CUDA toolkit to use a GPU");
}

int gs_gpu_count(void) { return 0; }

gs_status gs_gpu_props_get(int device, gs_gpu_props *p, char *msg)
{
  (void)device;
  (void)p;
  return gs_gpu_missing(msg);
}

void gs_gpu_release_all(void) {}

void *gs_host_alloc(size_t bytes, int want_pinned, int *pinned)
{
  (void)want_pinned;
  *pinned = 0;
  return malloc(bytes ? bytes : 1);
}

void gs_host_free(void *p, int pinned)
{
  (void)pinned;
  free(p);
}
