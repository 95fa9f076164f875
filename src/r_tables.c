/* The tables that R shares with the core, read by R once when the package
 * loads: each a named integer vector generated from the core's X-macro list,
 * so that R finds codes by name and a table is written once. */
#include "gs_gbees.h"
#include "gs_gp.h"
#include "gs_gpu.h"
#include "gs_laplace.h"
#include "gs_poly.h"
#include "gs_tile.h"
#include "map_ops.h"
#include "r_util.h"
#include "tile_plan.h"
#include "tile_precision.h"

typedef struct {
  const char *name;
  int code;
} table_entry;

/* Entries of lists whose X takes (code, name) or (code, name, attribute). */
#define TABLE_ENTRY(code, name) {name, (int)(code)},
#define TABLE_ENTRY3(code, name, attribute) {name, (int)(code)},

static const table_entry status_kinds[] = {GS_STATUS_KINDS(TABLE_ENTRY)};
static const table_entry map_ops[] = {GS_MAP_OPS(TABLE_ENTRY3)};
static const table_entry stable_flags[] = {STABLE_FLAGS(TABLE_ENTRY3)};
static const table_entry metrics[] = {MATERN_METRICS(TABLE_ENTRY)};
static const table_entry cov_families[] = {GS_COV_FAMILIES(TABLE_ENTRY3)};
#define SHAPE_ENTRY(code, name, shapes) {name, shapes},
static const table_entry cov_family_shapes[] = {GS_COV_FAMILIES(SHAPE_ENTRY)}; /* each family's mask of shape bits */
#undef SHAPE_ENTRY
static const table_entry cov_params[] = {GS_COV_PARAMS(TABLE_ENTRY)};
static const table_entry cov_problems[] = {GS_COV_PROBLEMS(TABLE_ENTRY)};
static const table_entry gbees_models[] = {GS_GBEES_MODEL_KINDS(TABLE_ENTRY3)};
static const table_entry tile_formats[] = {GS_TILE_FORMATS(TABLE_ENTRY)};
static const table_entry tile_ops[] = {TILE_OP_KINDS(TABLE_ENTRY)};
static const table_entry tile_streams[] = {GS_TILE_STREAM_KINDS(TABLE_ENTRY3)};
static const table_entry tile_solves[] = {GS_TILE_SOLVE_KINDS(TABLE_ENTRY3)};
static const table_entry gp_applies[] = {GS_GP_APPLY_KINDS(TABLE_ENTRY)};
static const table_entry glmm_families[] = {GS_GLMM_FAMILIES(TABLE_ENTRY)};
static const table_entry jw_norms[] = {GS_JW_NORMS(TABLE_ENTRY)};
static const table_entry jw_methods[] = {GS_JW_METHODS(TABLE_ENTRY)};
static const table_entry legcheb_methods[] = {GS_LEGCHEB_METHODS(TABLE_ENTRY)};

#undef TABLE_ENTRY
#undef TABLE_ENTRY3

typedef struct {
  const char *name;
  const table_entry *entries;
  int length;
} table;

#define TABLE(name, entries) {name, entries, (int)(sizeof(entries) / sizeof(entries[0]))}
static const table tables[] = {
    TABLE("status", status_kinds),      TABLE("map_op", map_ops),
    TABLE("stable_flag", stable_flags), TABLE("metric", metrics),
    TABLE("gbees_model", gbees_models), TABLE("tile_format", tile_formats),
    TABLE("tile_op", tile_ops),         TABLE("tile_stream", tile_streams),
    TABLE("tile_solve", tile_solves),   TABLE("gp_apply", gp_applies),
    TABLE("cov_family", cov_families),  TABLE("cov_param", cov_params),
    TABLE("cov_family_shape_mask", cov_family_shapes), TABLE("cov_problem", cov_problems),
    TABLE("jw_norm", jw_norms),         TABLE("jw_method", jw_methods),
    TABLE("legcheb_method", legcheb_methods), TABLE("glmm_family", glmm_families),
};
#undef TABLE

static SEXP table_vector(const table *t)
{
  SEXP res = PROTECT(Rf_allocVector(INTSXP, t->length));
  SEXP nm = PROTECT(Rf_allocVector(STRSXP, t->length));
  for (int k = 0; k < t->length; ++k) {
    INTEGER(res)[k] = t->entries[k].code;
    SET_STRING_ELT(nm, k, Rf_mkChar(t->entries[k].name));
  }
  Rf_setAttrib(res, R_NamesSymbol, nm);
  UNPROTECT(2);
  return res;
}

/* list(status = c(ok = 0L, argument = 1L, ...), map_op = c(bessel_k = 0L,
 * ...), ...): every table, each a named integer vector in the list's order. */
SEXP gs_r_tables(void)
{
  const int n = (int)(sizeof(tables) / sizeof(tables[0]));
  SEXP res = PROTECT(Rf_allocVector(VECSXP, n));
  SEXP nm = PROTECT(Rf_allocVector(STRSXP, n));
  for (int k = 0; k < n; ++k) {
    SET_VECTOR_ELT(res, k, table_vector(&tables[k]));
    SET_STRING_ELT(nm, k, Rf_mkChar(tables[k].name));
  }
  Rf_setAttrib(res, R_NamesSymbol, nm);
  UNPROTECT(2);
  return res;
}
