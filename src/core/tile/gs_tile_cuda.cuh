/* The tile Cholesky for other CUDA backends: the solves of a factor resident
 * on its GPU (gs_tile_resident) on right-hand sides that are already in its
 * memory, so that a backend which builds them there (kriging's
 * cross-covariances) moves no block of them to the host and back. */
#ifndef GS_TILE_CUDA_CUH
#define GS_TILE_CUDA_CUH

#include "gs_gpu_ctx.cuh"
#include "gs_tile.h"

/* b = L^-1 b, L'^-1 b or A^-1 b (what as in gs_tile_solve) in place, for the
 * n x cols matrix b (leading dimension n) in the memory of the factor's
 * device, on c->stream[0]; c is that device's context with its solvers
 * (gs_gpu_ctx_solvers). fp64: nb x nb doubles of device memory into which
 * the tiles not in FP64 are converted. Returns once the work is queued. */
gs_status gs_tile_resident_apply_device(const gs_tile_matrix *m, gs_gpu_ctx *c, int what, double *b, int cols,
                                        double *fp64, char *msg);

#endif
