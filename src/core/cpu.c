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
