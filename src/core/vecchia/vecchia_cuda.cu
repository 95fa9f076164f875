/* The Vecchia approximation on a GPU: one warp per block (a conditioning
 * set with its point, or grouped, the union of the sets of several points),
 * its covariance generated in shared memory from the shared Matérn code (a
 * pair per lane) and factored there by the warp (vecchia_point.h, the code
 * the CPU runs with one lane). The locations, the neighbour array, the
 * blocks and the factor stay on the device; each call uploads y and X, and
 * the blocks run in batches with an interrupt check between them. Sets too
 * large for shared memory (above about 120 points with the four
 * derivatives, 135 without the smoothness one, 165 without any, on an H100;
 * for grouped blocks the largest set decides) get their warp's work area in
 * global memory instead, served by the L2 cache: slower, but any m that fits
 * the device runs. Each block adds its warps' sums in a fixed order and the
 * host adds the blocks' in block order, so that a result does not change
 * from run to run. */
#include <math.h>
#include <stdlib.h>

#include "vecchia_gpu.cuh"

/* Points per batch (between interrupt checks), warps per block at most. */
#define VECCHIA_GPU_BATCH ((long)1 << 20)
#define VECCHIA_GPU_WARPS 4
/* Points of set size that one launch of grouped blocks spans. */
#define VECCHIA_GPU_TIER 16
/* Streams on which the launches of a pass run at once. */
#define VECCHIA_GPU_STREAMS 4
/* Bytes of global work areas above which fewer blocks run (down to one per
 * multiprocessor) when conditioning sets spill out of shared memory. */
#define VECCHIA_GPU_SPILL ((size_t)1 << 31)

struct gs_vecchia_gpu {
  gs_gpu_ctx *ctx;
  double *locs;   /* n x dim */
  int *nn;        /* n x mp1, row-major: a warp reads its point's row at once */
  unsigned char *halo; /* n, or NULL (vecchia_problem) */
  double *noise;  /* n, or NULL (vecchia_problem) */
  int *set, *resp; /* grouped: the blocks (vecchia_problem), else NULL */
  long *set_start, *resp_start;
  double *w;      /* n x mp1: the factor, allocated by the first factorization */
  long *rev_start, *rev; /* the factor's columns (gs_vecchia's), uploaded by the first W' b */
  double *data;   /* y and X: n x (1 + p) */
  int data_cols;
  double *part;   /* blocks x K partial sums */
  size_t part_bytes;
  double *spill;  /* blocks x warps work areas where shared memory is too small */
  size_t spill_bytes;
  unsigned long long *failed;
  unsigned *pairs; /* the triangles' pairs for the largest set (vecchia_problem) */
  cudaStream_t streams[VECCHIA_GPU_STREAMS]; /* the kernels' (run_blocks) */
  int blocks, shared_optin;
};

/* Doubles per block of the approximation in flight (a slot): its
 * workspace, its accumulator, a team's lane sums and idx. */
GS_HD static inline long slot_doubles(const vecchia_problem *pr, int K)
{
  return vecchia_work_doubles(pr->ld, pr->p, pr->q, pr->rc, pr->deriv) + K + VECCHIA_GPU_WARPS +
         (pr->ld + pr->rc + 1) / 2;
}

static size_t slot_bytes(const vecchia_problem *pr, int K) { return (size_t)slot_doubles(pr, K) * sizeof(double); }

/* min_blocks: the blocks a multiprocessor must hold at once, which caps the
 * registers (uncapped, the kernel takes 184 and a multiprocessor runs two
 * blocks). Where shared memory holds VECCHIA_GPU_DENSE blocks (without the
 * smoothness derivative at m = 30: 16 warps a multiprocessor instead of
 * 12), a few spilled registers cost less than the latency the extra warps
 * hide. */
#define VECCHIA_GPU_BLOCKS 3
#define VECCHIA_GPU_DENSE 4

/* team 0: each warp of a thread block takes its own blocks of the
 * approximation, a slot each; team 1: the warps take one block together
 * (one slot), for sets whose square would leave a multiprocessor few warps
 * if each had its own. */
