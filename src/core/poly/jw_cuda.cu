/* Jones-Worland plans on the GPU. A plan keeps its tables in device memory:
 * the connection bidiagonals of each parity and the degree of each slot, or
 * the quadrature matrices. A call uploads the columns of every degree once
 * (in chunks only where device memory is short), transforms them on the
 * device and downloads the results once, all on the context's stream 0.
 * Connection: one thread per column runs the chain of its degree
 * (jw_column_down/up of jw_math.h, the CPU's arithmetic), one kernel for the
 * columns of every degree, and each parity's DCT is one cuFFT batch
 * (poly_dct_device). Quadrature: one cuBLAS DGEMM per degree. Columns are in
 * column-major order, so the chain's loads are not coalesced: not tuned. */
#include <stdint.h>

#include "gs_gpu_ctx.cuh"
#include "jw_internal.h"
#include "jw_math.h"
#include "poly_cuda.cuh"

#define JW_THREADS 128
/* Start of each array in the workspace of a call. */
#define JW_ALIGN 256

struct jw_plan_gpu {
  gs_gpu_ctx *ctx;
  double *mu[2], *nu[2]; /* connection: the bidiagonals of each parity (NULL where none) */
  int *slot_l;           /* the degree of each slot */
  double *quad;          /* quadrature: the nr x ncoef matrix of each slot */
};

typedef struct {
  const double *mu[2], *nu[2];
  long len;
  const long *first; /* the call's layout (jw_layout) */
  const int *slot_l;
  int nslot;
  long ncoef, nr;
  long j0, ncol; /* the chunk: columns j0 .. j0 + ncol - 1 of the layout */
} jw_chain_args;

/* Synthesis: column i of the chunk's coefficients (ncoef) into column i of t (nr). */
__global__ void jw_down_kernel(jw_chain_args a, const double *coef, double *t)
{
  const long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.ncol) return;
  const int l = a.slot_l[jw_slot_of(a.first, a.nslot, a.j0 + i)];
  /* a select, not a dynamic index, keeps the arguments out of local memory */
  jw_column_down(l % 2 ? a.mu[1] : a.mu[0], l % 2 ? a.nu[1] : a.nu[0], a.len, l, a.ncoef, a.nr, coef + i * a.ncoef,
                 t + i * a.nr);
}

/* Analysis: column i of t (DCT outputs) into column i of the chunk's coefficients. */
__global__ void jw_up_kernel(jw_chain_args a, double *t, double *coef)
{
  const long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.ncol) return;
  const int l = a.slot_l[jw_slot_of(a.first, a.nslot, a.j0 + i)];
  jw_column_up(l % 2 ? a.mu[1] : a.mu[0], l % 2 ? a.nu[1] : a.nu[0], a.len, l, a.ncoef, a.nr, t + i * a.nr,
               coef + i * a.ncoef);
}

__global__ void jw_matrix_kernel(int l, long ncoef, long nr, double q0, double *q)
{
  const long k = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (k < nr) jw_unit_values(l, (int)ncoef, jw_node(k, nr), q0, q + k, nr);
}

static unsigned jw_blocks(long n) { return (unsigned)((n + JW_THREADS - 1) / JW_THREADS); }

static size_t jw_align(size_t bytes) { return (bytes + JW_ALIGN - 1) / JW_ALIGN * JW_ALIGN; }

static gs_status jw_device_alloc(gs_jwt_plan *p, void **dst, size_t bytes, char *msg)
{
  gs_status st = GS_OK;
  GS_CUDA_TRY(cudaMalloc(dst, bytes));
  p->bytes += bytes;
done:
  return st;
}

/* The device copies of the host chains, which are then released (a GPU
 * plan keeps its tables on the device only). */
static gs_status jw_gpu_chains(gs_jwt_plan *p, char *msg)
{
  gs_status st = GS_OK;
  jw_plan_gpu *g = p->gpu;
  for (int q = 0; q < 2; ++q) {
    gs_jw_chain *c = &p->chain[q];
    if (!c->mu) continue;
    const size_t tab = jw_chain_bytes(c) / 2;
    GS_TRY(jw_device_alloc(p, (void **)&g->mu[q], tab, msg));
    GS_TRY(jw_device_alloc(p, (void **)&g->nu[q], tab, msg));
    GS_TRY(gs_gpu_copy_to_device(g->ctx, g->mu[q], c->mu, tab, 0, msg));
    GS_TRY(gs_gpu_copy_to_device(g->ctx, g->nu[q], c->nu, tab, 0, msg));
  }
  for (int q = 0; q < 2; ++q) { /* copy_to_device has returned: the host tables may go */
    gs_jw_chain_free(&p->chain[q]);
    p->chain[q].mu = p->chain[q].nu = NULL;
  }
done:
  return st;
}

