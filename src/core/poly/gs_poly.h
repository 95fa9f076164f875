/* Polynomial transforms: DCTs, batched tridiagonal solves, Jones-Worland
 * (ball) transforms, Legendre-Chebyshev conversions and spherical-harmonic
 * transforms of real fields. Matrices are column-major; a batch is a set of
 * columns. */
#ifndef GS_POLY_H
#define GS_POLY_H

#include "gs_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 1 when the package was built with FFTW3 (configure), else 0. */
int gs_poly_have_fftw(void);

/* ---- DCTs ------------------------------------------------------------------
 * FFTW's unnormalised definitions, on each of `batch` columns of length n:
 *   type 2 (REDFT10): y_k = 2 sum_j x_j cos(pi k (j + 1/2) / n)
 *   type 3 (REDFT01): y_k = x_0 + 2 sum_{j>=1} x_j cos(pi j (k + 1/2) / n)
 *   type 4 (REDFT11): y_k = 2 sum_j x_j cos(pi (j + 1/2) (k + 1/2) / n)
 * in and out may be the same array. */
gs_status gs_dct_cpu(int type, long n, long batch, const double *in, double *out, int threads, char *msg);
gs_status gs_dct_gpu(int device, int type, long n, long batch, const double *in, double *out, char *msg);

/* ---- tridiagonal systems -----------------------------------------------------
 * A x = b for tridiagonal A of order n with sub-diagonal dl (dl[0] unused),
 * diagonal d and super-diagonal du (du[n-1] unused), each of length n, for
 * `nrhs` right-hand sides (the columns of b, overwritten by x). With
 * per_system = 0 one matrix serves every column; with per_system = 1 column j
 * has its own matrix in column j of dl, d and du (n x nrhs each). Rows are
 * scaled by powers of two; a system whose elimination without pivoting
 * would grow is solved with partial pivoting (on the CPU; the GPU hands such
 * a call to the CPU). A singular system is GS_ERR_ARG, naming it. */
typedef struct {
  long n, nrhs;
  int per_system;
  const double *dl, *d, *du;
  double *b;
} gs_tridiag_args;

gs_status gs_tridiag_solve_cpu(const gs_tridiag_args *a, int threads, char *msg);
gs_status gs_tridiag_solve_gpu(int device, const gs_tridiag_args *a, char *msg);

/* ---- Jones-Worland polynomials ------------------------------------------------
 * W_n^l(r) = r^l P_n^(-1/2, l-1/2)(2 r^2 - 1); "unit" normalisation divides
 * by the square root of h_n = int_0^1 W_n^2 (1 - r^2)^(-1/2) dr, so that the
 * unit polynomials are orthonormal for that weight. The normalisations and
 * the transform methods, each with the name R knows it by (gs_r_tables). */
#define GS_JW_NORMS(X)  \
  X(GS_JW_UNIT, "unit") \
  X(GS_JW_NATURAL, "natural")
#define GS_JW_METHODS(X)            \
  X(GS_JW_CONNECTION, "connection") \
  X(GS_JW_QUADRATURE, "quadrature")
#define GS_POLY_ENUM_ENTRY(code, name) code,
enum { GS_JW_NORMS(GS_POLY_ENUM_ENTRY) };
enum { GS_JW_METHODS(GS_POLY_ENUM_ENTRY) };
/* The largest degrees n and l jw_eval takes: its recurrence costs n steps
 * (and n values of memory) per point and loses about n ulps, so far beyond
 * the transforms' sizes a value would be slow and meaningless (and 2 l + 1
 * would overflow an int near the int range). */
#define GS_JW_MAX_DEGREE 1000000

/* out[i] = W_n[i]^l[i](r[i]) for i < len (n, l, r already recycled). */
gs_status gs_jw_eval(long len, const int *n, const int *l, const double *r, int norm, double *out, char *msg);

/* Plans for the transforms of every degree l = lmin .. lmax of a field at
 * once, ncoef unit coefficients per column on the grid
 * r_k = cos(pi (2k+1) / (4 nr)): synthesis gives the values on the grid,
 * analysis the coefficients by quadrature with the weights pi / (2 nr).
 * A plan holds what its method reuses, built once: the connection
 * bidiagonals (one table per parity of l, which every degree of that parity
 * shares) or the quadrature matrices (nr x ncoef per degree), in host memory
 * (device -1) or in the memory of GPU `device`. A single degree is a plan
 * with lmin = lmax. */
typedef struct gs_jwt_plan gs_jwt_plan;
typedef struct {
  int lmin, lmax;
  long ncoef, nr;
  int method; /* GS_JW_CONNECTION or GS_JW_QUADRATURE */
  int device; /* a GPU id, or -1 for the CPU */
} gs_jwt_plan_args;