template <int min_blocks>
__global__ void __launch_bounds__(32 * VECCHIA_GPU_WARPS, min_blocks)
    vecchia_blocks_kernel(vecchia_problem pr, matern_deriv_model md, long t0, long t1, double *w, double *part, int K,
                          unsigned long long *failed, double *spill, int team)
{
  extern __shared__ double smem[];
  const int warps = blockDim.y, thread = threadIdx.y * 32 + threadIdx.x;
  const int slots = team ? 1 : warps, slot = team ? 0 : threadIdx.y;
  const int lane = team ? thread : threadIdx.x, lanes = team ? 32 * warps : 32;
  const int ld = pr.ld;
  const long wd = vecchia_work_doubles(ld, pr.p, pr.q, pr.rc, pr.deriv);
  const long per_slot = slot_doubles(&pr, K);
  double *pool = spill ? spill + (long)blockIdx.x * slots * per_slot : smem;
  double *base = pool + slot * per_slot;
  double *acc = base + wd;
  vecchia_work work = vecchia_work_at(base, (int *)(acc + K + VECCHIA_GPU_WARPS), ld, pr.p, pr.q, pr.rc, pr.deriv);
  work.team = acc + K;
  for (int k = lane; k < K; k += lanes) acc[k] = 0.0;
  __syncthreads();
  for (long t = t0 + (long)blockIdx.x * slots + slot; t < t1; t += (long)gridDim.x * slots) {
    const int bad = vecchia_block(&pr, &md, &work, t, w ? w + t * pr.mp1 : NULL, acc, lane, lanes);
    if (bad && lane == 0) atomicMin(failed, (unsigned long long)(vecchia_block_point(&pr, t) + 1));
  }
  __syncthreads();
  for (int k = thread; k < K; k += 32 * warps) {
    double s = 0.0;
    for (int v = 0; v < slots; ++v) s += pool[v * per_slot + wd + k];
    part[(long)blockIdx.x * K + k] = s;
  }
}

/* out = W b, nn row-major. */
__global__ void vecchia_apply_kernel(const double *w, const int *nn, long n, int mp1, const double *b, int k,
                                     double *out)
{
  const long t = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n * k) return;
  const long i = t % n, c = t / n;
  const double *bc = b + c * n, *wi = w + i * mp1;
  double s = 0.0;
  for (int j = 0; j < mp1; ++j) {
    const int g = nn[i * mp1 + j];
    if (g < 0) break;
    s += wi[j] * bc[g];
  }
  out[t] = s;
}

/* (W' b)_g for point g and column c of b, one thread each: column g of the
 * factor gathered in increasing row order (the CPU's sums, in its order). */
__global__ void vecchia_transpose_kernel(const double *w, const long *rev_start, const long *rev, long n, int mp1,
                                         const double *b, int k, double *out)
{
  const long t = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n * k) return;
  const long g = t % n, c = t / n;
  const double *bc = b + c * n;
  double s = 0.0;
  for (long e = rev_start[g]; e < rev_start[g + 1]; ++e) s += w[rev[e]] * bc[rev[e] / mp1];
  out[t] = s;
}

/* The factor's columns to the device, once. */
static gs_status upload_reverse(gs_vecchia *v, char *msg)
{
  gs_status st = GS_OK;
  gs_vecchia_gpu *g = v->gpu;
  const size_t start_b = ((size_t)v->n + 1) * sizeof(long), rev_b = (size_t)v->rev_start[v->n] * sizeof(long);
  if (g->rev) return GS_OK;
  GS_CUDA_TRY(cudaMalloc(&g->rev_start, start_b));
  GS_CUDA_TRY(cudaMalloc(&g->rev, rev_b > 0 ? rev_b : sizeof(long)));
  GS_TRY(gs_gpu_copy_to_device(g->ctx, g->rev_start, v->rev_start, start_b, 0, msg));
  GS_TRY(gs_gpu_copy_to_device(g->ctx, g->rev, v->rev, rev_b, 0, msg));
done:
  if (st != GS_OK) {
    cudaFree(g->rev_start);
    cudaFree(g->rev);
    g->rev_start = NULL;
    g->rev = NULL;
  }
  return st;
}

