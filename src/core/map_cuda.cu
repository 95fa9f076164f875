/* Element-wise maps on a GPU: inputs of full length travel in chunks sized
 * from the free device memory, recycled (shorter) inputs are uploaded once,
 * and one kernel per op applies the same GS_HD function as the CPU path. */
#include <stdint.h>

#include "gs_bench.h"
#include "gs_bench_cuda.cuh"
#include "gs_gpu_ctx.cuh"
#include "gs_map.h"

#define MAP_THREADS 256
/* Elements per chunk at most: keeps each chunk well under a second. */
#define MAP_MAX_CHUNK ((size_t)1 << 26)

typedef struct {
  const double *in[GS_MAP_MAX_IN];
  size_t len[GS_MAP_MAX_IN]; /* 0: chunk-local array read at the chunk index */
} map_inputs;

__device__ static inline double map_input(const map_inputs &a, int k, int op, size_t offset, size_t i)
{
  if (k >= gs_op_arity(op)) return 0.0;
  return a.len[k] ? a.in[k][(offset + i) % a.len[k]] : a.in[k][i];
}

/* Elements per lane that a warp sorts by branch before evaluating them. */
#define MAP_BATCH 4
#define MAP_WARPS (MAP_THREADS / 32)

/* Each warp takes MAP_BATCH * 32 consecutive elements, orders them by branch
 * (a stable partition through ballots, in shared memory) and evaluates them
 * 32 at a time in that order: all but at most one group of 32 then follow a
 * single branch, where unsorted warps would run both for every group. */
template <int OP>
__global__ void map_kernel(map_inputs a, int flags, uint64_t seed, size_t offset, size_t count,
                           double *out)
{
  __shared__ unsigned short order[MAP_WARPS][MAP_BATCH * 32];
  const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
  const unsigned below = (1u << lane) - 1u;
  const size_t span = MAP_BATCH * 32;
  const size_t stride = (size_t)gridDim.x * MAP_WARPS * span;
  for (size_t base = ((size_t)blockIdx.x * MAP_WARPS + warp) * span; base < count; base += stride) {
    unsigned mask[2][MAP_BATCH];
    int total[2] = {0, 0};
#pragma unroll
    for (int j = 0; j < MAP_BATCH; ++j) {
      const size_t i = base + j * 32 + lane;
      const int valid = i < count;
      const int b = valid ? gs_op_branch(OP, map_input(a, 0, OP, offset, i)) : 0;
      mask[0][j] = __ballot_sync(0xffffffffu, valid && !b);
      mask[1][j] = __ballot_sync(0xffffffffu, valid && b);
      total[0] += __popc(mask[0][j]);
      total[1] += __popc(mask[1][j]);
    }
    int seen[2] = {0, total[0]};
#pragma unroll
    for (int j = 0; j < MAP_BATCH; ++j) {
#pragma unroll
      for (int b = 0; b < 2; ++b) {
        if (mask[b][j] >> lane & 1u) order[warp][seen[b] + __popc(mask[b][j] & below)] = (unsigned short)(j * 32 + lane);
        seen[b] += __popc(mask[b][j]);
      }
    }
    __syncwarp();
    for (int slot = lane; slot < total[0] + total[1]; slot += 32) {
      const size_t i = base + order[warp][slot];
      out[i] = gs_op_apply(OP, flags, seed, offset + i, map_input(a, 0, OP, offset, i),
                           map_input(a, 1, OP, offset, i),
                           map_input(a, 2, OP, offset, i), map_input(a, 3, OP, offset, i),
                           map_input(a, 4, OP, offset, i));
    }
    __syncwarp();
  }
}

static unsigned map_blocks(const gs_gpu_ctx *c, size_t count)
{
  size_t want = (count + MAP_THREADS * MAP_BATCH - 1) / (MAP_THREADS * MAP_BATCH);
  size_t cap = (size_t)c->multiprocessors * 32;
  return (unsigned)(want < cap ? (want ? want : 1) : cap);
}

