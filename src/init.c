/* Registration of the native routines. */
#include <R_ext/Rdynload.h>

#include "r_util.h"

SEXP gs_r_gpu_count(void);
SEXP gs_r_gpu_info(void);
SEXP gs_r_gpu_release(void);
SEXP gs_r_map(SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP gs_r_tables(void);
SEXP gs_r_status_raise(SEXP, SEXP);
SEXP gs_r_cpu_threads(SEXP);
SEXP gs_r_host_memory_check(SEXP, SEXP);
SEXP gs_r_matern_cov(SEXP, SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP gs_r_cov_model_check(SEXP, SEXP);
SEXP gs_r_bench_map(SEXP, SEXP, SEXP, SEXP);
SEXP gs_r_bench_matern_cov(SEXP, SEXP, SEXP, SEXP);
SEXP gs_r_bench_tridiag(SEXP, SEXP, SEXP, SEXP);
SEXP gs_r_bench_sht(SEXP, SEXP, SEXP);
SEXP gs_r_gp_new(SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP gs_r_gp_set_locations(SEXP, SEXP);
SEXP gs_r_gp_tiled(SEXP);
SEXP gs_r_gp_attempts(SEXP);
SEXP gs_r_gp_free(SEXP);
SEXP gs_r_gp_factor(SEXP, SEXP, SEXP);
SEXP gs_r_gp_apply(SEXP, SEXP, SEXP);
SEXP gs_r_gp_krige(SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP gs_r_laplace_new(SEXP, SEXP);
SEXP gs_r_laplace_free(SEXP);
SEXP gs_r_laplace_set_covariance(SEXP, SEXP);
SEXP gs_r_laplace_mode(SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP gs_r_vecchia_set_noise(SEXP, SEXP);
SEXP gs_r_laplace_vecchia_mode(SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP gs_r_laplace_forward(SEXP, SEXP);
SEXP gs_r_laplace_krige(SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP gs_r_gp_derivatives(SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP gs_r_bench_gp_loglik(SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP gs_r_tile_chol(SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP gs_r_tile_free(SEXP);
SEXP gs_r_tile_solve(SEXP, SEXP, SEXP, SEXP);
SEXP gs_r_tile_upper(SEXP, SEXP);
SEXP gs_r_tile_plan(SEXP, SEXP, SEXP, SEXP);
SEXP gs_r_bench_tile_chol(SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP gs_r_bench_tile_chol_mixed(SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP gs_r_gbees_new(SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP gs_r_gbees_propagate(SEXP, SEXP, SEXP);
SEXP gs_r_gbees_reweight(SEXP, SEXP);
SEXP gs_r_gbees_cells(SEXP);
SEXP gs_r_gbees_info(SEXP);
SEXP gs_r_gbees_monte_carlo(SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP gs_r_gbees_field_program(SEXP, SEXP, SEXP);
SEXP gs_r_gbees_measurement_new(SEXP, SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP gs_r_gbees_measure(SEXP, SEXP, SEXP, SEXP);
SEXP gs_r_vecchia_maxmin(SEXP, SEXP, SEXP);
SEXP gs_r_vecchia_neighbors(SEXP, SEXP, SEXP, SEXP);
SEXP gs_r_vecchia_nearest(SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP gs_r_vecchia_new(SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP gs_r_vecchia_group(SEXP, SEXP, SEXP);
SEXP gs_r_vecchia_free(SEXP);
SEXP gs_r_vecchia_factor(SEXP, SEXP, SEXP);
SEXP gs_r_vecchia_apply(SEXP, SEXP, SEXP);
SEXP gs_r_vecchia_grad_info(SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP gs_r_vecchia_sums_size(SEXP, SEXP);
SEXP gs_r_vecchia_piece(SEXP, SEXP, SEXP);
SEXP gs_r_poly_have_fftw(void);
SEXP gs_r_all_finite(SEXP, SEXP);
SEXP gs_r_dct(SEXP, SEXP, SEXP, SEXP);
SEXP gs_r_tridiag_solve(SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP gs_r_jw_eval(SEXP, SEXP, SEXP, SEXP);
SEXP gs_r_jwt(SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP gs_r_jwt_plan_new(SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP gs_r_jwt_plan_info(SEXP);
SEXP gs_r_jwt_plan_work_bytes(SEXP, SEXP, SEXP);
SEXP gs_r_jwt_plan_free(SEXP);
SEXP gs_r_jwt_plan_execute(SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP gs_r_leg_cheb(SEXP, SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP gs_r_legcheb_rank(SEXP, SEXP, SEXP);
SEXP gs_r_gauss_legendre(SEXP, SEXP, SEXP);
SEXP gs_r_sht(SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP gs_r_gbees_kernel_sums(SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP);

/* A routine and its number of arguments. The cast goes through void (*)(void),
 * the function type that converts to any other without a warning
 * (-Wcast-function-type): R calls it with the arguments registered. */
#define CALLDEF(name, n) {#name, (DL_FUNC)(void (*)(void))&name, n}

static const R_CallMethodDef call_methods[] = {
  CALLDEF(gs_r_gpu_count, 0),
  CALLDEF(gs_r_gpu_info, 0),
  CALLDEF(gs_r_gpu_release, 0),
  CALLDEF(gs_r_map, 8),
  CALLDEF(gs_r_tables, 0),
  CALLDEF(gs_r_status_raise, 2),
  CALLDEF(gs_r_cpu_threads, 1),
  CALLDEF(gs_r_weak_new, 2),
  CALLDEF(gs_r_weak_value, 1),
  CALLDEF(gs_r_weak_clear, 1),
  CALLDEF(gs_r_host_memory_check, 2),
  CALLDEF(gs_r_matern_cov, 6),
  CALLDEF(gs_r_cov_model_check, 2),
  CALLDEF(gs_r_bench_map, 4),
  CALLDEF(gs_r_bench_matern_cov, 4),
  CALLDEF(gs_r_bench_tridiag, 4),
  CALLDEF(gs_r_bench_sht, 3),
  CALLDEF(gs_r_gp_new, 5),
  CALLDEF(gs_r_gp_set_locations, 2),
  CALLDEF(gs_r_gp_tiled, 1),
  CALLDEF(gs_r_gp_attempts, 1),
  CALLDEF(gs_r_gp_free, 1),
  CALLDEF(gs_r_gp_factor, 3),
  CALLDEF(gs_r_gp_apply, 3),
  CALLDEF(gs_r_gp_krige, 10),
  CALLDEF(gs_r_laplace_new, 2),
  CALLDEF(gs_r_laplace_free, 1),
  CALLDEF(gs_r_laplace_set_covariance, 2),
  CALLDEF(gs_r_laplace_mode, 10),
  CALLDEF(gs_r_laplace_vecchia_mode, 11),
  CALLDEF(gs_r_vecchia_set_noise, 2),
  CALLDEF(gs_r_laplace_forward, 2),
  CALLDEF(gs_r_laplace_krige, 10),
  CALLDEF(gs_r_gp_derivatives, 7),
  CALLDEF(gs_r_bench_gp_loglik, 5),
  CALLDEF(gs_r_tile_chol, 11),
  CALLDEF(gs_r_tile_free, 1),
  CALLDEF(gs_r_tile_solve, 4),
  CALLDEF(gs_r_tile_upper, 2),
  CALLDEF(gs_r_tile_plan, 4),
  CALLDEF(gs_r_bench_tile_chol, 5),
  CALLDEF(gs_r_bench_tile_chol_mixed, 7),
  CALLDEF(gs_r_gbees_new, 5),
  CALLDEF(gs_r_gbees_propagate, 3),
  CALLDEF(gs_r_gbees_reweight, 2),
  CALLDEF(gs_r_gbees_cells, 1),
  CALLDEF(gs_r_gbees_info, 1),
  CALLDEF(gs_r_gbees_monte_carlo, 8),
  CALLDEF(gs_r_gbees_field_program, 3),
  CALLDEF(gs_r_gbees_measurement_new, 6),
  CALLDEF(gs_r_gbees_measure, 4),
  CALLDEF(gs_r_vecchia_maxmin, 3),
  CALLDEF(gs_r_vecchia_neighbors, 4),
  CALLDEF(gs_r_vecchia_nearest, 5),
  CALLDEF(gs_r_vecchia_new, 7),
  CALLDEF(gs_r_vecchia_group, 3),
  CALLDEF(gs_r_vecchia_free, 1),
  CALLDEF(gs_r_vecchia_factor, 3),
  CALLDEF(gs_r_vecchia_apply, 3),
  CALLDEF(gs_r_vecchia_grad_info, 7),
  CALLDEF(gs_r_vecchia_sums_size, 2),
  CALLDEF(gs_r_vecchia_piece, 3),
  CALLDEF(gs_r_poly_have_fftw, 0),
  CALLDEF(gs_r_all_finite, 2),
  CALLDEF(gs_r_dct, 4),
  CALLDEF(gs_r_tridiag_solve, 7),
  CALLDEF(gs_r_jw_eval, 4),
  CALLDEF(gs_r_jwt, 8),
  CALLDEF(gs_r_jwt_plan_new, 7),
  CALLDEF(gs_r_jwt_plan_info, 1),
  CALLDEF(gs_r_jwt_plan_work_bytes, 3),
  CALLDEF(gs_r_jwt_plan_free, 1),
  CALLDEF(gs_r_jwt_plan_execute, 5),
  CALLDEF(gs_r_leg_cheb, 6),
  CALLDEF(gs_r_legcheb_rank, 3),
  CALLDEF(gs_r_gauss_legendre, 3),
  CALLDEF(gs_r_sht, 10),
  CALLDEF(gs_r_gbees_kernel_sums, 8),
  {NULL, NULL, 0}};

void R_init_gpustats(DllInfo *dll)
{
  R_registerRoutines(dll, NULL, call_methods, NULL, NULL);
  R_useDynamicSymbols(dll, FALSE);
  R_forceSymbols(dll, TRUE);
}
