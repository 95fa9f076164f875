/* Gaussian processes with a Matérn covariance: one object per data set holds
 * the locations (on the device for the GPU backend) and the n x n covariance
 * workspace, so that an iterative method (a fit) uploads and allocates once
 * and then only factors and solves. */
#ifndef GS_GP_H
#define GS_GP_H

#include "gs_common.h"
#include "gs_matern.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gs_gp gs_gp;

/* Which backend factors a Gaussian-process object's covariance. */
typedef enum {
  GS_GP_BACKEND_AUTO,  /* the whole matrix where that fits and is faster, else tiles */
  GS_GP_BACKEND_TILES, /* the tile Cholesky at any size */
  GS_GP_BACKEND_WHOLE  /* the whole matrix wherever it fits (to measure that path) */
} gs_gp_backend;

/* device < 0: CPU (LAPACK), else that GPU (cuSOLVER). locs: n x dim,
 * column-major, copied. The covariance is factored by the tile Cholesky
 * (gs_tile.h) when the n x n matrix does not fit in the memory of the device
 * (or LAPACK's 32-bit indices), on a GPU from the order where tiles are
 * faster (with GS_GP_BACKEND_AUTO), and with GS_GP_BACKEND_TILES: on a GPU
 * whose memory holds its lower triangle the factor stays there and so do
 * the solves; otherwise it goes to host memory (out of core on a GPU) and
 * the solves run on the CPU. Fails with GS_ERR_NOMEM when the lower
 * triangle does not fit in host memory either. accuracy > 0: the tile
 * Cholesky in mixed precision, accurate to `accuracy` (gs_tile_options), at
 * any size; 0: FP64. progress (may be NULL) reports and interrupts a tiled
 * factorization. */
gs_status gs_gp_create(int device, const double *locs, long n, int dim, int threads,
                       gs_gp_backend backend, double accuracy, gs_progress_fn progress, gs_gp **gp, char *msg);
/* 1 when the factor is tiled. */
int gs_gp_tiled(const gs_gp *gp);
/* The factorizations the last gs_gp_factor ran (more than 1 when a mixed-
 * precision factorization promoted tiles and ran again). */
int gs_gp_attempts(const gs_gp *gp);
void gs_gp_free(gs_gp *gp);
/* Replaces the n x dim locations (same n and dim), e.g. coordinates mapped by
 * an anisotropy that a fit moves: the workspaces stay, the factor is dropped. */
gs_status gs_gp_set_locations(gs_gp *gp, const double *locs, char *msg);
long gs_gp_size(const gs_gp *gp); /* n */

/* Builds Sigma, the covariance of the model p (gs_matern.h: its distance,
 * parameters and the nugget on the diagonal), and factors it, Sigma = L L'.
 * *logdet = log |Sigma|. When
 * Sigma is not positive definite: GS_ERR_NOT_PD, and *failed_minor is the order
 * of the first leading minor that is not. */
gs_status gs_gp_factor(gs_gp *gp, const gs_cov_model *p, double *logdet, long *failed_minor, char *msg);

/* With the last factor: out = L^-1 b (GS_GP_FORWARD), L b (GS_GP_MULTIPLY) or
 * Sigma^-1 b (GS_GP_SOLVE), for k columns b (n x k, host). out may be b.
 * Code and the name R knows it by; the enum and the table R reads at load
 * (gs_r_tables) are generated from this list. */
#define GS_GP_APPLY_KINDS(X)          \
  X(GS_GP_FORWARD, "forward")         \
  X(GS_GP_MULTIPLY, "multiply")       \
  X(GS_GP_SOLVE, "solve")

#define GS_GP_APPLY_ENUM_ENTRY(code, name) code,
enum { GS_GP_APPLY_KINDS(GS_GP_APPLY_ENUM_ENTRY) };
#undef GS_GP_APPLY_ENUM_ENTRY
gs_status gs_gp_apply(gs_gp *gp, int what, const double *b, int k, double *out, char *msg);

/* Universal kriging at m new locations x_0 with the last factor, Sigma =
 * L L', for k data sets whose GLS trend coefficients are given: with c_0
 * the covariances between x_0 and the object's locations (the model's,
 * without its nugget: a new location is not an observation),
 *   fit[j + m c] = x0_j' B_c + (L^-1 c_0)' R_c,
 *   se[j] = sqrt(max(sigma2 - |L^-1 c_0|^2 + d' A d, 0)), d = x0_j - W' L^-1 c_0,
 * where R = L^-1 (Y - X B) and W = L^-1 X come from the forward solve
 * (gs_gp_apply) and A = (W'W)^-1, or that pooled over replicates. Without
 * standard errors (se NULL) the predictions are c_0' Sigma^-1 (Y - X B),
 * one backward solve of R for all new locations instead of a forward solve
 * of every c_0. The cross-covariances are built, solved and reduced block
 * of new locations by block, where the factor is: on its GPU (the whole
 * matrix, or a tile factor resident there), else on the CPU; only the
 * results cross to the host. The object's progress callback is called
 * between blocks, and stops the work (GS_ERR_INTERRUPTED). Rows of w and r
 * in the object's order. */
typedef struct {
  gs_cov_model model; /* the factor's */
  const double *locs; /* m x dim, column-major, mapped as the object's locations */
  long m;
  int dim;            /* the object's */
  const double *x0;   /* m x p: the trend's design at the new locations */
  int p;
  const double *w;    /* n x p: L^-1 X */
  const double *r;    /* n x k: L^-1 (Y - X B) */
  int k;
  const double *beta; /* p x k: B */
  const double *a;    /* p x p: A */
  double *fit;        /* m x k */
  double *se;         /* m, or NULL */
} gs_gp_krige_args;
gs_status gs_gp_krige(gs_gp *gp, const gs_gp_krige_args *a, char *msg);

/* The derivatives of the Gaussian log-likelihood in the covariance
 * parameters, with the last factor of Sigma (that of `params`). With P =
 * Sigma^-1 (ML), or for REML with a trend X (n x p, p > 0)
 * P = Sigma^-1 - Sigma^-1 X (X' Sigma^-1 X)^-1 X' Sigma^-1, and dS_i the
 * derivative of Sigma in parameter i of the model (bit GS_COV_SIGMA2 of
 * `deriv` for sigma2 and so on, gs_matern.h):
 *   trace[i] = tr(P dS_i),
 *   quad[i]  = sum_j u_j' dS_i u_j over the k columns u_j of u (n x k;
 *              u = Sigma^-1 r for residuals r gives the gradient
 *              g_i = -trace[i] / 2 + quad[i] / 2 of one data set),
 *   info[i + GS_COV_NPAR j] = tr(P dS_i P dS_j) (twice the expected information;
 *              skipped where info is NULL).
 * Entries of parameters not in `deriv` are left as they are. Dense
 * backends only (not the tile Cholesky): Sigma^-1 is formed explicitly,
 * and the information holds one more n x n matrix per generated derivative
 * (sigma2, range, the shapes; the nugget's dS is I): the memory is checked
 * first (GS_ERR_NOMEM). Rows of x and u in the object's order. */
typedef struct {
  gs_cov_model model; /* the factor's */
  int deriv;
  const double *x;
  int p;
  const double *u;
  int k;
  double *trace, *quad, *info;
} gs_gp_deriv_args;
gs_status gs_gp_derivatives(gs_gp *gp, const gs_gp_deriv_args *a, char *msg);

#ifdef __cplusplus
}
#endif

#endif
