/* Element-wise maps on a GPU: inputs of full length travel in chunks sized
 * from the free device memory, recycled (shorter) inputs are uploaded once,
 * and one kernel per op applies the same GS_HD function as the CPU path. */
#include <stdint.h>

#include <cub/device/device_radix_sort.cuh>

#include "gs_bench.h"
#include "gs_bench_cuda.cuh"
#include "gs_gpu_ctx.cuh"
#include "gs_map.h"

#define MAP_THREADS 256
/* Elements per chunk at most: keeps each chunk of the slowest op (qstable)
 * to about a second, the latency of an interrupt. */
#define MAP_MAX_CHUNK ((size_t)1 << 24)

typedef struct {
  const double *in[GS_MAP_MAX_IN];
  size_t len[GS_MAP_MAX_IN]; /* 0: chunk-local array read at the chunk index */
  size_t each[GS_MAP_MAX_IN];
} map_inputs;

__device__ static inline double map_input(const map_inputs &a, int k, int op, size_t offset, size_t i)
{
  if (k >= gs_op_arity(op)) return 0.0;
  return a.len[k] ? a.in[k][gs_map_at(offset + i, a.len[k], a.each[k])] : a.in[k][i];
}

/* Elements per lane that a warp sorts by branch before evaluating them, at
 * most. The sorted ops take one: their elements come grouped device-wide,
 * and a small call is then spread over four times as many warps (with four
 * per lane, each lane evaluates its four in turn, which a small call of the
 * slow stable densities feels). */
#define MAP_BATCH 4
#define MAP_WARPS (MAP_THREADS / 32)

__host__ __device__ static inline int map_batch(int op)
{
  return gs_op_sorted(op) ? 1 : MAP_BATCH;
}

/* Where the first pass lists the elements it declined (gs_op_eval with
 * fast set) for the second. */
typedef struct {
  unsigned *list;
  unsigned *count;
} map_deferred;

/* The device-wide order of a chunk's elements for the sorted ops
 * (gs_op_sorted): keys and element indices, double-buffered for the radix
 * sort, and its scratch space; after the sort, sorted points to the keys
 * in order. */
typedef struct {
  unsigned *key[2], *index[2];
  const unsigned *sorted;
  void *temp;
  size_t temp_bytes;
} map_order;

/* The key of an element that the key pass evaluated (gs_op_cheap_first):
 * above every sort key (stable_sort_key's classes stop at 2 << 30), so
 * that these elements come last and the first pass skips them. */
#define MAP_KEY_DONE 0xFFFFFFFFu

/* The element at position k of the evaluation order. */
__device__ static inline size_t map_position(const unsigned *order, size_t k)
{
  return order ? order[k] : k;
}

template <int OP, int FAST>
__device__ static inline void map_element(const map_inputs &a, int flags, uint64_t seed,
                                          size_t offset, size_t i, double *out, map_deferred d)
{
  double v;
  if (gs_op_eval(OP, flags, FAST, seed, offset + i, map_input(a, 0, OP, offset, i),
                 map_input(a, 1, OP, offset, i), map_input(a, 2, OP, offset, i),
                 map_input(a, 3, OP, offset, i), map_input(a, 4, OP, offset, i), &v))
    out[i] = v;
  else
    d.list[atomicAdd(d.count, 1u)] = (unsigned)i;
}

/* The keys of the sorted ops, with the identity permutation; the elements
 * that need no quadrature are evaluated here (gs_op_cheap_first). */
template <int OP>
__global__ void map_key_kernel(map_inputs a, int flags, uint64_t seed, size_t offset, size_t count,
                               map_order o, double *out)
{
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
    const double a0 = map_input(a, 0, OP, offset, i), a1 = map_input(a, 1, OP, offset, i),
                 a2 = map_input(a, 2, OP, offset, i), a3 = map_input(a, 3, OP, offset, i),
                 a4 = map_input(a, 4, OP, offset, i);
    double v;
    if (gs_op_cheap_first(OP) &&
        gs_op_eval(OP, flags, GS_EVAL_CHEAP, seed, offset + i, a0, a1, a2, a3, a4, &v)) {
      out[i] = v;
      o.key[0][i] = MAP_KEY_DONE;
    } else {
      o.key[0][i] = gs_op_sort_key(OP, flags, a0, a1, a2, a3, a4);
    }
    o.index[0][i] = (unsigned)i;
  }
}