/* The quadrature matrix of each slot, computed on the device. */
static gs_status jw_gpu_matrices(gs_jwt_plan *p, char *msg)
{
  gs_status st = GS_OK;
  jw_plan_gpu *g = p->gpu;
  const size_t per = (size_t)p->a.nr * p->a.ncoef;
  GS_TRY(jw_device_alloc(p, (void **)&g->quad, per * p->nslot * sizeof(double), msg));
  for (int k = 0; k < p->nslot; ++k) {
    const int l = p->slot_l[k];
    jw_matrix_kernel<<<jw_blocks(p->a.nr), JW_THREADS, 0, g->ctx->stream[0]>>>(l, p->a.ncoef, p->a.nr, gs_jw_q0(l),
                                                                             g->quad + k * per);
    GS_CUDA_TRY(cudaGetLastError());
  }
done:
  return st;
}

extern "C" gs_status jw_plan_gpu_make(gs_jwt_plan *p, char *msg)
{
  gs_status st = GS_OK;
  gs_gpu_ctx *c = NULL;
  size_t free_b = 0;
  GS_TRY(gs_gpu_ctx_get(p->a.device, &c, msg));
  GS_TRY(gs_gpu_ctx_free_memory(c, &free_b, msg));
  {
    const double need = p->a.method == GS_JW_QUADRATURE ? (double)p->a.nr * p->a.ncoef * p->nslot * sizeof(double)
                                                        : (double)(jw_chain_bytes(&p->chain[0]) + jw_chain_bytes(&p->chain[1]));
    if (need > (double)gs_gpu_budget(free_b)) {
      st = gs_set_msg(msg, GS_ERR_NOMEM, "the plan's tables need %.0f MB of GPU memory, %.0f MB are free",
                      need / 1048576.0, gs_gpu_budget(free_b) / 1048576.0);
      goto done;
    }
  }
  p->gpu = (jw_plan_gpu *)calloc(1, sizeof(jw_plan_gpu));
  if (!p->gpu) {
    st = gs_set_msg(msg, GS_ERR_NOMEM, "no memory for a GPU plan");
    goto done;
  }
  p->gpu->ctx = c;
  GS_TRY(jw_device_alloc(p, (void **)&p->gpu->slot_l, (size_t)p->nslot * sizeof(int), msg));
  GS_TRY(gs_gpu_copy_to_device(c, p->gpu->slot_l, p->slot_l, (size_t)p->nslot * sizeof(int), 0, msg));
  GS_TRY(p->a.method == GS_JW_QUADRATURE ? jw_gpu_matrices(p, msg) : jw_gpu_chains(p, msg));
  GS_CUDA_TRY(cudaStreamSynchronize(c->stream[0])); /* a failed copy or kernel is reported here */
done:
  return st; /* on failure, gs_jwt_plan_free releases what was allocated */
}

extern "C" void jw_plan_gpu_release(gs_jwt_plan *p)
{
  jw_plan_gpu *g = p->gpu;
  if (!g) return;
  cudaSetDevice(p->a.device); /* cudaFree waits for the work in flight */
  for (int q = 0; q < 2; ++q) {
    cudaFree(g->mu[q]);
    cudaFree(g->nu[q]);
  }
  cudaFree(g->slot_l);
  cudaFree(g->quad);
  free(g);
  p->gpu = NULL;
}

/* ---- a call ----------------------------------------------------------------------- */

/* The workspace of a call on `ncol` columns: the layout, the coefficients,
 * the values (the DCTs' columns) and, for the connection, the DCT scratch. */
typedef struct {
  long *first;
  double *coef, *t;
  void *scratch;
} jw_gpu_buffers;

static size_t jw_dct_scratch(const gs_jwt_plan *p, long ncol, int analysis)
{
  if (p->a.method != GS_JW_CONNECTION) return 0;
  const size_t even = poly_dct_scratch_bytes(jw_dct_type(0, analysis), p->a.nr, ncol);
  const size_t odd = poly_dct_scratch_bytes(jw_dct_type(1, analysis), p->a.nr, ncol);
  return even > odd ? even : odd;
}

extern "C" size_t jw_plan_gpu_work_bytes(const gs_jwt_plan *p, long ncol, int analysis)
{
  return jw_align(((size_t)p->nslot + 1) * sizeof(long)) + jw_align((size_t)ncol * p->a.ncoef * sizeof(double)) +
         jw_align((size_t)ncol * p->a.nr * sizeof(double)) + jw_dct_scratch(p, ncol, analysis);
}

