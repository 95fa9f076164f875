/* Gauss-Legendre nodes and weights in O(n): Newton's method in theta on
 * P_n(cos theta), each evaluation O(1) by the Stieltjes expansion of P_n
 * (Szego; Hale and Townsend 2013), in long double so that the nodes carry
 * their rounding errors beyond double. A few nodes next to each pole, where
 * that expansion does not reach long double accuracy, take the three-term
 * recurrence in n instead (O(n) each, a fixed number of them). */
#include <math.h>

#include "gs_cpu.h"
#include "gs_poly.h"
#include "poly_internal.h"

#define GL_PI 3.14159265358979323846264338327950288L
/* Terms of the expansion before a node falls back to the recurrence, and the
 * relative size of the first term left out: below long double's epsilon
 * (1.1e-19), with a factor for the derivative's larger terms. */
#define GL_MAX_TERMS 64
#define GL_TOL 1e-22L
/* The nodes next to each pole that may need the recurrence (nodes 0 ..
 * GL_POLAR - 1 from the pole: the expansion reaches GL_TOL from n theta of
 * about 25, k of about 8), and the work between two calls of the progress
 * callback, per thread, in units of about a nanosecond: the cost of a node
 * is about GL_COST elsewhere, 3n at those. */
#define GL_POLAR 20
#define GL_COST 1000.0
#define GL_BATCH_WORK 2e7

/* Node k (from the north pole) is sought as theta = phi + t, phi = (k + 3/4)
 * pi / rho, rho = n + 1/2 (Tricomi's first guess), so that the phase
 * rho theta - pi / 4 of the expansion is (k + 1/2) pi + rho t: its sine and
 * cosine come from a small argument, without reducing one of order n. */
typedef struct {
  long n, k;
  long double c; /* sqrt(4 / pi) Gamma(n + 1) / Gamma(n + 3/2) */
} gl_rule;

/* P_n(cos theta) and dP_n / dtheta, with cos and sin theta. */
typedef struct {
  long double p, dp, co, s;
} gl_value;

static long double gl_gamma_ratio(long n)
{
  if (n < 100) {
    long double r = 2.0L / sqrtl(GL_PI);
    for (long k = 1; k <= n; ++k) r *= k / (k + 0.5L);
    return r;
  }
  static const long double d[] = {-0.375L, 0.125L, -0.046875L, 0.015625L, -0.0046875L,
                                  0.0026041666666666666666666667L, -0.0023018973214285714285714286L,
                                  0.00048828125L, 0.00146484375L, 0.00009765625L,
                                  -0.0038785067471590909090909091L, 0.000020345052083333333333333333L};
  const long double t = 1.0L / n;
  long double s = 0.0L;
  for (int k = (int)(sizeof d / sizeof d[0]) - 1; k >= 0; --k) s = (s + d[k]) * t;
  return expl(s) / sqrtl((long double)n);
}

/* P_n(cos theta) = c sum_m h_m Re(e^(i(rho theta - pi/4)) z^m) / sqrt(2 sin theta),
 * z = (sin theta - i cos theta) / (2 sin theta), h_0 = 1,
 * h_m = h_(m-1) (m - 1/2)^2 / (m (n + m + 1/2)); the first term left out
 * bounds the error (Szego's theorem 8.21.11; Hale and Townsend 2013, eq. 3.5).
 * Returns 0 where GL_MAX_TERMS terms do not reach GL_TOL. */
static int gl_stieltjes(const gl_rule *r, long double t, gl_value *v)
{
  const long n = r->n;
  const long double rho = n + 0.5L, cot = v->co / v->s, zr = 0.5L, zi = -0.5L * cot, az = 0.5L / v->s;
  long double tr = 1.0L, ti = 0.0L, bound = 1.0L; /* h_m z^m and h_m |z|^m */
  long double sr = 0.0L, si = 0.0L, dr = 0.0L, di = 0.0L; /* the sums for P and dP/dtheta */
  int m = 0;
  for (; m < GL_MAX_TERMS && bound * (rho + m) > GL_TOL * rho; ++m) {
    const long double f = rho + m, g = (m + 0.5L) * cot; /* d/dtheta of term m: (i f - g) times it */
    sr += tr, si += ti;
    dr += -f * ti - g * tr, di += f * tr - g * ti;
    const long double ratio = (m + 0.5L) * (m + 0.5L) / ((m + 1.0L) * (n + m + 1.5L));
    const long double nr = (tr * zr - ti * zi) * ratio, ni = (tr * zi + ti * zr) * ratio;
    tr = nr, ti = ni, bound *= ratio * az;
  }
  if (m == GL_MAX_TERMS) return 0;
  const long double sign = r->k % 2 ? -1.0L : 1.0L, er = -sign * sinl(rho * t), ei = sign * cosl(rho * t);
  const long double scale = r->c / sqrtl(2.0L * v->s);
  v->p = scale * (er * sr - ei * si);
  v->dp = scale * (er * dr - ei * di);
  return 1;
}

/* The same by the recurrence (2j - 1) x P_(j-1) = j P_j + (j - 1) P_(j-2) in
 * Reinsch's form, on the differences D_j = P_j - P_(j-1) and u = 1 - x =
 * sin^2 theta / (1 + cos theta): near the poles x rounded to long double
 * would move 1 - x, and with it P_(n-1) and the weight, by 1e-19 / theta^2
 * relative. */
