/* Element-wise operations of the package: one op code, one GS_HD function per
 * element, shared by gs_map_cpu (OpenMP) and gs_map_gpu (CUDA). Inputs are
 * recycled as in R's arithmetic. */
#ifndef GS_MAP_OPS_H
#define GS_MAP_OPS_H

#include <stdint.h>

#include "matern_math.h"
#include "stable_dist.h"

#define GS_MAP_MAX_IN 5

/* The ops: code, the name R knows it by, and the inputs it reads. Written
 * once: the enum, gs_op_arity, the CUDA launch switch and the table R reads
 * at load (gs_r_tables) are generated from this list; a new op goes before
 * the end of the list (R finds it by name).
 *   bessel_k*        (x, nu) -> K_nu(x), exp(x) K_nu(x), their logs
 *   bessel_k_dnu/dx  (x, nu) -> d log K_nu(x) / d nu, d log K_nu(x) / dx
 *   matern           (d, sigma2, range, smoothness, nugget) -> covariance
 *   stable_d/p/q     (x, alpha, beta, gamma, delta) -> density, probability, quantile
 *   stable_r         (alpha, beta, gamma, delta) -> a random draw */
#define GS_MAP_OPS(X)                                  \
  X(GS_OP_BESSEL_K, "bessel_k", 2)                     \
  X(GS_OP_BESSEL_K_SCALED, "bessel_k_scaled", 2)       \
  X(GS_OP_BESSEL_K_LOG, "bessel_k_log", 2)             \
  X(GS_OP_BESSEL_K_LOG_SCALED, "bessel_k_log_scaled", 2) \
  X(GS_OP_BESSEL_K_DNU, "bessel_k_dnu", 2)             \
  X(GS_OP_BESSEL_K_DX, "bessel_k_dx", 2)               \
  X(GS_OP_MATERN, "matern", 5)                         \
  X(GS_OP_STABLE_D, "stable_d", 5)                     \
  X(GS_OP_STABLE_P, "stable_p", 5)                     \
  X(GS_OP_STABLE_Q, "stable_q", 5)                     \
  X(GS_OP_STABLE_R, "stable_r", 4)

#define GS_OP_ENUM_ENTRY(code, name, arity) code,
typedef enum { GS_MAP_OPS(GS_OP_ENUM_ENTRY) GS_OP_COUNT } gs_op;
#undef GS_OP_ENUM_ENTRY

/* Inputs each op reads. */
GS_HD static inline int gs_op_arity(int op)
{
  switch (op) {
#define GS_OP_ARITY_CASE(code, name, arity) \
  case code: return arity;
    GS_MAP_OPS(GS_OP_ARITY_CASE)
#undef GS_OP_ARITY_CASE
  default: return 0;
  }
}

/* Matérn covariance of one distance (the nugget at d = 0); parameters that
 * break the model's rule (gs_cov_model_valid) give NaN. */
GS_HD static inline double matern_element(double d, double sigma2, double range, double nu,
                                          double nugget)
{
  double s = d + sigma2 + range + nu + nugget;
  if (isnan(s)) return s;
  const gs_cov_model c = gs_cov_matern(MATERN_EUCLIDEAN, sigma2, range, nu, nugget);
  if (d < 0.0 || !gs_cov_model_valid(&c, 1)) return NAN;
  const matern_model p = matern_model_prepare(&c);
  const double v = matern_model_cov(&p, d);
  return (d == 0.0) ? v + p.nugget : v;
}

/* The branch an element takes (Temme's series or the trapezoid rule for the
 * Bessel ops; 0 where there is no choice), so that a GPU warp can run the
 * elements of one branch together instead of paying for both. */
GS_HD static inline int gs_op_branch(int op, double a0)
{
  switch (op) {
  case GS_OP_BESSEL_K:
  case GS_OP_BESSEL_K_SCALED:
  case GS_OP_BESSEL_K_LOG:
  case GS_OP_BESSEL_K_LOG_SCALED:
  case GS_OP_BESSEL_K_DX: return a0 < BESSEL_K_TEMME_MAX;
  default: return 0;
  }
}

