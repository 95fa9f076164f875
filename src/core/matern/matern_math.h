/* Matérn correlation and distances, shared by the CPU loops and CUDA kernels.
 *
 * M_nu(z) = 2^(1-nu) / Gamma(nu) z^nu K_nu(z), M_nu(0) = 1 (ExaGeoStat form,
 * z = d / range). It is evaluated as a product, never as a sum of logarithms:
 * near z = 0 the two logarithms nu log z and log K_nu(z) are large and
 * opposite, and adding them would lose up to 1e-13 of a correlation close to
 * one. z^nu is a single pow (relative error of an ulp or two), K_nu(z) comes
 * from the recurrence with the same relative accuracy, and the constant is
 * computed once per order. Half-integer orders use the closed forms
 * exp(-z), (1 + z) exp(-z), (1 + z + z^2/3) exp(-z), ... through
 * M_{nu+1} = M_nu + z^2 / (4 nu (nu - 1)) M_{nu-1}, which adds positive terms. */
#ifndef GS_MATERN_MATH_H
#define GS_MATERN_MATH_H

#include "bessel_k_math.h"
#include "cov_family_math.h"
#include "gs_matern.h"

/* Per-order constants of the Matérn correlation. */
typedef struct {
  bessel_k_order o;
  double nu;
  double c_m; /* 2^(1-nu) / Gamma(nu) = c_m 2^c_e2 */
  int c_e2;
} matern_order;

/* nu > 0 finite. Gamma(nu) = Gamma(1+mu) (mu+1) ... (mu+n-1), kept as a
 * mantissa and a binary exponent so that no order overflows; past the
 * recurrence range. */
GS_HD static inline matern_order matern_order_prepare(double nu)
{
  matern_order m;
  m.nu = nu;
  if (nu >= BESSEL_K_DEBYE_NU) { /* matern_corr_debye needs no constants */
    m.o.mu = 0.0;
    m.o.n = 0;
    m.c_m = 1.0;
    m.c_e2 = 0;
    return m;
  }
  m.o = bessel_k_order_prepare(nu);
  double g = m.o.gamma_p;
  int ge = 0;
  if (m.o.n == 0) g /= m.o.mu; /* Gamma(mu) = Gamma(1+mu) / mu, mu = nu > 0 */
  for (int j = 1; j < m.o.n; ++j) {
    int e;
    g = frexp(g * (m.o.mu + j), &e);
    ge += e;
  }
  /* 2^(1-nu) = 2^(1-n) 2^(-mu) */
  m.c_m = exp2(-m.o.mu) / g;
  m.c_e2 = 1 - m.o.n - ge;
  return m;
}

/* Half-integer orders nu = n - 1/2 up to this n use the closed forms. */
#define MATERN_CLOSED_FORM_MAX_N 50

/* M_nu(z) at half-integer nu = n - 1/2 (1 <= n <= MATERN_CLOSED_FORM_MAX_N),
 * z < 700: exp(-z) times a polynomial built by the recurrence, so
 * n = 1, 2, 3 give exactly exp(-z), (1 + z) exp(-z), (1 + z + z^2/3) exp(-z). */
GS_HD static inline double matern_corr_half_integer(int n, double z)
{
  double a = 1.0, b = 1.0 + z; /* polynomials of M_{1/2}, M_{3/2} */
  if (n == 1) return exp(-z);
  double z2 = z * z;
  for (int k = 3; k <= n; ++k) {
    /* order k - 1/2 from k - 3/2 and k - 5/2 */
    double c = fma(z2 / (4.0 * (k - 1.5) * (k - 2.5)), a, b);
    a = b;
    b = c;
  }
  return b * exp(-z);
}

/* M_nu(z) for nu >= BESSEL_K_DEBYE_NU from Debye's expansion of K_nu and
 * Stirling's series of Gamma(nu), combined by hand so that the large terms
 * (nu log nu, nu log z, nu eta) cancel exactly:
 * log M = nu (log1p(w/2) - w) - (Stirling correction) - log1p(zeta^2)/4 + log S,
 * zeta = z / nu, w = sqrt(1 + zeta^2) - 1. log M is then of moderate size
 * (about -z^2 / (4 nu)), so M keeps its relative accuracy. */