/* Blocks of the first pass that a multiprocessor holds at least. Two for
 * the stable ops (those of gs_op_sorted, which a launch bound cannot
 * call): at 256 threads, one block at more than 128 registers per
 * thread leaves eight warps per multiprocessor, too few to hide the
 * latency of their double-precision arithmetic. */
__host__ __device__ constexpr int map_min_blocks(int op)
{
  return op == GS_OP_STABLE_D || op == GS_OP_STABLE_P || op == GS_OP_STABLE_Q ? 2 : 1;
}

/* The first pass, over the elements in the given order (NULL: as they
 * are). Each warp takes map_batch(OP) * 32 consecutive positions,
 * orders them by branch (a stable partition through ballots, in shared
 * memory) and evaluates them 32 at a time in that order: all but at most
 * one group of 32 then follow a single branch, where unsorted warps would
 * run both for every group. Positions whose sorted key is MAP_KEY_DONE
 * (keys: the sorted keys, or NULL) were evaluated by the key pass. */
template <int OP>
__global__ void __launch_bounds__(MAP_THREADS, map_min_blocks(OP))
map_kernel(map_inputs a, int flags, uint64_t seed, size_t offset, size_t count, const unsigned *order,
           const unsigned *keys, double *out, map_deferred d)
{
  __shared__ unsigned short lanes[MAP_WARPS][MAP_BATCH * 32];
  const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
  const unsigned below = (1u << lane) - 1u;
  const int batch = map_batch(OP);
  const size_t span = batch * 32;
  const size_t stride = (size_t)gridDim.x * MAP_WARPS * span;
  for (size_t base = ((size_t)blockIdx.x * MAP_WARPS + warp) * span; base < count; base += stride) {
    unsigned mask[2][MAP_BATCH];
    int total[2] = {0, 0};
#pragma unroll
    for (int j = 0; j < batch; ++j) {
      const size_t k = base + j * 32 + lane;
      const int valid = k < count && !(keys && keys[k] == MAP_KEY_DONE);
      const int b = valid ? gs_op_branch(OP, map_input(a, 0, OP, offset, map_position(order, k))) : 0;
      mask[0][j] = __ballot_sync(0xffffffffu, valid && !b);
      mask[1][j] = __ballot_sync(0xffffffffu, valid && b);
      total[0] += __popc(mask[0][j]);
      total[1] += __popc(mask[1][j]);
    }
    int seen[2] = {0, total[0]};
#pragma unroll
    for (int j = 0; j < batch; ++j) {
#pragma unroll
      for (int b = 0; b < 2; ++b) {
        if (mask[b][j] >> lane & 1u) lanes[warp][seen[b] + __popc(mask[b][j] & below)] = (unsigned short)(j * 32 + lane);
        seen[b] += __popc(mask[b][j]);
      }
    }
    __syncwarp();
    for (int slot = lane; slot < total[0] + total[1]; slot += 32)
      map_element<OP, GS_EVAL_FIRST>(a, flags, seed, offset, map_position(order, base + lanes[warp][slot]),
                                     out, d);
    __syncwarp();
  }
}

/* The second pass: the declined elements, now all of the slow kind, so
 * that their warps are not held up by fast ones or hold them up. */
template <int OP>
__global__ void map_deferred_kernel(map_inputs a, int flags, uint64_t seed, size_t offset,
                                    const unsigned *list, size_t count, double *out)
{
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  const map_deferred none = {NULL, NULL};
  for (size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x; k < count; k += stride)
    map_element<OP, GS_EVAL_ALL>(a, flags, seed, offset, list[k], out, none);
}

/* Blocks of the first pass of op (and of the benchmark's inputs). */
static unsigned map_blocks(const gs_gpu_ctx *c, size_t count, int op)
{
  size_t per_block = (size_t)MAP_THREADS * map_batch(op);
  size_t want = (count + per_block - 1) / per_block;
  size_t cap = (size_t)c->multiprocessors * 32;
  return (unsigned)(want < cap ? (want ? want : 1) : cap);
}

/* One kernel launch of either pass: the first when list is NULL. */
typedef struct {
  int flags;
  uint64_t seed;
  unsigned blocks;
  cudaStream_t stream;
  map_inputs in;
  size_t offset, count;
  double *out;
  map_deferred deferred; /* first pass: where declined elements go */
  map_order order;       /* sorted ops: the order of the first pass */
  const unsigned *list;  /* second pass: the declined elements */
} map_launch_args;

