/* The tile Cholesky on one GPU: the ops of the plan (tile_plan.h) are issued
 * in order, asynchronously, to GS_TILE_WORKERS compute streams for the tiles
 * below the diagonal, one high-priority stream for the diagonal and one copy
 * stream per direction. CUDA events carry the dependencies between streams:
 *   - a tile's `ready` event: its data in its slot is valid (loaded,
 *     generated, updated or finished), so that an accumulator can pass from
 *     one stream to another;
 *   - a slot's `used` event per stream: that stream's last op on the slot,
 *     waited for before the slot takes another tile;
 *   - a tile's `stored` event: its copy to the host is complete, waited for
 *     before the tile is loaded again.
 * Every wait refers to work issued earlier, so the streams cannot deadlock.
 * The host stays at most TILE_LAG columns ahead of the device, so progress,
 * an interrupt and a failed POTRF are seen within a few columns.
 *
 * Several GPUs: the tile rows are dealt cyclically to them (tile_row_owner),
 * each with its own plan, cache and streams (a tile_run), and every finished tile goes to
 * host memory. A device reads another's tiles from there once their
 * `stored` event (shared, recorded on the owner's copy stream) has passed:
 * the host issues column k to the owner of tile row k first, so every such
 * event is recorded before it is waited for.
 *
 * Mixed precision: a slot holds its tile in the tile's device format
 * (tile_device_format: FP8 tiles as FP16) once the tile is finished (and
 * while it is loaded as an operand); a tile that is not FP64 accumulates in
 * FP32. An update c -= a b' of a tile that is not FP64 runs in the lowest
 * precision of its three tiles, FP16 at the lowest (SGEMM, or FP16
 * tensor-core products with FP32 sums). An FP64 tile is updated by DGEMM
 * (DSYRK on the diagonal), or on the tensor cores when both its operands
 * are FP16 or FP8: the product of two FP16 values is exact in FP32, so only
 * the FP32 sums round, by less than the operands' own rounding, and the
 * product is subtracted from the tile in FP64.
 * The product of a low operand already carries that operand's rounding,
 * u_low ||a|| ||b||, so rounding the other operand to the same format at
 * most doubles the product's error, while far-off-diagonal operands make
 * most updates of the FP32 tiles near the diagonal FP16 products. Operands
 * in another format are converted into a per-stream buffer; FP16 and FP8
 * operands carry their tile's scale, undone by the product's alpha. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gs_bench.h"
#include "gs_bench_cuda.cuh"
#include "gs_cpu.h"
#include "gs_gpu_ctx.cuh"
#include "gs_matern_cuda.cuh"
#include "gs_tile.h"
#include "tile_gemm.cuh"
#include "tile_kernels.cuh"
#include "tile_plan.h"

#define TILE_LAG 2
#define TILE_STREAMS (GS_TILE_COMPUTE + 2)
#define TILE_H2D GS_TILE_COMPUTE
#define TILE_D2H (GS_TILE_COMPUTE + 1)
/* Device memory left to cuBLAS, cuSOLVER and the runtime. */
#define TILE_RESERVE_BYTES ((size_t)768 << 20)

/* What the devices of one factorization share, per tile: finished (the
 * host issued its last op) and its copy to the host. */
typedef struct {
  unsigned char *final;
  cudaEvent_t *stored;
} tile_shared;

typedef struct {
  gs_gpu_ctx *c;
  tile_shared *shared;
  int owner, owners; /* this device's tile rows: tile_row_owner(i) = owner */
  int inverted;      /* the last column whose diagonal tile, another device's, this one inverted */
  gs_tile_matrix *m;
  const gs_tile_source *src;
  gs_tile_info *info;
  int store; /* copy each finished tile to the host (0: L stays in device memory, resident) */
  tile_plan plan;
  double *slots;
  int slots_shared;        /* the slots are the device context's workspace, kept for the next run */
  cudaEvent_t *slot_used;  /* [slot * TILE_STREAMS + stream] */
  unsigned *slot_users;    /* streams that used the slot since its tile arrived */
  cudaEvent_t *ready;
  signed char *ready_on;   /* stream of the last `ready` record, -1 before */
  cudaEvent_t column_done[TILE_LAG + 1][GS_TILE_COMPUTE];
  int *info_dev, *info_host; /* POTRF status per tile column */
  void *potrf_work[GS_TILE_COMPUTE];
  void *potrf_host[GS_TILE_COMPUTE];
  size_t potrf_bytes, potrf_host_bytes;
  void *trtri_work[GS_TILE_COMPUTE];
  void *trtri_host[GS_TILE_COMPUTE];
  size_t trtri_bytes, trtri_host_bytes;
  int *trtri_info;        /* per stream; a failed POTRF is reported through info_dev */
  double *inverse;        /* L_kk^-1 of column k at (k % (TILE_LAG + 1)) * nb * nb */
  double *scratch;        /* per compute stream: the out-of-place products of a solve or an inversion */
  double *locs; /* Matérn source: the locations of tile row i from i * nb * dim */
  void *operand[GS_TILE_COMPUTE]; /* mixed precision: per stream, two operand tiles in a product's format */
  float *inverse32;               /* mixed precision: the FP32 copies of the inverses, laid out as `inverse` */
  unsigned char *overflow;        /* mixed precision: per tile, a value did not fit its format */
  matern_tile_args gen;
  tile_gemm gemm;         /* the FP64 product of whole tiles */
  long op;                /* the op being issued */
  cudaEvent_t *trace;     /* with a trace: start and end of op p at 2p, 2p + 1 */
  signed char *trace_on;  /* stream of op p */
  cudaEvent_t trace_origin;
} tile_run;

static cudaStream_t run_stream(const tile_run *r, int q) { return r->c->tile_stream[q]; }

static double *slot_ptr(const tile_run *r, int s) { return r->slots + (size_t)s * r->m->nb * r->m->nb; }

static double *inverse_ptr(const tile_run *r, int k)
{
  return r->inverse + (size_t)(k % (TILE_LAG + 1)) * r->m->nb * r->m->nb;
}

static double *scratch_ptr(const tile_run *r, int q) { return r->scratch + (size_t)q * r->m->nb * r->m->nb; }

static float *inverse32_ptr(const tile_run *r, int k)
{
  return r->inverse32 + (size_t)(k % (TILE_LAG + 1)) * r->m->nb * r->m->nb;
}

static void *operand_ptr(const tile_run *r, int q, int which)
{
  return (char *)r->operand[q] + (size_t)which * r->m->nb * r->m->nb * sizeof(double);
}

static size_t tile_entries(const gs_tile_matrix *m, int t)
{
  int i, j;
  gs_tile_coords(t, &i, &j);
  return (size_t)gs_tile_rows(m, i) * gs_tile_rows(m, j);
}

static cudaError_t event_record(cudaEvent_t *e, cudaStream_t s)
{
  if (!*e) {
    cudaError_t err = cudaEventCreateWithFlags(e, cudaEventDisableTiming);
    if (err != cudaSuccess) return err;
  }
  return cudaEventRecord(*e, s);
}

/* Stream q may overwrite slot s once every other stream's last use is done. */
static cudaError_t slot_claim(tile_run *r, int q, int s)
{
  for (int u = 0; u < TILE_STREAMS; ++u)
    if (u != q && (r->slot_users[s] >> u & 1u)) {
      cudaError_t err = cudaStreamWaitEvent(run_stream(r, q), r->slot_used[(size_t)s * TILE_STREAMS + u], 0);
      if (err != cudaSuccess) return err;
    }
  r->slot_users[s] = 0;
  return cudaSuccess;
}

static cudaError_t slot_use(tile_run *r, int q, int s)
{
  r->slot_users[s] |= 1u << q;
  return event_record(&r->slot_used[(size_t)s * TILE_STREAMS + q], run_stream(r, q));
}

static cudaError_t tile_wait(tile_run *r, int q, int t)
{
  if (r->ready_on[t] < 0 || r->ready_on[t] == q) return cudaSuccess;
  return cudaStreamWaitEvent(run_stream(r, q), r->ready[t], 0);
}

static cudaError_t tile_ready(tile_run *r, int q, int t)
{
  r->ready_on[t] = (signed char)q;
  return event_record(&r->ready[t], run_stream(r, q));
}

/* With a trace: the start (end = 0) or end of the current op on stream q. */
static cudaError_t trace_mark(tile_run *r, int q, int end)
{
  if (!r->trace) return cudaSuccess;
  cudaEvent_t *e = &r->trace[2 * r->op + end];
  r->trace_on[r->op] = (signed char)q;
  if (!*e) {
    cudaError_t err = cudaEventCreate(e);
    if (err != cudaSuccess) return err;
  }
  return cudaEventRecord(*e, run_stream(r, q));
}