GS_HD static inline double matern_corr_debye(double nu, double z)
{
  /* w = zeta^2 / (1 + r), grouped so that zeta^2 cannot overflow */
  const double zeta = z / nu, r = hypot(1.0, zeta), w = zeta * (zeta / (1.0 + r));
  const double in2 = 1.0 / (nu * nu);
  const double stirling = (1.0 / 12.0 + in2 * (-1.0 / 360.0 + in2 / 1260.0)) / nu;
  double ds_dp, ds_dnu;
  double sum = bessel_k_debye_sum(1.0 / r, nu, &ds_dp, &ds_dnu);
  return exp(nu * (log1p(0.5 * w) - w) - stirling - 0.25 * log1p(zeta * zeta) + log(sum));
}

/* f^(2^j) as m 2^e with m in [0.5, 1): repeated squaring of a value in range
 * costs a few ulps, whereas pow or exp of a huge argument would cost
 * |argument| ulps. */
GS_HD static inline double matern_square_up(double f, int j, int *e)
{
  int ef;
  double m = frexp(f, &ef);
  *e = ef;
  for (int i = 0; i < j; ++i) {
    m = frexp(m * m, &ef);
    *e = 2 * *e + ef;
  }
  return m;
}

/* Past this z the correlation is below 2^-1075 for every order below
 * BESSEL_K_DEBYE_NU, so it rounds to 0: K_nu(z) <= sqrt(2 pi / z)
 * exp(nu^2 / (2z) - z) bounds its logarithm by nu log z - z + 6 < -88000.
 * This also keeps the binary exponents of matern_square_up in int range. */
#define MATERN_ZERO_Z 1e5

/* The Matérn correlation at 0 < z < inf. */
GS_HD static inline double matern_corr_positive(const matern_order *m, double z)
{
  if (m->o.mu == -0.5 && m->o.n <= MATERN_CLOSED_FORM_MAX_N && z < 700.0) return matern_corr_half_integer(m->o.n, z);
  if (m->nu >= BESSEL_K_DEBYE_NU) return matern_corr_debye(m->nu, z);
  if (z >= MATERN_ZERO_Z) return 0.0;
  bessel_k_scaled r = bessel_k_scaled_eval(&m->o, z);
  int e;
  double rm = frexp(r.m, &e);
  double p = pow(z, m->nu);
  if (p > 0x1p-900 && p < 0x1p900 && r.xs < 600.0)
    return ldexp(m->c_m * p * rm * exp(-r.xs), m->c_e2 + r.e2 + e);
  /* z^nu or exp(-z) leaves the double range: split both exponents by a
   * power of two (exactly) and square back up in mantissa-exponent form. */
  int jp = (int)fmax(0.0, ceil(log2(fabs(m->nu * log2(z)) / 800.0)));
  int jx = (int)fmax(0.0, ceil(log2(r.xs / 600.0)));
  int ep, ex;
  double mp = matern_square_up(pow(z, ldexp(m->nu, -jp)), jp, &ep);
  double mx = matern_square_up(exp(-ldexp(r.xs, -jx)), jx, &ex);
  return ldexp(m->c_m * rm * mp * mx, m->c_e2 + r.e2 + e + ep + ex);
}

/* The Matérn correlation at z = d / range >= 0. M decreases from M(0) = 1,
 * but next to z = 0 the product of its rounded factors (an ulp or so per step
 * of the recurrence, more at large orders) can land just above 1; min()
 * removes that, and only moves such a value closer to the true one. */
GS_HD static inline double matern_corr(const matern_order *m, double z)
{
  if (!(z > 0.0)) return (z == 0.0) ? 1.0 : NAN;
  if (isinf(z)) return 0.0;
  return fmin(1.0, matern_corr_positive(m, z));
}

/* A covariance model prepared for its evaluations, with the Matérn's
 * per-order constants computed once: what the CPU loops and the device
 * kernels read, for every family (GS_COV_FAMILIES). */
typedef struct {
  matern_order order; /* the Matérn's; unused by the other families */
  cov_family_shape shape; /* the other families' shapes */
  int family, metric;
  double sigma2, range, smoothness, nugget;
} matern_model;

GS_HD static inline matern_model matern_model_prepare(const gs_cov_model *c)
{
  matern_model p;
  if (c->family == GS_COV_MATERN) p.order = matern_order_prepare(c->par[GS_COV_SMOOTHNESS]);
  else p.order = matern_order_prepare(0.5); /* a valid order the family never reads */
  p.shape.power = c->par[GS_COV_POWER];
  p.shape.tail = c->par[GS_COV_TAIL];
  p.shape.kappa = c->par[GS_COV_KAPPA];
  p.shape.mu = c->par[GS_COV_MU];
  p.family = c->family;
  p.metric = c->metric;
  p.sigma2 = c->par[GS_COV_SIGMA2];
  p.range = c->par[GS_COV_RANGE];
  p.smoothness = c->par[GS_COV_SMOOTHNESS];
  p.nugget = c->par[GS_COV_NUGGET];
  return p;
}

