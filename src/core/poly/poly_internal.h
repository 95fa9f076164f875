/* What the polynomial-transform files share, and no other domain uses: the
 * normalisation of the Jones-Worland polynomials and the connection tables. */
#ifndef GS_POLY_INTERNAL_H
#define GS_POLY_INTERNAL_H

#ifdef __cplusplus
extern "C" {
#endif

/* Floating-point operations per unit of work of gs_cpu_threads_for (a unit is
 * one element evaluation of the numerical kernels, tens of nanoseconds): the
 * CPU loops of this domain give their work in operations, divided by this. */
#define POLY_FLOPS_PER_WORK 50.0

/* log h_n^l, h_n^l = int_0^1 (W_n^l)^2 (1 - r^2)^(-1/2) dr, in long double. */
long double gs_jw_log_norm(int n, int l);
/* The unit W_0^l(r) / r^l = h_0^(-1/2). */
double gs_jw_q0(int l);

/* W_n^l(1) in the normalisation norm (GS_JW_UNIT or GS_JW_NATURAL), from its
 * closed form. */
double gs_jw_at_one(int n, int l, int norm);

/* The connection bidiagonals of degree l: mu_n^beta, nu_n^beta for
 * beta = l0 + b + 1/2, b = 0 .. levels - 1, at [b * len + n] (poly_math.h). */
typedef struct {
  int l0, levels; /* base degree (l mod 2) and number of betas, l - l0 */
  long len;       /* entries per beta */
  double *mu, *nu;
} gs_jw_chain;

/* 1 on success, 0 when out of memory (then gs_jw_chain_free is still due). */
int gs_jw_chain_make(gs_jw_chain *c, int l, long len);
void gs_jw_chain_free(gs_jw_chain *c);

#ifdef __cplusplus
}
#endif

#endif
