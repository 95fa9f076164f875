/* The static schedule of the left-looking tile Cholesky and, for a device that
 * holds `slots` tiles, which tile sits in which slot at every step.
 *
 * Column k of L is computed task by task, the diagonal tile first: task (i, k)
 * updates the accumulator A_ik with L_ij L_kj' for every j < k (SYRK on the
 * diagonal, GEMM below it), then factors it (POTRF) or solves with L_kk
 * (TRSM), and the finished tile is stored back to the host. Out of core, the
 * tasks below the diagonal go in rounds of rows whose updates all precede
 * their solves, so that updates overlap the diagonal factorization. With
 * several devices the tile rows are dealt to them (tile_row_owner), each
 * device with its own plan. On a device, task (i, k), i > k, runs on worker
 * (the rank of row i on its device) mod workers, so a row's updates follow
 * each other on one stream; the diagonal tasks, the critical path, run on
 * their own worker, number `workers`.
 *
 * Because the whole sequence of tile accesses is known in advance, the cache
 * evicts the tile whose next use is furthest away (Belady's rule, optimal for
 * the number of loads); tiles with no further use go first. The accumulator of
 * the running task is never evicted, and a finished tile is only dropped after
 * it has been stored. When every tile a device touches fits in its slots (in
 * core), the chain of diagonal factorizations sets the pace, and the plan
 * looks one column ahead: the updates of a task but its last run in the
 * previous column, the solves move to the diagonal worker, that of row
 * k + 1 in column k first, and the finished tiles of other devices' rows are
 * loaded a few columns before they are read. The plan is plain C, so the
 * cache decisions are tested without a GPU, and the CPU factorization runs
 * the plan made for a cache of every tile (tile_chol_cpu.c), where the
 * loads and stores are no-ops. */
#ifndef GS_TILE_PLAN_H
#define GS_TILE_PLAN_H

#include "gs_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The ops of a plan: code and the name R knows it by (tile_chol's trace).
 * Written once: the enum and the table R reads at load (gs_r_tables) are
 * generated from this list.
 *   load   tile[0] into slot[0]: its initial value, or the finished tile from the host
 *   syrk   c -= a a'            c = (k, k), a = (k, j)
 *   gemm   c -= a b'            c = (i, k), a = (i, j), b = (k, j)
 *   potrf  c = chol(c)          c = (k, k)
 *   trsm   c = c b'^-1          c = (i, k), b = (k, k)
 *   store  the finished tile[0] from slot[0] to the host */
#define TILE_OP_KINDS(X)       \
  X(TILE_OP_LOAD, "load")      \
  X(TILE_OP_SYRK, "syrk")      \
  X(TILE_OP_GEMM, "gemm")      \
  X(TILE_OP_POTRF, "potrf")    \
  X(TILE_OP_TRSM, "trsm")      \
  X(TILE_OP_STORE, "store")

#define TILE_OP_ENUM_ENTRY(code, name) code,
typedef enum { TILE_OP_KINDS(TILE_OP_ENUM_ENTRY) TILE_OP_KIND_COUNT } tile_op_kind;
#undef TILE_OP_ENUM_ENTRY

typedef struct {
  unsigned char kind;
  unsigned char worker;
  int i, j, k;    /* c = (i, k); operands (i, j), (k, j); TRSM: b = (k, k) */
  int tile[3];    /* c, a, b as tile indices; -1 where unused */
  int slot[3];
} tile_op;

typedef struct {
  int nt, workers, slots;
  tile_op *ops;
  long nops;
  long *column_end; /* ops[column_end[k] - 1] is the last op of column k */
  long loads, stores;
} tile_plan;

/* The device of tile row i of nt among `owners`. Row i carries work
 * growing like i^2, so the rows are dealt from the last one up in
 * alternating directions (0, 1, ..., owners - 1, owners - 1, ..., 0, 0, ...):
 * plain round-robin from the top gives the device of the last row about 9
 * percent more than the mean on 4 devices and 49 rows, this 1 percent. */
static inline int tile_row_owner(int i, int nt, int owners)
{
  const int r = nt - 1 - i, pos = r % owners;
  return (r / owners) % 2 ? owners - 1 - pos : pos;
}

/* The plan of the tasks of the tile rows that device `owner` of `owners`
 * owns (tile_row_owner; the tiles of other rows that they read are loaded
 * like finished tiles). slots >= 3; workers >= 1 (the ops use workers + 1
 * of them). */
gs_status tile_plan_build(int nt, int workers, int slots, int owners, int owner, tile_plan *p, char *msg);
void tile_plan_free(tile_plan *p);

#ifdef __cplusplus
}
#endif

#endif
