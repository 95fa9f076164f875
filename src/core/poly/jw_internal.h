/* What the files of the Jones-Worland plans share (jw_plan.c, jw_cpu.c,
 * jw_cuda.cu and the stubs of poly_none.c), and no other file uses. */
#ifndef GS_JW_INTERNAL_H
#define GS_JW_INTERNAL_H

#include "gs_poly.h"
#include "poly_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The device copies of a GPU plan (jw_cuda.cu). */
typedef struct jw_plan_gpu jw_plan_gpu;

/* A plan keeps its degrees in slots: the even degrees ascending, then the
 * odd ones, so that a call's columns of each parity are contiguous and take
 * one DCT type (jw_dct_type) in one batch. */
struct gs_jwt_plan {
  gs_jwt_plan_args a;
  int nslot, neven;      /* degrees, and those of even l (slots 0 .. neven - 1) */
  int *slot_l;           /* the degree of each slot */
  long len;              /* entries per beta of the chain tables: ncoef + lmax / 2 + 1 */
  gs_jw_chain chain[2];  /* connection, CPU plan: the bidiagonals of each parity (NULL where no degree has it) */
  double *quad;          /* quadrature, CPU plan: the nr x ncoef matrix of each slot */
  jw_plan_gpu *gpu;      /* GPU plan */
  size_t bytes;          /* held on the device (the host for a CPU plan) */
};

/* The columns of one call in the plan's order: slot k has columns
 * first[k] .. first[k + 1] - 1, read from in[k] and written to out[k]; the
 * first `even` columns are those of even degree. */
typedef struct {
  long *first; /* nslot + 1 */
  long total, even;
  const double **in;
  double **out;
} jw_layout;

/* The bytes of a connection table (mu and nu of every beta; 0 where there is none). */
static inline size_t jw_chain_bytes(const gs_jw_chain *c)
{
  return c->mu ? 2 * (size_t)(c->levels > 0 ? c->levels : 1) * c->len * sizeof(double) : 0;
}

/* The columns of a chunk [j0, j1) that slot k holds: [*lo, *hi), empty when *lo >= *hi. */
static inline void jw_piece(const jw_layout *y, int k, long j0, long j1, long *lo, long *hi)
{
  *lo = y->first[k] > j0 ? y->first[k] : j0;
  *hi = y->first[k + 1] < j1 ? y->first[k + 1] : j1;
}

/* Columns per chunk of a CPU call: its scratch stays near the caches. */
#define JW_CPU_CHUNK_BYTES ((size_t)8 << 20)

/* CPU plans (jw_cpu.c): the quadrature matrices, a call, and the columns
 * of a chunk of a call of `total` columns. */
long jw_cpu_chunk_columns(const gs_jwt_plan *p, long total);
gs_status jw_plan_cpu_make(gs_jwt_plan *p, int threads, char *msg);
gs_status jw_plan_cpu_execute(const gs_jwt_plan *p, const jw_layout *y, int analysis, int threads,
                              gs_progress_fn progress, char *msg);
/* GPU plans (jw_cuda.cu; stubs in poly_none.c): the device copies of the
 * plan's tables (p->chain, built on the host) or its quadrature matrices,
 * their release, a call, and the working memory of a call. */
gs_status jw_plan_gpu_make(gs_jwt_plan *p, char *msg);
void jw_plan_gpu_release(gs_jwt_plan *p);
gs_status jw_plan_gpu_execute(const gs_jwt_plan *p, const jw_layout *y, int analysis, gs_progress_fn progress,
                              char *msg);
size_t jw_plan_gpu_work_bytes(const gs_jwt_plan *p, long ncol, int analysis);

#ifdef __cplusplus
}
#endif

#endif