gs_status vecchia_gpu_view_get(gs_vecchia *v, vecchia_gpu_view *view, char *msg)
{
  gs_status st = GS_OK;
  gs_vecchia_gpu *g = v->gpu;
  GS_CUDA_TRY(cudaSetDevice(g->ctx->device));
  GS_TRY(upload_reverse(v, msg));
  view->ctx = g->ctx;
  view->nn = g->nn;
  view->w = g->w;
  view->rev_start = g->rev_start;
  view->rev = g->rev;
done:
  return st;
}

/* Rows of the neighbour array transposed on the host per copy. */
#define VECCHIA_GPU_NN_ROWS 65536L

/* The neighbour array, transposed to row-major on the host a slice at a
 * time (a host copy of the whole would add 4 (m + 1) bytes a point to the
 * host's peak). */
static gs_status upload_neighbors(gs_vecchia *v, char *msg)
{
  const long n = v->n;
  const int mp1 = v->mp1;
  const long slice = n < VECCHIA_GPU_NN_ROWS ? n : VECCHIA_GPU_NN_ROWS;
  int *rows = (int *)malloc((size_t)slice * mp1 * sizeof(int));
  if (!rows) return gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory");
  gs_status st = GS_OK;
  for (long i0 = 0; i0 < n && st == GS_OK; i0 += slice) {
    const long len = n - i0 < slice ? n - i0 : slice;
    for (long i = 0; i < len; ++i)
      for (int j = 0; j < mp1; ++j) rows[i * mp1 + j] = v->nn[i0 + i + (long)j * n];
    /* the copy goes through pinned staging buffers: rows is free again on return */
    st = gs_gpu_copy_to_device(v->gpu->ctx, v->gpu->nn + i0 * mp1, rows, (size_t)len * mp1 * sizeof(int), 0, msg);
  }
  free(rows);
  return st;
}

/* The pairs (r, c), c <= r, of the triangle of the largest set, by rows. */
static gs_status upload_pairs(gs_vecchia *v, char *msg)
{
  gs_status st = GS_OK;
  const int ld = v->set ? v->ld : v->mp1;
  const size_t count = (size_t)ld * (ld + 1) / 2, bytes = count * sizeof(unsigned);
  unsigned *host = (unsigned *)malloc(bytes);
  if (!host) return gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory");
  for (int r = 0, t = 0; r < ld; ++r)
    for (int c = 0; c <= r; ++c) host[t++] = (unsigned)r | (unsigned)c << 16;
  GS_CUDA_TRY(cudaMalloc(&v->gpu->pairs, bytes));
  GS_TRY(gs_gpu_copy_to_device(v->gpu->ctx, v->gpu->pairs, host, bytes, 0, msg));
done:
  free(host);
  return st;
}

/* The blocks of the grouped approximation, where there are. */
static gs_status upload_blocks(gs_vecchia *v, char *msg)
{
  gs_status st = GS_OK;
  gs_vecchia_gpu *g = v->gpu;
  if (!v->set) return GS_OK;
  const size_t starts = (size_t)(v->blocks + 1) * sizeof(long), set_b = (size_t)v->set_start[v->blocks] * sizeof(int);
  GS_CUDA_TRY(cudaMalloc(&g->set, set_b));
  GS_CUDA_TRY(cudaMalloc(&g->resp, (size_t)v->n * sizeof(int)));
  GS_CUDA_TRY(cudaMalloc(&g->set_start, starts));
  GS_CUDA_TRY(cudaMalloc(&g->resp_start, starts));
  GS_TRY(gs_gpu_copy_to_device(g->ctx, g->set, v->set, set_b, 0, msg));
  GS_TRY(gs_gpu_copy_to_device(g->ctx, g->resp, v->resp, (size_t)v->n * sizeof(int), 0, msg));
  GS_TRY(gs_gpu_copy_to_device(g->ctx, g->set_start, v->set_start, starts, 0, msg));
  GS_TRY(gs_gpu_copy_to_device(g->ctx, g->resp_start, v->resp_start, starts, 0, msg));
done:
  return st;
}

