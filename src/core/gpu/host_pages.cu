/* Host memory page-locked in pieces as copies reach it, first-touched ahead
 * of them on background threads (gs_host_pages.h).
 *
 * Why pieces: first-touching and page-locking tens of gigabytes take
 * seconds, which would all come before a factorization could start.
 * Registered piece by piece, the same memory costs about as much in all,
 * and a piece registered by the thread that issues the GPU's work, between
 * launches, does not slow that work (tools/pinned-pieces.cu; its figures
 * are in BENCHMARKS.md). A copy must stay within one piece: one that spans
 * two pieces registered apart fails with "invalid argument" (same tool),
 * so gs_host_pages_copy splits copies at the pieces' ends. */
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "gs_cpu.h"
#include "gs_gpu_ctx.cuh"

/* Registering a piece must be short against the work that the issuing
 * thread has queued ahead of it, and the first copies may reach many
 * pieces at once (a tile matrix's first column has a tile in every tile
 * row). */
#define HOST_PIECE_BYTES ((size_t)64 << 20)
#define HOST_PAGE_BYTES ((size_t)4096)
/* Huge-page alignment, so that the kernel may back the memory with
 * transparent huge pages: fewer faults to touch it and fewer pages to lock. */
#define HOST_HUGE_PAGE ((size_t)2 << 20)

enum {
  PIECE_UNTOUCHED,
  PIECE_TOUCHING,        /* by a background thread */
  PIECE_CALLER_TOUCHING, /* by gs_host_pages_lock */
  PIECE_TOUCHED,
  PIECE_LOCKED,
  PIECE_PLAIN /* could not be locked */
};

struct gs_host_pages {
  unsigned char *data;
  size_t bytes, pieces;
  int pinnable;
  unsigned char *state; /* a PIECE_ value per piece */
  size_t *order;        /* the background threads' order of pieces */
  size_t next;          /* their next entry of order */
  int stop;
  pthread_mutex_t mutex;
  pthread_cond_t touched;
  pthread_t *threads;
  int nthreads;
  double seconds;
};

/* Piece states are read outside the mutex by gs_host_pages_lock's
 * touching threads, so every access is atomic; the mutex orders the rest. */
static int piece_state(const gs_host_pages *h, size_t p)
{
  return __atomic_load_n(&h->state[p], __ATOMIC_RELAXED);
}

static void set_piece_state(gs_host_pages *h, size_t p, int state)
{
  __atomic_store_n(&h->state[p], (unsigned char)state, __ATOMIC_RELAXED);
}

static size_t piece_bytes(const gs_host_pages *h, size_t p)
{
  size_t start = p * HOST_PIECE_BYTES;
  return h->bytes - start < HOST_PIECE_BYTES ? h->bytes - start : HOST_PIECE_BYTES;
}

/* The kernel zeroes a page on its first write. */
static void touch_piece(gs_host_pages *h, size_t p)
{
  volatile unsigned char *start = h->data + p * HOST_PIECE_BYTES;
  for (size_t off = 0; off < piece_bytes(h, p); off += HOST_PAGE_BYTES) start[off] = 0;
}

extern "C" gs_host_pages *gs_host_pages_alloc(size_t bytes, int want_pinned)
{
  gs_host_pages *h = (gs_host_pages *)calloc(1, sizeof *h);
  if (!h) return NULL;
  h->pinnable = want_pinned && gs_gpu_count() > 0;
  h->bytes = bytes ? bytes : 1;
  void *p = NULL;
  if (!h->pinnable) {
    p = malloc(h->bytes);
  } else {
    h->bytes = (h->bytes + HOST_HUGE_PAGE - 1) / HOST_HUGE_PAGE * HOST_HUGE_PAGE;
    if (posix_memalign(&p, HOST_HUGE_PAGE, h->bytes) != 0) p = NULL;
#ifdef MADV_HUGEPAGE
    if (p) madvise(p, h->bytes, MADV_HUGEPAGE); /* advice only: without huge pages it is slower, not wrong */
#endif
  }
  h->pieces = (h->bytes + HOST_PIECE_BYTES - 1) / HOST_PIECE_BYTES;
  h->state = (unsigned char *)calloc(h->pieces, 1);
  h->order = (size_t *)malloc(h->pieces * sizeof(size_t));
  h->data = (unsigned char *)p;
  if (!p || !h->state || !h->order) {
    free(p), free(h->state), free(h->order), free(h);
    return NULL;
  }
  pthread_mutex_init(&h->mutex, NULL);
  pthread_cond_init(&h->touched, NULL);
  return h;
}

extern "C" unsigned char *gs_host_pages_data(const gs_host_pages *h)
{
  return h->data;
}

static void *toucher(void *arg)
{
  gs_host_pages *h = (gs_host_pages *)arg;
  pthread_mutex_lock(&h->mutex);
  while (!h->stop && h->next < h->pieces) {
    size_t p = h->order[h->next++];
    if (piece_state(h, p) != PIECE_UNTOUCHED) continue;
    set_piece_state(h, p, PIECE_TOUCHING);
    pthread_mutex_unlock(&h->mutex);
    touch_piece(h, p);
    pthread_mutex_lock(&h->mutex);
    set_piece_state(h, p, PIECE_TOUCHED);
    pthread_cond_broadcast(&h->touched);
  }
  pthread_mutex_unlock(&h->mutex);
  return NULL;
}

/* h->order: the pieces of the ranges in their order, then the rest in
 * address order. */
