/* The two uses of a vector field, written once for every field: its
 * velocities at the + face centres of a cell (with the cell's CFL rate) and
 * classical Runge-Kutta steps. A field is given by a component function:
 * component i at the state x and time t, the field's constants in ctx.
 *
 * This text is compiled into the package (the built-in fields, CPU and GPU)
 * and, as a string made from this file at build time, into the programs
 * compiled at run time around a user's field (by the C compiler for the CPU,
 * by NVRTC for a GPU). So it includes nothing: the includer supplies the
 * math functions, GS_HD and GS_GBEES_MAX_DIM. The field is a constant
 * argument of inlined functions, so every caller compiles to direct,
 * inlined calls of its own field. */
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

#endif
