/* The program compiled at run time around a user's vector field or
 * measurement function, the same for the C compiler (CPU) and NVRTC (GPU):
 * the dimensions, the qualifier and math of the compiler at hand, the
 * shared field arithmetic (gbees_field_math.h, embedded at build time), the
 * user's component function and the device's entry points. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gbees_field_math_text.h"
#include "gs_gbees.h"

/* NVRTC has no headers: its math functions are built in, and infinity is
 * spelt by its bits. */
static const char head[] = "#define GBEES_DIM %d\n"
                           "#define GS_GBEES_MAX_DIM %d\n"
                           "#ifdef __CUDACC__\n"
                           "#define GS_HD __host__ __device__\n"
                           "#define INFINITY __longlong_as_double(0x7ff0000000000000LL)\n"
                           "#else\n"
                           "#include <math.h>\n"
                           "#define GS_HD\n"
                           "#endif\n";

const char gs_gbees_field_entries[] =
  "double gbees_user_velocities(double t, const double *dx, double *x, double *v)\n"
  "{\n"
  "  return gbees_face_velocities(gbees_user_field, 0, GBEES_DIM, t, dx, x, v);\n"
  "}\n"
  "void gbees_user_rk4(double *y, double t0, long long first, long long n_steps, double h)\n"
  "{\n"
  "  gbees_rk4(gbees_user_field, 0, GBEES_DIM, y, t0, first, n_steps, h);\n"
  "}\n";

const char gs_gbees_measurement_entries[] =
  "double gbees_user_loglik(const void *observation, const void *geometry, const int *key)\n"
  "{\n"
  "  return gbees_cell_loglik(gbees_user_measurement, 0, (const gbees_observation *)observation,\n"
  "                           (const gbees_geometry *)geometry, GBEES_DIM, key);\n"
  "}\n";

char *gs_gbees_field_program(const char *source, int dim, const char *entries)
{
  size_t len = sizeof head + 64 + sizeof gbees_field_math_text + strlen(source) + strlen(entries) + 4;
  char *text = (char *)malloc(len);
  if (!text) return NULL;
  int n = snprintf(text, len, head, dim, GS_GBEES_MAX_DIM);
  snprintf(text + n, len - n, "%s%s\n%s", gbees_field_math_text, source, entries);
  return text;
}