/* The trace rows of the ops that ran on every device (after the streams are
 * synchronized), in device order. Each device's times count from its own
 * origin event; the origins are recorded back to back before any work. */
static gs_status trace_collect(tile_run *runs, int ndev, gs_tile_info *info, char *msg)
{
  gs_status st = GS_OK;
  long nops = 0, n = 0;
  for (int g = 0; g < ndev; ++g) nops += runs[g].plan.nops;
  double *rows = (double *)malloc((size_t)nops * GS_TILE_TRACE_COLS * sizeof(double));
  if (!rows) return gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory for the trace");
  for (int g = 0; g < ndev; ++g) {
    const tile_run *r = &runs[g];
    GS_CUDA_TRY(cudaSetDevice(r->c->device));
    for (long p = 0; p < r->plan.nops; ++p) {
      const tile_op *op = &r->plan.ops[p];
      float t0 = 0.0f, t1 = 0.0f;
      if (!r->trace[2 * p] || !r->trace[2 * p + 1]) continue;
      GS_CUDA_TRY(cudaEventElapsedTime(&t0, r->trace_origin, r->trace[2 * p]));
      GS_CUDA_TRY(cudaEventElapsedTime(&t1, r->trace_origin, r->trace[2 * p + 1]));
      double *row = rows + n++ * GS_TILE_TRACE_COLS;
      int i = op->i, j = op->j, k = op->k;
      if (op->kind == TILE_OP_LOAD || op->kind == TILE_OP_STORE) { /* the tile moved: (i, j), no k */
        gs_tile_coords(op->tile[0], &i, &j);
        k = -1;
      }
      row[0] = r->trace_on[p];
      row[1] = op->kind;
      row[2] = i;
      row[3] = j;
      row[4] = k;
      row[5] = 1e-3 * t0;
      row[6] = 1e-3 * t1;
      row[7] = g;
    }
  }
  info->trace = rows;
  info->trace_rows = n;
  rows = NULL;
done:
  free(rows);
  return st;
}

/* The generator's arguments for tile (i, j), from those of the whole matrix
 * and the device locations grouped by tile row (gs_tile_locs_blocked). */
static matern_tile_args matern_tile_of(const matern_tile_args *whole, const gs_tile_matrix *m, const double *locs,
                                       int dim, int i, int j, int lower_only)
{
  const size_t block = (size_t)m->nb * dim;
  matern_tile_args g = *whole;
  g.sym = (i == j);
  g.lower_only = g.sym && lower_only;
  g.locs1 = locs + (size_t)i * block;
  g.locs2 = locs + (size_t)j * block;
  g.n1 = gs_tile_rows(m, i);
  g.n2 = gs_tile_rows(m, j);
  return g;
}

/* A_ij of a Matérn source, generated in dst on stream q. */
static cudaError_t load_generate(tile_run *r, int q, int i, int j, double *dst)
{
  const matern_tile_args g = matern_tile_of(&r->gen, r->m, r->locs, r->src->dim, i, j, 1);
  return matern_tile_launch(&g, 0, g.n2, dst, run_stream(r, q));
}

/* A tile's initial value into slot s: generated, or copied in its format;
 * a tile that is not FP64 is then converted to its FP32 accumulator (an
 * FP16 one through its format, as the host would have stored it). */
static cudaError_t load_initial(tile_run *r, int q, int t, int s, int generate)
{
  const gs_tile_matrix *m = r->m;
  const int p = m->precision[t];
  const size_t count = tile_entries(m, t);
  char *slot = (char *)slot_ptr(r, s), *upper = slot + count * sizeof(float);
  int i, j;
  cudaError_t err;
  gs_tile_coords(t, &i, &j);
  if (p == GS_TILE_FP64) {
    if (generate) return load_generate(r, q, i, j, (double *)slot);
    return cudaMemcpyAsync(slot, gs_tile_ptr(m, i, j), gs_tile_bytes(m, t), cudaMemcpyHostToDevice, run_stream(r, q));
  }
  if (generate) {
    double *values = scratch_ptr(r, q);
    if ((err = load_generate(r, q, i, j, values)) != cudaSuccess) return err;
    if (p == GS_TILE_FP32)
      return tile_convert(values, GS_TILE_FP64, 1.0f, slot, GS_TILE_FP32, 1.0f, count, r->overflow + t,
                          run_stream(r, q));
    if ((err = tile_convert(values, GS_TILE_FP64, 1.0f, upper, p, m->scale[t], count, r->overflow + t,
                            run_stream(r, q))) != cudaSuccess)
      return err;
  } else {
    err = cudaMemcpyAsync(p == GS_TILE_FP32 ? slot : upper, gs_tile_ptr(m, i, j), gs_tile_bytes(m, t),
                          cudaMemcpyHostToDevice, run_stream(r, q));
    if (err != cudaSuccess || p == GS_TILE_FP32) return err;
  }
  return tile_convert(upper, p, m->scale[t], slot, GS_TILE_FP32, 1.0f, count, r->overflow + t, run_stream(r, q));
}

static gs_status diagonal_invert(tile_run *r, int q, int k, const double *d, char *msg);

/* The inverse of another device's diagonal tile L_kk, just loaded into slot
 * s, for this device's solves of column k: computed on the diagonal stream,
 * which has no factorization of its own in that column; the tile is ready
 * for the solves once it is. */
static gs_status foreign_diagonal_invert(tile_run *r, int k, int s, char *msg)
{
  gs_status st = GS_OK;
  const int q = GS_TILE_WORKERS, t = (int)gs_tile_index(k, k), rk = gs_tile_rows(r->m, k);
  GS_CUDA_TRY(tile_wait(r, q, t));
  GS_TRY(diagonal_invert(r, q, k, slot_ptr(r, s), msg));
  if (r->inverse32)
    GS_CUDA_TRY(tile_convert(inverse_ptr(r, k), GS_TILE_FP64, 1.0f, inverse32_ptr(r, k), GS_TILE_FP32, 1.0f,
                             (size_t)rk * rk, r->overflow + t, run_stream(r, q)));
  GS_CUDA_TRY(tile_ready(r, q, t));
  GS_CUDA_TRY(slot_use(r, q, s));
done:
  return st;
}

/* A finished tile from the host into slot s, in its device format. */
static cudaError_t load_final(tile_run *r, int q, int t, int s)
{
  const gs_tile_matrix *m = r->m;
  const int p = m->precision[t];
  const size_t count = tile_entries(m, t);
  void *slot = slot_ptr(r, s), *bytes = tile_transfer_ptr(slot, p, count);
  int i, j;
  gs_tile_coords(t, &i, &j);
  cudaError_t err = cudaMemcpyAsync(bytes, gs_tile_ptr(m, i, j), gs_tile_bytes(m, t), cudaMemcpyHostToDevice,
                                    run_stream(r, q));
  if (err != cudaSuccess || bytes == slot) return err;
  return tile_convert(bytes, p, m->scale[t], slot, tile_device_format(p), m->scale[t], count, NULL, run_stream(r, q));
}

static gs_status op_load(tile_run *r, const tile_op *op, char *msg)
{
  gs_status st = GS_OK;
  const int t = op->tile[0], s = op->slot[0];
  const int generate = !r->shared->final[t] && !r->src->a;
  const int q = generate ? op->worker : TILE_H2D;
  int i, j;
  gs_tile_coords(t, &i, &j);
  GS_CUDA_TRY(slot_claim(r, q, s));
  if (r->shared->final[t]) GS_CUDA_TRY(cudaStreamWaitEvent(run_stream(r, q), r->shared->stored[t], 0));
  GS_CUDA_TRY(trace_mark(r, q, 0));
  if (r->shared->final[t])
    GS_CUDA_TRY(load_final(r, q, t, s));
  else
    GS_CUDA_TRY(load_initial(r, q, t, s, generate));
  if (!generate) r->info->bytes_to_device += (double)gs_tile_bytes(r->m, t);
  GS_CUDA_TRY(trace_mark(r, q, 1));
  GS_CUDA_TRY(tile_ready(r, q, t));
  GS_CUDA_TRY(slot_use(r, q, s));
  r->info->tile_loads++;
  if (i == j && tile_row_owner(i, r->m->nt, r->owners) != r->owner && i != r->inverted) { /* once: a reload must not rewrite it under a solve */
    GS_TRY(foreign_diagonal_invert(r, i, s, msg));
    r->inverted = i;
  }
done:
  return st;
}

