#' Matérn covariance
#'
#' `matern()` evaluates the Matérn covariance function at distances `d`;
#' `matern_cov()` builds the covariance matrix between sets of locations, on
#' a GPU tile by tile when one is available.
#'
#' The covariance is, in the form used by ExaGeoStat,
#' \deqn{C(d) = \sigma^2 \frac{2^{1-\nu}}{\Gamma(\nu)} (d/a)^\nu K_\nu(d/a)}
#' with `sigma2` \eqn{= \sigma^2}, `range` \eqn{= a} and `smoothness`
#' \eqn{= \nu}; \eqn{C(0) = \sigma^2}. The correlation is computed as a
#' product of \eqn{(d/a)^\nu} and \eqn{K_\nu(d/a)} (each accurate to a few
#' units in the last place) rather than through logarithms, so it stays
#' accurate to about \eqn{10^{-15}} next to \eqn{d = 0} where it is close to
#' one. At half-integer smoothness the closed forms are used:
#' \eqn{e^{-z}}, \eqn{(1 + z) e^{-z}}, \eqn{(1 + z + z^2/3) e^{-z}}, ...
#'
#' **Other parameterisations.** `range` is `aRange` of
#' `fields::Matern()`/`fields::spatialProcess()` and `phi` of geoR
#' (`cov.model = "matern"`, `kappa` = `smoothness`); GpGp's
#' `matern_isotropic` uses `covparms = c(sigma2, range, smoothness, nugget
#' / sigma2)` with the same `range`. RandomFields has both forms:
#' `RMwhittle(nu, scale = s)` is this function with `range` \eqn{= s};
#' `RMmatern(nu, scale = s)` scales the distance by \eqn{\sqrt{2\nu}},
#' \eqn{\sqrt{2\nu}\, d / s}, as does Stein's parameterisation with range
#' \eqn{\rho}, so they correspond to `range` \eqn{= s / \sqrt{2\nu}}
#' (\eqn{\rho / \sqrt{2\nu}}).
#'
#' **Extreme arguments.** The correlation lies in \eqn{[0, 1]} for every
#' input; it is exactly 1 at \eqn{d = 0} and rounds to 0 (not `Inf` or `NaN`)
#' far beyond the range. Distances in `matern_cov()` are computed without
#' squaring coordinate differences that would underflow or overflow, so
#' locations \eqn{10^{-200}} apart with `range = 1e-200` have the
#' correlation of distance 1.
#'
#' @param d Non-negative distances.
#' @param sigma2 Variance (partial sill), `>= 0`.
#' @param range Range parameter, `> 0`, in the units of `d` (kilometres for
#'   great-circle distances).
#' @param smoothness Smoothness \eqn{\nu > 0}.
#' @param nugget Variance of the independent (measurement) error, `>= 0`.
#'   `matern()` adds it where `d == 0`; `matern_cov()` adds it to the
#'   diagonal of the covariance of `locs` with itself and not to a
#'   cross-covariance.
#' @param device `"auto"`, `"cpu"` or `"gpu"`; see [gpustats-package].
#' @return `matern()`: a numeric vector (the arguments are recycled; invalid
#'   parameters give `NaN` with a warning). `matern_cov()`: an
#'   `nrow(locs)` by `nrow(locs2)` matrix.
#' @seealso [bessel_k()]
#' @examples
#' d <- seq(0, 1, by = 0.25)
#' matern(d, range = 0.2, smoothness = 1.5)
#' (1 + d / 0.2) * exp(-d / 0.2)   # the closed form at smoothness 3/2
#'
#' locs <- matrix(runif(20), ncol = 2)
#' S <- matern_cov(locs, range = 0.3, smoothness = 1.2, nugget = 0.01)
#' dim(S)
#' @export
matern <- function(d, sigma2 = 1, range = 1, smoothness = 0.5, nugget = 0,
                   device = getOption("gpustats.device", "auto")) {
  call <- environment()
  for (arg in c("d", "sigma2", "range", "smoothness", "nugget")) {
    check_numeric_arg(get(arg), arg, call)
  }
  gs_map("matern", list(d, sigma2, range, smoothness, nugget), device, call)
}

#' @rdname matern
#' @param locs Locations, one per row: a numeric matrix or data frame (a
#'   vector is taken as one coordinate). For `distance = "great_circle"`, two
#'   columns: longitude and latitude in degrees.
#' @param locs2 Optional second set of locations (same columns); `NULL` for
#'   the covariance of `locs` with itself.
#' @param distance `"euclidean"`, or `"great_circle"` (haversine distance on
#'   a sphere of radius 6371 km, in km).
#' @export
matern_cov <- function(locs, locs2 = NULL, sigma2 = 1, range = 1, smoothness = 0.5, nugget = 0,
                       distance = c("euclidean", "great_circle"),
                       device = getOption("gpustats.device", "auto")) {
  call <- environment()
  distance <- match_choice(distance, c("euclidean", "great_circle"), "distance", call)
  l <- covariance_locations(locs, locs2, distance, call)
  params <- check_covariance(sigma2, range, smoothness, nugget, call)
  covariance_matrix(l$locs, l$locs2, cov_model(params, distance), device, "matern_cov", call)
}