static jw_gpu_buffers jw_gpu_split(const gs_jwt_plan *p, char *work, long ncol)
{
  jw_gpu_buffers b;
  b.first = (long *)work;
  b.coef = (double *)(work + jw_align(((size_t)p->nslot + 1) * sizeof(long)));
  b.t = (double *)((char *)b.coef + jw_align((size_t)ncol * p->a.ncoef * sizeof(double)));
  b.scratch = (char *)b.t + jw_align((size_t)ncol * p->a.nr * sizeof(double));
  return b;
}

/* The columns of a chunk that fit `budget` bytes (0 if none): for the
 * connection, as much again stays free for cuFFT's own work area; at most
 * 2^30 values, the sizes cuFFT and cuBLAS take as int. */
static long jw_gpu_chunk_columns(const gs_jwt_plan *p, long total, int analysis, size_t budget)
{
  const size_t per_col = (p->a.ncoef + p->a.nr) * sizeof(double) + jw_dct_scratch(p, 1, analysis);
  const size_t fixed = jw_align(((size_t)p->nslot + 1) * sizeof(long)) + 3 * JW_ALIGN;
  const size_t room = budget / (p->a.method == GS_JW_CONNECTION ? 2 : 1);
  long cols = room > fixed ? (long)((room - fixed) / per_col) : 0;
  const long most = (1L << 30) / (p->a.nr > p->a.ncoef ? p->a.nr : p->a.ncoef);
  if (cols > most) cols = most > 0 ? most : 1;
  return cols < total ? cols : total;
}

/* Copies the chunk's columns [j0, j1) between the caller's arrays and the
 * device array d (`rows` per column): uploads from y->in, or downloads
 * into y->out, a piece per degree. */
static gs_status jw_gpu_move(gs_gpu_ctx *c, const gs_jwt_plan *p, const jw_layout *y, long j0, long j1, long rows,
                             double *d, int upload, char *msg)
{
  gs_status st = GS_OK;
  for (int k = 0; k < p->nslot; ++k) {
    long lo, hi;
    jw_piece(y, k, j0, j1, &lo, &hi);
    if (lo >= hi) continue;
    const size_t bytes = (size_t)(hi - lo) * rows * sizeof(double);
    const long off = (lo - y->first[k]) * rows;
    double *dev = d + (lo - j0) * rows;
    GS_TRY(upload ? gs_gpu_copy_to_device(c, dev, y->in[k] + off, bytes, 0, msg)
                  : gs_gpu_copy_to_host(c, y->out[k] + off, dev, bytes, 0, msg));
  }
done:
  return st;
}

/* The DCTs of the chunk's columns in b->t: one batch of even degree, one of odd. */
static gs_status jw_gpu_dcts(const gs_jwt_plan *p, const jw_layout *y, gs_gpu_ctx *c, const jw_gpu_buffers *b, long j0,
                             long j1, int analysis, char *msg)
{
  gs_status st = GS_OK;
  const long nr = p->a.nr, mid = y->even < j0 ? j0 : (y->even > j1 ? j1 : y->even);
  if (mid > j0) GS_TRY(poly_dct_device(jw_dct_type(0, analysis), nr, mid - j0, b->t, b->scratch, c->stream[0], msg));
  if (j1 > mid)
    GS_TRY(poly_dct_device(jw_dct_type(1, analysis), nr, j1 - mid, b->t + (mid - j0) * nr, b->scratch, c->stream[0], msg));
done:
  return st;
}

static gs_status jw_gpu_connection(const gs_jwt_plan *p, const jw_layout *y, gs_gpu_ctx *c, const jw_gpu_buffers *b,
                                   long j0, long j1, int analysis, char *msg)
{
  gs_status st = GS_OK;
  const jw_plan_gpu *g = p->gpu;
  const long n = j1 - j0;
  const jw_chain_args a = {{g->mu[0], g->mu[1]}, {g->nu[0], g->nu[1]}, p->len, b->first, g->slot_l, p->nslot,
                           p->a.ncoef, p->a.nr, j0, n};
  if (analysis) {
    GS_TRY(jw_gpu_move(c, p, y, j0, j1, p->a.nr, b->t, 1, msg));
    GS_TRY(jw_gpu_dcts(p, y, c, b, j0, j1, analysis, msg));
    jw_up_kernel<<<jw_blocks(n), JW_THREADS, 0, c->stream[0]>>>(a, b->t, b->coef);
    GS_CUDA_TRY(cudaGetLastError());
    GS_TRY(jw_gpu_move(c, p, y, j0, j1, p->a.ncoef, b->coef, 0, msg));
  } else {
    GS_TRY(jw_gpu_move(c, p, y, j0, j1, p->a.ncoef, b->coef, 1, msg));
    jw_down_kernel<<<jw_blocks(n), JW_THREADS, 0, c->stream[0]>>>(a, b->coef, b->t);
    GS_CUDA_TRY(cudaGetLastError());
    GS_TRY(jw_gpu_dcts(p, y, c, b, j0, j1, analysis, msg));
    GS_TRY(jw_gpu_move(c, p, y, j0, j1, p->a.nr, b->t, 0, msg));
  }
done:
  return st;
}