static gs_status op_store(tile_run *r, const tile_op *op, char *msg)
{
  gs_status st = GS_OK;
  const int t = op->tile[0], s = op->slot[0], q = TILE_D2H;
  if (!r->store) return GS_OK;
  GS_CUDA_TRY(tile_wait(r, q, t));
  GS_CUDA_TRY(trace_mark(r, q, 0));
  GS_CUDA_TRY(cudaMemcpyAsync(gs_tile_ptr(r->m, op->i, op->k),
                              tile_transfer_ptr(slot_ptr(r, s), r->m->precision[t], tile_entries(r->m, t)),
                              gs_tile_bytes(r->m, t), cudaMemcpyDeviceToHost, run_stream(r, q)));
  GS_CUDA_TRY(trace_mark(r, q, 1));
  GS_CUDA_TRY(event_record(&r->shared->stored[t], run_stream(r, q)));
  GS_CUDA_TRY(slot_use(r, q, s));
  r->info->bytes_to_host += (double)gs_tile_bytes(r->m, t);
done:
  return st;
}

/* Zeroes the strict upper triangle of an n x n block with leading dimension ld. */
__global__ void upper_zero_kernel(double *a, int n, int ld)
{
  const int row = blockIdx.x * blockDim.x + threadIdx.x, col = blockIdx.y;
  if (row < col && col < n) a[(size_t)col * ld + row] = 0.0;
}

/* Below this order a triangular block is inverted by cuSOLVER's trtri. */
#define INVERSE_LEAF 512

/* x = l^-1 for the n x n lower-triangular l (leading dimension ld, also that
 * of x), recursively: with l = [a 0; b c], x = [a^-1 0; -c^-1 b a^-1 c^-1],
 * so that nearly all the flops are in GEMMs and cuSOLVER's trtri only sees
 * blocks of up to INVERSE_LEAF rows. The strict upper triangle of x is left
 * as it was. */
static gs_status triangle_invert(tile_run *r, int q, int n, const double *l, double *x, int ld, char *msg)
{
  gs_status st = GS_OK;
  cudaStream_t s = run_stream(r, q);
  if (n <= INVERSE_LEAF) {
    const dim3 grid((unsigned)((n + 255) / 256), (unsigned)n);
    GS_CUDA_TRY(cudaMemcpy2DAsync(x, (size_t)ld * sizeof(double), l, (size_t)ld * sizeof(double), (size_t)n * sizeof(double),
                                  (size_t)n, cudaMemcpyDeviceToDevice, s));
    upper_zero_kernel<<<grid, 256, 0, s>>>(x, n, ld);
    GS_CUDA_TRY(cudaGetLastError());
    return gs_cusolver_status(cusolverDnXtrtri(r->c->tile_solver[q], CUBLAS_FILL_MODE_LOWER, CUBLAS_DIAG_NON_UNIT, n,
                                               CUDA_R_64F, x, ld, r->trtri_work[q], r->trtri_bytes, r->trtri_host[q],
                                               r->trtri_host_bytes, r->trtri_info + q),
                              "cusolverDnXtrtri", msg);
  }
  {
    const int n1 = (n / 2 + 127) / 128 * 128, n2 = n - n1;
    const double one = 1.0, minus = -1.0, zero = 0.0;
    double *t = scratch_ptr(r, q); /* n2 x n1: b a^-1 */
    GS_TRY(triangle_invert(r, q, n1, l, x, ld, msg));
    GS_TRY(triangle_invert(r, q, n2, l + (size_t)n1 * ld + n1, x + (size_t)n1 * ld + n1, ld, msg));
    GS_TRY(gs_cublas_status(
        cublasDgemm(r->c->tile_blas[q], CUBLAS_OP_N, CUBLAS_OP_N, n2, n1, n1, &one, l + n1, ld, x, ld, &zero, t, n2),
        "cublasDgemm", msg));
    GS_TRY(gs_cublas_status(cublasDgemm(r->c->tile_blas[q], CUBLAS_OP_N, CUBLAS_OP_N, n2, n1, n2, &minus,
                                        x + (size_t)n1 * ld + n1, ld, t, n2, &zero, x + n1, ld),
                            "cublasDgemm", msg));
  }
done:
  return st;
}

/* L_kk^-1 (lower triangular, zeros above, so that its FP32 copy converts
 * no stale values) of column k, from its factored diagonal tile in d, on
 * stream q. The off-diagonal solves of the column then run as triangular
 * products (TRMM): cublasDtrsm on a 4096 x 4096 tile reaches about
 * 2 TFLOP/s on an H100 against about 49 for DGEMM, and made the solves the
 * bottleneck; a full GEMM with the inverse spends twice the solve's flops,
 * and on a 2048 tile (H100, nothing else running) took 0.32 ms against
 * 0.22 ms for the TRMM. Multiplying by the inverse of a Cholesky diagonal
 * block keeps the factor within a small multiple of the solve's rounding
 * error (Higham, Accuracy and Stability of Numerical Algorithms, ch. 13). The buffer of column k is
 * reused by column k + TILE_LAG + 1, which the host issues only after column
 * k is done on every stream. */
static gs_status diagonal_invert(tile_run *r, int q, int k, const double *d, char *msg)
{
  gs_status st = GS_OK;
  const int rk = gs_tile_rows(r->m, k);
  double *inv = inverse_ptr(r, k);
  GS_CUDA_TRY(cudaMemsetAsync(inv, 0, (size_t)rk * rk * sizeof(double), run_stream(r, q)));
  GS_TRY(triangle_invert(r, q, rk, d, inv, rk, msg));
done:
  return st;
}

/* Operand x (1 or 2) of op, finished in its slot, in format p for a
 * product that updates tile c: the slot itself, or a converted copy. */
static gs_status operand_in(tile_run *r, const tile_op *op, int x, int p, const void **out, char *msg)
{
  gs_status st = GS_OK;
  const gs_tile_matrix *m = r->m;
  const int t = op->tile[x], q = op->worker;
  const int held = tile_device_format(m->precision[t]);
  *out = slot_ptr(r, op->slot[x]);
  if (held == p) return GS_OK;
  void *copy = operand_ptr(r, q, x - 1);
  GS_CUDA_TRY(tile_convert(*out, held, m->scale[t], copy, p, m->scale[t], tile_entries(m, t),
                           r->overflow + op->tile[0], run_stream(r, q)));
  *out = copy;
done:
  return st;
}

/* The precision of the update c -= a b' (formats number from FP64 down;
 * a SYRK's b is a): FP64, FP32 or FP16. FP8 operands, held as FP16 on the
 * device, are multiplied on the FP16 tensor cores: cuBLAS multiplies FP8
 * only with the first operand transposed, which would need the tiles
 * stored transposed, and the FP16 product of two tiles already takes a
 * small fraction of the DGEMM's time; what FP8 saves is bytes. */
static int update_precision(const gs_tile_matrix *m, const tile_op *op)
{
  const int pc = m->precision[op->tile[0]], pa = m->precision[op->tile[1]];
  const int pb = op->tile[2] >= 0 ? m->precision[op->tile[2]] : pa;
  if (pc == GS_TILE_FP64) return pa >= GS_TILE_FP16 && pb >= GS_TILE_FP16 ? GS_TILE_FP16 : GS_TILE_FP64;
  const int low = pc > pa ? (pc > pb ? pc : pb) : (pa > pb ? pa : pb);
  return low > GS_TILE_FP16 ? GS_TILE_FP16 : low;
}

/* c (FP64, `rows` rows, leading dimension rows, count entries) -= t (FP32,
 * the same layout); with `lower`, only on and below the diagonal, which is
 * all that the factorization of a diagonal tile reads. */
__global__ void tile_subtract_kernel(double *c, const float *t, int rows, size_t count, int lower)
{
  for (size_t e = blockIdx.x * (size_t)blockDim.x + threadIdx.x; e < count; e += (size_t)gridDim.x * blockDim.x)
    if (!lower || e % rows >= e / rows) c[e] -= (double)t[e];
}

