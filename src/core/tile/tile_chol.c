/* Tile Cholesky: argument checks, the precision map and the choice of
 * backend. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gs_cpu.h"
#include "tile_internal.h"

/* A mixed-precision factorization is run again at most this often, each
 * time with some tiles at least one precision higher; after
 * GS_TILE_PRECISIONS - 1 promotions of a region every tile in it is FP64. */
#define TILE_ATTEMPTS (2 * GS_TILE_PRECISIONS)

void gs_tile_map_free(gs_tile_map *map)
{
  free(map->precision);
  free(map->max_abs);
  free(map->sumsq);
  memset(map, 0, sizeof *map);
}

gs_status gs_tile_map_build(int device, const gs_tile_matrix *m, const gs_tile_source *src, double accuracy,
                            int lowest, int threads, gs_tile_map *map, char *msg)
{
  gs_status st = GS_OK;
  const long ntiles = gs_tile_count(m->nt);
  memset(map, 0, sizeof *map);
  map->precision = (unsigned char *)malloc((size_t)ntiles);
  map->max_abs = (double *)malloc((size_t)ntiles * sizeof(double));
  map->sumsq = (double *)malloc((size_t)ntiles * sizeof(double));
  if (!map->precision || !map->max_abs || !map->sumsq) {
    st = gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory");
    goto done;
  }
  st = (device >= 0 && !src->a) ? gs_tile_norms_gpu(device, m, src, map->sumsq, map->max_abs, msg)
                                : gs_tile_norms(m, src, threads, map->sumsq, map->max_abs, msg);
  if (st != GS_OK) goto done;
  gs_tile_precision_map(m, map->sumsq, accuracy, lowest, map->precision);
done:
  if (st != GS_OK) gs_tile_map_free(map);
  return st;
}

/* After a failed mixed-precision attempt: promotes the tiles whose values
 * did not fit, or, when the diagonal tile of tile row k was not positive
 * definite, every tile of rows 0..k that is not FP64 (they all feed it).
 * Returns the number promoted. */
static long tile_map_promote(const gs_tile_matrix *m, gs_status st, const gs_tile_info *info, gs_tile_map *map)
{
  const long ntiles = gs_tile_count(m->nt);
  long promoted = 0;
  for (long t = 0; t < ntiles; ++t)
    if (m->overflow[t] && map->precision[t] != GS_TILE_FP64) {
      map->precision[t]--;
      promoted++;
    }
  if (promoted || st != GS_ERR_NOT_PD) return promoted;
  const int k = (int)((info->failed_minor - 1) / m->nb);
  for (long t = 0; t < gs_tile_count(k + 1); ++t)
    if (map->precision[t] != GS_TILE_FP64) {
      map->precision[t]--;
      promoted++;
    }
  return promoted;
}

static gs_status tile_chol_once(int device, gs_tile_matrix *m, const gs_tile_source *src, const gs_tile_options *opt,
                                gs_tile_info *info, char *msg)
{
  gs_status st = GS_OK;
  if (device < 0 || src->a) { /* the tiles start in host memory */
    if ((st = gs_tile_matrix_host(m, msg)) == GS_OK) st = gs_tile_fill(m, src, opt->threads, msg);
  }
  if (st != GS_OK) return st;
  return device < 0 ? gs_tile_chol_cpu(m, opt, info, msg) : gs_tile_chol_gpu(device, m, src, opt, info, msg);
}

static int tile_overflowed(const gs_tile_matrix *m)
{
  return m->low_tiles && memchr(m->overflow, 1, (size_t)gs_tile_count(m->nt)) != NULL;
}

static double tile_min_pivot(const gs_tile_matrix *m, int k)
{
  const long r0 = (long)k * m->nb;
  double p = INFINITY;
  for (long r = r0; r < r0 + gs_tile_rows(m, k); ++r) {
    const double l = gs_tile_factor_diagonal(m, r);
    p = fmin(p, l * l);
  }
  return p;
}

/* The pivot test of a mixed-precision factor. Rounding the low-precision
 * tiles L_kj (j < k) of tile row k moves the Schur complement that L_kk
 * factors by about e_k = sum_j c_kj, where a tile of unit roundoff u adds
 *   c_kj = u ||L_kj||_F (||L_kj||_F + ||A_kj||_F / sqrt(p_j)),
 * the first term from rounding L_kj, the second from rounding A_kj, which
 * the solve against L_jj amplifies by up to 1 / sqrt(p_j), p_j the smallest
 * pivot of L_jj. The accuracy rule bounds the tiles against ||A||, which is
 * not enough where A is ill-conditioned: row k passes when
 * e_k <= share p_k (share = opt->pivot_share). A row that fails has its
 * largest terms promoted, one precision at a time, until e_k is within half
 * the bound, so that the next run passes with room to spare; the near-
 * diagonal tiles, of large norm, go up, and the far ones, which add little,
 * stay low. */
