/* The GPU layer of a build without CUDA: no devices, plain host memory, and
 * every GPU entry point of every domain explains why (gs_gpu_missing). */
#include <stdlib.h>

#include "gs_gpu.h"
#include "gs_host_pages.h"

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

/* Plain memory: without CUDA there is nothing to lock. */
struct gs_host_pages {
  unsigned char *data;
};

gs_host_pages *gs_host_pages_alloc(size_t bytes, int want_pinned)
{
  (void)want_pinned;
  gs_host_pages *h = (gs_host_pages *)malloc(sizeof *h);
  if (h && !(h->data = (unsigned char *)malloc(bytes ? bytes : 1))) free(h), h = NULL;
  return h;
}

unsigned char *gs_host_pages_data(const gs_host_pages *h) { return h->data; }

void gs_host_pages_touch_ahead(gs_host_pages *h, const size_t *offset, const size_t *bytes, size_t count)
{
  (void)h, (void)offset, (void)bytes, (void)count;
}

void gs_host_pages_lock(gs_host_pages *h, size_t offset, size_t bytes) { (void)h, (void)offset, (void)bytes; }

void gs_host_pages_settle(gs_host_pages *h) { (void)h; }

double gs_host_pages_seconds(const gs_host_pages *h)
{
  (void)h;
  return 0.0;
}

void gs_host_pages_free(gs_host_pages *h)
{
  if (h) free(h->data);
  free(h);
}