extern "C" gs_status gs_vecchia_gpu_init(gs_vecchia *v, char *msg)
{
  gs_status st = GS_OK;
  gs_vecchia_gpu *g = (gs_vecchia_gpu *)calloc(1, sizeof *g);
  if (!g) return gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory");
  v->gpu = g;
  /* grouped: the blocks' sets instead of nn, and no factor */
  const size_t n = (size_t)v->n, locs_b = n * v->dim * sizeof(double), nn_b = v->nn ? n * v->mp1 * sizeof(int) : 0;
  /* the arrays of a factorization and of a likelihood with a few covariates */
  const double blocks_b = v->set ? (double)v->set_start[v->blocks] * 4.0 + n * 4.0 + v->blocks * 16.0 : 0.0;
  const double need = (double)locs_b + nn_b + blocks_b + (v->set ? 0.0 : n * v->mp1 * 8.0) + n * 8.0 * 4;
  size_t free_b = 0;
  GS_TRY(gs_gpu_ctx_get(v->device, &g->ctx, msg));
  GS_TRY(gs_gpu_ctx_free_memory(g->ctx, &free_b, msg));
  if (need > (double)gs_gpu_budget(free_b)) {
    st = gs_set_msg(msg, GS_ERR_NOMEM,
                    "the Vecchia approximation of n = %ld points with m = %d needs %.2f GB of GPU memory; "
                    "GPU %d has %.2f GB free",
                    v->n, v->mp1 - 1, need / 1e9, v->device, free_b / 1e9);
    goto done;
  }
  GS_CUDA_TRY(cudaDeviceGetAttribute(&g->shared_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, v->device));
  g->blocks = 8 * g->ctx->multiprocessors;
  for (int s = 0; s < VECCHIA_GPU_STREAMS; ++s) GS_CUDA_TRY(cudaStreamCreateWithFlags(&g->streams[s], cudaStreamNonBlocking));
  GS_CUDA_TRY(cudaMalloc(&g->locs, locs_b));
  GS_CUDA_TRY(cudaMalloc(&g->failed, sizeof(unsigned long long)));
  GS_TRY(gs_gpu_copy_to_device(g->ctx, g->locs, v->locs, locs_b, 0, msg));
  if (v->nn) {
    GS_CUDA_TRY(cudaMalloc(&g->nn, nn_b));
    GS_TRY(upload_neighbors(v, msg));
  }
  if (v->halo) {
    GS_CUDA_TRY(cudaMalloc(&g->halo, n));
    GS_TRY(gs_gpu_copy_to_device(g->ctx, g->halo, v->halo, n, 0, msg));
  }
  GS_TRY(upload_blocks(v, msg));
  GS_TRY(upload_pairs(v, msg));
done:
  if (st != GS_OK) gs_vecchia_gpu_release(v);
  return st;
}

extern "C" void gs_vecchia_gpu_release(gs_vecchia *v)
{
  gs_vecchia_gpu *g = v->gpu;
  if (!g) return;
  gs_vecchia_gpu_ic0_release(v);
  if (g->ctx) {
    cudaSetDevice(g->ctx->device);
    cudaStreamSynchronize(g->ctx->stream[0]);
  }
  for (int s = 0; s < VECCHIA_GPU_STREAMS; ++s)
    if (g->streams[s]) cudaStreamDestroy(g->streams[s]);
  cudaFree(g->locs);
  cudaFree(g->nn);
  cudaFree(g->halo);
  cudaFree(g->noise);
  cudaFree(g->rev_start);
  cudaFree(g->rev);
  cudaFree(g->set);
  cudaFree(g->resp);
  cudaFree(g->set_start);
  cudaFree(g->resp_start);
  cudaFree(g->w);
  cudaFree(g->data);
  cudaFree(g->part);
  cudaFree(g->spill);
  cudaFree(g->failed);
  cudaFree(g->pairs);
  free(g);
  v->gpu = NULL;
}

