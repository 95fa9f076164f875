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

#ifdef __cplusplus
}
#endif

#endif