gs_status gs_jwt_plan_create(const gs_jwt_plan_args *a, int threads, gs_jwt_plan **plan, char *msg);
void gs_jwt_plan_free(gs_jwt_plan *p);
gs_jwt_plan_args gs_jwt_plan_get_args(const gs_jwt_plan *p);
/* Bytes the plan holds on its device (host memory for a CPU plan). */
size_t gs_jwt_plan_bytes(const gs_jwt_plan *p);
/* Bytes of working memory a call on `ncol` columns in all takes beside the
 * plan (on the plan's device; a GPU's cuFFT plans take their own on top). */
size_t gs_jwt_plan_work_bytes(const gs_jwt_plan *p, long ncol, int analysis);

/* The data of one call: for degree l = lmin + k, ncol[k] columns at in[k]
 * (ncoef rows for a synthesis, nr for an analysis) into out[k] (nr rows, or
 * ncoef). A non-finite input is GS_ERR_ARG. progress is called between
 * chunks of columns. */
typedef struct {
  int analysis;
  const long *ncol;
  const double *const *in;
  double *const *out;
} gs_jwt_data;

gs_status gs_jwt_plan_execute(const gs_jwt_plan *p, const gs_jwt_data *d, int threads, gs_progress_fn progress,
                              char *msg);

/* ---- Legendre <-> Chebyshev coefficients ---------------------------------------
 * out (n x ncol) = the Chebyshev (to_chebyshev = 1) or Legendre (0)
 * coefficients of the expansions whose other coefficients are in (n x ncol).
 * GS_LEGCHEB_DIRECT multiplies by the explicit connection matrix (O(n^2)
 * time and memory); GS_LEGCHEB_TOEPLITZ_HANKEL applies it in O(n log^2 n) by
 * FFTs (Townsend, Webb and Olver 2018; needs FFTW3). The progress callback
 * is called between columns (and halves of a column) of the fast method. */
#define GS_LEGCHEB_METHODS(X)    \
  X(GS_LEGCHEB_DIRECT, "direct") \
  X(GS_LEGCHEB_TOEPLITZ_HANKEL, "toeplitz-hankel")
enum { GS_LEGCHEB_METHODS(GS_POLY_ENUM_ENTRY) };
typedef struct {
  long n, ncol;
  int to_chebyshev, method;
  const double *in;
  double *out;
} gs_legcheb_args;

gs_status gs_legcheb_cpu(const gs_legcheb_args *a, int threads, gs_progress_fn progress, char *msg);
/* The Toeplitz-Hankel method on the GPU (the only method there; FFTW3 is not
 * needed): the Hankel factor on `threads` host threads, the Toeplitz
 * products by cuFFT. The progress callback is called between chunks of
 * columns. */
gs_status gs_legcheb_gpu(int device, const gs_legcheb_args *a, int threads, gs_progress_fn progress, char *msg);
/* The rank of the pivoted Cholesky factor the fast method uses for each
 * parity (0: even degrees) of size n, or -1 when out of memory. */
int gs_legcheb_rank(long n, int to_chebyshev, int parity);

/* ---- spherical harmonics of real fields ---------------------------------------
 * Fields on nlat x nlon grids (latitude rows from the north pole; longitudes
 * 2 pi j / nlon) at colatitude cosines x (nlat) with quadrature weights w
 * (summing to 2). Coefficients: cos and sin parts, (lmax + 1) x (lmax + 1)
 * per field, entry [l + (lmax + 1) m] (zero where m > l, and sin for m = 0),
 * of the orthonormal real harmonics with the Condon-Shortley phase. */
typedef struct {
  int lmax;
  long nlat, nlon, nfield;
  const double *x, *w;
  const double *x_lo; /* x + x_lo: the nodes beyond double precision (NULL: x alone) */
  double *values; /* nlat x nlon x nfield */
  double *cos_part, *sin_part; /* (lmax + 1)^2 x nfield each */
} gs_sht_args;

gs_status gs_sht_analysis_cpu(const gs_sht_args *a, int threads, gs_progress_fn progress, char *msg);
gs_status gs_sht_synthesis_cpu(const gs_sht_args *a, int threads, gs_progress_fn progress, char *msg);
gs_status gs_sht_analysis_gpu(int device, const gs_sht_args *a, gs_progress_fn progress, char *msg);
gs_status gs_sht_synthesis_gpu(int device, const gs_sht_args *a, gs_progress_fn progress, char *msg);
/* Gauss-Legendre nodes (cosines, descending) and weights of order n in O(n)
 * time (sht_gauss.c); x_lo (or NULL): the rounding errors of x, the node
 * less x in long double. The progress callback is called between batches
 * of nodes. */
gs_status gs_gauss_legendre(long n, double *x, double *x_lo, double *w, int threads, gs_progress_fn progress,
                            char *msg);

#ifdef __cplusplus
}
#endif

#endif
