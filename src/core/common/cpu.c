#include <dlfcn.h>
#include <time.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "gs_cpu.h"

int gs_cpu_threads(int requested)
{
#ifdef _OPENMP
  int procs = omp_get_num_procs();
  return (requested > 0) ? requested : (procs > 0 ? procs : 1);
#else
  (void)requested;
  return 1;
#endif
}

double gs_host_memory_bytes(void)
{
  long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
  return (pages > 0 && size > 0) ? (double)pages * (double)size : 0.0;
}

double gs_wall_seconds(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The thread counts of the multi-threaded BLAS libraries R may be linked
 * with, looked up at run time (the reference BLAS has none). */
int gs_blas_threads(void)
{
  void *openblas = dlsym(RTLD_DEFAULT, "openblas_get_num_threads");
  if (openblas) return ((int (*)(void))openblas)();
  void *blis = dlsym(RTLD_DEFAULT, "bli_thread_get_num_threads");
  if (blis) return (int)((long (*)(void))blis)();
  void *mkl = dlsym(RTLD_DEFAULT, "MKL_Get_Max_Threads");
  if (mkl) return ((int (*)(void))mkl)();
  return 1;
}