typedef struct {
  unsigned char *base; /* the accuracy map, before any promotion */
  double *low;         /* ||L_t||_F^2 of the factor's tiles that are low in base */
  double *pivot;       /* p_k */
} tile_pivot_test;

static void tile_pivot_test_free(tile_pivot_test *pt)
{
  free(pt->base);
  free(pt->low);
  free(pt->pivot);
  memset(pt, 0, sizeof *pt);
}

static gs_status tile_pivot_test_init(const gs_tile_matrix *m, const gs_tile_map *map, tile_pivot_test *pt,
                                      char *msg)
{
  const long ntiles = gs_tile_count(m->nt);
  pt->base = (unsigned char *)malloc((size_t)ntiles);
  pt->low = (double *)malloc((size_t)ntiles * sizeof(double));
  pt->pivot = (double *)malloc((size_t)m->nt * sizeof(double));
  if (!pt->base || !pt->low || !pt->pivot) {
    tile_pivot_test_free(pt);
    return gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory");
  }
  memcpy(pt->base, map->precision, (size_t)ntiles);
  return GS_OK;
}

/* c_kj of tile t = (k, j) in format p. */
static double tile_rounding(const gs_tile_map *map, const tile_pivot_test *pt, long t, int j, int p)
{
  if (p == GS_TILE_FP64) return 0.0;
  const double l = sqrt(pt->low[t]);
  return tile_precision_roundoff(p) * l * (l + sqrt(map->sumsq[t] / pt->pivot[j]));
}

static double tile_row_rounding(const gs_tile_map *map, const tile_pivot_test *pt, int k, const unsigned char *precision)
{
  double e = 0.0;
  for (int j = 0; j < k; ++j) e += tile_rounding(map, pt, gs_tile_index(k, j), j, precision[gs_tile_index(k, j)]);
  return e;
}

/* Promotes the tiles of row k with the largest terms, one precision at a
 * time, until e_k <= bound. Returns the number of promotions. */
static long tile_row_promote(const gs_tile_map *map, const tile_pivot_test *pt, int k, double bound,
                             unsigned char *precision)
{
  long promotions = 0;
  double e = tile_row_rounding(map, pt, k, precision);
  while (e > bound) {
    int top = -1;
    double c = 0.0;
    for (int j = 0; j < k; ++j) {
      const long t = gs_tile_index(k, j);
      const double cj = tile_rounding(map, pt, t, j, precision[t]);
      if (cj > c) c = cj, top = j;
    }
    if (top < 0) break; /* every tile FP64 */
    const long t = gs_tile_index(k, top);
    precision[t]--;
    e += tile_rounding(map, pt, t, top, precision[t]) - c;
    ++promotions;
  }
  return promotions;
}

/* Measures the factor in m and promotes the tiles of the rows that fail. */
static gs_status tile_rows_promote(const gs_tile_matrix *m, const gs_tile_options *opt, gs_tile_map *map,
                                   tile_pivot_test *pt, long *promoted, char *msg)
{
  gs_status st = gs_tile_low_sumsq(m, pt->base, opt->threads, pt->low, msg);
  *promoted = 0;
  if (st != GS_OK) return st;
  for (int k = 0; k < m->nt; ++k) pt->pivot[k] = tile_min_pivot(m, k);
  for (int k = 1; k < m->nt; ++k)
    if (!(tile_row_rounding(map, pt, k, map->precision) <= opt->pivot_share * pt->pivot[k]))
      *promoted += tile_row_promote(map, pt, k, 0.5 * opt->pivot_share * pt->pivot[k], map->precision);
  return GS_OK;
}

/* The precisions the next factorization of a similar matrix starts from at
 * least, after a factor that passed: those that bring every row within half
 * the bound in this factor, from the accuracy map, so that rows near the
 * bound go up before they fail, and come down where the matrix has become
 * easier. */
static void tile_rows_next(const gs_tile_matrix *m, const gs_tile_options *opt, const gs_tile_map *map,
                           const tile_pivot_test *pt)
{
  const long ntiles = gs_tile_count(m->nt);
  unsigned char *next = (unsigned char *)malloc((size_t)ntiles);
  if (!next) return; /* the next factorization starts from the accuracy map */
  memcpy(next, pt->base, (size_t)ntiles);
  for (int k = 1; k < m->nt; ++k) tile_row_promote(map, pt, k, 0.5 * opt->pivot_share * pt->pivot[k], next);
  memcpy(opt->precision_floor, next, (size_t)ntiles);
  free(next);
}