/* y and X on the device, in one n x (1 + p) buffer kept between calls. */
static gs_status upload_data(gs_vecchia *v, const double *y, const double *X, int p, char *msg)
{
  gs_status st = GS_OK;
  gs_vecchia_gpu *g = v->gpu;
  const size_t col = (size_t)v->n * sizeof(double);
  if (g->data_cols < 1 + p) {
    cudaFree(g->data);
    g->data = NULL;
    g->data_cols = 0;
    GS_CUDA_TRY(cudaMalloc(&g->data, col * (1 + p)));
    g->data_cols = 1 + p;
  }
  GS_TRY(gs_gpu_copy_to_device(g->ctx, g->data, y, col, 0, msg));
  if (p > 0) GS_TRY(gs_gpu_copy_to_device(g->ctx, g->data + v->n, X, col * p, 0, msg));
done:
  return st;
}

/* A device buffer of at least `bytes`, kept between calls. */
static gs_status device_buffer(double **buf, size_t *have, size_t bytes, char *msg)
{
  gs_status st = GS_OK;
  if (*have >= bytes) return GS_OK;
  cudaFree(*buf);
  *buf = NULL;
  *have = 0;
  GS_CUDA_TRY(cudaMalloc(buf, bytes));
  *have = bytes;
done:
  return st;
}

typedef void (*blocks_kernel)(vecchia_problem, matern_deriv_model, long, long, double *, double *, int,
                              unsigned long long *, double *, int);

typedef struct {
  blocks_kernel kernel;
  int warps, team;
  size_t shared; /* bytes of shared memory a thread block */
} blocks_launch;

/* Sets of at least this many points run as teams (vecchia_blocks_kernel):
 * a warp a set, a set of 40 or more leaves a multiprocessor too few warps to
 * hide the latency of shared memory. On an H100 (n = 1e5, m = 30, grouped,
 * one evaluation with gradient and information) warps alone took 0.137 s,
 * teams from 40 points 0.058 s. Smaller sets stay a warp each: a team of
 * 128 lanes would leave most of its lanes idle at each step of a set of a
 * few dozen points, and wait at a block-wide barrier instead of a warp's. */
#define VECCHIA_GPU_TEAM_POINTS 40

/* The launch of blocks whose slots take per_slot bytes of shared memory
 * each (0: their work areas are in global memory): of 1 to
 * VECCHIA_GPU_WARPS warps a thread block and the two register caps, the
 * one that keeps the most warps resident on a multiprocessor, ties to the
 * larger block and the looser cap (fewer spilled registers). Grouped
 * blocks' large sets need it: at a set of 46, one block of four warps fills
 * a multiprocessor's shared memory where three blocks of two fit, 6 warps
 * instead of 4. A team's thread block holds one slot whatever its warps. */
static gs_status choose_launch(const gs_vecchia_gpu *g, size_t per_slot, int team, blocks_launch *launch, char *msg)
{
  gs_status st = GS_OK;
  const blocks_kernel kinds[2] = {vecchia_blocks_kernel<VECCHIA_GPU_BLOCKS>, vecchia_blocks_kernel<VECCHIA_GPU_DENSE>};
  int best = 0;
  for (int w = VECCHIA_GPU_WARPS; w >= (team ? 2 : 1); --w) {
    const size_t bytes = team ? per_slot : per_slot * w;
    if (bytes > (size_t)g->shared_optin) continue;
    for (int k = 0; k < 2; ++k) {
      int resident = 0;
      GS_CUDA_TRY(cudaFuncSetAttribute(kinds[k], cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
      GS_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, kinds[k], 32 * w, bytes));
      if (resident * w > best) {
        best = resident * w;
        *launch = (blocks_launch){kinds[k], w, team, bytes};
      }
    }
  }
  if (!best) st = gs_set_msg(msg, GS_ERR_NOMEM, "no launch of the Vecchia kernel fits the GPU");
  else GS_CUDA_TRY(cudaFuncSetAttribute(launch->kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)launch->shared));
done:
  return st;
}

/* A launch over the blocks [t0, t1), whose sets have at most ld points. */
typedef struct {
  long t0, t1;
  int ld;
} blocks_span;