/* c -= a b' in the precision of update_precision (a SYRK: c -= a a'). */
static gs_status tile_update(tile_run *r, const tile_op *op, char *msg)
{
  gs_status st = GS_OK;
  const gs_tile_matrix *m = r->m;
  const int ri = gs_tile_rows(m, op->i), rk = gs_tile_rows(m, op->k), nb = m->nb, p = update_precision(m, op);
  const int syrk = op->kind == TILE_OP_SYRK, q = op->worker;
  const float scale = m->scale[op->tile[1]] * m->scale[syrk ? op->tile[1] : op->tile[2]];
  cublasHandle_t blas = r->c->tile_blas[q];
  void *c = slot_ptr(r, op->slot[0]);
  const void *a, *b;
  GS_TRY(operand_in(r, op, 1, p, &a, msg));
  if (syrk)
    b = a;
  else
    GS_TRY(operand_in(r, op, 2, p, &b, msg));
  if (m->precision[op->tile[0]] == GS_TILE_FP64 && p == GS_TILE_FP16) {
    const float inverse = 1.0f / scale, zero = 0.0f;
    const size_t count = (size_t)ri * rk;
    float *t = (float *)scratch_ptr(r, q);
    GS_TRY(gs_cublas_status(cublasGemmEx(blas, CUBLAS_OP_N, CUBLAS_OP_T, ri, rk, nb, &inverse, a, CUDA_R_16F, ri, b,
                                         CUDA_R_16F, rk, &zero, t, CUDA_R_32F, ri, CUBLAS_COMPUTE_32F,
                                         CUBLAS_GEMM_DEFAULT),
                            "cublasGemmEx", msg));
    tile_subtract_kernel<<<(unsigned)((count + 255) / 256 < 1024 ? (count + 255) / 256 : 1024), 256, 0,
                           run_stream(r, q)>>>((double *)c, t, ri, count, syrk);
    GS_CUDA_TRY(cudaGetLastError());
  } else if (p == GS_TILE_FP64) {
    const double one = 1.0, minus = -1.0;
    if (syrk)
      GS_TRY(gs_cublas_status(cublasDsyrk(blas, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, rk, nb, &minus,
                                          (const double *)a, rk, &one, (double *)c, rk),
                              "cublasDsyrk", msg));
    else if (r->gemm.usable && ri == nb && rk == nb)
      GS_TRY(gs_cublas_status(tile_gemm_run(r->c->tile_lt, &r->gemm, (const double *)a, (const double *)b,
                                            (double *)c, run_stream(r, q)),
                              "cublasLtMatmul", msg));
    else /* the last tile row and column, a small part of the work */
      GS_TRY(gs_cublas_status(cublasDgemm(blas, CUBLAS_OP_N, CUBLAS_OP_T, ri, rk, nb, &minus, (const double *)a, ri,
                                          (const double *)b, rk, &one, (double *)c, ri),
                              "cublasDgemm", msg));
  } else if (p == GS_TILE_FP32) {
    const float one = 1.0f, minus = -1.0f;
    GS_TRY(gs_cublas_status(cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_T, ri, rk, nb, &minus, (const float *)a, ri,
                                        (const float *)b, rk, &one, (float *)c, ri),
                            "cublasSgemm", msg));
  } else {
    const float one = 1.0f, alpha = -1.0f / scale;
    GS_TRY(gs_cublas_status(cublasGemmEx(blas, CUBLAS_OP_N, CUBLAS_OP_T, ri, rk, nb, &alpha, a, CUDA_R_16F, ri, b,
                                         CUDA_R_16F, rk, &one, c, CUDA_R_32F, ri, CUBLAS_COMPUTE_32F,
                                         CUBLAS_GEMM_DEFAULT),
                            "cublasGemmEx", msg));
  }
done:
  return st;
}

/* L_ik = A_ik L_kk'^-1 of a tile that is not FP64: a TRMM with the FP32
 * inverse, then the tile in its format back into its slot (an FP8 tile
 * also widened to its device format). */
static gs_status solve_low(tile_run *r, const tile_op *op, char *msg)
{
  gs_status st = GS_OK;
  const gs_tile_matrix *m = r->m;
  const int q = op->worker, t = op->tile[0], p = m->precision[t];
  const int ri = gs_tile_rows(m, op->i), rk = gs_tile_rows(m, op->k);
  const size_t count = (size_t)ri * rk;
  const float one = 1.0f;
  float *c = (float *)slot_ptr(r, op->slot[0]), *x = (float *)scratch_ptr(r, q);
  void *bytes = tile_transfer_ptr(c, p, count);
  GS_TRY(gs_cublas_status(cublasStrmm(r->c->tile_blas[q], CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T,
                                      CUBLAS_DIAG_NON_UNIT, ri, rk, &one, inverse32_ptr(r, op->k), rk, c, ri, x, ri),
                          "cublasStrmm", msg));
  GS_CUDA_TRY(tile_convert(x, GS_TILE_FP32, 1.0f, bytes, p, m->scale[t], count, r->overflow + t, run_stream(r, q)));
  if (bytes != c)
    GS_CUDA_TRY(tile_convert(bytes, p, m->scale[t], c, tile_device_format(p), m->scale[t], count, NULL,
                             run_stream(r, q)));
done:
  return st;
}

static gs_status op_compute(tile_run *r, const tile_op *op, char *msg)
{
  gs_status st = GS_OK;
  const int q = op->worker, ri = gs_tile_rows(r->m, op->i), rk = gs_tile_rows(r->m, op->k);
  const int p = r->m->precision[op->tile[0]];
  const double one = 1.0;
  cublasHandle_t blas = r->c->tile_blas[q];
  double *c = slot_ptr(r, op->slot[0]);
  for (int x = 0; x < 3; ++x)
    if (op->tile[x] >= 0) GS_CUDA_TRY(tile_wait(r, q, op->tile[x]));
  GS_CUDA_TRY(trace_mark(r, q, 0));
  switch (op->kind) {
  case TILE_OP_SYRK:
  case TILE_OP_GEMM:
    GS_TRY(tile_update(r, op, msg));
    break;
  case TILE_OP_POTRF:
    GS_TRY(gs_cusolver_status(cusolverDnXpotrf(r->c->tile_solver[q], r->c->solver_params, CUBLAS_FILL_MODE_LOWER, rk,
                                               CUDA_R_64F, c, rk, CUDA_R_64F, r->potrf_work[q], r->potrf_bytes,
                                               r->potrf_host[q], r->potrf_host_bytes, r->info_dev + op->k),
                              "cusolverDnXpotrf", msg));
    GS_CUDA_TRY(cudaMemcpyAsync(r->info_host + op->k, r->info_dev + op->k, sizeof(int), cudaMemcpyDeviceToHost,
                                run_stream(r, q)));
    GS_TRY(diagonal_invert(r, q, op->k, c, msg));
    if (r->inverse32)
      GS_CUDA_TRY(tile_convert(inverse_ptr(r, op->k), GS_TILE_FP64, 1.0f, inverse32_ptr(r, op->k), GS_TILE_FP32, 1.0f,
                               (size_t)rk * rk, r->overflow + op->tile[0], run_stream(r, q)));
    break;
  case TILE_OP_TRSM: /* L_ik = A_ik L_kk'^-1 as a TRMM with the inverse, then back into the slot */
    if (p != GS_TILE_FP64) {
      GS_TRY(solve_low(r, op, msg));
      break;
    }
    GS_TRY(gs_cublas_status(cublasDtrmm(blas, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T,
                                        CUBLAS_DIAG_NON_UNIT, ri, rk, &one, inverse_ptr(r, op->k), rk, c, ri,
                                        scratch_ptr(r, q), ri),
                            "cublasDtrmm", msg));
    GS_CUDA_TRY(cudaMemcpyAsync(c, scratch_ptr(r, q), (size_t)ri * rk * sizeof(double), cudaMemcpyDeviceToDevice,
                                run_stream(r, q)));
    break;
  }
  GS_CUDA_TRY(trace_mark(r, q, 1));
  if (op->kind == TILE_OP_POTRF || op->kind == TILE_OP_TRSM) r->shared->final[op->tile[0]] = 1;
  GS_CUDA_TRY(tile_ready(r, q, op->tile[0]));
  for (int x = 0; x < 3; ++x)
    if (op->slot[x] >= 0) GS_CUDA_TRY(slot_use(r, q, op->slot[x]));
done:
  return st;
}

static gs_status op_issue(tile_run *r, const tile_op *op, char *msg)
{
  if (op->kind == TILE_OP_LOAD) return op_load(r, op, msg);
  if (op->kind == TILE_OP_STORE) return op_store(r, op, msg);
  return op_compute(r, op, msg);
}

/* Waits for column k; a failed POTRF and an interrupt stop the run. */
static gs_status column_wait(tile_run *r, int k, const gs_tile_options *opt, char *msg)
{
  gs_status st = GS_OK;
  const int nt = r->m->nt;
  for (int w = 0; w < GS_TILE_COMPUTE; ++w) GS_CUDA_TRY(cudaEventSynchronize(r->column_done[k % (TILE_LAG + 1)][w]));
  if (r->info_host[k] > 0) {
    r->info->failed_minor = (long)k * r->m->nb + r->info_host[k];
    return gs_set_msg(msg, GS_ERR_NOT_PD, "the leading minor of order %ld is not positive", r->info->failed_minor);
  }
  if (opt->progress && r->owner == 0 && k + 1 < nt) { /* one report per column */
    const double left = (double)(nt - k - 1) / nt;
    if (opt->progress(1.0 - left * left * left)) return gs_interrupted(msg);
  }
done:
  return st;
}

