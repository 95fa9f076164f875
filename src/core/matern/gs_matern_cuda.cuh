/* Matérn tiles on the device, for matern_cov and the Gaussian-process code. */
#ifndef GS_MATERN_CUDA_CUH
#define GS_MATERN_CUDA_CUH

#include <cuda_runtime.h>

#include "gs_matern.h"
#include "matern_math.h"

typedef struct {
  matern_model model;
  const double *locs1, *locs2; /* device */
  long n1, n2;
  int dim, sym, lower_only;
} matern_tile_args;

/* Kernel arguments for a (with its locations already on the device). */
matern_tile_args matern_tile_setup(const gs_matern_cov_args *a, const double *d1, const double *d2);
/* Columns [j0, j0 + ncols) into tile (leading dimension n1), on stream s. */
cudaError_t matern_tile_launch(const matern_tile_args *a, long j0, long ncols, double *tile, cudaStream_t s);

#endif
