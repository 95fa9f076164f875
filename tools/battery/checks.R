# Plausibility checks of a returned value `v`, given the evaluated arguments
# `a` of the call: TRUE when the value can be right. A check that itself
# fails (an argument of an odd type) counts as passed; the value's NaN and
# warnings are judged separately.

arg_or <- function(a, name, default) if (is.null(a[[name]])) default else a[[name]]

value_checks <- list(
  finite = function(v, a) all(is.finite(unlist(v))),
  bessel_k = function(v, a) isTRUE(a$log) || all(is.na(v) | v >= 0),
  matern = function(v, a) {
    top <- max(arg_or(a, "sigma2", 1)) + max(arg_or(a, "nugget", 0))
    all(is.na(v) | (v >= 0 & v <= top))
  },
  matern_cov = function(v, a) all(is.finite(v) & v >= 0),
  # two distinct locations: their correlation is below one
  matern_cov_distinct = function(v, a) all(is.finite(v)) && v[1, 2] < v[1, 1],
  dstable = function(v, a) isTRUE(a$log) || all(is.na(v) | v >= 0),
  pstable = function(v, a) {
    all(is.na(v) | (if (isTRUE(a$log.p)) v <= 0 else v >= 0 & v <= 1))
  },
  rstable = function(v, a) {
    n <- a$n
    length(v) == (if (length(n) > 1L) length(n) else n)
  },
  stable_fit = function(v, a) {
    if (!inherits(v, "stable_fit")) return(TRUE)
    cf <- v$coefficients
    ok <- all(is.finite(cf)) && cf[["alpha"]] > 0 && cf[["alpha"]] <= 2 && abs(cf[["beta"]]) <= 1 && cf[["gamma"]] > 0
    ok && (is.null(v$vcov) || all(is.na(diag(v$vcov)) | diag(v$vcov) >= 0))
  },
  gp_fit = function(v, a) {
    cp <- v$covariance
    # the shapes a family has (a smoothness only where it has one)
    all(is.finite(v$coefficients)) && all(cp[intersect(c("sigma2", "smoothness", "nugget"), names(cp))] >= 0) &&
      all(cp[grepl("^range", names(cp))] > 0) &&
      (is.null(v$vcov) || all(is.na(diag(v$vcov)) | diag(v$vcov) >= 0))
  },
  tile_chol = function(v, a) is.finite(v$logdet),
  morton_order = function(v, a) identical(sort(as.integer(v)), seq_len(NROW(a$locs))),
  gbees_mc = function(v, a) all(is.finite(unlist(v$samples))),
  bhattacharyya = function(v, a) {
    bc <- c(v$coefficient, v$reference)
    all(is.finite(bc)) && all(bc >= 0 & bc <= 1 + 1e-12)
  }
)