static cudaError_t map_launch(int op, int flags, uint64_t seed, unsigned blocks, cudaStream_t s,
                              map_inputs in, size_t offset, size_t count, double *out)
{
  switch (op) {
#define GS_MAP_CASE(OP) \
  case OP: map_kernel<OP><<<blocks, MAP_THREADS, 0, s>>>(in, flags, seed, offset, count, out); break;
    GS_MAP_CASE(GS_OP_BESSEL_K)
    GS_MAP_CASE(GS_OP_BESSEL_K_SCALED)
    GS_MAP_CASE(GS_OP_BESSEL_K_LOG)
    GS_MAP_CASE(GS_OP_BESSEL_K_LOG_SCALED)
    GS_MAP_CASE(GS_OP_BESSEL_K_DNU)
    GS_MAP_CASE(GS_OP_BESSEL_K_DX)
    GS_MAP_CASE(GS_OP_MATERN)
    GS_MAP_CASE(GS_OP_STABLE_D)
    GS_MAP_CASE(GS_OP_STABLE_P)
    GS_MAP_CASE(GS_OP_STABLE_Q)
    GS_MAP_CASE(GS_OP_STABLE_R)
#undef GS_MAP_CASE
  default: return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

extern "C" gs_status gs_map_gpu(int device, const gs_map_args *a, gs_progress_fn progress, char *msg)
{
  gs_status st = GS_OK;
  gs_gpu_ctx *c = NULL;
  if (a->op < 0 || a->op >= GS_OP_COUNT) return gs_set_msg(msg, GS_ERR_ARG, "unknown operation %d", a->op);
  if (a->n == 0) return GS_OK;
  const int arity = gs_op_arity(a->op);
  size_t recycled = 0, per_elem = sizeof(double); /* output */
  for (int k = 0; k < arity; ++k) {
    if (a->len[k] < a->n) recycled += a->len[k] * sizeof(double);
    else per_elem += sizeof(double);
  }
  size_t free_b = 0;
  GS_TRY(gs_gpu_ctx_get(device, &c, msg));
  GS_TRY(gs_gpu_ctx_free_memory(c, &free_b, msg));
  {
    size_t usable = free_b / 10 * 8;
    if (usable <= recycled + per_elem * 1024) {
      st = gs_set_msg(msg, GS_ERR_NOMEM, "not enough free GPU memory (%.0f MB free)", free_b / 1e6);
      goto done;
    }
    size_t chunk = (usable - recycled) / per_elem;
    if (chunk > MAP_MAX_CHUNK) chunk = MAP_MAX_CHUNK;
    if (chunk > a->n) chunk = a->n;
    char *work = NULL;
    GS_TRY(gs_gpu_ctx_workspace(c, recycled + chunk * per_elem, (void **)&work, msg));
    cudaStream_t s = c->stream[0];
    map_inputs in;
    double *chunk_in[GS_MAP_MAX_IN] = {0};
    for (int k = 0; k < arity; ++k) {
      double *p = (double *)work;
      if (a->len[k] < a->n) {
        work += a->len[k] * sizeof(double);
        GS_TRY(gs_gpu_copy_to_device(c, p, a->in[k], a->len[k] * sizeof(double), 0, msg));
        in.len[k] = a->len[k];
      } else {
        work += chunk * sizeof(double);
        chunk_in[k] = p;
        in.len[k] = 0;
      }
      in.in[k] = p;
    }
    double *out = (double *)work;
    for (size_t start = 0; start < a->n; start += chunk) {
      size_t count = (a->n - start < chunk) ? a->n - start : chunk;
      for (int k = 0; k < arity; ++k)
        if (chunk_in[k]) GS_TRY(gs_gpu_copy_to_device(c, chunk_in[k], a->in[k] + start, count * sizeof(double), 0, msg));
      GS_CUDA_TRY(map_launch(a->op, a->flags, a->seed, map_blocks(c, count), s, in, start, count, out));
      GS_TRY(gs_gpu_copy_to_host(c, a->out + start, out, count * sizeof(double), 0, msg));
      if (progress && start + count < a->n && progress((double)(start + count) / a->n)) {
        st = gs_interrupted(msg);
        goto done;
      }
    }
  }
done:
  if (c && st != GS_OK) cudaStreamSynchronize(c->stream[0]);
  return st;
}

__global__ void bench_bessel_inputs(double *x, double *nu, size_t n)
{
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    x[i] = 1e-3 * exp(rng_uniform(1, i) * log(140.0 / 1e-3));
    nu[i] = 20.0 * rng_uniform(2, i);
  }
}

extern "C" gs_status gs_bench_map_gpu(int device, int op, size_t n, int reps, double *seconds, char *msg)
{
  gs_status st = GS_OK;
  gs_gpu_ctx *c = NULL;
  double *x = NULL, *nu = NULL, *out = NULL;
  if (op < 0 || op >= GS_OP_COUNT || gs_op_arity(op) != 2 || reps < 1 || n == 0)
    return gs_set_msg(msg, GS_ERR_ARG, "the map benchmark takes a Bessel op, n >= 1 and reps >= 1");
  GS_TRY(gs_gpu_ctx_get(device, &c, msg));
  GS_CUDA_TRY(cudaMalloc(&x, n * sizeof(double)));
  GS_CUDA_TRY(cudaMalloc(&nu, n * sizeof(double)));
  GS_CUDA_TRY(cudaMalloc(&out, n * sizeof(double)));
  {
    cudaStream_t s = c->stream[0];
    bench_bessel_inputs<<<map_blocks(c, n), MAP_THREADS, 0, s>>>(x, nu, n);
    GS_CUDA_TRY(cudaGetLastError());
    map_inputs in;
    in.in[0] = x;
    in.in[1] = nu;
    in.len[0] = in.len[1] = 0;
    const unsigned blocks = map_blocks(c, n);
    st = bench_time(s, reps, [&] { return map_launch(op, 0, 0, blocks, s, in, 0, n, out); }, seconds, msg);
  }
done:
  if (c) cudaStreamSynchronize(c->stream[0]);
  cudaFree(x);
  cudaFree(nu);
  cudaFree(out);
  return st;
}
