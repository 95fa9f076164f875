/* Host memory for a matrix far larger than a GPU's, which the GPU writes and
 * reads by tiles. With CUDA and a GPU present (and asked for), it is
 * page-locked in pieces as the copies reach them, while background threads
 * first-touch the pieces ahead of the copies: touching and locking tens of
 * gigabytes take seconds, which then overlap the GPU's work instead of
 * preceding it. Otherwise it is plain memory. Implemented by host_pages.cu,
 * and by gpu_none.c in a build without CUDA. */
#ifndef GS_HOST_PAGES_H
#define GS_HOST_PAGES_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gs_host_pages gs_host_pages;

/* `bytes` of memory, page-locked piece by piece when want_pinned and a GPU
 * is present; NULL when out of host memory. */
gs_host_pages *gs_host_pages_alloc(size_t bytes, int want_pinned);
unsigned char *gs_host_pages_data(const gs_host_pages *h);

/* Starts background threads that first-touch every piece not yet touched,
 * those that hold the ranges [offset[k], offset[k] + bytes[k]) first, in
 * the order of k: the order in which the copies will reach them. Until
 * gs_host_pages_settle, only copies (gs_host_pages_copy) may write the
 * memory. */
void gs_host_pages_touch_ahead(gs_host_pages *h, const size_t *offset, const size_t *bytes, size_t count);

/* Makes [offset, offset + bytes) ready for copies: touched (on all cores
 * for a large range) and page-locked. A piece that cannot be locked stays
 * plain memory, which copies still reach, more slowly. */
void gs_host_pages_lock(gs_host_pages *h, size_t offset, size_t bytes);

/* Stops the background threads; the CPU may write the memory again. */
void gs_host_pages_settle(gs_host_pages *h);

/* Seconds that gs_host_pages_lock has taken on its callers' threads, in
 * all: what the memory cost the work beyond its allocation. */
double gs_host_pages_seconds(const gs_host_pages *h);

void gs_host_pages_free(gs_host_pages *h);

#ifdef __cplusplus
}
#endif

#endif
