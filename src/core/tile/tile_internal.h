/* The tile folder's own declarations, behind the public gs_tile.h: the
 * tiles' layout and host memory, reads and writes in a tile's format, the
 * sources' fill and norms, the precision map, the backends of gs_tile_chol,
 * the resident factor's products and the factor's sums of squares. */
#ifndef GS_TILE_INTERNAL_H
#define GS_TILE_INTERNAL_H

#include "gs_tile.h"
#include "tile_plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The format of every tile (NULL: all FP64), and the scales of the FP16 and
 * FP8 tiles from the largest entries of the tiles of A (NULL: 1). */
void gs_tile_matrix_layout(gs_tile_matrix *m, const unsigned char *precision, const double *max_abs);
/* Host memory for the tiles in their layout, touched and page-locked in
 * full, for tiles written on the CPU; reallocated only when it is too
 * small, so that a changing precision map does not page-lock the tiles
 * again on every factorization. The time a reallocation takes is added to
 * m->host_seconds. */
gs_status gs_tile_matrix_host(gs_tile_matrix *m, char *msg);
/* The same memory for a GPU factorization that stores its tiles as it
 * goes: touched on background threads in the order of the stores (column
 * by column) and page-locked by the copies (gs_host_pages_copy), so that
 * neither delays the factorization's start. gs_host_pages_settle(m->pages)
 * must follow the factorization. */
gs_status gs_tile_matrix_host_ahead(gs_tile_matrix *m, char *msg);
/* The host memory's time so far (m->host_seconds and the pages'). */
double gs_tile_host_seconds(const gs_tile_matrix *m);
/* Releases the device memory of a resident factor (a no-op without one). */
void gs_tile_resident_free(gs_tile_matrix *m);

/* Tile (i, j) as doubles: the tile itself when it is FP64, else converted
 * into work (nb * nb doubles). */
const double *gs_tile_read(const gs_tile_matrix *m, int i, int j, double *work);
/* x (gs_tile_rows(m, i) x gs_tile_rows(m, j), column-major) into tile (i, j)
 * in its format; 0 when a value does not fit (m->overflow is then set). */
int gs_tile_write(gs_tile_matrix *m, int i, int j, const double *x);

/* The tiles of the source into m, each in its format, on `threads` CPU
 * threads. */
gs_status gs_tile_fill(gs_tile_matrix *m, const gs_tile_source *src, int threads, char *msg);

/* For every tile of the source: the sum of squares of its entries (of both
 * triangles on the diagonal) and its largest absolute entry, on the CPU or
 * (a Matérn source) generated on the GPU. */
gs_status gs_tile_norms(const gs_tile_matrix *m, const gs_tile_source *src, int threads, double *sumsq,
                        double *max_abs, char *msg);
gs_status gs_tile_norms_gpu(int device, const gs_tile_matrix *m, const gs_tile_source *src, double *sumsq,
                            double *max_abs, char *msg);

/* The precision of every tile for a factorization accurate to `accuracy`
 * (Higham and Mary's adaptive-precision rule): an off-diagonal tile is
 * stored in the lowest precision down to `lowest` (GS_TILE_FP16 or
 * GS_TILE_FP8), of unit roundoff u, for which
 *   nt ||A_ij||_F / ||A||_F <= accuracy / u,
 * so that rounding it perturbs A by at most accuracy ||A||_F / nt in
 * Frobenius norm and all the tiles together by at most accuracy ||A||_F;
 * diagonal tiles stay FP64. sumsq: the sums of squares of the tiles of A
 * (gs_tile_norms). */
void gs_tile_precision_map(const gs_tile_matrix *m, const double *sumsq, double accuracy, int lowest,
                           unsigned char *precision);

/* A precision map and the norms it derives from. */
typedef struct {
  unsigned char *precision; /* per tile, for gs_tile_matrix_layout */
  double *max_abs;          /* the largest absolute entry of each tile of A, for the scales */
  double *sumsq;            /* of the tiles of A */
} gs_tile_map;

/* The map of the source's tiles at `accuracy`, down to format `lowest`,
 * from their norms (on the GPU for a Matérn source on a device). */
gs_status gs_tile_map_build(int device, const gs_tile_matrix *m, const gs_tile_source *src, double accuracy,
                            int lowest, int threads, gs_tile_map *map, char *msg);
void gs_tile_map_free(gs_tile_map *map);

/* The locations of a Matérn source regrouped by tile row: those of row i as
 * one column-major gs_tile_rows(m, i) x dim block from i * nb * dim. The
 * caller frees it; NULL when out of memory. */
double *gs_tile_locs_blocked(const gs_tile_matrix *m, const gs_tile_source *src);

/* The backends of gs_tile_chol. */
gs_status gs_tile_chol_cpu(gs_tile_matrix *m, const gs_tile_options *opt, gs_tile_info *info, char *msg);
/* The CPU backend's run of a plan made for every tile of m (slots: all of
 * them, one owner); gs_tile_chol_cpu makes the plan and calls it. */
gs_status gs_tile_plan_run_cpu(gs_tile_matrix *m, const tile_plan *plan, const gs_tile_options *opt,
                               gs_tile_info *info, char *msg);
gs_status gs_tile_chol_gpu(int device, gs_tile_matrix *m, const gs_tile_source *src, const gs_tile_options *opt,
                           gs_tile_info *info, char *msg);

/* The solves and the product of a resident factor: what as in
 * gs_tile_solve, or GS_TILE_MULTIPLY for L b. */
enum { GS_TILE_MULTIPLY = 4 };
gs_status gs_tile_resident_apply(const gs_tile_matrix *m, int what, double *b, long k, char *msg);

/* log det A = 2 sum log diag L. */
double gs_tile_logdet(const gs_tile_matrix *m);
/* The sums of squares of the factor's tiles t with which[t] not FP64 (0
 * for the others), each read in its own format; the second for a resident
 * factor on its GPU. */
gs_status gs_tile_low_sumsq(const gs_tile_matrix *m, const unsigned char *which, int threads, double *sumsq, char *msg);
gs_status gs_tile_resident_low_sumsq(const gs_tile_matrix *m, const unsigned char *which, double *sumsq, char *msg);

#ifdef __cplusplus
}
#endif

#endif
