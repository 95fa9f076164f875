/* Element-wise maps on all CPU cores. */
#ifdef _OPENMP
#include <omp.h>
#endif

#include "gs_map.h"
#include "gs_cpu.h"

/* Seconds between interrupt checks: the elements of one check are sized to
 * take about this long (gs_batch_resize), since an element's cost ranges
 * from nanoseconds (a Bessel K) to a millisecond (a stable quantile); a
 * fixed 2^18 elements had held an interrupt of qstable for 30 s. */
#define MAP_CHECK_SECONDS 0.1
/* Elements of the first check, before any is timed. */
#define MAP_FIRST_CHUNK ((size_t)4096)
/* Elements per scheduled block of the parallel loop at most; a chunk gives
 * each thread at least MAP_BLOCKS_PER_THREAD blocks, so that threads that
 * finish early take more rather than wait at the chunk's end for a long
 * block (a stable fit's 15,000 densities had been 30 blocks of 512, 5 ms
 * each: a 16-core host ran its first chunk of 4,096 on 8 threads). */
#define MAP_BLOCK 512
#define MAP_BLOCKS_PER_THREAD 4

/* Units of work (gs_cpu_threads_for) of one element of op: a stable density
 * or probability is a quadrature of 150 to 300 integrand nodes, 60 to 75
 * times the time of a Bessel K (the unit) on one core, a quantile a search
 * over several (140 times). Counted as one unit each, the 1,000 densities
 * of a stable fit's log-likelihood had run on one thread. */
static double map_op_work(int op)
{
  switch (op) {
  case GS_OP_STABLE_D:
  case GS_OP_STABLE_P: return 64.0;
  case GS_OP_STABLE_Q: return 128.0;
  default: return 1.0;
  }
}

static size_t map_block_size(size_t elements, int nthreads)
{
  const size_t b = elements / ((size_t)nthreads * MAP_BLOCKS_PER_THREAD);
  return b < 1 ? 1 : (b > MAP_BLOCK ? MAP_BLOCK : b);
}

GS_CPU_DISPATCH static void map_block(const gs_map_args *a, size_t lo, size_t hi)
{
  const int arity = gs_op_arity(a->op);
  for (size_t i = lo; i < hi; ++i) {
    double v[GS_MAP_MAX_IN] = {0};
    for (int k = 0; k < arity; ++k) v[k] = a->in[k][gs_map_at(i, a->len[k], a->each[k])];
    gs_op_eval(a->op, a->flags, GS_EVAL_ALL, a->seed, i, v[0], v[1], v[2], v[3], v[4], &a->out[i]);
  }
}

gs_status gs_map_cpu(const gs_map_args *a, int threads, gs_progress_fn progress, char *msg)
{
  if (a->op < 0 || a->op >= GS_OP_COUNT) return gs_set_msg(msg, GS_ERR_ARG, "unknown operation %d", a->op);
  const int nthreads = gs_cpu_threads_for(threads, map_op_work(a->op) * (double)a->n);
  size_t chunk = MAP_FIRST_CHUNK;
  for (size_t start = 0, end; start < a->n; start = end) {
    end = (a->n - start > chunk) ? start + chunk : a->n;
    const long long s = (long long)start, e = (long long)end;
    const long long block = (long long)map_block_size(end - start, nthreads);
    const double t0 = gs_wall_seconds();
#pragma omp parallel for schedule(dynamic, 1) num_threads(nthreads)
    for (long long b = s; b < e; b += block)
      map_block(a, (size_t)b, (size_t)(e - b > block ? b + block : e));
    if (progress && end < a->n && progress((double)end / a->n))
      return gs_interrupted(msg);
    chunk = gs_batch_resize(chunk, gs_wall_seconds() - t0, MAP_CHECK_SECONDS, MAP_BLOCK);
  }
  return GS_OK;
}

int gs_map_nan_produced(const gs_map_args *a, int threads)
{
  const int arity = gs_op_arity(a->op);
  const long long n = (long long)a->n;
  int found = 0;
#pragma omp parallel for reduction(| : found) num_threads(gs_cpu_threads_for(threads, (double)n))
  for (long long i = 0; i < n; ++i) {
    if (!isnan(a->out[i])) continue;
    int from_nan = 0;
    for (int k = 0; k < arity; ++k) from_nan |= isnan(a->in[k][gs_map_at((size_t)i, a->len[k], a->each[k])]);
    found |= !from_nan;
  }
  return found;
}
