/* The Gaussian-process object shared by gp.c and its two backends. */
#ifndef GS_GP_INTERNAL_H
#define GS_GP_INTERNAL_H

#include "gs_gp.h"
#include "gs_tile.h"
#include "matern_deriv_math.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gs_gp_gpu gs_gp_gpu; /* defined by gp_cuda.cu */

struct gs_gp {
  int device;    /* < 0: CPU */
  long n;
  int dim, threads;
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

gs_status gs_gp_cpu_factor(gs_gp *gp, const gs_cov_model *p, double *logdet, long *failed_minor, char *msg);
gs_status gs_gp_cpu_apply(gs_gp *gp, int what, const double *b, int k, double *out, char *msg);
gs_status gs_gp_cpu_derivatives(gs_gp *gp, const gs_gp_deriv_args *a, char *msg);
/* The parameters whose derivative matrix is generated (the nugget's is I). */
#define GP_DERIV_GENERATED (GS_COV_BIT(GS_COV_SIGMA2) | GS_COV_CORR_PARAMS)

/* The n x n matrices a derivative call holds at once besides the factor: P
 * and a scratch (L^-1 while P is formed on the CPU, then each dS before its
 * product), and with the information one per generated derivative. */
static inline int gp_deriv_matrices(const gs_gp_deriv_args *a)
{
  int g = 0;
  for (int t = 0; t < GS_COV_NPAR; ++t) g += ((a->deriv & GP_DERIV_GENERATED) >> t) & 1;
  return 2 + (a->info ? g : 0);
}

/* REML's correction of P: B = Sigma^-1 X (n x q, host) becomes V with
 * P = Sigma^-1 - V V' (gp_deriv_cpu.c). */
gs_status gs_gp_deriv_trend(long n, int q, const double *x, double *b, char *msg);

gs_status gs_gp_gpu_init(gs_gp *gp, char *msg);
void gs_gp_gpu_release(gs_gp *gp);
/* Copies the host locations gp->locs to the device. */
gs_status gs_gp_gpu_upload_locations(gs_gp *gp, char *msg);
gs_status gs_gp_gpu_factor(gs_gp *gp, const gs_cov_model *p, double *logdet, long *failed_minor, char *msg);
gs_status gs_gp_gpu_apply(gs_gp *gp, int what, const double *b, int k, double *out, char *msg);
gs_status gs_gp_gpu_derivatives(gs_gp *gp, const gs_gp_deriv_args *a, char *msg);
/* The diagonal of the last factor, in host memory (n). */
const double *gs_gp_gpu_diagonal(const gs_gp *gp);
/* gs_gp_krige where the GPU holds the factor (the whole matrix, or a tile
 * factor resident there), arguments checked. */
gs_status gs_gp_gpu_krige(gs_gp *gp, const gs_gp_krige_args *a, char *msg);

#ifdef __cplusplus
}
#endif

#endif