/* As many slots as the free memory holds, at most one per tile. A cache
 * that becomes the resident factor (`resident` and every tile fits) has
 * memory of its own; any other is the device context's workspace, which the
 * next factorization reuses (workspace_is_cache) instead of allocating and
 * freeing tens of GB again. */
static gs_status slots_fit(tile_run *r, const gs_tile_options *opt, int resident, int *slots, char *msg)
{
  gs_status st = GS_OK;
  const size_t bytes = (size_t)r->m->nb * r->m->nb * sizeof(double);
  const long ntiles = gs_tile_count(r->m->nt);
  size_t free_b = 0;
  GS_TRY(gs_gpu_ctx_free_memory(r->c, &free_b, msg)); /* the workspace counts as free */
  {
    double fit = ((double)free_b * 0.97 - (double)TILE_RESERVE_BYTES) / (double)bytes;
    long n = fit < (double)ntiles ? (long)fit : ntiles;
    if (opt->cache_tiles > 0 && opt->cache_tiles < n) n = opt->cache_tiles;
    for (; n >= 3; n = n * 9 / 10) {
      const int own = resident && n == ntiles;
      void *p = NULL;
      if (own) gs_gpu_ctx_workspace_release(r->c);
      if (own ? cudaMalloc(&p, (size_t)n * bytes) == cudaSuccess
              : gs_gpu_ctx_workspace(r->c, (size_t)n * bytes, &p, msg) == GS_OK) {
        r->slots = (double *)p;
        r->slots_shared = !own;
        break;
      }
      cudaGetLastError();
    }
    if (!r->slots)
      return gs_set_msg(msg, GS_ERR_NOMEM, "GPU %d has %.1f GB free, too little for three %d x %d tiles", r->c->device,
                        free_b / 1e9, r->m->nb, r->m->nb);
    *slots = (int)n;
  }
done:
  return st;
}

/* Tile slots: as many as the free memory holds, at most one per tile; or
 * the memory of the resident factor again. L stays resident when
 * opt->resident asks for it and every tile has a slot; otherwise it goes
 * to host memory. */
static int slots_resident(const tile_run *r, const gs_tile_options *opt)
{
  return opt->resident && r->owners == 1; /* several devices share their tiles through the host */
}

static gs_status slots_alloc(tile_run *r, const gs_tile_options *opt, int *slots, char *msg)
{
  gs_status st = GS_OK;
  gs_tile_matrix *m = r->m;
  const int resident = slots_resident(r, opt);
  if (m->resident && resident && m->resident->device == r->c->device) {
    r->slots = (double *)m->resident->tiles;
    *slots = (int)gs_tile_count(m->nt);
    r->store = 0;
    return GS_OK;
  }
  gs_tile_resident_free(m); /* its memory goes to the cache */
  GS_TRY(slots_fit(r, opt, resident, slots, msg));
  r->store = !(resident && *slots == gs_tile_count(m->nt));
  if (r->store) GS_TRY(gs_tile_matrix_host(m, msg));
done:
  return st;
}

/* The workspace of an earlier run is this run's cache again when it holds
 * whole tiles of this size, no more than the run wants, and the memory
 * beside it has room for what run_setup allocates before the cache (the
 * reserve, the inverses and the per-stream scratch and operand tiles).
 * Out of core the cache takes nearly all the device memory: releasing and
 * allocating it again cost 0.5 s per factorization and per device. Any
 * other workspace is released: the tiles need the room (a cache that
 * becomes the resident factor releases it in slots_fit). */
static int workspace_is_cache(const tile_run *r, long wanted, char *msg)
{
  const size_t tile_size = (size_t)r->m->nb * r->m->nb * sizeof(double), work = r->c->work_bytes;
  size_t free_b = 0;
  if (!work || work % tile_size || work > (size_t)wanted * tile_size) return 0;
  if (gs_gpu_ctx_free_memory(r->c, &free_b, msg) != GS_OK) return 0;
  return free_b - work >= TILE_RESERVE_BYTES + (3 * GS_TILE_COMPUTE + 2 * (TILE_LAG + 1)) * tile_size;
}

static gs_status run_setup(tile_run *r, const gs_tile_options *opt, char *msg)
{
  gs_status st = GS_OK;
  gs_tile_matrix *m = r->m;
  const long ntiles = gs_tile_count(m->nt);
  const size_t tile_size = (size_t)m->nb * m->nb * sizeof(double);
  int slots = 0;
  const long wanted = opt->cache_tiles > 0 && opt->cache_tiles < ntiles ? opt->cache_tiles : ntiles;
  if (!workspace_is_cache(r, wanted, msg)) gs_gpu_ctx_workspace_release(r->c);
  GS_TRY(gs_cusolver_status(cusolverDnXpotrf_bufferSize(r->c->tile_solver[0], r->c->solver_params,
                                                        CUBLAS_FILL_MODE_LOWER, m->nb, CUDA_R_64F, NULL, m->nb,
                                                        CUDA_R_64F, &r->potrf_bytes, &r->potrf_host_bytes),
                            "cusolverDnXpotrf_bufferSize", msg));
  GS_TRY(gs_cusolver_status(cusolverDnXtrtri_bufferSize(r->c->tile_solver[0], CUBLAS_FILL_MODE_LOWER,
                                                        CUBLAS_DIAG_NON_UNIT, INVERSE_LEAF, CUDA_R_64F, NULL, m->nb,
                                                        &r->trtri_bytes, &r->trtri_host_bytes),
                            "cusolverDnXtrtri_bufferSize", msg));
  GS_TRY(tile_gemm_setup(r->c->tile_lt, m->nb, &r->gemm, msg));
  GS_CUDA_TRY(cudaMalloc(&r->inverse, (size_t)(TILE_LAG + 1) * tile_size));
  GS_CUDA_TRY(cudaMalloc(&r->scratch, (size_t)GS_TILE_COMPUTE * tile_size));
  GS_CUDA_TRY(cudaMalloc(&r->trtri_info, GS_TILE_COMPUTE * sizeof(int)));
  for (int w = 0; w < GS_TILE_COMPUTE; ++w) {
    GS_CUDA_TRY(cudaMalloc(&r->potrf_work[w], r->potrf_bytes ? r->potrf_bytes : 1));
    GS_CUDA_TRY(cudaMalloc(&r->trtri_work[w], r->trtri_bytes ? r->trtri_bytes : 1));
    if (!(r->potrf_host[w] = malloc(r->potrf_host_bytes ? r->potrf_host_bytes : 1)) ||
        !(r->trtri_host[w] = malloc(r->trtri_host_bytes ? r->trtri_host_bytes : 1)))
      return gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory");
    for (int k = 0; k <= TILE_LAG; ++k)
      GS_CUDA_TRY(cudaEventCreateWithFlags(&r->column_done[k][w], cudaEventDisableTiming));
  }
  if (m->low_tiles) {
    for (int w = 0; w < GS_TILE_COMPUTE; ++w) GS_CUDA_TRY(cudaMalloc(&r->operand[w], 2 * tile_size));
    GS_CUDA_TRY(cudaMalloc(&r->inverse32, (size_t)(TILE_LAG + 1) * tile_size / 2));
    GS_CUDA_TRY(cudaMalloc(&r->overflow, (size_t)ntiles));
    GS_CUDA_TRY(cudaMemset(r->overflow, 0, (size_t)ntiles));
  }
  GS_CUDA_TRY(cudaMalloc(&r->info_dev, (size_t)m->nt * sizeof(int)));
  GS_CUDA_TRY(cudaMemset(r->info_dev, 0, (size_t)m->nt * sizeof(int)));
  GS_CUDA_TRY(cudaHostAlloc(&r->info_host, (size_t)m->nt * sizeof(int), cudaHostAllocDefault));
  memset(r->info_host, 0, (size_t)m->nt * sizeof(int));
  if (!r->src->a) {
    const gs_tile_source *src = r->src;
    const size_t bytes = (size_t)m->n * src->dim * sizeof(double);
    double *blocks = gs_tile_locs_blocked(m, src);
    if (!blocks) return gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory");
    st = cudaMalloc(&r->locs, bytes) == cudaSuccess ? gs_gpu_copy_to_device(r->c, r->locs, blocks, bytes, 0, msg)
                                                    : gs_set_msg(msg, GS_ERR_NOMEM, "out of GPU memory");
    if (st == GS_OK && cudaStreamSynchronize(r->c->stream[0]) != cudaSuccess)
      st = gs_set_msg(msg, GS_ERR_CUDA, "copying the locations to GPU %d failed", r->c->device);
    free(blocks);
    if (st != GS_OK) goto done;
    const gs_matern_cov_args a = {NULL, m->n, NULL, 0, src->dim, src->metric, src->sigma2, src->range,
                                  src->smoothness, src->nugget, 1, NULL};
    r->gen = matern_tile_setup(&a, r->locs, NULL);
  }
  GS_TRY(slots_alloc(r, opt, &slots, msg));
  GS_TRY(tile_plan_build(m->nt, GS_TILE_WORKERS, slots, r->owners, r->owner, &r->plan, msg));
  r->slot_used = (cudaEvent_t *)calloc((size_t)slots * TILE_STREAMS, sizeof(cudaEvent_t));
  r->slot_users = (unsigned *)calloc((size_t)slots, sizeof(unsigned));
  r->ready = (cudaEvent_t *)calloc((size_t)ntiles, sizeof(cudaEvent_t));
  r->ready_on = (signed char *)malloc((size_t)ntiles);
  if (!r->slot_used || !r->slot_users || !r->ready || !r->ready_on)
    return gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory");
  memset(r->ready_on, -1, (size_t)ntiles);
  if (opt->trace) {
    r->trace = (cudaEvent_t *)calloc((size_t)r->plan.nops * 2, sizeof(cudaEvent_t));
    r->trace_on = (signed char *)calloc((size_t)r->plan.nops, 1);
    if (!r->trace || !r->trace_on) return gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory for the trace");
    GS_CUDA_TRY(cudaEventCreate(&r->trace_origin));
  }
  r->info->cache_tiles = slots;
  r->info->workers = GS_TILE_COMPUTE;
done:
  return st;
}

