#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "gs_cpu.h"

#ifdef _OPENMP
static int min_int(int a, int b) { return a < b ? a : b; }

/* The positive integer that an OpenMP variable starts with ("4", or the
 * first level of "4,2"), or INT_MAX when it is unset or not one. */
static int env_threads(const char *name)
{
  const char *v = getenv(name);
  if (!v) return INT_MAX;
  char *end;
  errno = 0;
  long n = strtol(v, &end, 10);
  while (isspace((unsigned char)*end)) ++end;
  if (errno || end == v || (*end != '\0' && *end != ',') || n < 1) return INT_MAX;
  return n > INT_MAX ? INT_MAX : (int)n;
}
#endif

static int recorded_request = 0;

void gs_cpu_set_request(int requested) { recorded_request = requested > 0 ? requested : 0; }

int gs_cpu_threads(int requested)
{
  if (requested <= 0) requested = recorded_request;
#ifdef _OPENMP
  int limit = min_int(omp_get_num_procs(), GS_CPU_MAX_THREADS);
  limit = min_int(limit, min_int(omp_get_thread_limit(), env_threads("OMP_THREAD_LIMIT")));
  int n = requested > 0 ? requested : min_int(omp_get_max_threads(), env_threads("OMP_NUM_THREADS"));
  n = min_int(n, limit);
  return n > 1 ? n : 1;
#else
  (void)requested;
  return 1;
#endif
}

int gs_cpu_threads_for(int requested, double work)
{
  const int limit = gs_cpu_threads(requested);
  const double wanted = work / GS_CPU_WORK_PER_THREAD; /* NaN or below 1: one thread */
  return wanted >= (double)limit ? limit : (wanted >= 1.0 ? (int)wanted : 1);
}

double gs_host_memory_bytes(void)
{
  long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
  return (pages > 0 && size > 0) ? (double)pages * (double)size : 0.0;
}

/* A field given in kB of a /proc file ("MemAvailable:" of /proc/meminfo,
 * "VmSize:" of /proc/self/status), in bytes; 0 where there is no such file
 * or field (not Linux, or a kernel before 3.14 for MemAvailable). */
static double proc_field_bytes(const char *path, const char *field)
{
  FILE *f = fopen(path, "r");
  if (!f) return 0.0;
  char line[256];
  double kb = 0.0;
  const size_t len = strlen(field);
  while (fgets(line, sizeof line, f))
    if (strncmp(line, field, len) == 0 && sscanf(line + len, "%lf", &kb) == 1) break;
  fclose(f);
  return kb > 0.0 ? 1024.0 * kb : 0.0;
}

/* What the process's own limits leave (ulimit -v and -d, as batch systems
 * and shells set them): an allocation beyond them fails however much memory
 * the host has free. Infinity when there is no limit. */
static double process_limit_headroom(void)
{
  static const struct { int resource; const char *field; } limits[] = {
    {RLIMIT_AS, "VmSize:"},
    {RLIMIT_DATA, "VmData:"},
  };
  double headroom = HUGE_VAL;
  for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++) {
    struct rlimit r;
    if (getrlimit(limits[i].resource, &r) != 0 || r.rlim_cur == RLIM_INFINITY) continue;
    const double left = (double)r.rlim_cur - proc_field_bytes("/proc/self/status", limits[i].field);
    if (left < headroom) headroom = left > 0.0 ? left : 1.0;
  }
  return headroom;
}

static double host_free_bytes(void)
{
  double avail = proc_field_bytes("/proc/meminfo", "MemAvailable:");
  if (avail > 0.0) return avail;
#ifdef _SC_AVPHYS_PAGES
  long pages = sysconf(_SC_AVPHYS_PAGES), size = sysconf(_SC_PAGESIZE);
  if (pages > 0 && size > 0) return (double)pages * (double)size;
#endif
  return gs_host_memory_bytes();
}

double gs_host_available_bytes(void)
{
  const double host = host_free_bytes(), headroom = process_limit_headroom();
  if (host <= 0.0) return headroom < HUGE_VAL ? headroom : 0.0;
  return headroom < host ? headroom : host;
}

gs_status gs_host_memory_check(double bytes, const char *what, char *msg)
{
  const double avail = gs_host_available_bytes();
  if (avail <= 0.0 || bytes <= avail) return GS_OK;
  return gs_set_msg(msg, GS_ERR_NOMEM,
                    "%s would need %.1f GB of memory; %.1f GB is available to this process (of %.1f GB on this machine). "
                    "Free some memory or make the problem smaller.",
                    what, bytes / 1e9, avail / 1e9, gs_host_memory_bytes() / 1e9);
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
