/* The response families of a generalized linear mixed model, per
 * observation: the log density of the response y given the linear predictor
 * eta, its derivative in eta and minus its second derivative (the weight W
 * of the Laplace approximation's Newton iteration). Shared by the CPU and
 * GPU code (GS_HD). */
#ifndef GLMM_FAMILY_MATH_H
#define GLMM_FAMILY_MATH_H

#include <math.h>

#include "gs_common.h"

/* Code and the name R knows the family by, all with the log link but the
 * binomial's logit; the enum and the table R reads at load (gs_r_tables)
 * are generated from this list. The negative binomial's parameter is theta
 * (variance mu + mu^2 / theta), the Gamma's its shape (variance
 * mu^2 / shape). */
#define GS_GLMM_FAMILIES(X)                 \
  X(GS_GLMM_POISSON, "poisson")             \
  X(GS_GLMM_BINOMIAL, "binomial")           \
  X(GS_GLMM_NEGBIN, "negative_binomial")    \
  X(GS_GLMM_GAMMA, "Gamma")

#define GS_GLMM_FAMILY_ENUM_ENTRY(code, name) code,
enum { GS_GLMM_FAMILIES(GS_GLMM_FAMILY_ENUM_ENTRY) GS_GLMM_FAMILY_COUNT };
#undef GS_GLMM_FAMILY_ENUM_ENTRY

/* Whether a family has a parameter (theta, shape) besides the mean. */
static inline GS_HD int gs_glmm_has_param(int family) { return family == GS_GLMM_NEGBIN || family == GS_GLMM_GAMMA; }

typedef struct {
  double logp;   /* log p(y | eta), with its normalising constant */
  double grad;   /* d log p / d eta */
  double weight; /* -d^2 log p / d eta^2, > 0 */
} gs_glmm_point;

/* log(1 + e^x) without overflow for large x or loss of digits for very
 * negative x. */
static inline GS_HD double glmm_softplus(double x) { return x > 0.0 ? x + log1p(exp(-x)) : log1p(exp(x)); }

/* Without prior weights: y counts (Poisson, negative binomial), successes
 * out of `trials` (binomial; trials is ignored by the others) or a positive
 * value (Gamma); param the family's parameter (ignored by the Poisson and
 * the binomial). The binomial's probability and variance come from
 * e^-|eta|, and the negative binomial's log(theta + mu) from a softplus, so
 * that neither overflows nor cancels in the tails. */
static inline GS_HD gs_glmm_point glmm_point_unweighted(int family, double y, double trials, double param, double eta)
{
  gs_glmm_point p;
  if (family == GS_GLMM_POISSON) {
    const double mu = exp(eta);
    p.logp = y * eta - mu - lgamma(y + 1.0);
    p.grad = y - mu;
    p.weight = mu;
  } else if (family == GS_GLMM_BINOMIAL) {
    const double e = exp(-fabs(eta)), prob = eta >= 0.0 ? 1.0 / (1.0 + e) : e / (1.0 + e);
    p.logp = y * eta - trials * glmm_softplus(eta) + lgamma(trials + 1.0) - lgamma(y + 1.0) - lgamma(trials - y + 1.0);
    p.grad = y - trials * prob;
    p.weight = trials * e / ((1.0 + e) * (1.0 + e));
  } else if (family == GS_GLMM_NEGBIN) {
    const double theta = param, log_theta = log(theta), u = eta - log_theta;
    /* q = mu / (theta + mu), from e^-|u| as the binomial's probability */
    const double e = exp(-fabs(u)), q = u >= 0.0 ? 1.0 / (1.0 + e) : e / (1.0 + e);
    p.logp = lgamma(y + theta) - lgamma(theta) - lgamma(y + 1.0) + y * eta + theta * log_theta -
             (y + theta) * (log_theta + glmm_softplus(u));
    p.grad = y - (y + theta) * q;
    p.weight = (y + theta) * q * (1.0 - q);
  } else { /* Gamma: mu = e^eta, shape k */
    const double k = param, r = y * exp(-eta); /* y / mu */
    p.logp = k * log(k * r) - k * r - log(y) - lgamma(k);
    p.grad = k * (r - 1.0);
    p.weight = k * r;
  }
  return p;
}

/* With the prior weight w of the observation, as glm() takes prior weights:
 * the Gamma's shape is w times param (its variance mu^2 / (w shape)); the
 * others' log density is w times the observation's (w copies of it, for
 * whole numbers). */
static inline GS_HD gs_glmm_point gs_glmm_point_eval(int family, double y, double trials, double w, double param,
                                                     double eta)
{
  if (family == GS_GLMM_GAMMA) return glmm_point_unweighted(family, y, trials, w * param, eta);
  gs_glmm_point p = glmm_point_unweighted(family, y, trials, param, eta);
  p.logp *= w;
  p.grad *= w;
  p.weight *= w;
  return p;
}

#endif
