/* The trace of a tile Cholesky: CUDA events around each op, read back as
 * rows (stream, kind, i, j, k, start, end, device) once the streams are done. */
#include <stdlib.h>

#include "tile_run.cuh"

/* With a trace: the start (end = 0) or end of the current op on stream q. */
cudaError_t tile_trace_mark(tile_run *r, int q, int end)
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
gs_status tile_trace_collect(tile_run *runs, int ndev, gs_tile_info *info, char *msg)
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