/* Whether a GPU sorts the elements of op device-wide by gs_op_sort_key
 * before evaluating them: for ops whose cost and path vary so much between
 * elements that warps of mixed elements waste most of their lanes. Cheap
 * ops are not sorted (the sort would cost more than it saves); their
 * two-way branch is grouped within each warp instead (gs_op_branch). */
GS_HD static inline int gs_op_sorted(int op)
{
  return op == GS_OP_STABLE_D || op == GS_OP_STABLE_P || op == GS_OP_STABLE_Q;
}

/* Whether a GPU's key pass for op also evaluates the elements that need no
 * quadrature (gs_op_eval with GS_EVAL_CHEAP): the far tails of the stable
 * densities and probabilities, most of the points of a wide range, which
 * had shared the first pass's warps with the integrated points at the
 * ends of each run of keys. Not for quantiles, whose search would repeat
 * its cheap steps. */
GS_HD static inline int gs_op_cheap_first(int op)
{
  return op == GS_OP_STABLE_D || op == GS_OP_STABLE_P;
}

GS_HD static inline unsigned gs_op_sort_key(int op, int flags, double a0, double a1, double a2,
                                            double a3, double a4)
{
  return gs_op_sorted(op) ? stable_sort_key(a0, a1, a2, a3, a4, flags, op == GS_OP_STABLE_Q) : 0u;
}

/* One element into *out. Inputs by value (unused ones ignored): an array
 * argument would live in GPU local memory. flags modify an op
 * (STABLE_FLAG_*); seed and index (the element's position in the output)
 * serve the random ops. fast (GS_EVAL_*) lets an op decline an element (it
 * returns 0): GS_EVAL_FIRST one whose evaluation takes far longer than the
 * typical one (the GPU evaluates those in a second pass, so that they do
 * not hold up the warps of the first), GS_EVAL_CHEAP one that needs
 * quadrature. With GS_EVAL_ALL every element is evaluated (returns 1). */
GS_HD static inline int gs_op_eval(int op, int flags, int fast, uint64_t seed, uint64_t index,
                                   double a0, double a1, double a2, double a3, double a4,
                                   double *out)
{
  switch (op) {
  case GS_OP_BESSEL_K: *out = bessel_k_value(a0, a1, BESSEL_K_PLAIN); return 1;
  case GS_OP_BESSEL_K_SCALED: *out = bessel_k_value(a0, a1, BESSEL_K_SCALED); return 1;
  case GS_OP_BESSEL_K_LOG: *out = bessel_k_value(a0, a1, BESSEL_K_LOG); return 1;
  case GS_OP_BESSEL_K_LOG_SCALED: *out = bessel_k_value(a0, a1, BESSEL_K_LOG_SCALED); return 1;
  case GS_OP_BESSEL_K_DNU: *out = bessel_k_deriv_value(a0, a1, BESSEL_K_WRT_NU); return 1;
  case GS_OP_BESSEL_K_DX: *out = bessel_k_deriv_value(a0, a1, BESSEL_K_WRT_X); return 1;
  case GS_OP_MATERN: *out = matern_element(a0, a1, a2, a3, a4); return 1;
  case GS_OP_STABLE_D:
    /* without the probability flag, which only the probability op sets, the
     * compiler sees that a density node needs no slope of log h */
    return stable_family_value(a0, a1, a2, a3, a4, flags & ~STABLE_FLAG_PROB, fast, out);
  case GS_OP_STABLE_P:
    return stable_family_value(a0, a1, a2, a3, a4, flags | STABLE_FLAG_PROB, fast, out);
  case GS_OP_STABLE_Q: return stable_quantile(a0, a1, a2, a3, a4, flags, fast, out);
  case GS_OP_STABLE_R: *out = stable_random(seed, index, a0, a1, a2, a3, flags); return 1;
  default: *out = NAN; return 1;
  }
}

#endif
