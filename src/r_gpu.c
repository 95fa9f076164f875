/* GPU queries for R. */
#include "gs_gpu.h"
#include "r_util.h"

SEXP gs_r_gpu_count(void) { return Rf_ScalarInteger(gs_gpu_count()); }

/* A list of equal-length vectors, one element per device. */
SEXP gs_r_gpu_info(void)
{
  const int n = gs_gpu_count();
  const char *names[] = {"id", "name", "total_memory", "free_memory", "compute_capability",
                         "driver_version", "runtime_version", "multiprocessors", ""};
  SEXP res = PROTECT(Rf_mkNamed(VECSXP, names));
  SEXP id = PROTECT(Rf_allocVector(INTSXP, n)), name = PROTECT(Rf_allocVector(STRSXP, n));
  SEXP total = PROTECT(Rf_allocVector(REALSXP, n)), free_m = PROTECT(Rf_allocVector(REALSXP, n));
  SEXP cc = PROTECT(Rf_allocVector(STRSXP, n)), drv = PROTECT(Rf_allocVector(STRSXP, n));
  SEXP rt = PROTECT(Rf_allocVector(STRSXP, n)), sms = PROTECT(Rf_allocVector(INTSXP, n));
  char msg[GS_MSG_LEN], buf[64];
  for (int d = 0; d < n; ++d) {
    gs_gpu_props p;
    gs_status st = gs_gpu_props_get(d, &p, msg);
    if (st != GS_OK) gs_r_stop(st, msg);
    INTEGER(id)[d] = d;
    SET_STRING_ELT(name, d, Rf_mkChar(p.name));
    REAL(total)[d] = p.total_memory;
    REAL(free_m)[d] = p.free_memory;
    snprintf(buf, sizeof buf, "%d.%d", p.cc_major, p.cc_minor);
    SET_STRING_ELT(cc, d, Rf_mkChar(buf));
    snprintf(buf, sizeof buf, "%d.%d", p.driver_version / 1000, (p.driver_version % 1000) / 10);
    SET_STRING_ELT(drv, d, Rf_mkChar(buf));
    snprintf(buf, sizeof buf, "%d.%d", p.runtime_version / 1000, (p.runtime_version % 1000) / 10);
    SET_STRING_ELT(rt, d, Rf_mkChar(buf));
    INTEGER(sms)[d] = p.multiprocessors;
  }
  gs_r_set_field(res, "id", id);
  gs_r_set_field(res, "name", name);
  gs_r_set_field(res, "total_memory", total);
  gs_r_set_field(res, "free_memory", free_m);
  gs_r_set_field(res, "compute_capability", cc);
  gs_r_set_field(res, "driver_version", drv);
  gs_r_set_field(res, "runtime_version", rt);
  gs_r_set_field(res, "multiprocessors", sms);
  UNPROTECT(9);
  return res;
}

SEXP gs_r_gpu_release(void)
{
  gs_gpu_release_all();
  return R_NilValue;
}
