/* What every vector field and measurement function shares, written once:
 * a field's velocities at the + face centres of a cell (with the cell's CFL
 * rate), classical Runge-Kutta steps, and the Gaussian log-likelihood of a
 * measurement of a function of the state at a cell centre. A field or a
 * measurement function is given by a component function: component i at the
 * state x and time t, its constants in ctx.
 *
 * This text is compiled into the package (the built-in fields and
 * measurements of states, CPU and GPU) and, as a string made from this file
 * at build time, into the programs compiled at run time around a user's
 * field or measurement function (by the C compiler for the CPU, by NVRTC for
 * a GPU). So it includes nothing: the includer supplies the math functions,
 * INFINITY, GS_HD and GS_GBEES_MAX_DIM. The component function is a constant
 * argument of inlined functions, so every caller compiles to direct, inlined
 * calls of its own function. */
#ifndef GBEES_FIELD_MATH_H
#define GBEES_FIELD_MATH_H

typedef double (*gbees_component_fn)(const void *ctx, double t, const double *x, int i);

/* The velocities of the field at the + face centres of the cell centred at
 * x (component i at the face across dimension i), into v; returns the
 * cell's CFL rate sum_i |v_i| / dx_i. */
static inline GS_HD double gbees_face_velocities(gbees_component_fn field, const void *ctx, int dim, double t,
                                                 const double *dx, double *x, double *v)
{
  double rate = 0.0;
  for (int i = 0; i < dim; i++) {
    double xi = x[i];
    x[i] += 0.5 * dx[i];
    v[i] = field(ctx, t, x, i);
    x[i] = xi;
    rate += fabs(v[i]) / dx[i];
  }
  return rate;
}

/* Classical Runge-Kutta steps first .. first + n_steps - 1 of h from the
 * state y (in place); step s starts at t0 + s h, so that batches of steps
 * give the same path as one run. */
static inline GS_HD void gbees_rk4(gbees_component_fn field, const void *ctx, int dim, double *y, double t0,
                                   long long first, long long n_steps, double h)
{
  double k[4][GS_GBEES_MAX_DIM], z[GS_GBEES_MAX_DIM];
  const double frac[4] = {0.0, 0.5, 0.5, 1.0};
  for (long long s = first; s < first + n_steps; s++) {
    double t = t0 + s * h;
    for (int st = 0; st < 4; st++) {
      for (int i = 0; i < dim; i++) z[i] = st ? y[i] + frac[st] * h * k[st - 1][i] : y[i];
      for (int i = 0; i < dim; i++) k[st][i] = field(ctx, t + frac[st] * h, z, i);
    }
    for (int i = 0; i < dim; i++) y[i] += h / 6.0 * (k[0][i] + 2.0 * k[1][i] + 2.0 * k[2][i] + k[3][i]);
  }
}

/* Where the cells are: cell key k is centred at center + dx k. */
typedef struct {
  double center[GS_GBEES_MAX_DIM], dx[GS_GBEES_MAX_DIM];
} gbees_geometry;

static inline GS_HD void gbees_cell_center(const gbees_geometry *geo, int dim, const int *key, double *x)
{
  for (int i = 0; i < dim; i++) x[i] = geo->center[i] + geo->dx[i] * key[i];
}

/* One observation y (m quantities, m <= GS_GBEES_MAX_DIM) at time t of
 * h(x) + e with Gaussian noise e ~ N(0, L L'), L lower triangular
 * (column-major m x m). */
typedef struct {
  double t;
  int m;
  double y[GS_GBEES_MAX_DIM];
  double L[GS_GBEES_MAX_DIM * GS_GBEES_MAX_DIM];
} gbees_observation;

/* The log-likelihood of the observation at the state x, up to a constant:
 * -|L^-1 (h(x) - y)|^2 / 2 with h(x)_j = h(ctx, t, x, j). A state where h is
 * not finite gets -INFINITY (likelihood zero, as dnorm(y, mean = Inf) is 0):
 * it cannot have produced a finite observation. */
static inline GS_HD double gbees_measurement_loglik(gbees_component_fn h, const void *ctx,
                                                    const gbees_observation *obs, const double *x)
{
  int m = obs->m;
  double z[GS_GBEES_MAX_DIM], q = 0.0;
  for (int j = 0; j < m; j++) {
    double r = h(ctx, obs->t, x, j) - obs->y[j];
    for (int k = 0; k < j; k++) r -= obs->L[j + k * m] * z[k];
    z[j] = r / obs->L[j + j * m];
    q += z[j] * z[j];
  }
  return isnan(q) ? -INFINITY : -0.5 * q;
}

/* The same at the centre of the cell with this key. */
static inline GS_HD double gbees_cell_loglik(gbees_component_fn h, const void *ctx, const gbees_observation *obs,
                                             const gbees_geometry *geo, int dim, const int *key)
{
  double x[GS_GBEES_MAX_DIM];
  gbees_cell_center(geo, dim, key, x);
  return gbees_measurement_loglik(h, ctx, obs, x);
}

#endif
