/* A user's GBEES vector field on the GPU: its device code (gs_gbees_model's
 * device_source) compiled at run time with NVRTC for the device at hand,
 * with the two kernels that evaluate it, so that no model needs the package
 * rebuilt; and the compilation that a measurement function shares. */
#ifndef GBEES_FIELD_CUDA_CUH
#define GBEES_FIELD_CUDA_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include "gbees_math.h"

/* Compiles the program of gs_gbees_field_program(source, dim, entries) for
 * `device` (current on return), loads it and finds its kernels
 * names[0 .. n_kernels-1]. On a compile error msg holds `what` and the
 * compiler's log. */
gs_status gbees_program_load(const char *source, int dim, const char *entries, const char *what, int device,
                             int n_kernels, const char *const *names, cudaLibrary_t *library, cudaKernel_t *kernels,
                             char *msg);

typedef struct gbees_field_module gbees_field_module;

/* Compiles the field of `model` for `device` (current on return). On a
 * compile error msg holds the compiler's log. */
gs_status gbees_field_compile(const gs_gbees_model *model, int device, gbees_field_module **out, char *msg);
void gbees_field_free(gbees_field_module *m);

/* Which cells get velocities, and when. The pointers are to device memory,
 * read when the kernel runs, so that a captured graph sees each step's
 * values. */
typedef struct {
  int all;    /* all cells, else those from *n_cells on (growth's new ones) */
  int always; /* else only in a step that advances (*step_on, not *halted):
               * as on the CPU, growth reads velocities of the time of the
               * step before, so a step that does not advance leaves them */
  const int32_t *step_on, *halted;
  const int32_t *n_cells, *n_new; /* the cells end at *n_cells + *n_new */
  const double *time;
  const int32_t *key;
} gbees_field_cells;

/* Velocities and CFL rates, as the CPU path computes them (the field at each
 * + face centre, component i for face i). The lowest cell whose rate is not
 * finite goes to *bad_cell (atomicMin). */
cudaError_t gbees_field_velocities(const gbees_field_module *m, cudaStream_t s, int blocks, int threads,
                                   const gbees_field_cells *cells, const gbees_geometry *geo, double *v,
                                   double *rate, int32_t *bad_cell);

/* Classical Runge-Kutta steps first .. first + n_steps - 1 of h (step s
 * starts at t0 + s h) for the n states x (device memory, state p at
 * x[p * dim]), in the arithmetic of the CPU path. */
cudaError_t gbees_field_rk4(const gbees_field_module *m, cudaStream_t s, int blocks, int threads, double *x,
                            long long n, long long first, long long n_steps, double t0, double h);

#endif
