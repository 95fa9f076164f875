/* The state of the GPU tile Cholesky on one device (a tile_run) and what the
 * parts of the factorization share: the executor (tile_chol_cuda.cu) issues
 * the plan's ops, which load and store tiles (tile_load_cuda.cu), update and
 * solve them (tile_update_cuda.cu) with the inverses of the diagonal tiles
 * (tile_invert_cuda.cu), in the cache and workspaces of tile_workspace_cuda.cu,
 * optionally traced (tile_trace_cuda.cu). Private to the tile folder. */
#ifndef GS_TILE_RUN_CUH
#define GS_TILE_RUN_CUH

#include "gs_gpu_ctx.cuh"
#include "gs_matern_cuda.cuh"
#include "tile_internal.h"
#include "tile_gemm.cuh"
#include "tile_kernels.cuh"
#include "tile_plan.h"

#define TILE_LAG 2
#define TILE_STREAMS (GS_TILE_STREAM_TO_HOST + 1)
#define TILE_H2D GS_TILE_STREAM_TO_GPU
#define TILE_D2H GS_TILE_STREAM_TO_HOST
/* Below this order a triangular block is inverted by cuSOLVER's trtri. */
#define INVERSE_LEAF 512
/* Compute streams (GS_TILE_STREAM_KINDS in gs_gpu.h), each with its own
 * cuBLAS and cuSOLVER handle so that tiles are factored and updated
 * concurrently. */
#define GS_TILE_COMPUTE (GS_TILE_STREAM_DIAGONAL + 1)

/* The tile Cholesky's resources on one device, created on its first
 * factorization and kept on the device's context (gs_gpu_ctx.tile) for the
 * next: the compute streams, then one stream per copy direction, a cuBLAS
 * and a cuSOLVER handle per compute stream, and the cuBLASLt handle of the
 * updates' products (tile_gemm.cuh; the stream goes with each call). */
typedef struct {
  cudaStream_t stream[GS_TILE_COMPUTE + 2];
  cublasHandle_t blas[GS_TILE_COMPUTE];
  cusolverDnHandle_t solver[GS_TILE_COMPUTE];
  cublasLtHandle_t lt;
} tile_device;

/* The resources of ctx's device (tile_device_cuda.cu), created on first use. */
gs_status tile_device_get(gs_gpu_ctx *ctx, tile_device **td, char *msg);

/* What the devices of one factorization share, per tile: finished (the
 * host issued its last op) and its copy to the host. */
typedef struct {
  unsigned char *final;
  cudaEvent_t *stored;
} tile_shared;

typedef struct {
  gs_gpu_ctx *c;
  tile_device *td;
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

static inline cudaStream_t run_stream(const tile_run *r, int q) { return r->td->stream[q]; }

static inline double *slot_ptr(const tile_run *r, int s) { return r->slots + (size_t)s * r->m->nb * r->m->nb; }

static inline double *inverse_ptr(const tile_run *r, int k)
{
  return r->inverse + (size_t)(k % (TILE_LAG + 1)) * r->m->nb * r->m->nb;
}

static inline double *scratch_ptr(const tile_run *r, int q) { return r->scratch + (size_t)q * r->m->nb * r->m->nb; }

static inline float *inverse32_ptr(const tile_run *r, int k)
{
  return r->inverse32 + (size_t)(k % (TILE_LAG + 1)) * r->m->nb * r->m->nb;
}

static inline void *operand_ptr(const tile_run *r, int q, int which)
{
  return (char *)r->operand[q] + (size_t)which * r->m->nb * r->m->nb * sizeof(double);
}

static inline size_t tile_entries(const gs_tile_matrix *m, int t)
{
  int i, j;
  gs_tile_coords(t, &i, &j);
  return (size_t)gs_tile_rows(m, i) * gs_tile_rows(m, j);
}

static inline cudaError_t event_record(cudaEvent_t *e, cudaStream_t s)
{
  if (!*e) {
    cudaError_t err = cudaEventCreateWithFlags(e, cudaEventDisableTiming);
    if (err != cudaSuccess) return err;
  }
  return cudaEventRecord(*e, s);
}

/* Stream q may overwrite slot s once every other stream's last use is done. */
static inline cudaError_t slot_claim(tile_run *r, int q, int s)
{
  for (int u = 0; u < TILE_STREAMS; ++u)
    if (u != q && (r->slot_users[s] >> u & 1u)) {
      cudaError_t err = cudaStreamWaitEvent(run_stream(r, q), r->slot_used[(size_t)s * TILE_STREAMS + u], 0);
      if (err != cudaSuccess) return err;
    }
  r->slot_users[s] = 0;
  return cudaSuccess;
}

static inline cudaError_t slot_use(tile_run *r, int q, int s)
{
  r->slot_users[s] |= 1u << q;
  return event_record(&r->slot_used[(size_t)s * TILE_STREAMS + q], run_stream(r, q));
}

static inline cudaError_t tile_wait(tile_run *r, int q, int t)
{
  if (r->ready_on[t] < 0 || r->ready_on[t] == q) return cudaSuccess;
  return cudaStreamWaitEvent(run_stream(r, q), r->ready[t], 0);
}

static inline cudaError_t tile_ready(tile_run *r, int q, int t)
{
  r->ready_on[t] = (signed char)q;
  return event_record(&r->ready[t], run_stream(r, q));
}

/* tile_trace_cuda.cu */
cudaError_t tile_trace_mark(tile_run *r, int q, int end);
gs_status tile_trace_collect(tile_run *runs, int ndev, gs_tile_info *info, char *msg);

/* tile_load_cuda.cu */
matern_tile_args tile_matern_args(const matern_tile_args *whole, const gs_tile_matrix *m, const double *locs,
                                       int dim, int i, int j, int lower_only);
gs_status tile_op_load(tile_run *r, const tile_op *op, char *msg);
gs_status tile_op_store(tile_run *r, const tile_op *op, char *msg);

/* tile_invert_cuda.cu */
gs_status tile_diagonal_invert(tile_run *r, int q, int k, const double *d, char *msg);

/* tile_update_cuda.cu */
gs_status tile_op_compute(tile_run *r, const tile_op *op, char *msg);

/* tile_workspace_cuda.cu */
gs_status tile_run_setup(tile_run *r, const gs_tile_options *opt, char *msg);
void tile_run_release(tile_run *r);
gs_status tile_resident_adopt(tile_run *r, char *msg);
gs_status tile_resident_finish(tile_run *r, char *msg);

#endif