# The locations of a covariance matrix: locs, and locs2 (NULL for locs
# against itself) with as many columns.
covariance_locations <- function(locs, locs2, distance, call) {
  locs <- as_locations(locs, "locs", distance, call)
  if (!is.null(locs2)) {
    locs2 <- as_locations(locs2, "locs2", distance, call)
    if (ncol(locs2) != ncol(locs)) {
      abort_arg("{.arg locs2} has {ncol(locs2)} column{?s} but {.arg locs} has {ncol(locs)}.", call)
    }
  }
  list(locs = locs, locs2 = locs2)
}

# The covariance matrix of a native model between locs and locs2, with the
# locations' row names; `label` names the progress bar.
covariance_matrix <- function(locs, locs2, model, device, label, call) {
  n1 <- nrow(locs)
  n2 <- if (is.null(locs2)) n1 else nrow(locs2)
  check_matrix_size(n1, n2, call)
  dev <- resolve_device(device, as.double(n1) * n2, "matrix", call)
  bar <- gs_progress_bar(as.double(n1) * n2, label, call)
  out <- gs_call(.Call(gs_r_matern_cov, locs, locs2, model, dev, gs_threads(call), bar), call)
  rn2 <- if (is.null(locs2)) rownames(locs) else rownames(locs2)
  if (!is.null(rownames(locs)) || !is.null(rn2)) dimnames(out) <- list(rownames(locs), rn2)
  out
}

# The covariance parameters a user gives, by the rule of the native model
# (gs_cov_model_valid in gs_matern.h: sigma2 >= 0, range > 0, smoothness >
# 0, nugget >= 0), finite (the native rule's infinite range, a limit, is for
# the element-wise matern() only). Returns them named as
# cov_model() takes them.
check_covariance <- function(sigma2, range, smoothness, nugget, call) {
  check_scalar(sigma2, "sigma2", call, 0)
  check_scalar(range, "range", call, 0, open = TRUE)
  check_scalar(smoothness, "smoothness", call, 0, open = TRUE)
  check_scalar(nugget, "nugget", call, 0)
  c(sigma2 = as.double(sigma2), range = as.double(range), smoothness = as.double(smoothness),
    nugget = as.double(nugget))
}

# The covariance model every native routine takes (gs_cov_model in
# gs_matern.h; read by gs_r_cov_model): the family and the distance as the
# core's codes, and the parameters named as in the core's table (any order;
# sigma2, range, nugget and the family's shapes, the others left out).
# The one constructor: matern_cov, matern_spec, the Gaussian-process and
# Vecchia objects and predict build their model here.
cov_model <- function(params, distance, family = "matern") {
  wanted <- names(gs_table("cov_param"))
  if (!all(c("sigma2", "range", "nugget") %in% names(params)) || !all(names(params) %in% wanted) ||
      anyDuplicated(names(params))) {
    stop("internal error: covariance parameters must be named among ", paste(wanted, collapse = ", "))
  }
  full <- stats::setNames(numeric(length(wanted)), wanted) # parameters of other families: unread
  full[names(params)] <- params
  list(family = gs_code("cov_family", family), metric = gs_code("metric", distance), params = full)
}

# A double matrix of locations without NA, Inf or impossible coordinates.
as_locations <- function(x, arg, distance, call) {
  if (is.data.frame(x)) x <- as.matrix(x)
  if (is.null(dim(x)) && (is.numeric(x) || is.logical(x))) x <- matrix(x, ncol = 1L)
  if (!is.matrix(x) || !(is.numeric(x) || is.logical(x))) {
    abort_arg("{.arg {arg}} must be a numeric matrix or data frame of coordinates, not {.obj_type_friendly {x}}.", call)
  }
  if (ncol(x) == 0L) abort_arg("{.arg {arg}} has no columns.", call)
  if (anyNA(x)) abort_arg(c("{.arg {arg}} contains missing values.", i = "Remove the rows with {.code NA} first."), call)
  if (any(!is.finite(x))) abort_arg("{.arg {arg}} contains infinite coordinates.", call)
  if (distance == "great_circle") {
    if (ncol(x) != 2L) {
      abort_arg("Great-circle distances need two columns (longitude, latitude in degrees); {.arg {arg}} has {ncol(x)}.", call)
    }
    if (any(abs(x[, 2L]) > 90)) abort_arg("Latitudes (second column of {.arg {arg}}) must lie in [-90, 90].", call)
  }
  storage.mode(x) <- "double"
  x
}

# Refuses, before allocating, a matrix that R cannot hold or that exceeds the
# host's available memory.
check_matrix_size <- function(n1, n2, call) {
  bytes <- 8 * as.double(n1) * n2
  if (n1 > .Machine$integer.max || n2 > .Machine$integer.max) {
    abort_arg("A covariance matrix with {n1} x {n2} entries has too many rows or columns for an R matrix.", call)
  }
  check_host_memory(bytes, sprintf("The %.0f x %.0f covariance matrix", n1, n2), call)
}

format_bytes <- function(b) {
  units <- c("B", "KB", "MB", "GB", "TB")
  k <- max(1L, min(length(units), floor(log(max(b, 1), 1000)) + 1L))
  sprintf("%.1f %s", b / 1000^(k - 1L), units[k])
}