/* The spans of a pass, in order: batches of VECCHIA_GPU_BATCH blocks at
 * most, of all the blocks or of each tier of grouped blocks. Grouped blocks
 * come in increasing size of their sets; a tier spans sets of up to
 * VECCHIA_GPU_TIER more points, its workspace sized to its largest set, so
 * that the few largest sets neither take the shared memory of all the
 * others nor send them all to global memory. spans NULL: only counted. */
static long blocks_spans(const gs_vecchia *v, long blocks, int ld, blocks_span *spans)
{
  long count = 0;
  for (long t0 = 0, t1; t0 < blocks; t0 = t1) {
    t1 = blocks;
    if (v->set) {
      const long *start = v->set_start; /* host copy */
      const long cap = start[t0 + 1] - start[t0] + VECCHIA_GPU_TIER - 1;
      for (t1 = t0 + 1; t1 < blocks && start[t1 + 1] - start[t1] <= cap; ++t1) continue;
      ld = (int)(start[t1] - start[t1 - 1]);
    }
    for (long b0 = t0; b0 < t1; b0 += VECCHIA_GPU_BATCH, ++count)
      if (spans) spans[count] = (blocks_span){b0, b0 + VECCHIA_GPU_BATCH < t1 ? b0 + VECCHIA_GPU_BATCH : t1, ld};
  }
  return count;
}

/* The spans from i0 that run together (a window): about VECCHIA_GPU_BATCH
 * blocks, between which come the interrupt check and the progress. Returns
 * the end of the window. */
static long window_end(const blocks_span *spans, long count, long i0)
{
  long i = i0, blocks = 0;
  while (i < count && blocks < VECCHIA_GPU_BATCH) {
    blocks += spans[i].t1 - spans[i].t0;
    ++i;
  }
  return i;
}

/* Enqueues one span on a stream of the object (the spans whose work areas
 * spill to global memory share one buffer and run on the first), its thread
 * blocks' sums into part (g->blocks x K at most); *used: its thread blocks. */
static gs_status launch_span(gs_vecchia *v, const vecchia_problem *pr, const matern_deriv_model *md, double *w, int K,
                             blocks_span span, long index, double *part, int *used, char *msg)
{
  gs_status st = GS_OK;
  gs_vecchia_gpu *g = v->gpu;
  vecchia_problem run = *pr;
  run.ld = span.ld;
  const size_t per_slot = slot_bytes(&run, K);
  const int fits = per_slot <= (size_t)g->shared_optin;
  blocks_launch launch;
  GS_TRY(choose_launch(g, fits ? per_slot : 0, span.ld >= VECCHIA_GPU_TEAM_POINTS, &launch, msg));
  {
    const int slots = launch.team ? 1 : launch.warps;
    int blocks = g->blocks;
    while (!fits && blocks > g->ctx->multiprocessors && per_slot * slots * blocks > VECCHIA_GPU_SPILL) blocks /= 2;
    /* cudaFree, when the buffer grows, waits for the spans using it */
    if (!fits) GS_TRY(device_buffer(&g->spill, &g->spill_bytes, per_slot * slots * blocks, msg));
    cudaStream_t s = g->streams[fits ? index % VECCHIA_GPU_STREAMS : 0];
    launch.kernel<<<blocks, dim3(32, launch.warps), launch.shared, s>>>(run, *md, span.t0, span.t1, w, part, K,
                                                                       g->failed, fits ? NULL : g->spill, launch.team);
    GS_CUDA_TRY(cudaGetLastError());
    *used = blocks;
  }
done:
  return st;
}

/* All the blocks, sums into sums (K). The spans of a window run at once on
 * the object's streams (a tier of the largest sets has too few blocks to
 * fill the GPU, and tiers one after the other would each wait for their
 * slowest block); their sums are added on the host in span order, so that
 * a result does not change from run to run. */