/* One DGEMM per degree with the plan's matrix, on the context's cuBLAS
 * handle (stream 0). */
static gs_status jw_gpu_quadrature(const gs_jwt_plan *p, const jw_layout *y, gs_gpu_ctx *c, const jw_gpu_buffers *b,
                                   long j0, long j1, int analysis, char *msg)
{
  gs_status st = GS_OK;
  const int nr = (int)p->a.nr, nc = (int)p->a.ncoef;
  const double zero = 0.0, one = 1.0, w = jw_weight(p->a.nr);
  GS_TRY(jw_gpu_move(c, p, y, j0, j1, analysis ? nr : nc, analysis ? b->t : b->coef, 1, msg));
  for (int k = 0; k < p->nslot; ++k) {
    long lo, hi;
    jw_piece(y, k, j0, j1, &lo, &hi);
    if (lo >= hi) continue;
    const int m = (int)(hi - lo);
    const double *q = p->gpu->quad + (size_t)k * nr * nc;
    double *v = b->t + (lo - j0) * nr, *cf = b->coef + (lo - j0) * nc;
    GS_TRY(gs_cublas_status(analysis ? cublasDgemm(c->blas, CUBLAS_OP_T, CUBLAS_OP_N, nc, m, nr, &w, q, nr, v, nr, &zero, cf, nc)
                                     : cublasDgemm(c->blas, CUBLAS_OP_N, CUBLAS_OP_N, nr, m, nc, &one, q, nr, cf, nc, &zero, v, nr),
                            "cublasDgemm", msg));
  }
  GS_TRY(jw_gpu_move(c, p, y, j0, j1, analysis ? nc : nr, analysis ? b->coef : b->t, 0, msg));
done:
  return st;
}

extern "C" gs_status jw_plan_gpu_execute(const gs_jwt_plan *p, const jw_layout *y, int analysis,
                                         gs_progress_fn progress, char *msg)
{
  gs_status st = GS_OK;
  gs_gpu_ctx *c = NULL;
  size_t free_b = 0;
  char *work = NULL;
  GS_TRY(gs_gpu_ctx_get(p->a.device, &c, msg));
  if (p->a.method == GS_JW_QUADRATURE) GS_TRY(gs_gpu_ctx_solvers(c, msg));
  GS_TRY(gs_gpu_ctx_free_memory(c, &free_b, msg));
  {
    const long chunk = jw_gpu_chunk_columns(p, y->total, analysis, gs_gpu_budget(free_b));
    if (chunk < 1) {
      st = gs_set_msg(msg, GS_ERR_NOMEM, "not enough GPU memory for a column of the transform (%.0f MB free)",
                      free_b / 1048576.0);
      goto done;
    }
    GS_TRY(gs_gpu_ctx_workspace(c, jw_plan_gpu_work_bytes(p, chunk, analysis), (void **)&work, msg));
    const jw_gpu_buffers b = jw_gpu_split(p, work, chunk);
    GS_TRY(gs_gpu_copy_to_device(c, b.first, y->first, ((size_t)p->nslot + 1) * sizeof(long), 0, msg));
    for (long j0 = 0; j0 < y->total; j0 += chunk) {
      const long j1 = y->total - j0 < chunk ? y->total : j0 + chunk;
      GS_TRY(p->a.method == GS_JW_QUADRATURE ? jw_gpu_quadrature(p, y, c, &b, j0, j1, analysis, msg)
                                             : jw_gpu_connection(p, y, c, &b, j0, j1, analysis, msg));
      if (progress && j1 < y->total && progress((double)j1 / y->total)) {
        st = gs_interrupted(msg);
        goto done;
      }
    }
  }
done:
  if (c) cudaStreamSynchronize(c->stream[0]); /* nothing in flight reads the workspace or the host arrays */
  return st;
}