/* The family's correlation at z = d / range: 1 at z = 0, 0 at +Inf, NaN
 * for a negative or NaN z. */
GS_HD static inline double matern_model_corr(const matern_model *p, double z)
{
  if (p->family == GS_COV_MATERN) return matern_corr(&p->order, z);
  if (!(z >= 0.0)) return NAN;
  return cov_family_corr(p->family, &p->shape, z);
}

/* sigma2 rho(d / range) at distance d, without the nugget (which belongs to
 * the same location, not to distance 0). A division, not a product with
 * 1 / range, which overflows for a subnormal range. */
GS_HD static inline double matern_model_cov(const matern_model *p, double d)
{
  return p->sigma2 * matern_model_corr(p, d / p->range);
}

/* A sum of squares below this may have lost squares that underflowed. */
#define MATERN_SQUARES_MIN 0x1p-900

/* Coordinate k of row i of a less that of row j of b, the coordinates
 * multiplied by `scale` (1, or 1/2 where the difference overflows). */
GS_HD static inline double matern_coord_diff(const double *a, long n_a, long i, const double *b, long n_b, long j,
                                             int k, double scale)
{
  return scale * a[i + k * n_a] - scale * b[j + k * n_b];
}

/* The Euclidean distance scaled by the largest coordinate difference, for
 * the rare pairs whose squares underflow or overflow. Where a difference
 * itself overflows (coordinates of opposite signs near the double range),
 * the halved coordinates give it, and the distance is then Inf rather than
 * Inf / Inf. Halving only then: it would lose the last bit of subnormal
 * differences. */
GS_HD static inline double matern_distance_scaled(const double *a, long n_a, long i,
                                                  const double *b, long n_b, long j, int dim)
{
  double scale = 1.0, big = 0.0, s = 0.0;
  for (int k = 0; k < dim; ++k) big = fmax(big, fabs(matern_coord_diff(a, n_a, i, b, n_b, j, k, 1.0)));
  if (big == 0.0) return 0.0;
  if (isinf(big)) {
    scale = 0.5;
    big = 0.0;
    for (int k = 0; k < dim; ++k) big = fmax(big, fabs(matern_coord_diff(a, n_a, i, b, n_b, j, k, scale)));
  }
  for (int k = 0; k < dim; ++k) {
    double t = matern_coord_diff(a, n_a, i, b, n_b, j, k, scale) / big;
    s = fma(t, t, s);
  }
  return big * sqrt(s) / scale;
}

/* Distance between row i of a (n_a x dim, column-major) and row j of b.
 * Great-circle distances take (longitude, latitude) in degrees and return
 * kilometres (haversine, accurate at short distances). */
GS_HD static inline double matern_distance(const double *a, long n_a, long i, const double *b,
                                           long n_b, long j, int dim, int metric)
{
  if (metric == MATERN_GREAT_CIRCLE) {
    const double rad = M_PI / 180.0;
    double lon1 = a[i] * rad, lat1 = a[i + n_a] * rad;
    double lon2 = b[j] * rad, lat2 = b[j + n_b] * rad;
    double sdlat = sin(0.5 * (lat2 - lat1)), sdlon = sin(0.5 * (lon2 - lon1));
    double cc = cos(lat1) * cos(lat2);
    double h = fma(cc, sdlon * sdlon, sdlat * sdlat);
    /* sqrt(h) without the squares where they may have underflowed */
    double sh = (h >= MATERN_SQUARES_MIN) ? sqrt(h) : hypot(sdlat, sqrt(cc) * sdlon);
    return 2.0 * MATERN_EARTH_RADIUS_KM * asin(fmin(1.0, sh));
  }
  double s = 0.0;
  for (int k = 0; k < dim; ++k) {
    double t = a[i + k * n_a] - b[j + k * n_b];
    s = fma(t, t, s);
  }
  if (s >= MATERN_SQUARES_MIN && !isinf(s)) return sqrt(s);
  return matern_distance_scaled(a, n_a, i, b, n_b, j, dim);
}

#endif
