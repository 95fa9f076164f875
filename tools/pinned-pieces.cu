/* What page-locking host memory in pieces costs and allows, on the GPU host:
 *
 *   touch     first touch of GB gigabytes (2 MB-aligned, huge pages advised)
 *             on 1, 4 and all threads
 *   register  cudaHostRegister of the touched memory whole, then in pieces of
 *             PIECE megabytes
 *   straddle  a device-to-host copy that spans two pieces registered
 *             separately: whether it succeeds, is asynchronous, keeps the
 *             page-locked speed and writes the right bytes
 *   overlap   kernels of about 10 ms issued two ahead, the issuing thread
 *             registering one piece between launches: the work's time
 *             against the same kernels alone
 *
 * The out-of-core tile Cholesky stores its factor into tens of gigabytes of
 * page-locked memory; these figures decide whether that memory can be
 * touched and locked while the factorization runs instead of before it.
 *
 *   nvcc -O2 -Xcompiler -fopenmp tools/pinned-pieces.cu -o /tmp/pinned-pieces
 *   /tmp/pinned-pieces 90 256
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <cuda_runtime.h>

#define CHECK(call)                                                                            \
  do {                                                                                         \
    cudaError_t e_ = (call);                                                                   \
    if (e_ != cudaSuccess) {                                                                   \
      printf("%s:%d %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));             \
      exit(1);                                                                                 \
    }                                                                                          \
  } while (0)

static const size_t mb = (size_t)1 << 20, page = 4096;

static char *alloc_region(size_t bytes)
{
  void *p = NULL;
  if (posix_memalign(&p, 2 * mb, bytes) != 0) return NULL;
  madvise(p, bytes, MADV_HUGEPAGE);
  return (char *)p;
}

static double touch(char *p, size_t bytes, int threads)
{
  double t0 = omp_get_wtime();
  long long pages = (long long)(bytes / page);
#pragma omp parallel for schedule(static) num_threads(threads)
  for (long long q = 0; q < pages; ++q) ((volatile char *)p)[(size_t)q * page] = 0;
  return omp_get_wtime() - t0;
}

static double register_pieces(char *p, size_t bytes, size_t piece)
{
  double t0 = omp_get_wtime();
  for (size_t off = 0; off < bytes; off += piece)
    CHECK(cudaHostRegister(p + off, bytes - off < piece ? bytes - off : piece, cudaHostRegisterPortable));
  return omp_get_wtime() - t0;
}

static void unregister_pieces(char *p, size_t bytes, size_t piece)
{
  for (size_t off = 0; off < bytes; off += piece) CHECK(cudaHostUnregister(p + off));
}

__global__ void spin(long long cycles)
{
  long long t0 = clock64();
  while (clock64() - t0 < cycles) {
  }
}

__global__ void fill(unsigned char *d, size_t n)
{
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    d[i] = (unsigned char)(i * 7 + 3);
}

/* A copy of len bytes to host at offset off, timed: the call's own return
 * time (asynchronous or not) and the copy's. */
static void copy_case(const char *what, char *host, size_t off, unsigned char *dev, size_t len, cudaStream_t s)
{
  memset(host + off, 0, len);
  CHECK(cudaDeviceSynchronize());
  double t0 = omp_get_wtime();
  cudaError_t e = cudaMemcpyAsync(host + off, dev, len, cudaMemcpyDeviceToHost, s);
  double issued = omp_get_wtime() - t0;
  cudaError_t e2 = cudaStreamSynchronize(s);
  double done = omp_get_wtime() - t0;
  size_t wrong = 0;
  for (size_t i = 0; i < len; ++i) wrong += (unsigned char)host[off + i] != (unsigned char)(i * 7 + 3);
  printf("straddle  %-28s %s/%s: call returns in %.3f ms, copy %.2f ms (%.1f GB/s), %zu wrong bytes\n", what,
         cudaGetErrorString(e), cudaGetErrorString(e2), issued * 1e3, done * 1e3, len / done / 1e9, wrong);
}