static gs_status run_blocks(gs_vecchia *v, const vecchia_problem *pr, const matern_deriv_model *md, double *w, int K,
                            double *sums, long *failed_point, char *msg)
{
  gs_status st = GS_OK;
  gs_vecchia_gpu *g = v->gpu;
  const long count = blocks_spans(v, pr->blocks, pr->ld, NULL);
  long widest = 0, done_blocks = 0;
  unsigned long long failed = ~0ULL;
  double *host = NULL;
  int *used = NULL;
  blocks_span *spans = (blocks_span *)malloc((size_t)count * sizeof *spans);
  for (int k = 0; k < K; ++k) sums[k] = 0.0;
  if (!spans) return gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory");
  blocks_spans(v, pr->blocks, pr->ld, spans);
  for (long i0 = 0, i1; i0 < count; i0 = i1) {
    i1 = window_end(spans, count, i0);
    if (i1 - i0 > widest) widest = i1 - i0;
  }
  const size_t slice = (size_t)g->blocks * K, window_bytes = (size_t)widest * slice * sizeof(double);
  host = (double *)malloc(window_bytes);
  used = (int *)malloc((size_t)widest * sizeof *used);
  if (!host || !used) {
    st = gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory");
    goto done;
  }
  GS_TRY(device_buffer(&g->part, &g->part_bytes, window_bytes, msg));
  GS_CUDA_TRY(cudaMemcpyAsync(g->failed, &failed, sizeof failed, cudaMemcpyHostToDevice, g->ctx->stream[0]));
  /* the data and the flag in place before any of the object's streams starts */
  GS_CUDA_TRY(cudaStreamSynchronize(g->ctx->stream[0]));
  for (long i0 = 0, i1; i0 < count; i0 = i1) {
    i1 = window_end(spans, count, i0);
    for (long i = i0; i < i1; ++i) {
      GS_TRY(launch_span(v, pr, md, w, K, spans[i], i, g->part + (i - i0) * slice, used + (i - i0), msg));
      done_blocks += spans[i].t1 - spans[i].t0;
    }
    for (int s = 0; s < VECCHIA_GPU_STREAMS; ++s) GS_CUDA_TRY(cudaStreamSynchronize(g->streams[s]));
    GS_CUDA_TRY(cudaMemcpy(host, g->part, (size_t)(i1 - i0) * slice * sizeof(double), cudaMemcpyDeviceToHost));
    GS_CUDA_TRY(cudaMemcpy(&failed, g->failed, sizeof failed, cudaMemcpyDeviceToHost));
    for (long i = 0; i < i1 - i0; ++i)
      for (int b = 0; b < used[i]; ++b)
        for (int k = 0; k < K; ++k) sums[k] += host[i * slice + (long)b * K + k];
    if (failed != ~0ULL) {
      *failed_point = (long)failed;
      st = gs_set_msg(msg, GS_ERR_NOT_PD, "the covariance of the conditioning set of point %ld is not positive definite, "
                      "or numerically singular (the point's conditional variance within rounding of 0)",
                      (long)failed);
      goto done;
    }
    /* up to 1 at the end, so that the bar of each evaluation completes */
    if (v->progress && v->progress((double)done_blocks / pr->blocks)) {
      st = gs_interrupted(msg);
      goto done;
    }
  }
done:
  /* an error leaves no span running on buffers that the next call may free */
  for (int s = 0; s < VECCHIA_GPU_STREAMS; ++s) cudaStreamSynchronize(g->streams[s]);
  free(spans);
  free(host);
  free(used);
  return st;
}

extern "C" gs_status gs_vecchia_gpu_run(gs_vecchia *v, const gs_cov_model *prm, const double *y, const double *X,
                                        int p, int deriv, int keep_factor, double *sums, long *failed_point, char *msg)
{
  gs_status st = GS_OK;
  gs_vecchia_gpu *g = v->gpu;
  GS_CUDA_TRY(cudaSetDevice(g->ctx->device));
  if (keep_factor && !g->w) GS_CUDA_TRY(cudaMalloc(&g->w, (size_t)v->n * v->mp1 * sizeof(double)));
  if (y) GS_TRY(upload_data(v, y, X, p, msg));
  {
    vecchia_problem pr = gs_vecchia_problem(v, g->locs, g->nn, 1, y ? g->data : NULL, y ? g->data + v->n : NULL,
                                            y ? p : 0, y ? deriv : 0);
    pr.halo = g->halo;
    pr.noise = v->noise ? g->noise : NULL;
    pr.set = g->set;
    pr.resp = g->resp;
    pr.set_start = g->set_start;
    pr.resp_start = g->resp_start;
    pr.pairs = g->pairs;
    const matern_deriv_model md = matern_deriv_prepare(prm);
    const int K = y ? vecchia_acc_size(pr.p, pr.q) : 1;
    st = run_blocks(v, &pr, &md, keep_factor ? g->w : NULL, K, sums, failed_point, msg);
  }
done:
  return st;
}

