/* The response families of a generalized linear mixed model, per
 * observation: the log density of the response y given the linear predictor
 * eta, its derivative in eta and minus its second derivative (the weight W
 * of the Laplace approximation's Newton iteration). Shared by the CPU and
 * GPU code (GS_HD). */
#ifndef GLMM_FAMILY_MATH_H
#define GLMM_FAMILY_MATH_H

#include <math.h>

#include "gs_common.h"

/* Code and the name R knows the family by (its canonical link: log for the
 * Poisson, logit for the binomial); the enum and the table R reads at load
 * (gs_r_tables) are generated from this list. */
#define GS_GLMM_FAMILIES(X)          \
  X(GS_GLMM_POISSON, "poisson")      \
  X(GS_GLMM_BINOMIAL, "binomial")

#define GS_GLMM_FAMILY_ENUM_ENTRY(code, name) code,
enum { GS_GLMM_FAMILIES(GS_GLMM_FAMILY_ENUM_ENTRY) GS_GLMM_FAMILY_COUNT };
#undef GS_GLMM_FAMILY_ENUM_ENTRY

typedef struct {
  double logp;   /* log p(y | eta), with its normalising constant */
  double grad;   /* d log p / d eta */
  double weight; /* -d^2 log p / d eta^2, > 0 */
} gs_glmm_point;

/* log(1 + e^x) without overflow for large x or loss of digits for very
 * negative x. */
static inline GS_HD double glmm_softplus(double x) { return x > 0.0 ? x + log1p(exp(-x)) : log1p(exp(x)); }

/* y counts (Poisson) or successes out of `trials` (binomial; trials is
 * ignored for the Poisson). The binomial's probability and variance come
 * from e^-|eta|, so that neither overflows nor cancels in the tails. */
static inline GS_HD gs_glmm_point gs_glmm_point_eval(int family, double y, double trials, double eta)
{
  gs_glmm_point p;
  if (family == GS_GLMM_POISSON) {
    const double mu = exp(eta);
    p.logp = y * eta - mu - lgamma(y + 1.0);
    p.grad = y - mu;
    p.weight = mu;
  } else {
    const double e = exp(-fabs(eta)), prob = eta >= 0.0 ? 1.0 / (1.0 + e) : e / (1.0 + e);
    p.logp = y * eta - trials * glmm_softplus(eta) + lgamma(trials + 1.0) - lgamma(y + 1.0) - lgamma(trials - y + 1.0);
    p.grad = y - trials * prob;
    p.weight = trials * e / ((1.0 + e) * (1.0 + e));
  }
  return p;
}

#endif