static void straddle(char *p, size_t piece)
{
  const size_t len = 64 * mb;
  unsigned char *dev = NULL;
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  CHECK(cudaMalloc(&dev, len));
  fill<<<1024, 256>>>(dev, len);
  register_pieces(p, 2 * piece, piece);
  for (int r = 0; r < 2; ++r) {
    copy_case("inside one piece", p, 0, dev, len, s);
    copy_case("across two pieces", p, piece - len / 2, dev, len, s);
  }
  unregister_pieces(p, 2 * piece, piece);
  copy_case("to pageable memory", p, piece - len / 2, dev, len, s);
  CHECK(cudaFree(dev));
  CHECK(cudaStreamDestroy(s));
}

/* Kernels of `ms` milliseconds, two in flight; with `piece` > 0 the issuing
 * thread registers the next piece of p after each launch. */
static double issue(int kernels, double ms, char *p, size_t bytes, size_t piece)
{
  int rate_khz = 0;
  CHECK(cudaDeviceGetAttribute(&rate_khz, cudaDevAttrClockRate, 0));
  cudaEvent_t ev[2];
  CHECK(cudaEventCreate(&ev[0]));
  CHECK(cudaEventCreate(&ev[1]));
  CHECK(cudaDeviceSynchronize());
  double t0 = omp_get_wtime();
  size_t off = 0;
  for (int k = 0; k < kernels; ++k) {
    if (k >= 2) CHECK(cudaEventSynchronize(ev[k % 2]));
    spin<<<1, 1>>>((long long)(ms * rate_khz));
    CHECK(cudaEventRecord(ev[k % 2]));
    if (piece && off < bytes) {
      CHECK(cudaHostRegister(p + off, bytes - off < piece ? bytes - off : piece, cudaHostRegisterPortable));
      off += piece;
    }
  }
  CHECK(cudaDeviceSynchronize());
  double t = omp_get_wtime() - t0;
  if (piece) unregister_pieces(p, off < bytes ? off : bytes, piece);
  return t;
}

int main(int argc, char **argv)
{
  double gb = argc > 1 ? atof(argv[1]) : 8.0;
  size_t piece = (size_t)(argc > 2 ? atof(argv[2]) : 256.0) * mb;
  size_t bytes = (size_t)(gb * 1e9) / (2 * mb) * (2 * mb);
  int cores = omp_get_num_procs();
  CHECK(cudaFree(0));
  printf("%.1f GB, pieces of %zu MB, %d cores\n", bytes / 1e9, piece / mb, cores);

  int counts[3] = {1, 4, cores};
  for (int c = 0; c < 3; ++c) {
    char *p = alloc_region(bytes);
    if (!p) return printf("cannot allocate\n"), 1;
    double t = touch(p, bytes, counts[c]);
    printf("touch     %2d threads: %.2f s (%.1f GB/s)\n", counts[c], t, bytes / t / 1e9);
    if (c == 2) {
      double whole = register_pieces(p, bytes, bytes);
      printf("register  whole: %.2f s (%.1f GB/s)\n", whole, bytes / whole / 1e9);
      double t0 = omp_get_wtime();
      unregister_pieces(p, bytes, bytes);
      printf("unregister whole: %.2f s\n", omp_get_wtime() - t0);
      double pieces = register_pieces(p, bytes, piece);
      printf("register  in %zu pieces: %.2f s (%.2f ms a piece)\n", (bytes + piece - 1) / piece, pieces,
             pieces * 1e3 / ((bytes + piece - 1) / piece));
      t0 = omp_get_wtime();
      unregister_pieces(p, bytes, piece);
      printf("unregister pieces: %.2f s\n", omp_get_wtime() - t0);
      straddle(p, piece);
      int kernels = (int)((bytes + piece - 1) / piece);
      double alone = issue(kernels, 10.0, NULL, 0, 0);
      double with = issue(kernels, 10.0, p, bytes, piece);
      printf("overlap   %d kernels of 10 ms: %.2f s alone, %.2f s registering a piece after each launch\n", kernels,
             alone, with);
    }
    free(p);
  }
  return 0;
}
