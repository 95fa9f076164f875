/* Tile Cholesky: argument checks, the precision map and the choice of
 * backend. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gs_cpu.h"
#include "gs_tile.h"

/* A mixed-precision factorization is run again at most this often, each
 * time with some tiles one precision higher; after GS_TILE_PRECISIONS - 1
 * promotions of a region every tile in it is FP64. */
#define TILE_ATTEMPTS (2 * GS_TILE_PRECISIONS)

typedef struct {
  unsigned char *precision;
  float *scale;
} tile_map;

static void tile_map_free(tile_map *map)
{
  free(map->precision);
  free(map->scale);
}

gs_status gs_tile_map(int device, const gs_tile_matrix *m, const gs_tile_source *src, double accuracy, int threads,
                      unsigned char *precision, float *scale, char *msg)
{
  gs_status st = GS_OK;
  const long ntiles = gs_tile_count(m->nt);
  double *sumsq = (double *)malloc((size_t)ntiles * sizeof(double));
  double *max_abs = (double *)malloc((size_t)ntiles * sizeof(double));
  if (!sumsq || !max_abs) {
    st = gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory");
    goto done;
  }
  st = (device >= 0 && !src->a) ? gs_tile_norms_gpu(device, m, src, sumsq, max_abs, msg)
                                : gs_tile_norms(m, src, threads, sumsq, max_abs, msg);
  if (st != GS_OK) goto done;
  gs_tile_precision_map(m, sumsq, accuracy, precision);
  for (long t = 0; t < ntiles; ++t) scale[t] = tile_half_scale(max_abs[t]);
done:
  free(sumsq);
  free(max_abs);
  return st;
}

static gs_status tile_map_build(int device, const gs_tile_matrix *m, const gs_tile_source *src,
                                const gs_tile_options *opt, tile_map *map, char *msg)
{
  const long ntiles = gs_tile_count(m->nt);
  map->precision = (unsigned char *)malloc((size_t)ntiles);
  map->scale = (float *)malloc((size_t)ntiles * sizeof(float));
  if (!map->precision || !map->scale) return gs_set_msg(msg, GS_ERR_NOMEM, "out of host memory");
  return gs_tile_map(device, m, src, opt->accuracy, opt->threads, map->precision, map->scale, msg);
}

/* After a failed mixed-precision attempt: promotes the tiles whose values
 * did not fit, or, when the diagonal tile of tile row k was not positive
 * definite, every tile of rows 0..k that is not FP64 (they all feed it).
 * Returns the number promoted. */
static long tile_map_promote(const gs_tile_matrix *m, gs_status st, const gs_tile_info *info, tile_map *map)
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
  if (device < 0) {
    st = gs_tile_fill(m, src, opt->threads, msg);
    if (st == GS_OK) st = gs_tile_chol_cpu(m, opt, info, msg);
  } else {
    if (src->a) st = gs_tile_fill(m, src, opt->threads, msg);
    if (st == GS_OK) st = gs_tile_chol_gpu(device, m, src, opt, info, msg);
  }
  return st;
}

static int tile_overflowed(const gs_tile_matrix *m)
{
  return m->low_tiles && memchr(m->overflow, 1, (size_t)gs_tile_count(m->nt)) != NULL;
}

gs_status gs_tile_chol(int device, gs_tile_matrix *m, const gs_tile_source *src, const gs_tile_options *opt,
                       gs_tile_info *info, char *msg)
{
  gs_status st = GS_OK;
  tile_map map = {NULL, NULL};
  memset(info, 0, sizeof *info);
  if (!src->a && (!(src->sigma2 > 0.0) || !(src->range > 0.0) || !(src->smoothness > 0.0) || !(src->nugget >= 0.0) ||
                  !isfinite(src->sigma2 + src->range + src->smoothness + src->nugget) || src->dim < 1))
    return gs_set_msg(msg, GS_ERR_ARG, "covariance parameters must be finite, with sigma2, range and smoothness > 0 "
                                       "and nugget >= 0");
  if (!(opt->accuracy >= 0.0 && opt->accuracy < 1.0))
    return gs_set_msg(msg, GS_ERR_ARG, "the accuracy of a mixed-precision factorization must be in (0, 1)");
  const double t0 = gs_wall_seconds();
  if (opt->accuracy > 0.0 && m->nt > 1 && (st = tile_map_build(device, m, src, opt, &map, msg)) != GS_OK) goto done;
  for (int attempt = 1;; ++attempt) {
    const double bytes_to_device = info->bytes_to_device, bytes_to_host = info->bytes_to_host;
    const long loads = info->tile_loads;
    if ((st = gs_tile_matrix_layout(m, map.precision, map.scale, msg)) != GS_OK) goto done;
    memset(info, 0, sizeof *info);
    st = tile_chol_once(device, m, src, opt, info, msg);
    info->attempts = attempt;
    info->bytes_to_device += bytes_to_device; /* the traffic of every attempt */
    info->bytes_to_host += bytes_to_host;
    info->tile_loads += loads;
    if (st != GS_OK && st != GS_ERR_NOT_PD) break;
    if (!map.precision || (st == GS_OK && !tile_overflowed(m)) || attempt == TILE_ATTEMPTS) break;
    if (!tile_map_promote(m, st, info, &map)) break;
  }
  if (st == GS_OK && tile_overflowed(m))
    st = gs_set_msg(msg, GS_ERR_ARG, "the matrix has values too large for the factorization's formats");
  if (st == GS_OK) info->logdet = gs_tile_logdet(m);
done:
  info->seconds = gs_wall_seconds() - t0;
  tile_map_free(&map);
  return st;
}

int gs_tile_default_size(long n, int device, int threads)
{
  long nb;
  if (device >= 0)
    nb = n >= 32768 ? 2048 : 1024;
  else if (gs_blas_threads() > 1)
    nb = 512; /* one BLAS call at a time, on all cores: large tiles */
  else { /* about two tile rows per thread, so that a column keeps the threads busy */
    nb = (n / (2L * gs_cpu_threads(threads)) + 31) / 32 * 32;
    nb = nb < 64 ? 64 : nb > 512 ? 512 : nb;
  }
  return (int)(nb < n ? nb : n);
}