gs_status gs_tile_chol(int device, gs_tile_matrix *m, const gs_tile_source *src, const gs_tile_options *opt,
                       gs_tile_info *info, char *msg)
{
  gs_status st = GS_OK;
  gs_tile_map map = {NULL, NULL, NULL};
  tile_pivot_test pivots = {NULL, NULL, NULL};
  int passed = 0; /* the last attempt passed the pivot test */
  memset(info, 0, sizeof *info);
  if (!src->a && src->dim < 1) return gs_set_msg(msg, GS_ERR_ARG, "the locations need at least one coordinate");
  if (!src->a && (st = gs_cov_model_check(&src->model, src->dim, msg)) != GS_OK) return st;
  if (!(opt->accuracy >= 0.0 && opt->accuracy < 1.0))
    return gs_set_msg(msg, GS_ERR_ARG, "the accuracy of a mixed-precision factorization must be in (0, 1)");
  const double t0 = gs_wall_seconds(), host_seconds = gs_tile_host_seconds(m);
  if (opt->accuracy > 0.0 && m->nt > 1 &&
      (st = gs_tile_map_build(device, m, src, opt->accuracy, opt->fp8 ? GS_TILE_FP8 : GS_TILE_FP16, opt->threads,
                              &map, msg)) != GS_OK)
    goto done;
  if (map.precision && opt->pivot_share > 0.0) {
    if ((st = tile_pivot_test_init(m, &map, &pivots, msg)) != GS_OK) goto done;
    if (opt->precision_floor)
      for (long t = 0; t < gs_tile_count(m->nt); ++t)
        if (opt->precision_floor[t] < map.precision[t]) map.precision[t] = opt->precision_floor[t];
  }
  for (int attempt = 1;; ++attempt) {
    const double bytes_to_device = info->bytes_to_device, bytes_to_host = info->bytes_to_host;
    const long loads = info->tile_loads;
    gs_tile_matrix_layout(m, map.precision, map.max_abs);
    free(info->trace); /* the trace of the last attempt is kept */
    memset(info, 0, sizeof *info);
    st = tile_chol_once(device, m, src, opt, info, msg);
    info->attempts = attempt;
    info->bytes_to_device += bytes_to_device; /* the traffic of every attempt */
    info->bytes_to_host += bytes_to_host;
    info->tile_loads += loads;
    if (st != GS_OK && st != GS_ERR_NOT_PD) break;
    if (!map.precision || attempt == TILE_ATTEMPTS) break;
    long promoted = 0;
    if (st == GS_OK && !tile_overflowed(m)) {
      if (pivots.base && (st = tile_rows_promote(m, opt, &map, &pivots, &promoted, msg)) != GS_OK) goto done;
      passed = pivots.base && !promoted;
    } else {
      promoted = tile_map_promote(m, st, info, &map);
    }
    if (!promoted) break;
  }
  if (st == GS_OK && tile_overflowed(m))
    st = gs_set_msg(msg, GS_ERR_ARG, "the matrix has values too large for the factorization's formats");
  if (st == GS_OK) info->logdet = gs_tile_logdet(m);
  if (st == GS_OK && passed && opt->precision_floor) tile_rows_next(m, opt, &map, &pivots);
done:
  info->seconds = gs_wall_seconds() - t0;
  info->host_seconds = gs_tile_host_seconds(m) - host_seconds;
  gs_tile_map_free(&map);
  tile_pivot_test_free(&pivots);
  return st;
}

int gs_tile_default_size(long n, int device)
{
  long nb;
  if (device >= 0)
    nb = n >= 32768 ? 2048 : 1024;
  else if (n <= 2048) /* about four tile rows */
    nb = (n / 4 + 31) / 32 * 32 < 64 ? 64 : (n / 4 + 31) / 32 * 32;
  else { /* about 16 tile rows, 256 to 512: the ops of the plan are the CPU's tasks, and four to eight rows
          * leave most of 16 threads idle. Never from the thread count, so that the tiles, and with them the
          * rounding, are the same for any number of threads. */
    nb = (n / 16 + 31) / 32 * 32;
    nb = nb < 256 ? 256 : nb > 512 ? 512 : nb;
  }
  return (int)(nb < n ? nb : n);
}