static void run_release(tile_run *r)
{
  const long ntiles = gs_tile_count(r->m->nt);
  if (r->c) {
    cudaSetDevice(r->c->device);
    for (int q = 0; q < TILE_STREAMS; ++q)
      if (r->c->tile_stream[q]) cudaStreamSynchronize(r->c->tile_stream[q]);
  }
  if (r->slot_used)
    for (long e = 0; e < (long)r->plan.slots * TILE_STREAMS; ++e)
      if (r->slot_used[e]) cudaEventDestroy(r->slot_used[e]);
  for (long t = 0; t < ntiles; ++t)
    if (r->ready && r->ready[t]) cudaEventDestroy(r->ready[t]);
  if (r->trace)
    for (long e = 0; e < 2 * r->plan.nops; ++e)
      if (r->trace[e]) cudaEventDestroy(r->trace[e]);
  if (r->trace_origin) cudaEventDestroy(r->trace_origin);
  free(r->trace);
  free(r->trace_on);
  for (int w = 0; w < GS_TILE_COMPUTE; ++w) {
    cudaFree(r->potrf_work[w]);
    free(r->potrf_host[w]);
    cudaFree(r->trtri_work[w]);
    free(r->trtri_host[w]);
    for (int k = 0; k <= TILE_LAG; ++k)
      if (r->column_done[k][w]) cudaEventDestroy(r->column_done[k][w]);
  }
  if (!r->slots_shared) cudaFree(r->slots);
  for (int w = 0; w < GS_TILE_COMPUTE; ++w) cudaFree(r->operand[w]);
  cudaFree(r->inverse32);
  cudaFree(r->overflow);
  cudaFree(r->inverse);
  cudaFree(r->scratch);
  cudaFree(r->trtri_info);
  cudaFree(r->info_dev);
  cudaFree(r->locs);
  if (r->info_host) cudaFreeHost(r->info_host);
  free(r->slot_used);
  free(r->slot_users);
  free(r->ready);
  free(r->ready_on);
  tile_gemm_free(&r->gemm);
  tile_plan_free(&r->plan);
  cudaGetLastError();
}

/* A run that kept L on the device hands its slots to m->resident, where the
 * next run finds them again. */
static gs_status resident_adopt(tile_run *r, char *msg)
{
  gs_tile_matrix *m = r->m;
  if (!m->resident) {
    gs_tile_resident *res = (gs_tile_resident *)calloc(1, sizeof *res);
    if (res) {
      res->slot = (int *)malloc((size_t)gs_tile_count(m->nt) * sizeof(int));
      res->diagonal = (double *)malloc((size_t)m->n * sizeof(double));
    }
    if (!res || !res->slot || !res->diagonal) {
      if (res) {
        free(res->slot);
        free(res->diagonal);
        free(res);
      }
      return gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory"); /* the run frees the slots */
    }
    res->device = r->c->device;
    res->tiles = r->slots;
    m->resident = res;
  }
  r->slots = NULL;
  return GS_OK;
}

/* After a resident run: where each tile is (the cache held every tile, so
 * each sits where it was loaded), and the diagonal of L on the host. */
static gs_status resident_finish(tile_run *r, char *msg)
{
  gs_status st = GS_OK;
  gs_tile_matrix *m = r->m;
  gs_tile_resident *res = m->resident;
  for (long p = 0; p < r->plan.nops; ++p)
    if (r->plan.ops[p].kind == TILE_OP_LOAD) res->slot[r->plan.ops[p].tile[0]] = r->plan.ops[p].slot[0];
  for (int k = 0; k < m->nt; ++k) {
    const int rk = gs_tile_rows(m, k);
    const double *d = (const double *)res->tiles + (size_t)res->slot[gs_tile_index(k, k)] * m->nb * m->nb;
    GS_CUDA_TRY(cudaMemcpy2DAsync(res->diagonal + (size_t)k * m->nb, sizeof(double), d, (rk + 1) * sizeof(double),
                                  sizeof(double), rk, cudaMemcpyDeviceToHost, run_stream(r, 0)));
  }
  GS_CUDA_TRY(cudaStreamSynchronize(run_stream(r, 0)));
done:
  return st;
}

/* Issues the ops of column k on run r's device. */
static gs_status column_issue(tile_run *r, int k, long *p, char *msg)
{
  gs_status st = GS_OK;
  GS_CUDA_TRY(cudaSetDevice(r->c->device));
  for (; *p < r->plan.column_end[k]; ++*p) {
    r->op = *p;
    GS_TRY(op_issue(r, &r->plan.ops[*p], msg));
  }
  for (int w = 0; w < GS_TILE_COMPUTE; ++w)
    GS_CUDA_TRY(cudaEventRecord(r->column_done[k % (TILE_LAG + 1)][w], run_stream(r, w)));
done:
  return st;
}

/* The overflow flags of a mixed-precision run, into those of m. */
static gs_status overflow_collect(tile_run *r, char *msg)
{
  const long ntiles = gs_tile_count(r->m->nt);
  unsigned char *flags = (unsigned char *)malloc((size_t)ntiles);
  if (!flags) return gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory");
  cudaSetDevice(r->c->device);
  for (int q = 0; q < TILE_STREAMS; ++q) cudaStreamSynchronize(run_stream(r, q));
  const int ok = cudaMemcpy(flags, r->overflow, (size_t)ntiles, cudaMemcpyDeviceToHost) == cudaSuccess;
  if (ok)
    for (long t = 0; t < ntiles; ++t) r->m->overflow[t] |= flags[t];
  free(flags);
  return ok ? GS_OK : gs_set_msg(msg, GS_ERR_CUDA, "reading the overflow flags from GPU %d failed", r->c->device);
}

/* After the runs: the overflow flags, the resident factor (one device), the
 * devices' memory released, and their counts summed into info. */
static gs_status runs_finish(tile_run *runs, int ndev, gs_tile_info *infos, gs_status st, gs_tile_info *info,
                             char *msg)
{
  gs_tile_matrix *m = runs[0].m;
  for (int g = 0; g < ndev; ++g) {
    tile_run *r = &runs[g];
    if (!r->m) continue; /* the shared state could not be allocated */
    if (r->overflow && (st == GS_OK || st == GS_ERR_NOT_PD)) { /* the caller promotes the tiles that overflowed */
      const gs_status read = overflow_collect(r, msg);
      if (read != GS_OK) st = read;
    }
    if (r->slots && !r->store) { /* a failed run, an interrupt included, frees the device memory */
      for (int q = 0; q < TILE_STREAMS; ++q) cudaStreamSynchronize(run_stream(r, q));
      if (st == GS_OK) st = resident_adopt(r, msg);
      if (st == GS_OK) st = resident_finish(r, msg);
      if (st != GS_OK && m->resident) {
        r->slots = NULL; /* they are m->resident's */
        gs_tile_resident_free(m);
      }
    }
    run_release(r);
    if (st != GS_OK && r->c && cudaSetDevice(r->c->device) == cudaSuccess)
      gs_gpu_ctx_workspace_release(r->c); /* a failed run, an interrupt included, keeps no cache */
  }
  for (int g = 0; g < ndev; ++g) {
    if (infos[g].failed_minor) info->failed_minor = infos[g].failed_minor;
    info->bytes_to_device += infos[g].bytes_to_device;
    info->bytes_to_host += infos[g].bytes_to_host;
    info->tile_loads += infos[g].tile_loads;
    info->cache_tiles += infos[g].cache_tiles;
    info->workers += infos[g].workers;
  }
  return st;
}