static void order_pieces(gs_host_pages *h, const size_t *offset, const size_t *bytes, size_t count)
{
  unsigned char *seen = (unsigned char *)calloc(h->pieces, 1);
  size_t n = 0;
  for (size_t k = 0; seen && k < count; ++k)
    for (size_t p = offset[k] / HOST_PIECE_BYTES; bytes[k] && p <= (offset[k] + bytes[k] - 1) / HOST_PIECE_BYTES; ++p)
      if (p < h->pieces && !seen[p]) seen[p] = 1, h->order[n++] = p;
  for (size_t p = 0; p < h->pieces; ++p)
    if (!seen || !seen[p]) h->order[n++] = p;
  free(seen);
}

extern "C" void gs_host_pages_touch_ahead(gs_host_pages *h, const size_t *offset, const size_t *bytes, size_t count)
{
  if (!h->pinnable || h->threads) return;
  size_t untouched = 0;
  for (size_t p = 0; p < h->pieces; ++p) untouched += piece_state(h, p) == PIECE_UNTOUCHED;
  if (!untouched) return;
  order_pieces(h, offset, bytes, count);
  h->next = 0;
  h->stop = 0;
  /* one core stays with the thread that issues the GPU's work */
  int wanted = gs_cpu_threads(0) - 1;
  if (wanted < 1) wanted = 1;
  if ((size_t)wanted > untouched) wanted = (int)untouched;
  h->threads = (pthread_t *)malloc((size_t)wanted * sizeof(pthread_t));
  for (int t = 0; h->threads && t < wanted; ++t)
    if (pthread_create(&h->threads[h->nthreads], NULL, toucher, h) == 0) h->nthreads++;
}

extern "C" void gs_host_pages_lock(gs_host_pages *h, size_t offset, size_t bytes)
{
  if (!h->pinnable || !bytes) return;
  const double t0 = gs_wall_seconds();
  const size_t first = offset / HOST_PIECE_BYTES, last = (offset + bytes - 1) / HOST_PIECE_BYTES;
  long long claimed = 0;
  pthread_mutex_lock(&h->mutex);
  for (size_t p = first; p <= last; ++p)
    if (piece_state(h, p) == PIECE_UNTOUCHED) set_piece_state(h, p, PIECE_CALLER_TOUCHING), claimed++;
  pthread_mutex_unlock(&h->mutex);
#pragma omp parallel for schedule(dynamic) num_threads(gs_cpu_threads(0)) if (claimed > 1)
  for (long long p = (long long)first; p <= (long long)last; ++p)
    if (piece_state(h, (size_t)p) == PIECE_CALLER_TOUCHING) touch_piece(h, (size_t)p);
  pthread_mutex_lock(&h->mutex);
  for (size_t p = first; p <= last; ++p) {
    if (piece_state(h, p) == PIECE_CALLER_TOUCHING) set_piece_state(h, p, PIECE_TOUCHED);
    while (piece_state(h, p) == PIECE_TOUCHING) pthread_cond_wait(&h->touched, &h->mutex);
    if (piece_state(h, p) != PIECE_TOUCHED) continue;
    if (cudaHostRegister(h->data + p * HOST_PIECE_BYTES, piece_bytes(h, p), cudaHostRegisterPortable) == cudaSuccess) {
      set_piece_state(h, p, PIECE_LOCKED);
    } else {
      cudaGetLastError(); /* too much to lock: plain memory still works, at a lower bus speed */
      set_piece_state(h, p, PIECE_PLAIN);
    }
  }
  h->seconds += gs_wall_seconds() - t0;
  pthread_mutex_unlock(&h->mutex);
}

cudaError_t gs_host_pages_copy(gs_host_pages *h, size_t offset, void *device, size_t bytes, cudaMemcpyKind kind,
                               cudaStream_t stream)
{
  gs_host_pages_lock(h, offset, bytes);
  while (bytes) {
    const size_t end = (offset / HOST_PIECE_BYTES + 1) * HOST_PIECE_BYTES;
    const size_t len = end - offset < bytes ? end - offset : bytes;
    unsigned char *host = h->data + offset;
    const cudaError_t err = kind == cudaMemcpyDeviceToHost ? cudaMemcpyAsync(host, device, len, kind, stream)
                                                           : cudaMemcpyAsync(device, host, len, kind, stream);
    if (err != cudaSuccess) return err;
    offset += len, bytes -= len;
    device = (unsigned char *)device + len;
  }
  return cudaSuccess;
}

extern "C" void gs_host_pages_settle(gs_host_pages *h)
{
  if (!h->threads) return;
  pthread_mutex_lock(&h->mutex);
  h->stop = 1;
  pthread_mutex_unlock(&h->mutex);
  for (int t = 0; t < h->nthreads; ++t) pthread_join(h->threads[t], NULL);
  free(h->threads);
  h->threads = NULL;
  h->nthreads = 0;
}

extern "C" double gs_host_pages_seconds(const gs_host_pages *h)
{
  return h->seconds;
}

extern "C" void gs_host_pages_free(gs_host_pages *h)
{
  if (!h) return;
  gs_host_pages_settle(h);
  for (size_t p = 0; p < h->pieces; ++p)
    if (piece_state(h, p) == PIECE_LOCKED) cudaHostUnregister(h->data + p * HOST_PIECE_BYTES);
  pthread_mutex_destroy(&h->mutex);
  pthread_cond_destroy(&h->touched);
  free(h->data), free(h->state), free(h->order), free(h);
}
