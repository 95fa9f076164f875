/* A user's GBEES vector field compiled at run time (NVRTC) and loaded as a
 * library of the CUDA runtime. The kernels below are compiled with the
 * field, so that it is inlined; they run the arithmetic of the CPU path
 * (gbees_field_math.h, whose text the program includes), and FMA
 * contraction is off so that sums and products round as on the host. */
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gbees_field_cuda.cuh"
#include "gs_gpu_ctx.cuh"

struct gbees_field_module {
  cudaLibrary_t library;
  cudaKernel_t velocities, rk4;
};

/* The GPU's entry points, compiled after the shared field arithmetic and
 * the user's gbees_user_field (gs_gbees_field_program). */
static const char field_kernels[] =
  "extern \"C\" __global__ void gbees_field_velocities(int all, int always, const int *step_on,\n"
  "    const int *halted, const int *n_cells, const int *n_new, const double *time, const int *key,\n"
  "    const __grid_constant__ gbees_geometry geo, double *v, double *rate, int *bad_cell)\n"
  "{\n"
  "  if (!always && !(*step_on && !*halted)) return;\n"
  "  int first = all ? 0 : *n_cells, end = *n_cells + *n_new;\n"
  "  double t = *time;\n"
  "  for (int c = first + blockIdx.x * blockDim.x + threadIdx.x; c < end; c += gridDim.x * blockDim.x) {\n"
  "    double x[GBEES_DIM];\n"
  "    gbees_cell_center(&geo, GBEES_DIM, key + (size_t)c * GBEES_DIM, x);\n"
  "    double r = gbees_face_velocities(gbees_user_field, 0, GBEES_DIM, t, geo.dx, x, v + (size_t)c * GBEES_DIM);\n"
  "    rate[c] = r;\n"
  "    if (!isfinite(r)) atomicMin(bad_cell, c);\n"
  "  }\n"
  "}\n"
  "extern \"C\" __global__ void gbees_field_rk4(double *x, long long n, long long first, long long n_steps,\n"
  "    double t0, double h)\n"
  "{\n"
  "  for (long long p = blockIdx.x * (long long)blockDim.x + threadIdx.x; p < n;\n"
  "       p += (long long)gridDim.x * blockDim.x) {\n"
  "    double y[GBEES_DIM];\n"
  "    for (int i = 0; i < GBEES_DIM; i++) y[i] = x[p * GBEES_DIM + i];\n"
  "    gbees_rk4(gbees_user_field, 0, GBEES_DIM, y, t0, first, n_steps, h);\n"
  "    for (int i = 0; i < GBEES_DIM; i++) x[p * GBEES_DIM + i] = y[i];\n"
  "  }\n"
  "}\n";

static gs_status nvrtc_failed(nvrtcResult r, const char *what, char *msg)
{
  return gs_set_msg(msg, GS_ERR_CUDA, "NVRTC %s: %s", what, nvrtcGetErrorString(r));
}

/* The architecture option for the device: its own SASS where this NVRTC
 * knows it (nothing left to the driver), else PTX of the newest
 * architecture NVRTC knows that the device runs. */
static gs_status target_architecture(int device, char *option, size_t len, int *sass, char *msg)
{
  int major = 0, minor = 0, n = 0;
  cudaError_t e = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device);
  if (e != cudaSuccess) return gs_set_msg(msg, GS_ERR_CUDA, "%s", cudaGetErrorString(e));
  int want = 10 * major + minor, best = 0;
  nvrtcResult r = nvrtcGetNumSupportedArchs(&n);
  int *arch = r == NVRTC_SUCCESS && n > 0 ? (int *)malloc(n * sizeof(int)) : NULL;
  if (arch && (r = nvrtcGetSupportedArchs(arch)) == NVRTC_SUCCESS)
    for (int k = 0; k < n; k++)
      if (arch[k] <= want && arch[k] > best) best = arch[k];
  free(arch);
  if (r != NVRTC_SUCCESS) return nvrtc_failed(r, "architectures", msg);
  if (!best) return gs_set_msg(msg, GS_ERR_CUDA, "NVRTC cannot compile for compute capability %d.%d", major, minor);
  *sass = best == want;
  snprintf(option, len, "--gpu-architecture=%s_%d", *sass ? "sm" : "compute", best);
  return GS_OK;
}