extern "C" gs_status gs_vecchia_gpu_apply(gs_vecchia *v, int what, const double *b, int k, double *out, char *msg)
{
  gs_status st = GS_OK;
  gs_vecchia_gpu *g = v->gpu;
  cudaStream_t s = g->ctx->stream[0];
  double *db = NULL, *dout = NULL;
  const size_t n = (size_t)v->n;
  size_t free_b = 0;
  GS_CUDA_TRY(cudaSetDevice(g->ctx->device));
  if (what == GS_VECCHIA_TRANSPOSE) GS_TRY(upload_reverse(v, msg));
  GS_TRY(gs_gpu_ctx_free_memory(g->ctx, &free_b, msg));
  {
    /* columns in groups that fit: b and W b, 16 n bytes a column */
    long cols = (long)(gs_gpu_budget(free_b) / (16.0 * n));
    if (cols < 1) {
      st = gs_set_msg(msg, GS_ERR_NOMEM, "W b needs %.2f GB of GPU memory a column; %.2f GB are free", 16e-9 * n,
                      free_b / 1e9);
      goto done;
    }
    if (cols > k) cols = k;
    GS_CUDA_TRY(cudaMalloc(&db, n * cols * sizeof(double)));
    GS_CUDA_TRY(cudaMalloc(&dout, n * cols * sizeof(double)));
    for (long c0 = 0; c0 < k; c0 += cols) {
      const long kc = (c0 + cols < k) ? cols : k - c0;
      GS_TRY(gs_gpu_copy_to_device(g->ctx, db, b + c0 * n, n * kc * sizeof(double), 0, msg));
      const long threads = (long)n * kc;
      const unsigned grid = (unsigned)((threads + 255) / 256);
      if (what == GS_VECCHIA_TRANSPOSE)
        vecchia_transpose_kernel<<<grid, 256, 0, s>>>(g->w, g->rev_start, g->rev, v->n, v->mp1, db, (int)kc, dout);
      else
        vecchia_apply_kernel<<<grid, 256, 0, s>>>(g->w, g->nn, v->n, v->mp1, db, (int)kc, dout);
      GS_CUDA_TRY(cudaGetLastError());
      GS_TRY(gs_gpu_copy_to_host(g->ctx, out + c0 * n, dout, n * kc * sizeof(double), 0, msg));
    }
  }
done:
  cudaFree(db);
  cudaFree(dout);
  return st;
}

extern "C" gs_status gs_vecchia_gpu_set_noise(gs_vecchia *v, char *msg)
{
  gs_status st = GS_OK;
  gs_vecchia_gpu *g = v->gpu;
  const size_t bytes = (size_t)v->n * sizeof(double);
  GS_CUDA_TRY(cudaSetDevice(g->ctx->device));
  if (!v->noise) goto done; /* the device copy stays for the next variances; the problem reads none */
  if (!g->noise) GS_CUDA_TRY(cudaMalloc(&g->noise, bytes));
  GS_TRY(gs_gpu_copy_to_device(g->ctx, g->noise, v->noise, bytes, 0, msg));
done:
  return st;
}

extern "C" gs_status gs_vecchia_gpu_factor_to_host(gs_vecchia *v, double *w, char *msg)
{
  gs_status st = GS_OK;
  GS_CUDA_TRY(cudaSetDevice(v->gpu->ctx->device));
  GS_TRY(gs_gpu_copy_to_host(v->gpu->ctx, w, v->gpu->w, (size_t)v->n * v->mp1 * sizeof(double), 0, msg));
done:
  return st;
}
