/* GBEES measurement updates on a GPU: the log-likelihood of every cell
 * centre, computed where the cells are. A measurement of states runs the
 * package's kernel; a user's measurement function is compiled at run time
 * with NVRTC (as a user's field is), its kernel around the shared
 * likelihood of gbees_field_math.h. */
#include <stdlib.h>
#include <string.h>

#include "gbees_gpu.cuh"

struct gbees_gpu_measurement {
  int device;
  cudaLibrary_t library; /* a user's function, or NULL */
  cudaKernel_t loglik;
};

/* The compiled function's kernel, after its gbees_user_measurement. */
static const char measurement_kernel[] =
  "extern \"C\" __global__ void gbees_measurement_cells(int n, const int *key, const __grid_constant__ gbees_geometry geo,\n"
  "    const __grid_constant__ gbees_observation obs, double *loglik)\n"
  "{\n"
  "  for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < n; c += gridDim.x * blockDim.x)\n"
  "    loglik[c] = gbees_cell_loglik(gbees_user_measurement, 0, &obs, &geo, GBEES_DIM, key + (size_t)c * GBEES_DIM);\n"
  "}\n";

/* The states observed, passed by value. */
typedef struct {
  int index[GS_GBEES_MAX_DIM];
} state_index;

__global__ static void state_measurement_cells(int32_t n, int dim, const int32_t *key,
                                               const __grid_constant__ gbees_geometry geo,
                                               const __grid_constant__ gbees_observation obs,
                                               const __grid_constant__ state_index states, double *loglik)
{
  GRID_STRIDE(c, n) loglik[c] = gbees_cell_loglik(gbees_state_component, states.index, &obs, &geo, dim, key + c * dim);
}

extern "C" gs_status gbees_gpu_measurement_start(int device, int dim, const char *source, gbees_gpu_measurement **out,
                                                 char *msg)
{
  *out = NULL;
  gbees_gpu_measurement *h = (gbees_gpu_measurement *)calloc(1, sizeof *h);
  if (!h) return gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory");
  h->device = device;
  static const char *const names[] = {"gbees_measurement_cells"};
  gs_status st = source ? gbees_program_load(source, dim, measurement_kernel, "the measurement function's device code",
                                             device, 1, names, &h->library, &h->loglik, msg)
                        : GS_OK;
  if (st != GS_OK) {
    free(h);
    return st;
  }
  *out = h;
  return GS_OK;
}

extern "C" gs_status gbees_gpu_measurement_loglik(const gs_gbees *g, const gbees_gpu_measurement *h, const int *index,
                                                  const gbees_observation *obs, double *loglik, char *msg)
{
  const gbees_gpu *gpu = g->gpu;
  cudaStream_t s = gpu->stream;
  int32_t n = g->n_cells;
  int dim = g->dim, blocks = blocks_for(gpu, n);
  gbees_geometry geo = gbees_grid_geometry(g);
  double *d_loglik = NULL;
  gs_status st = GS_OK;
  if (h->device != gpu->ctx->device)
    return gs_set_msg(msg, GS_ERR_ARG, "the measurement was prepared for GPU %d, the grid is on GPU %d", h->device,
                      gpu->ctx->device);
  GS_CUDA_TRY(cudaSetDevice(h->device));
  GS_CUDA_TRY(cudaMalloc(&d_loglik, (size_t)n * sizeof(double) + sizeof(double)));
  if (index) {
    state_index states;
    memcpy(states.index, index, obs->m * sizeof(int));
    state_measurement_cells<<<blocks, GBEES_THREADS, 0, s>>>(n, dim, gpu->cell.key, geo, *obs, states, d_loglik);
    GS_CUDA_TRY(cudaGetLastError());
  } else {
    const int32_t *key = gpu->cell.key;
    gbees_observation o = *obs;
    void *args[] = {&n, &key, &geo, &o, &d_loglik};
    GS_CUDA_TRY(cudaLaunchKernel((const void *)h->loglik, dim3(blocks), dim3(GBEES_THREADS), args, 0, s));
  }
  GS_CUDA_TRY(cudaMemcpyAsync(loglik, d_loglik, (size_t)n * sizeof(double), cudaMemcpyDeviceToHost, s));
  GS_CUDA_TRY(cudaStreamSynchronize(s));
done:
  cudaFree(d_loglik);
  return st;
}

extern "C" void gbees_gpu_measurement_free(gbees_gpu_measurement *h)
{
  if (!h) return;
  if (h->library) {
    cudaSetDevice(h->device);
    cudaLibraryUnload(h->library);
  }
  free(h);
}
