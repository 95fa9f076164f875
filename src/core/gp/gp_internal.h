/* The Gaussian-process object shared by gp.c and its two backends. */
#ifndef GS_GP_INTERNAL_H
#define GS_GP_INTERNAL_H

#include "gs_gp.h"
#include "gs_tile.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gs_gp_gpu gs_gp_gpu; /* defined by gp_cuda.cu */

struct gs_gp {
  int device;    /* < 0: CPU */
  long n;
  int dim, metric, threads;
  double *locs;  /* n x dim, host copy */
  double *a;     /* CPU backend: the n x n matrix, its factor after gs_gp_factor */
  gs_gp_gpu *gpu;
  gs_tile_matrix *tiles; /* the tiled backend, on the CPU or a GPU */
  double accuracy;       /* > 0: the tiles in mixed precision */
  unsigned char *precision_floor; /* mixed precision: gs_tile_options.precision_floor, carried between factorizations */
  gs_progress_fn progress;
  int factored;
  int attempts; /* of the last factorization */
};

gs_status gs_gp_cpu_factor(gs_gp *gp, const gs_matern_params *p, double *logdet, long *failed_minor, char *msg);
gs_status gs_gp_cpu_apply(gs_gp *gp, int what, const double *b, int k, double *out, char *msg);
gs_status gs_gp_cpu_derivatives(gs_gp *gp, const gs_gp_deriv_args *a, char *msg);

gs_status gs_gp_gpu_init(gs_gp *gp, char *msg);
void gs_gp_gpu_release(gs_gp *gp);
/* Copies the host locations gp->locs to the device. */
gs_status gs_gp_gpu_upload_locations(gs_gp *gp, char *msg);
gs_status gs_gp_gpu_factor(gs_gp *gp, const gs_matern_params *p, double *logdet, long *failed_minor, char *msg);
gs_status gs_gp_gpu_apply(gs_gp *gp, int what, const double *b, int k, double *out, char *msg);
gs_status gs_gp_gpu_derivatives(gs_gp *gp, const gs_gp_deriv_args *a, char *msg);
/* The diagonal of the last factor, in host memory (n). */
const double *gs_gp_gpu_diagonal(const gs_gp *gp);

#ifdef __cplusplus
}
#endif

#endif