/* Which kernel to launch for one op. */
typedef enum { MAP_KEYS, MAP_FIRST, MAP_DEFERRED } map_stage;

template <int OP>
static cudaError_t map_launch_op(map_stage stage, const map_launch_args &l)
{
  if (stage == MAP_KEYS) {
    map_key_kernel<OP><<<l.blocks, MAP_THREADS, 0, l.stream>>>(l.in, l.flags, l.seed, l.offset, l.count,
                                                               l.order, l.out);
    return cudaGetLastError();
  }
  if (stage == MAP_DEFERRED) {
    map_deferred_kernel<OP><<<l.blocks, MAP_THREADS, 0, l.stream>>>(l.in, l.flags, l.seed, l.offset,
                                                                    l.list, l.count, l.out);
    return cudaGetLastError();
  }
  /* the sort leaves the permutation in index[0] (see map_order_sort) */
  const unsigned *order = gs_op_sorted(OP) ? l.order.index[0] : NULL;
  const unsigned *keys = gs_op_sorted(OP) ? l.order.sorted : NULL;
  map_kernel<OP><<<l.blocks, MAP_THREADS, 0, l.stream>>>(l.in, l.flags, l.seed, l.offset, l.count, order,
                                                         keys, l.out, l.deferred);
  return cudaGetLastError();
}

static cudaError_t map_launch(int op, map_stage stage, const map_launch_args &l)
{
  switch (op) {
#define GS_MAP_CASE(OP, name, arity) \
  case OP: return map_launch_op<OP>(stage, l);
    GS_MAP_OPS(GS_MAP_CASE)
#undef GS_MAP_CASE
  default: return cudaErrorInvalidValue;
  }
}

/* Scratch bytes of the radix sort of count keys (0 bytes for other ops). */
static cudaError_t map_order_temp_bytes(int op, size_t count, size_t *bytes)
{
  cub::DoubleBuffer<unsigned> keys(NULL, NULL), index(NULL, NULL);
  *bytes = 0;
  if (!gs_op_sorted(op)) return cudaSuccess;
  return cub::DeviceRadixSort::SortPairs(NULL, *bytes, keys, index, (int)count);
}

/* The keys of l->count elements, sorted with their indices; the sorted
 * indices end in index[0], l->order.sorted points to the sorted keys. */
static cudaError_t map_order_sort(int op, map_launch_args *l)
{
  cudaError_t e = map_launch(op, MAP_KEYS, *l);
  cub::DoubleBuffer<unsigned> keys(l->order.key[0], l->order.key[1]);
  cub::DoubleBuffer<unsigned> index(l->order.index[0], l->order.index[1]);
  size_t bytes = l->order.temp_bytes;
  if (e == cudaSuccess)
    e = cub::DeviceRadixSort::SortPairs(l->order.temp, bytes, keys, index, (int)l->count, 0, 32, l->stream);
  if (e == cudaSuccess && index.Current() != l->order.index[0])
    e = cudaMemcpyAsync(l->order.index[0], index.Current(), l->count * sizeof(unsigned),
                        cudaMemcpyDeviceToDevice, l->stream);
  l->order.sorted = keys.Current();
  return e;
}

/* Both passes over l.count elements: the first on every element (in key
 * order for the sorted ops), then the second on those it declined (their
 * number read back in between). */