static void gl_recurrence(long n, gl_value *v)
{
  const long double u = v->s * v->s / (1.0L + v->co);
  long double p = 1.0L - u, d = -u; /* P_1, D_1 */
  for (long j = 2; j <= n; ++j) {
    d = ((j - 1.0L) * d - (2.0L * j - 1.0L) * u * p) / j;
    p += d;
  }
  v->p = p;
  v->dp = n * (d - u * p) / v->s;
}

/* cos theta as the sine of pi/2 - theta = pi (n - 2k - 1) / (2n + 1) - t, so
 * that the nodes next to the equator keep their relative accuracy (theta
 * itself carries an absolute error of 1e-19). */
static gl_value gl_eval(const gl_rule *r, long double t)
{
  const long n = r->n, k = r->k;
  const long double theta = (k + 0.75L) * GL_PI / (n + 0.5L) + t;
  const long double to_equator = (n - 2.0L * k - 1.0L) * GL_PI / (2.0L * n + 1.0L) - t;
  gl_value v = {.co = sinl(to_equator), .s = sinl(theta)};
  if (r->n < 2 || !gl_stieltjes(r, t, &v)) gl_recurrence(r->n, &v);
  return v;
}

/* The first guess of t: from the zero j of J_0 (McMahon's expansion, 1e-4
 * off at the first) near the poles; elsewhere Tricomi's expansion
 * x = (1 - a) cos phi + O(n^-5), a = (n - 1) / (8 n^3) + (39 - 28 / sin^2 phi) / (384 n^4),
 * that is t = a cot phi to first order in a. */
static long double gl_guess(long n, long k)
{
  const long double rho = n + 0.5L, phi = (k + 0.75L) * GL_PI / rho;
  if (k < GL_POLAR) {
    const long double b = (k + 0.75L) * GL_PI;
    const long double j = b + 1.0L / (8.0L * b) - 31.0L / (384.0L * b * b * b);
    return j / sqrtl(rho * rho + 1.0L / 12.0L) - phi;
  }
  const double nd = (double)n, sp = sin((double)phi);
  const double a = (nd - 1.0) / (8.0 * nd * nd * nd) + (39.0 - 28.0 / (sp * sp)) / (384.0 * nd * nd * nd * nd);
  return a * cos((double)phi) / sp;
}

/* Node k: Newton's method in t until a step moves the phase rho t by less
 * than 1e-10, which leaves an error of about the square of that; the last
 * step is then taken to first order, the node's cosine and the derivative
 * (by Legendre's equation, P'' = -cot(theta) P' - n (n + 1) P) moved along
 * with it, without another evaluation. Weight: 2 / (dP/dtheta)^2. */
static void gl_node(const gl_rule *r, double *x, double *x_lo, double *w)
{
  const long double rho = r->n + 0.5L, nn1 = (long double)r->n * (r->n + 1.0L);
  long double t = gl_guess(r->n, r->k), step = 0.0L;
  gl_value v;
  for (int it = 0; it < 30; ++it) {
    v = gl_eval(r, t);
    step = v.p / v.dp;
    if (fabsl(rho * step) < 1e-10L) break;
    t -= step;
  }
  const long double node = v.co + v.s * step, dp = v.dp + (v.co / v.s * v.dp + nn1 * v.p) * step;
  x[r->k] = (double)node;
  if (x_lo) x_lo[r->k] = (double)(node - x[r->k]);
  w[r->k] = (double)(2.0L / (dp * dp));
}

/* The node after k0 at which the nodes from k0 hold at least `work`. */
static long gl_batch_end(long k0, long half, long n, double work)
{
  double done = 0.0;
  long k = k0;
  while (k < half && done < work) done += k++ < GL_POLAR ? 3.0 * n : GL_COST;
  return k;
}

gs_status gs_gauss_legendre(long n, double *x, double *x_lo, double *w, int threads, gs_progress_fn progress,
                            char *msg)
{
  if (n < 1) return gs_set_msg(msg, GS_ERR_ARG, "a Gauss-Legendre rule needs at least one node");
  const long half = (n + 1) / 2;
  const long double c = 2.0L / sqrtl(GL_PI) * gl_gamma_ratio(n);
  const int nt = gs_cpu_threads_for(threads, GL_COST * half / POLY_FLOPS_PER_WORK);
  for (long k0 = 0; k0 < half;) {
    const long k1 = gl_batch_end(k0, half, n, GL_BATCH_WORK * nt);
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1)
    for (long k = k0; k < k1; ++k) {
      const gl_rule r = {.n = n, .k = k, .c = c};
      gl_node(&r, x, x_lo, w);
    }
    if (progress && k1 < half && progress((double)k1 / half)) return gs_interrupted(msg);
    k0 = k1;
  }
  for (long k = 0; k < n / 2; ++k) {
    x[n - 1 - k] = -x[k], w[n - 1 - k] = w[k];
    if (x_lo) x_lo[n - 1 - k] = -x_lo[k];
  }
  if (n % 2) x[n / 2] = 0.0;
  if (n % 2 && x_lo) x_lo[n / 2] = 0.0;
  return GS_OK;
}