/* The factorization on the devices of opt (or `device` alone): L to the
 * host, or resident in device memory (opt->resident, one device, when it
 * fits). */
static gs_status tile_chol_run(int device, gs_tile_matrix *m, const gs_tile_source *src, const gs_tile_options *opt,
                               gs_tile_info *info, char *msg)
{
  gs_status st = GS_OK;
  const int ndev = opt->ngpus > 1 ? opt->ngpus : 1;
  const long ntiles = gs_tile_count(m->nt);
  tile_run runs[GS_TILE_MAX_GPUS];
  gs_tile_info infos[GS_TILE_MAX_GPUS];
  tile_shared shared = {NULL, NULL};
  memset(runs, 0, sizeof runs);
  memset(infos, 0, sizeof infos);
  if (ndev > GS_TILE_MAX_GPUS)
    return gs_set_msg(msg, GS_ERR_ARG, "a factorization runs on 1 to %d GPUs", GS_TILE_MAX_GPUS);
  for (int g = 1; g < ndev; ++g)
    for (int h = 0; h < g; ++h)
      if (opt->gpus[g] == opt->gpus[h]) return gs_set_msg(msg, GS_ERR_ARG, "GPU %d is named twice", opt->gpus[g]);
  shared.final = (unsigned char *)calloc((size_t)ntiles, 1);
  shared.stored = (cudaEvent_t *)calloc((size_t)ntiles, sizeof(cudaEvent_t));
  if (!shared.final || !shared.stored) {
    st = gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory");
    goto done;
  }
  for (int g = 0; g < ndev; ++g) {
    runs[g].shared = &shared;
    runs[g].owner = g;
    runs[g].owners = ndev;
    runs[g].m = m;
    runs[g].src = src;
    runs[g].info = &infos[g];
    runs[g].inverted = -1;
  }
  for (int g = 0; g < ndev; ++g) {
    GS_TRY(gs_gpu_ctx_get(ndev > 1 ? opt->gpus[g] : device, &runs[g].c, msg));
    GS_TRY(gs_gpu_ctx_tile_workers(runs[g].c, msg));
    GS_TRY(run_setup(&runs[g], opt, msg));
  }
  for (int g = 0; g < ndev && opt->trace; ++g) { /* the devices are idle: their origins are simultaneous */
    GS_CUDA_TRY(cudaSetDevice(runs[g].c->device));
    GS_CUDA_TRY(cudaEventRecord(runs[g].trace_origin, run_stream(&runs[g], 0)));
  }
  {
    long p[GS_TILE_MAX_GPUS] = {0};
    int waited = 0;
    for (int k = 0; k < m->nt; ++k) {
      for (int q = 0; q < ndev; ++q) { /* the owner of row k first: the others read its tiles */
        const int g = (tile_row_owner(k, m->nt, ndev) + q) % ndev;
        GS_TRY(column_issue(&runs[g], k, &p[g], msg));
      }
      for (; waited <= k - TILE_LAG; ++waited)
        for (int g = 0; g < ndev; ++g) GS_TRY(column_wait(&runs[g], waited, opt, msg));
    }
    for (; waited < m->nt; ++waited)
      for (int g = 0; g < ndev; ++g) GS_TRY(column_wait(&runs[g], waited, opt, msg));
    for (int g = 0; g < ndev; ++g) {
      GS_CUDA_TRY(cudaSetDevice(runs[g].c->device));
      for (int q = 0; q < TILE_STREAMS; ++q) GS_CUDA_TRY(cudaStreamSynchronize(run_stream(&runs[g], q)));
      GS_CUDA_TRY(cudaGetLastError());
    }
    if (opt->trace) GS_TRY(trace_collect(runs, ndev, info, msg));
  }
done:
  st = runs_finish(runs, ndev, infos, st, info, msg);
  if (shared.stored)
    for (long t = 0; t < ntiles; ++t)
      if (shared.stored[t]) cudaEventDestroy(shared.stored[t]);
  free(shared.final);
  free(shared.stored);
  return st;
}

extern "C" gs_status gs_tile_chol_gpu(int device, gs_tile_matrix *m, const gs_tile_source *src,
                                      const gs_tile_options *opt, gs_tile_info *info, char *msg)
{
  return tile_chol_run(device, m, src, opt, info, msg);
}

extern "C" gs_status gs_tile_norms_gpu(int device, const gs_tile_matrix *m, const gs_tile_source *src, double *sumsq,
                                       double *max_abs, char *msg)
{
  gs_status st = GS_OK;
  gs_gpu_ctx *c = NULL;
  const long ntiles = gs_tile_count(m->nt);
  double *locs = NULL, *tile = NULL, *part = NULL, *out = NULL, *host = NULL, *blocks = NULL;
  GS_TRY(gs_gpu_ctx_get(device, &c, msg));
  if (!(blocks = gs_tile_locs_blocked(m, src)) || !(host = (double *)malloc((size_t)ntiles * 2 * sizeof(double)))) {
    st = gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory");
    goto done;
  }
  GS_CUDA_TRY(cudaMalloc(&locs, (size_t)m->n * src->dim * sizeof(double)));
  GS_CUDA_TRY(cudaMalloc(&tile, (size_t)m->nb * m->nb * sizeof(double)));
  GS_CUDA_TRY(cudaMalloc(&part, 2 * TILE_NORM_BLOCKS * sizeof(double)));
  GS_CUDA_TRY(cudaMalloc(&out, (size_t)ntiles * 2 * sizeof(double)));
  GS_TRY(gs_gpu_copy_to_device(c, locs, blocks, (size_t)m->n * src->dim * sizeof(double), 0, msg));
  {
    const gs_matern_cov_args a = {NULL, m->n, NULL, 0, src->dim, src->metric, src->sigma2, src->range,
                                  src->smoothness, src->nugget, 1, NULL};
    const matern_tile_args base = matern_tile_setup(&a, locs, NULL);
    cudaStream_t s = c->stream[0];
    for (long t = 0; t < ntiles; ++t) {
      int i, j;
      gs_tile_coords(t, &i, &j);
      const matern_tile_args g = matern_tile_of(&base, m, locs, src->dim, i, j, 0); /* both triangles count */
      GS_CUDA_TRY(matern_tile_launch(&g, 0, g.n2, tile, s));
      GS_CUDA_TRY(tile_norm(tile, GS_TILE_FP64, 1.0f, (size_t)g.n1 * g.n2, part, out + 2 * t, s));
    }
    GS_CUDA_TRY(cudaMemcpyAsync(host, out, (size_t)ntiles * 2 * sizeof(double), cudaMemcpyDeviceToHost, s));
    GS_CUDA_TRY(cudaStreamSynchronize(s));
  }
  for (long t = 0; t < ntiles; ++t) {
    sumsq[t] = host[2 * t];
    max_abs[t] = host[2 * t + 1];
  }
done:
  if (c) cudaStreamSynchronize(c->stream[0]);
  cudaFree(locs);
  cudaFree(tile);
  cudaFree(part);
  cudaFree(out);
  free(host);
  free(blocks);
  cudaGetLastError();
  return st;
}

/* Random points in the unit square, as the GP benchmark uses. */
static gs_status bench_source(long n, double **locs, gs_tile_source *src, char *msg)
{
  *locs = (double *)malloc((size_t)n * 2 * sizeof(double));
  if (!*locs) return gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory");
  for (long i = 0; i < 2 * n; ++i) (*locs)[i] = rng_uniform(11, (uint64_t)i);
  memset(src, 0, sizeof *src);
  src->locs = *locs;
  src->dim = 2;
  src->metric = MATERN_EUCLIDEAN;
  src->sigma2 = 1.0;
  src->range = 0.1;
  src->smoothness = 0.5;
  src->nugget = 1e-2;
  return GS_OK;
}