static cudaError_t map_run(const gs_gpu_ctx *c, int op, map_launch_args l)
{
  unsigned declined = 0;
  cudaError_t e = cudaMemsetAsync(l.deferred.count, 0, sizeof(unsigned), l.stream);
  l.blocks = map_blocks(c, l.count, op);
  l.list = NULL;
  if (e == cudaSuccess && gs_op_sorted(op)) e = map_order_sort(op, &l);
  if (e == cudaSuccess) e = map_launch(op, MAP_FIRST, l);
  if (e == cudaSuccess)
    e = cudaMemcpyAsync(&declined, l.deferred.count, sizeof(unsigned), cudaMemcpyDeviceToHost, l.stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(l.stream);
  if (e != cudaSuccess || declined == 0) return e;
  l.list = l.deferred.list;
  l.count = declined;
  l.blocks = (unsigned)((declined + MAP_THREADS - 1) / MAP_THREADS);
  return map_launch(op, MAP_DEFERRED, l);
}

/* Device bytes per element of a chunk besides its inputs: the output, the
 * deferred list and, for the sorted ops, two keys and two indices. */
static size_t map_work_per_element(int op)
{
  return sizeof(double) + sizeof(unsigned) + (gs_op_sorted(op) ? 4 * sizeof(unsigned) : 0);
}

/* Device bytes ahead of the inputs: the sort's scratch (first, for its
 * alignment) and the deferred counter. */
static size_t map_work_head(size_t temp_bytes)
{
  return (temp_bytes + 255) / 256 * 256 + sizeof(double);
}

/* Places the sort's scratch and the deferred counter at the head of work,
 * and returns where the inputs start. */
static char *map_work_head_carve(map_launch_args *l, char *work, size_t temp_bytes)
{
  l->order.temp = work;
  l->order.temp_bytes = temp_bytes;
  work += map_work_head(temp_bytes) - sizeof(double);
  l->deferred.count = (unsigned *)work;
  return work + sizeof(double);
}

/* Places the output, the deferred list and the order arrays of a chunk
 * after the inputs, at work. */
static void map_work_tail_carve(map_launch_args *l, int op, char *work, size_t chunk)
{
  l->out = (double *)work;
  l->deferred.list = (unsigned *)(work + chunk * sizeof(double));
  for (int k = 0; k < 2; ++k) {
    l->order.key[k] = gs_op_sorted(op) ? l->deferred.list + (1 + k) * chunk : NULL;
    l->order.index[k] = gs_op_sorted(op) ? l->deferred.list + (3 + k) * chunk : NULL;
  }
}

extern "C" gs_status gs_map_gpu(int device, const gs_map_args *a, gs_progress_fn progress, char *msg)
{
  gs_status st = GS_OK;
  gs_gpu_ctx *c = NULL;
  if (a->op < 0 || a->op >= GS_OP_COUNT) return gs_set_msg(msg, GS_ERR_ARG, "unknown operation %d", a->op);
  if (a->n == 0) return GS_OK;
  const int arity = gs_op_arity(a->op);
  size_t temp_bytes = 0;
  GS_TRY(gs_gpu_ctx_get(device, &c, msg));
  /* the sort's scratch depends on the device, now current */
  GS_CUDA_TRY(map_order_temp_bytes(a->op, a->n < MAP_MAX_CHUNK ? a->n : MAP_MAX_CHUNK, &temp_bytes));
  {
    size_t recycled = map_work_head(temp_bytes), per_elem = map_work_per_element(a->op);
    /* an input shorter than n (recycled, or grouped by each) is uploaded
     * once; one of length n travels in chunks */
    for (int k = 0; k < arity; ++k) {
      if (a->len[k] < a->n) recycled += a->len[k] * sizeof(double);
      else per_elem += sizeof(double);
    }
    size_t free_b = 0;
    GS_TRY(gs_gpu_ctx_free_memory(c, &free_b, msg));
    size_t usable = gs_gpu_budget(free_b);
    if (usable <= recycled + per_elem * 1024) {
      st = gs_set_msg(msg, GS_ERR_NOMEM, "not enough free GPU memory (%.0f MB free)", free_b / 1e6);
      goto done;
    }
    size_t chunk = (usable - recycled) / per_elem;
    if (chunk > MAP_MAX_CHUNK) chunk = MAP_MAX_CHUNK;
    if (chunk > a->n) chunk = a->n;
    char *work = NULL;
    GS_TRY(gs_gpu_ctx_workspace(c, recycled + chunk * per_elem, (void **)&work, msg));
    map_launch_args l;
    l.flags = a->flags;
    l.seed = a->seed;
    l.stream = c->stream[0];
    work = map_work_head_carve(&l, work, temp_bytes);
    map_inputs &in = l.in;
    double *chunk_in[GS_MAP_MAX_IN] = {0};
    for (int k = 0; k < arity; ++k) {
      double *p = (double *)work;
      if (a->len[k] < a->n) {
        work += a->len[k] * sizeof(double);
        GS_TRY(gs_gpu_copy_to_device(c, p, a->in[k], a->len[k] * sizeof(double), 0, msg));
        in.len[k] = a->len[k];
        in.each[k] = a->each[k];
      } else {
        work += chunk * sizeof(double);
        chunk_in[k] = p;
        in.len[k] = 0;
        in.each[k] = 1;
      }
      in.in[k] = p;
    }
    map_work_tail_carve(&l, a->op, work, chunk);
    for (size_t start = 0; start < a->n; start += chunk) {
      size_t count = (a->n - start < chunk) ? a->n - start : chunk;
      for (int k = 0; k < arity; ++k)
        if (chunk_in[k]) GS_TRY(gs_gpu_copy_to_device(c, chunk_in[k], a->in[k] + start, count * sizeof(double), 0, msg));
      l.offset = start;
      l.count = count;
      GS_CUDA_TRY(map_run(c, a->op, l));
      GS_TRY(gs_gpu_copy_to_host(c, a->out + start, l.out, count * sizeof(double), 0, msg));
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

/* Random inputs of the benchmarks: for the Bessel ops nu uniform in
 * (0, 20] and x log-uniform in [1e-3, 140]; for the stable ops alpha
 * uniform in [0.5, 2], beta in [-1, 1], gamma = 1, delta = 0, and x
 * uniform in [-100, 100] (p uniform in (0, 1) for the quantile). */
__global__ void bench_map_inputs(int op, double *in0, double *in1, double *in2, double *in3,
                                 double *in4, size_t n)
{
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    if (gs_op_arity(op) == 2) {
      in0[i] = 1e-3 * exp(rng_uniform(1, i) * log(140.0 / 1e-3));
      in1[i] = 20.0 * rng_uniform(2, i);
      continue;
    }
    double alpha = 0.5 + 1.5 * rng_uniform(3, i), beta = -1.0 + 2.0 * rng_uniform(4, i);
    double x = op == GS_OP_STABLE_Q ? rng_uniform(1, i) : -100.0 + 200.0 * rng_uniform(1, i);
    if (op == GS_OP_STABLE_R) {
      in0[i] = alpha;
      in1[i] = beta;
      in2[i] = 1.0;
      in3[i] = 0.0;
    } else {
      in0[i] = x;
      in1[i] = alpha;
      in2[i] = beta;
      in3[i] = 1.0;
      in4[i] = 0.0;
    }
  }
}

/* Times one op (the sort, where the op has one, and both passes) on n
 * device-resident random inputs. */
extern "C" gs_status gs_bench_map_gpu(int device, int op, size_t n, int reps, double *seconds, char *msg)
{
  gs_status st = GS_OK;
  gs_gpu_ctx *c = NULL;
  double *in[GS_MAP_MAX_IN] = {0};
  char *work = NULL;
  if (op < 0 || op >= GS_OP_COUNT || op == GS_OP_MATERN || reps < 1 || n == 0 || n > UINT32_MAX)
    return gs_set_msg(msg, GS_ERR_ARG, "the map benchmark takes a Bessel or stable op, n >= 1 and reps >= 1");
  GS_TRY(gs_gpu_ctx_get(device, &c, msg));
  gs_gpu_ctx_workspace_release(c); /* the inputs need the room */
  for (int k = 0; k < gs_op_arity(op); ++k) GS_CUDA_TRY(cudaMalloc(&in[k], n * sizeof(double)));
  {
    size_t temp_bytes = 0;
    GS_CUDA_TRY(map_order_temp_bytes(op, n, &temp_bytes));
    GS_CUDA_TRY(cudaMalloc(&work, map_work_head(temp_bytes) + n * map_work_per_element(op)));
    map_launch_args l;
    l.flags = 0;
    l.seed = 1;
    l.stream = c->stream[0];
    l.offset = 0;
    l.count = n;
    map_work_tail_carve(&l, op, map_work_head_carve(&l, work, temp_bytes), n);
    for (int k = 0; k < GS_MAP_MAX_IN; ++k) {
      l.in.in[k] = in[k];
      l.in.len[k] = 0;
      l.in.each[k] = 1;
    }
    bench_map_inputs<<<map_blocks(c, n, op), MAP_THREADS, 0, l.stream>>>(op, in[0], in[1], in[2], in[3], in[4], n);
    GS_CUDA_TRY(cudaGetLastError());
    st = bench_time(l.stream, reps, [&] { return map_run(c, op, l); }, seconds, msg);
  }
done:
  if (c) cudaStreamSynchronize(c->stream[0]);
  for (int k = 0; k < GS_MAP_MAX_IN; ++k) cudaFree(in[k]);
  cudaFree(work);
  return st;
}
