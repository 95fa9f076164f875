/* Element-wise maps with R-style recycling of the inputs (see map_ops.h). */
#ifndef GS_MAP_H
#define GS_MAP_H

#include "gs_common.h"
#include "map_ops.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  int op;                            /* a gs_op */
  int flags;                         /* op modifiers (STABLE_FLAG_*) */
  uint64_t seed;                     /* stream of the random ops */
  const double *in[GS_MAP_MAX_IN];   /* gs_op_arity(op) inputs */
  size_t len[GS_MAP_MAX_IN];         /* each >= 1 */
  size_t each[GS_MAP_MAX_IN];        /* each >= 1: every value serves each[k] elements */
  size_t n;                          /* output length (>= every len[k] * each[k]) */
  double *out;
} gs_map_args;

/* Where input k (of length len, each value for each elements in turn) is
 * read for element i: at i % len where each = 1, as R recycles; each > 1
 * serves groups, such as the samples of a batched fit, without repeating
 * their parameters in memory. */
GS_HD static inline size_t gs_map_at(size_t i, size_t len, size_t each)
{
  return (each > 1 ? i / each : i) % len;
}

/* threads <= 0: all cores. */
gs_status gs_map_cpu(const gs_map_args *a, int threads, gs_progress_fn progress, char *msg);
gs_status gs_map_gpu(int device, const gs_map_args *a, gs_progress_fn progress, char *msg);
/* Whether some output is NaN although none of its inputs is (R's
 * "NaNs produced" warning). */
int gs_map_nan_produced(const gs_map_args *a, int threads);

#ifdef __cplusplus
}
#endif

#endif