/* The compiled code (SASS or PTX) of the program, or the compiler's log. */
static gs_status compile(const char *text, const char *what, int device, char **code, char *msg)
{
  char arch[64];
  int sass = 0;
  gs_status st = target_architecture(device, arch, sizeof arch, &sass, msg);
  if (st != GS_OK) return st;
  nvrtcProgram prog;
  nvrtcResult r = nvrtcCreateProgram(&prog, text, "gbees_field.cu", 0, NULL, NULL);
  if (r != NVRTC_SUCCESS) return nvrtc_failed(r, "program", msg);
  const char *options[] = {arch, "--fmad=false", "--std=c++17"};
  r = nvrtcCompileProgram(prog, 3, options);
  if (r == NVRTC_ERROR_COMPILATION) {
    size_t log_len = 0;
    nvrtcGetProgramLogSize(prog, &log_len);
    char *log = (char *)malloc(log_len + 1);
    if (log && nvrtcGetProgramLog(prog, log) == NVRTC_SUCCESS)
      st = gs_set_msg(msg, GS_ERR_ARG, "%s does not compile:\n%s", what, log);
    else
      st = gs_set_msg(msg, GS_ERR_ARG, "%s does not compile", what);
    free(log);
  } else if (r != NVRTC_SUCCESS) {
    st = nvrtc_failed(r, "compilation", msg);
  } else {
    size_t size = 0;
    r = sass ? nvrtcGetCUBINSize(prog, &size) : nvrtcGetPTXSize(prog, &size);
    *code = r == NVRTC_SUCCESS ? (char *)malloc(size) : NULL;
    if (r != NVRTC_SUCCESS) st = nvrtc_failed(r, "output", msg);
    else if (!*code) st = gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory");
    else if ((r = sass ? nvrtcGetCUBIN(prog, *code) : nvrtcGetPTX(prog, *code)) != NVRTC_SUCCESS) {
      free(*code);
      *code = NULL;
      st = nvrtc_failed(r, "output", msg);
    }
  }
  nvrtcDestroyProgram(&prog);
  return st;
}

gs_status gbees_program_load(const char *source, int dim, const char *entries, const char *what, int device,
                             int n_kernels, const char *const *names, cudaLibrary_t *library, cudaKernel_t *kernels,
                             char *msg)
{
  *library = NULL;
  gs_status st = GS_OK;
  char *text = gs_gbees_field_program(source, dim, entries), *code = NULL;
  if (!text) {
    st = gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory");
    goto done;
  }
  GS_CUDA_TRY(cudaSetDevice(device));
  GS_TRY(compile(text, what, device, &code, msg));
  GS_CUDA_TRY(cudaLibraryLoadData(library, code, NULL, NULL, 0, NULL, NULL, 0));
  for (int k = 0; k < n_kernels; k++) GS_CUDA_TRY(cudaLibraryGetKernel(&kernels[k], *library, names[k]));
done:
  if (st != GS_OK && *library) {
    cudaLibraryUnload(*library);
    *library = NULL;
  }
  free(code);
  free(text);
  return st;
}

gs_status gbees_field_compile(const gs_gbees_model *model, int device, gbees_field_module **out, char *msg)
{
  *out = NULL;
  if (!model->device_source) return gs_set_msg(msg, GS_ERR_ARG, "the model has no device code");
  gbees_field_module *m = (gbees_field_module *)calloc(1, sizeof *m);
  if (!m) return gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory");
  static const char *const names[] = {"gbees_field_velocities", "gbees_field_rk4"};
  cudaKernel_t kernels[2];
  gs_status st = gbees_program_load(model->device_source, model->dim, field_kernels, "the model's device code", device,
                                    2, names, &m->library, kernels, msg);
  if (st != GS_OK) {
    free(m);
    return st;
  }
  m->velocities = kernels[0];
  m->rk4 = kernels[1];
  *out = m;
  return GS_OK;
}

void gbees_field_free(gbees_field_module *m)
{
  if (!m) return;
  if (m->library) cudaLibraryUnload(m->library);
  free(m);
}

cudaError_t gbees_field_velocities(const gbees_field_module *m, cudaStream_t s, int blocks, int threads,
                                   const gbees_field_cells *cells, const gbees_geometry *geo, double *v,
                                   double *rate, int32_t *bad_cell)
{
  gbees_geometry g = *geo;
  gbees_field_cells c = *cells;
  void *args[] = {&c.all, &c.always, &c.step_on, &c.halted, &c.n_cells, &c.n_new, &c.time, &c.key, &g, &v, &rate,
                  &bad_cell};
  return cudaLaunchKernel((const void *)m->velocities, dim3(blocks), dim3(threads), args, 0, s);
}

cudaError_t gbees_field_rk4(const gbees_field_module *m, cudaStream_t s, int blocks, int threads, double *x,
                            long long n, long long first, long long n_steps, double t0, double h)
{
  void *args[] = {&x, &n, &first, &n_steps, &t0, &h};
  return cudaLaunchKernel((const void *)m->rk4, dim3(blocks), dim3(threads), args, 0, s);
}