/* The DGEMM that bounds a factorization's rate: c = a b' on three disjoint
 * 8192 x 8192 blocks of the generated covariance in a (n >= 3 * 8192). */
#define BENCH_GEMM_N 8192

/* cuSOLVER on the whole matrix in device memory: seconds[0] generation and
 * Xpotrf, seconds[1] generation alone, seconds[2] one BENCH_GEMM_N DGEMM. */
static gs_status bench_cusolver(int device, const gs_tile_source *src, long n, int reps, double seconds[3], char *msg)
{
  gs_status st = GS_OK;
  gs_gpu_ctx *c = NULL;
  double *a = NULL, *locs = NULL;
  void *work = NULL, *host_work = NULL;
  size_t work_bytes = 0, host_bytes = 0;
  int *info = NULL;
  GS_TRY(gs_gpu_ctx_get(device, &c, msg));
  GS_TRY(gs_gpu_ctx_solvers(c, msg));
  gs_gpu_ctx_workspace_release(c); /* the matrix needs the room */
  GS_CUDA_TRY(cudaMalloc(&a, (size_t)n * n * sizeof(double)));
  GS_CUDA_TRY(cudaMalloc(&locs, (size_t)n * 2 * sizeof(double)));
  GS_CUDA_TRY(cudaMalloc(&info, sizeof(int)));
  GS_CUDA_TRY(cudaMemcpy(locs, src->locs, (size_t)n * 2 * sizeof(double), cudaMemcpyHostToDevice));
  GS_TRY(gs_cusolver_status(cusolverDnXpotrf_bufferSize(c->solver, c->solver_params, CUBLAS_FILL_MODE_LOWER, n,
                                                        CUDA_R_64F, a, n, CUDA_R_64F, &work_bytes, &host_bytes),
                            "cusolverDnXpotrf_bufferSize", msg));
  GS_CUDA_TRY(cudaMalloc(&work, work_bytes ? work_bytes : 1));
  if (!(host_work = malloc(host_bytes ? host_bytes : 1))) {
    st = gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory");
    goto done;
  }
  {
    const gs_matern_cov_args args = {NULL, n, NULL, 0, 2, src->metric, src->sigma2, src->range, src->smoothness,
                                     src->nugget, 1, NULL};
    const matern_tile_args g_args = matern_tile_setup(&args, locs, NULL);
    for (int factor = 1; factor >= 0; --factor)
      GS_TRY(bench_wall_time(reps, [&] {
        gs_status s = matern_tile_launch(&g_args, 0, n, a, c->stream[0]) == cudaSuccess
                          ? GS_OK
                          : gs_set_msg(msg, GS_ERR_CUDA, "the Matérn kernel failed");
        if (s == GS_OK && factor)
          s = gs_cusolver_status(cusolverDnXpotrf(c->solver, c->solver_params, CUBLAS_FILL_MODE_LOWER, n, CUDA_R_64F, a,
                                                  n, CUDA_R_64F, work, work_bytes, host_work, host_bytes, info),
                                 "cusolverDnXpotrf", msg);
        if (s == GS_OK && cudaStreamSynchronize(c->stream[0]) != cudaSuccess)
          s = gs_set_msg(msg, GS_ERR_CUDA, "the cuSOLVER factorization failed");
        return s;
      }, &seconds[!factor], msg));
    seconds[2] = NAN;
    if (n >= 3 * BENCH_GEMM_N) {
      const double one = 1.0, zero = 0.0;
      const int g = BENCH_GEMM_N;
      GS_CUDA_TRY(matern_tile_launch(&g_args, 0, n, a, c->stream[0]));
      GS_TRY(bench_wall_time(reps, [&] {
        gs_status s = gs_cublas_status(cublasDgemm(c->blas, CUBLAS_OP_N, CUBLAS_OP_T, g, g, g, &one, a + g, n,
                                                   a + 2 * g, n, &zero, a + (size_t)g * n, n),
                                       "cublasDgemm", msg);
        if (s == GS_OK && cudaStreamSynchronize(c->stream[0]) != cudaSuccess)
          s = gs_set_msg(msg, GS_ERR_CUDA, "the DGEMM failed");
        return s;
      }, &seconds[2], msg));
    }
  }
done:
  cudaFree(a);
  cudaFree(locs);
  cudaFree(info);
  cudaFree(work);
  free(host_work);
  return st;
}

/* The tile Cholesky of the same matrix, generated tile by tile: with L kept
 * in device memory (resident, which the whole matrix must fit) or copied to
 * pinned host memory. */
static gs_status bench_tiles(const int *gpus, int ngpus, const gs_tile_source *src, long n, int nb, int cache_tiles,
                             int resident, int reps, double *seconds, gs_tile_info *info, char *msg)
{
  gs_status st = GS_OK;
  gs_tile_matrix *m = NULL;
  const int device = gpus[0];
  const gs_tile_options opt = {cache_tiles, 0, NULL, 0, 0.0, 0.0, resident, gpus, ngpus};
  GS_TRY(gs_tile_matrix_create(n, nb, !resident, &m, msg));
  gs_tile_matrix_layout(m, NULL, NULL); /* all FP64 */
  GS_TRY(bench_wall_time(reps, [&] {
    memset(info, 0, sizeof *info);
    gs_status s = tile_chol_run(device, m, src, &opt, info, msg);
    if (s == GS_OK && resident && !m->resident)
      s = gs_set_msg(msg, GS_ERR_NOMEM, "the factor must stay on GPU %d, but only %d of its %ld tiles fit", device,
                     info->cache_tiles, gs_tile_count(m->nt));
    return s;
  }, seconds, msg));
done:
  gs_tile_matrix_free(m);
  return st;
}

/* See gs_bench.h. */
extern "C" gs_status gs_bench_tile_chol_gpu(const int *gpus, int ngpus, long n, int nb, int cache_tiles, int reps,
                                            double out[9], char *msg)
{
  gs_status st = GS_OK;
  double *locs = NULL;
  gs_tile_source src;
  gs_tile_info info;
  double cusolver[3];
  for (int k = 0; k < 9; ++k) out[k] = NAN;
  GS_TRY(bench_source(n, &locs, &src, msg));
  if (cache_tiles == 0 && ngpus == 1) {
    GS_TRY(bench_cusolver(gpus[0], &src, n, reps, cusolver, msg));
    out[0] = cusolver[0];
    out[1] = cusolver[1];
    out[8] = cusolver[2];
    GS_TRY(bench_tiles(gpus, 1, &src, n, nb, 0, 1, reps, &out[2], &info, msg));
  }
  GS_TRY(bench_tiles(gpus, ngpus, &src, n, nb, cache_tiles > 0 ? cache_tiles : 0, 0, reps, &out[3], &info, msg));
  out[4] = info.bytes_to_device;
  out[5] = info.bytes_to_host;
  out[6] = info.cache_tiles;
  out[7] = (double)info.tile_loads;
done:
  free(locs);
  return st;
}

extern "C" gs_status gs_bench_tile_chol_mixed_gpu(int device, const gs_tile_source *src, long n, int nb,
                                                  double accuracy, int fp8, int reps, double out[10], char *msg)
{
  gs_status st = GS_OK;
  gs_tile_matrix *m = NULL;
  gs_tile_info info;
  gs_tile_map map = {NULL, NULL, NULL};
  for (int k = 0; k < 10; ++k) out[k] = NAN;
  GS_TRY(gs_tile_matrix_create(n, nb, 1, &m, msg));
  for (int mixed = 0; mixed <= 1; ++mixed) { /* FP64 first: its host memory holds every later layout */
    gs_tile_options opt = {0, 0, NULL, 0, mixed ? accuracy : 0.0, 0.0};
    opt.fp8 = fp8;
    GS_TRY(bench_wall_time(reps, [&] { return gs_tile_chol(device, m, src, &opt, &info, msg); }, &out[mixed], msg));
    out[7 + mixed] = info.logdet;
  }
  {
    const long ntiles = gs_tile_count(m->nt);
    for (int p = 0; p < GS_TILE_PRECISIONS; ++p) out[3 + p] = 0;
    for (long t = 0; t < ntiles; ++t) out[3 + m->precision[t]] += 1;
    out[9] = info.attempts;
  }
  {
    const double t0 = gs_wall_seconds();
    GS_TRY(gs_tile_map_build(device, m, src, accuracy, fp8 ? GS_TILE_FP8 : GS_TILE_FP16, 0, &map, msg));
    out[2] = gs_wall_seconds() - t0;
  }
done:
  gs_tile_map_free(&map);
  gs_tile_matrix_free(m);
  return st;
}
