/* Gaussian kernel sums for the accuracy measures of GBEES: the sources are
 * sorted into boxes once on the host (gbees_kde_math.h), then every
 * evaluation point sums its neighbours, on all cores or a GPU. Points run in
 * batches sized so that one takes about GBEES_KDE_BATCH_SECONDS, with
 * progress reported (and interrupts seen) between them. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gbees_internal.h"
#include "gbees_kde_math.h"
#include "gs_cpu.h"

#define GBEES_KDE_BATCH_SECONDS 0.2

typedef struct {
  int64_t key, index;
} keyed_source;

static int keyed_compare(const void *a, const void *b)
{
  const keyed_source *x = (const keyed_source *)a, *y = (const keyed_source *)b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return (x->index > y->index) - (x->index < y->index); /* stable: ties in input order */
}

/* The sources in box order, in arrays allocated here (one block at z). */
static gs_status sort_sources(int dim, const double *src, const double *weight, size_t n, double radius,
                              gbees_kde_sources *s, char *msg)
{
  *s = (gbees_kde_sources){.dim = dim, .radius = radius, .width = radius / GBEES_KDE_BOX_SPLIT,
                            .box_max = (INT64_C(1) << (GBEES_KDE_KEY_BITS / dim)) - 1, .n = (int64_t)n};
  for (int i = 0; i < dim; i++) {
    s->lo[i] = n ? src[i] : 0.0;
    for (size_t j = 1; j < n; j++) s->lo[i] = fmin(s->lo[i], src[j * dim + i]);
  }
  size_t bytes = n * (dim + 1) * sizeof(double) + n * sizeof(int64_t);
  keyed_source *order = (keyed_source *)malloc(n * sizeof *order + 1);
  char *block = (char *)malloc(bytes + 1);
  if (!order || !block) {
    free(order), free(block);
    return gs_set_msg(msg, GS_ERR_NOMEM, "%.0f kernel sources do not fit in host memory", (double)n);
  }
  for (size_t j = 0; j < n; j++) {
    int64_t box[GS_GBEES_MAX_DIM];
    for (int i = 0; i < dim; i++) box[i] = gbees_kde_box(s, i, src[j * dim + i]);
    order[j] = (keyed_source){.key = gbees_kde_key(s, box), .index = (int64_t)j};
  }
  qsort(order, n, sizeof *order, keyed_compare);
  double *z = (double *)block, *w = z + n * dim;
  int64_t *key = (int64_t *)(w + n);
  for (size_t j = 0; j < n; j++) {
    memcpy(z + j * dim, src + order[j].index * dim, dim * sizeof(double));
    w[j] = weight ? weight[order[j].index] : 1.0;
    key[j] = order[j].key;
  }
  free(order);
  s->z = z, s->w = w, s->key = key;
  return GS_OK;
}

GS_CPU_DISPATCH
static void cpu_sums(const gbees_kde_sources *s, const double *eval, size_t first, size_t count, int threads,
                     double *out)
{
#pragma omp parallel for schedule(dynamic, 16) num_threads(threads)
  for (size_t p = first; p < first + count; p++) out[p] = gbees_kde_sum(s, eval + p * s->dim);
}

static gs_status cpu_batches(const gbees_kde_sources *s, const double *eval, size_t n_eval, int threads,
                             gs_progress_fn progress, double *out, char *msg)
{
  size_t done = 0, batch = 64;
  int nt = gs_cpu_threads_for(threads, (double)n_eval * (double)s->n);
  while (done < n_eval) {
    size_t count = batch < n_eval - done ? batch : n_eval - done;
    double start = gs_wall_seconds();
    cpu_sums(s, eval, done, count, nt, out);
    done += count;
    double took = gs_wall_seconds() - start;
    batch = gs_batch_resize(batch, took, GBEES_KDE_BATCH_SECONDS, 64);
    if (progress && progress((double)done / (double)n_eval)) return gs_interrupted(msg);
  }
  return GS_OK;
}

gs_status gs_gbees_kernel_sums(int dim, const double *src, const double *weight, size_t n_src, const double *eval,
                               size_t n_eval, double radius, int threads, int device, gs_progress_fn progress,
                               double *out, char *msg)
{
  if (dim < 1 || dim > GS_GBEES_MAX_DIM)
    return gs_set_msg(msg, GS_ERR_ARG, "kernel sums need 1 to %d dimensions", GS_GBEES_MAX_DIM);
  if (!(radius > 0.0) || !isfinite(radius))
    return gs_set_msg(msg, GS_ERR_ARG, "the kernel cut-off must be positive and finite");
  for (size_t q = 0; q < n_src * dim; q++)
    if (!isfinite(src[q])) return gs_set_msg(msg, GS_ERR_ARG, "kernel sources must be finite");
  for (size_t q = 0; q < n_eval * dim; q++)
    if (!isfinite(eval[q])) return gs_set_msg(msg, GS_ERR_ARG, "kernel evaluation points must be finite");
  if (n_eval == 0) return GS_OK;
  gbees_kde_sources s;
  gs_status st = sort_sources(dim, src, weight, n_src, radius, &s, msg);
  if (st != GS_OK) return st;
  if (device >= 0) st = gbees_gpu_kernel_sums(device, &s, eval, n_eval, progress, out, msg);
  else st = cpu_batches(&s, eval, n_eval, threads, progress, out, msg);
  free((void *)s.z);
  return st;
}
