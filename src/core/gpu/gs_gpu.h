/* GPU queries and per-device state. Implemented by
 * gpu_context.cu when the package is built with CUDA, and by gpu_none.c (no
 * devices) otherwise; each domain's *_none.c stubs its own GPU entry points
 * with gs_gpu_missing. */
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

/* The device memory that a call may plan to fill when `free_bytes` are free
 * (gs_gpu_ctx_free_memory): every GPU backend sizes its batches, tiles and
 * refusals with it. A few percent and GS_GPU_RESERVE_BYTES stay free for
 * what the CUDA libraries allocate on their own (cuBLAS and cuSOLVER
 * workspaces, kernel launch resources) and for fragmentation. */
#define GS_GPU_RESERVE_BYTES ((size_t)768 << 20)
static inline size_t gs_gpu_budget(size_t free_bytes)
{
  const size_t usable = free_bytes / 100 * 97;
  return usable > GS_GPU_RESERVE_BYTES ? usable - GS_GPU_RESERVE_BYTES : 0;
}

/* The streams of a tile Cholesky on one device, as its trace numbers them:
 * GS_TILE_WORKERS compute streams for the tiles below the diagonal, one of
 * the highest priority for the diagonal tiles (the critical path, which
 * would otherwise wait for SMs behind the products), then one per copy
 * direction. Code, the name R knows it by, the number of its first stream.
 * Written once: the enum and the table R reads at load (gs_r_tables) are
 * generated from this list. */
#define GS_TILE_WORKERS 4
#define GS_TILE_STREAM_KINDS(X)                                 \
  X(GS_TILE_STREAM_COMPUTE, "compute", 0)                       \
  X(GS_TILE_STREAM_DIAGONAL, "diagonal", GS_TILE_WORKERS)       \
  X(GS_TILE_STREAM_TO_GPU, "to GPU", GS_TILE_WORKERS + 1)       \
  X(GS_TILE_STREAM_TO_HOST, "to host", GS_TILE_WORKERS + 2)

#define GS_TILE_STREAM_ENUM_ENTRY(code, name, first) code = first,
enum { GS_TILE_STREAM_KINDS(GS_TILE_STREAM_ENUM_ENTRY) };
#undef GS_TILE_STREAM_ENUM_ENTRY

/* The error of a GPU entry point in a build without CUDA. */
gs_status gs_gpu_missing(char *msg);

#ifdef __cplusplus
}
#endif

#endif
