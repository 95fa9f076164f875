#' Matérn Gaussian processes: log-likelihood and simulation
#'
#' `gp_loglik()` is the exact log-likelihood of data `y` observed at `locs`
#' under a zero-mean Gaussian process with Matérn covariance (see [matern()]
#' for the parameterisation),
#' \deqn{-\frac{n}{2}\log(2\pi) - \frac12 \log|\Sigma| - \frac12 y^\top \Sigma^{-1} y,}
#' with \eqn{\Sigma = \sigma^2 M + \tau^2 I}. `gp_simulate()` draws from the
#' same process.
#'
#' The covariance is generated where it is factored: on a GPU it is built in
#' device memory and factored there, so only vectors cross the bus and the
#' matrix is never copied to R; on the CPU it is factored by LAPACK
#' (`dpotrf`, multi-threaded when R uses a multi-threaded BLAS). On a GPU
#' below \eqn{n = 32{,}768} cuSOLVER factors the whole matrix (64-bit
#' `Xpotrf`), \eqn{8 n^2} bytes.
#'
#' From \eqn{n = 32{,}768} on a GPU, for a smaller `n` whose matrix does not
#' fit there, and on the CPU above 46,340 (the limit of LAPACK's 32-bit
#' indices) or beyond half the memory, the covariance is factored by
#' [tile_chol()] instead, tile by tile, so only its lower triangle is stored,
#' \eqn{4 n^2} bytes. On a GPU that is also faster from that size on: on an
#' H100, one log-likelihood took 0.85 s against 0.98 s with `Xpotrf` at
#' \eqn{n = 50{,}000}. On a GPU whose memory holds that triangle (n up to
#' about 135,000 on 80 GB) the factor stays there and the solves run there
#' too; beyond, the tiles live in host memory, generated and factored on the
#' GPU out of core, and the solves run on the CPU, as they do on the CPU
#' path (all cores). Setting `options(gpustats.gp_tiles = TRUE)` uses the
#' tile Cholesky at any size. The tiled factorization can be interrupted,
#' and then frees the device memory it held.
#'
#' With `precision = "mixed"` the tile Cholesky factors the covariance at any
#' size, each tile below the diagonal stored and multiplied in the lowest
#' precision (FP64, FP32, FP16 or FP8) that keeps the tiles accurate to
#' `accuracy` relative to the matrix (see [tile_chol()] for the rule). The
#' locations are then ordered along a Z-order curve internally
#' ([morton_order()]), so that tiles far from the diagonal hold distant
#' pairs; results come back in the order of `locs`. The weaker the
#' correlation, the more tiles go to low precision and the faster the
#' factorization. The rule bounds the rounding
#' against the size of the covariance, while the likelihood is sensitive to
#' it on the scale of the smallest eigenvalue: after each factorization the
#' rounding that every tile row's low-precision tiles bring into the Schur
#' complement of its diagonal block is estimated (from the norms of those
#' tiles of the factor, and of the covariance, over the smallest pivots
#' \eqn{L_{jj}^2}), and in a row where it exceeds a tenth of the smallest
#' pivot of its diagonal block the tiles that add the most are promoted,
#' one precision at a time, until it is within half that bound, and the
#' factorization is rerun. Ill-conditioned covariances (long range, high
#' smoothness) are so factored in (nearly) FP64, where low precision would
#' have made the likelihood meaningless. Within one [gp_fit()] each
#' factorization starts from the precisions that the previous one found
#' its rows need (within half the bound), so that nearby parameters rarely
#' factor twice.
#'
#' A covariance that is not positive definite gives an error of class
#' `gpustats_error_not_pd` that names the order of the first leading minor
#' that is not, as [chol()] does; so does one that is numerically singular,
#' where the smallest pivot \eqn{L_{ii}^2} of the factor is below
#' \eqn{10 n \epsilon} times the largest, within the rounding of the
#' factorization, so that the likelihood would be rounding noise (duplicated
#' locations without a nugget, or a very smooth or long-range covariance: a
#' small nugget helps). Both precisions apply the same rule. A factorization
#' on the CPU checks for interrupts between blocks of columns, and shows a
#' progress bar once it has lasted two seconds.
#'
#' @param y Observations: a numeric vector of length `nrow(locs)`, or a matrix
#'   with `nrow(locs)` rows, one data set per column. All columns share one
#'   factorization of \eqn{\Sigma} and one triangular solve with a column
#'   per data set; for independent replicates of one process at the same
#'   locations, the sum of the values is their joint log-likelihood (with a
#'   trend, and by REML, see the replicates of [gp_fit()]).
#' @inheritParams matern_cov
#' @param sigma2,range,smoothness,nugget Covariance parameters, single numbers
#'   (`sigma2`, `range`, `smoothness` > 0, `nugget` >= 0); see [matern()].
#'   `smoothness` is the Matérn's (`cov = "matern"`) only.
#' @param cov The covariance family, an isotropic one of
#'   [gp_covariance_models] in any of its spellings: `"matern"` (the
#'   default), `"exponential"`, `"spherical"`, `"gaussian"`, `"powexp"`,
#'   `"cauchy"`, `"wendland"`, ...
#' @param ... The shape parameters of other families by name, as
#'   [gp_cov_matrix()] takes them (`power`, `tail`, `kappa`, `mu`).
#' @param precision `"double"` (FP64) or `"mixed"` (the tile Cholesky in
#'   mixed precision; see Details).
#' @param accuracy For `precision = "mixed"`: the relative accuracy, in
#'   Frobenius norm, to which the tiles represent the covariance; from
#'   `1e-15` to `0.1`.
#' @param approx `"exact"`, or `"vecchia"` for the Vecchia approximation
#'   with conditioning sets of size `m` ([vecchia_loglik()]); `locs` may then
#'   be a structure from [vecchia_neighbors()], reused by repeated calls
#'   (see [vecchia_loglik()]).
#' @param m For `approx = "vecchia"`: the size of the conditioning sets.
#' @param group For `approx = "vecchia"`: `TRUE` (the default) for the
#'   grouped approximation, `FALSE` for the classic one; see
#'   [vecchia_loglik()]. The exact likelihood has no conditioning sets to
#'   group and ignores it. `gp_simulate()` has none: its draws condition
#'   each point on its own neighbours, as GpGp's `fast_Gp_sim` does.
#' @return `gp_loglik()`: the log-likelihood (one per column of `y`), with
#'   attributes `logdet` (\eqn{\log|\Sigma|}) and `quadform`
#'   (\eqn{y^\top \Sigma^{-1} y}).
#' @seealso [gp_fit()] to estimate the parameters.
#' @examples
#' set.seed(1)
#' locs <- matrix(runif(400), ncol = 2)
#' y <- gp_simulate(locs, sigma2 = 1, range = 0.1, smoothness = 0.8)
#' gp_loglik(y, locs, sigma2 = 1, range = 0.1, smoothness = 0.8)
#' @export
gp_loglik <- function(y, locs, sigma2, range, smoothness, nugget = 0,
                      distance = c("euclidean", "great_circle"), precision = c("double", "mixed"),
                      accuracy = 1e-8, device = getOption("gpustats.device", "auto"),
                      approx = c("exact", "vecchia"), m = 30, group = TRUE, cov = "matern", ...) {
  call <- environment()
  given <- c(m = !missing(m), ordering = FALSE, distance = !missing(distance))
  check_flag(group, "group", call)
  approx <- match_choice(approx, c("exact", "vecchia"), "approx", call)
  distance <- match_choice(distance, c("euclidean", "great_circle"), "distance", call)
  shape <- c(if (!missing(smoothness)) list(smoothness = smoothness), list(...))
  if (approx == "vecchia") {
    f <- cov_family_params(cov, sigma2, range, nugget, shape, vecchia_locs_dim(locs), distance, call)
    return(vecchia_loglik_at(y, locs, f$params, m, NULL, "maxmin", distance, device, group, given, call, "gp_loglik",
                             family = f$model$native))
  }
  if (inherits(locs, "vecchia_neighbors")) {
    abort_arg(c("{.arg locs} is a structure of {.fn vecchia_neighbors}, for {.code approx = \"vecchia\"}.",
                i = "Pass {.code approx = \"vecchia\"}, or the locations ({.code locs$locs}) for the exact likelihood."), call)
  }
  accuracy <- mixed_accuracy(match_choice(precision, c("double", "mixed"), "precision", call), accuracy, call)
  locs <- as_locations(locs, "locs", distance, call)
  y <- as_observations(y, nrow(locs), call)
  f <- cov_family_params(cov, sigma2, range, nugget, shape, ncol(locs), distance, call)
  params <- f$params
  warn_great_circle(distance, params["smoothness"], call)
  gp <- gp_open(locs, distance, device, call, accuracy, f$model$native)
  on.exit(gp_close(gp))
  logdet <- gp_factor(gp, params, locs, call, bar = gp_progress_bar(gp, "gp_loglik: likelihood", call))
  z <- gp_apply(gp, "forward", y, call)
  quadform <- colSums(as.matrix(z)^2)
  ll <- -0.5 * nrow(locs) * log(2 * pi) - 0.5 * logdet - 0.5 * quadform
  attr(ll, "logdet") <- logdet
  attr(ll, "quadform") <- quadform
  ll
}

#' @rdname gp_loglik
#' @param nsim Number of independent draws.
#' @return `gp_simulate()`: a vector of length `nrow(locs)` (one draw) or a
#'   matrix with one draw per column, \eqn{L z} with \eqn{\Sigma = L L^\top}
#'   and \eqn{z} standard normal from R's generator, so `set.seed()` makes it
#'   reproducible (the CPU and GPU paths give the same draws to rounding).
#'   In mixed precision \eqn{L} is the factor of the Z-ordered covariance
#'   and the rows of \eqn{z} are taken in that order, so the draws differ
#'   from the FP64 ones for the same seed. With `approx = "vecchia"`, draws
#'   of the Vecchia approximation's law, \eqn{W^{-1} z} with \eqn{W} its
#'   sparse inverse Cholesky factor (as GpGp's `fast_Gp_sim`), the rows of
#'   \eqn{z} in the maxmin ordering of the locations: memory and time grow
#'   as \eqn{n m^2}, not \eqn{n^3}, so that millions of locations take
#'   seconds on a GPU. `locs` may then be a structure of
#'   [vecchia_neighbors()], whose ordering and sets are reused.
#' @export
gp_simulate <- function(locs, sigma2, range, smoothness, nugget = 0, nsim = 1,
                        distance = c("euclidean", "great_circle"), precision = c("double", "mixed"),
                        accuracy = 1e-8, device = getOption("gpustats.device", "auto"),
                        approx = c("exact", "vecchia"), m = 30, cov = "matern", ...) {
  call <- environment()
  approx <- match_choice(approx, c("exact", "vecchia"), "approx", call)
  distance <- match_choice(distance, c("euclidean", "great_circle"), "distance", call)
  precision <- match_choice(precision, c("double", "mixed"), "precision", call)
  shape <- c(if (!missing(smoothness)) list(smoothness = smoothness), list(...))
  if (approx == "vecchia") {
    if (precision == "mixed") abort_arg("{.code precision = \"mixed\"} is for {.code approx = \"exact\"}.", call)
    given <- c(m = !missing(m), ordering = FALSE, distance = !missing(distance))
    f <- cov_family_params(cov, sigma2, range, nugget, shape, vecchia_locs_dim(locs), distance, call)
    return(vecchia_simulate(locs, f$params, nsim, m, distance, device, given, call, f$model$native))
  }
  accuracy <- mixed_accuracy(precision, accuracy, call)
  locs <- as_locations(locs, "locs", distance, call)
  f <- cov_family_params(cov, sigma2, range, nugget, shape, ncol(locs), distance, call)
  warn_great_circle(distance, f$params["smoothness"], call)
  check_nsim(nsim, call)
  draws <- gp_draw_field(locs, f$params, nsim, distance, accuracy, device, call, "gp_simulate: drawing", f$model$native)
  if (nsim == 1) draws <- drop(draws)
  draws
}

# The columns of Vecchia locations: a matrix or data frame, or a structure
# of vecchia_neighbors().
vecchia_locs_dim <- function(locs) NCOL(if (inherits(locs, "vecchia_neighbors")) locs$locs else locs)

# nsim draws (n x nsim) of the zero-mean field with covariance params at
# checked locations, L z with z from R's generator; for gp_simulate() and
# simulate(). `accuracy`: 0 for FP64, else mixed precision; `label` names
# the progress bar after what the user asked for.
gp_draw_field <- function(locs, params, nsim, distance, accuracy, device, call, label, family = "matern") {
  n <- nrow(locs)
  check_draws_size(n, nsim, call)
  z <- matrix(stats::rnorm(n * nsim), n, nsim)
  gp <- gp_open(locs, distance, device, call, accuracy, family)
  on.exit(gp_close(gp))
  gp_factor(gp, params, locs, call, bar = gp_progress_bar(gp, label, call))
  gp_apply(gp, "multiply", z, call)
}

# gp_simulate(approx = "vecchia"): at the locations (an object opened and
# closed for the call) or a structure of vecchia_neighbors() (its kept
# object; its m and distance where `given` says the caller gave none).
vecchia_simulate <- function(locs, params, nsim, m, distance, device, given, call, family = "matern") {
  kept <- inherits(locs, "vecchia_neighbors")
  if (kept) {
    check_vecchia_structure(locs, m, "maxmin", distance, given, call)
    distance <- locs$distance
  } else {
    locs <- as_locations(locs, "locs", distance, call)
    check_vecchia_m(m, nrow(locs), call)
  }
  warn_great_circle(distance, params["smoothness"], call)
  check_nsim(nsim, call)
  n <- if (kept) nrow(locs$locs) else nrow(locs)
  check_draws_size(n, nsim, call)
  vc <- if (kept) {
    vecchia_engine_for(locs, FALSE, device, call, "gp_simulate: conditioning sets")
  } else {
    vecchia_open(locs, m, "maxmin", distance, device, call, label = "gp_simulate: conditioning sets")
  }
  if (!kept) on.exit(vecchia_close(vc))
  vecchia_factor(vc, params, call, label = "gp_simulate: drawing", family = family)
  draws <- vecchia_apply(vc, matrix(stats::rnorm(n * nsim), n, nsim), call, what = "inverse")
  if (nsim == 1) draws <- drop(draws)
  draws
}

check_nsim <- function(nsim, call) {
  if (!is.numeric(nsim) || length(nsim) != 1L || !is.finite(nsim) || nsim < 1 || nsim != round(nsim)) {
    abort_arg("{.arg nsim} must be a positive whole number.", call)
  }
}

# Refuses, before drawing, nsim draws at n locations that this machine cannot
# hold: the normal deviates and the draws, 16 bytes a value.
check_draws_size <- function(n, nsim, call) {
  check_host_memory(16 * as.double(n) * nsim,
                    sprintf("%s draws at %d locations (the normal deviates and the draws)",
                            format(nsim, big.mark = ","), n), call)
}

# ---- shared by gp_loglik, gp_simulate, gp_fit and predict -------------------

# A numeric vector or matrix of observations with n rows and no NA.
as_observations <- function(y, n, call) {
  if (!(is.numeric(y) || is.logical(y)) || is.object(y) && !is.numeric(unclass(y))) {
    abort_arg("{.arg y} must be numeric, not {.obj_type_friendly {y}}.", call)
  }
  rows <- if (is.matrix(y)) nrow(y) else length(y)
  if (rows != n) abort_arg("{.arg y} has {rows} observation{?s} but {.arg locs} has {n} location{?s}.", call)
  if (anyNA(y) || any(!is.finite(y))) {
    abort_arg(c("{.arg y} contains missing or infinite values.", i = "Remove those observations and their locations."), call)
  }
  storage.mode(y) <- "double"
  y
}

# 0 for precision "double"; for "mixed", the accuracy, checked.
mixed_accuracy <- function(precision, accuracy, call) {
  check_scalar(accuracy, "accuracy", call, 1e-15)
  if (accuracy > 0.1) abort_arg("{.arg accuracy} must be at most 0.1, not {accuracy}.", call)
  if (precision == "mixed") as.double(accuracy) else 0
}

# The native Gaussian-process object: locations uploaded and the n x n
# workspace allocated once, for every factorisation that follows. `tiled`
# says whether the tile Cholesky factors it (n >= 32,768 on a GPU, the
# matrix is too large for the dense path, the option gpustats.gp_tiles is
# TRUE, or accuracy > 0: mixed precision). In mixed precision the native
# object holds the locations in Z-order, `order`, so that tiles far from
# the diagonal hold distant pairs. `family`: the core's covariance family
# (gp_cov_model()'s `native`) of every factorization.
gp_open <- function(locs, distance, device, call, accuracy = 0, family = "matern") {
  n <- nrow(locs)
  dev <- resolve_device(device, as.double(n)^2, "matrix", call)
  tiles <- isTRUE(getOption("gpustats.gp_tiles", FALSE))
  order <- if (accuracy > 0) morton_order(locs)
  if (!is.null(order)) locs <- locs[order, , drop = FALSE]
  ptr <- gs_call(.Call(gs_r_gp_new, locs, dev, gs_threads(call), as.integer(tiles), accuracy), call)
  list(ptr = ptr, n = n, device = dev, tiled = .Call(gs_r_gp_tiled, ptr), accuracy = accuracy, order = order,
       distance = distance, family = family)
}

# "gpu" or "cpu", then how the covariance is factored.
gp_method <- function(gp) {
  paste0(if (gp$device >= 0) "gpu" else "cpu", if (gp$tiled) ", tile Cholesky",
         if (gp$accuracy > 0) sprintf(" in mixed precision (accuracy %g)", gp$accuracy))
}

gp_close <- function(gp) invisible(.Call(gs_r_gp_free, gp$ptr))

# A progress bar for a factorization of the covariance (NULL for a small one;
# cli shows it only once the work has lasted two seconds).
gp_progress_bar <- function(gp, label, call) gs_progress_bar(as.double(gp$n)^2, label, call)

# Factors Sigma(params), params named as cov_model() takes them; returns
# log |Sigma|. A matrix that is not positive
# definite, or numerically singular, gets an error that says why, unless
# `not_pd` says what to return. `bar`: a function of the fraction done.
gp_factor <- function(gp, params, locs, call, not_pd = NULL, bar = NULL) {
  tryCatch(
    gs_call(.Call(gs_r_gp_factor, gp$ptr, cov_model(params, gp$distance, gp$family), bar), call),
    gpustats_error_not_pd = function(e) {
      if (!is.null(not_pd)) return(not_pd)
      hint <- if (params[["sigma2"]] == 0 && params[["nugget"]] == 0) {
        "The covariance is zero: sigma2 and the nugget are both 0."
      } else if (anyDuplicated(locs)) {
        "{.arg locs} has duplicated rows, so the covariance is singular without a nugget: add one ({.code nugget = TRUE} in {.fn gp_fit}), or average the duplicates."
      } else {
        "The covariance is numerically singular (very smooth or long-range); a small nugget makes it positive definite."
      }
      order <- if (!is.null(gp$order)) "In mixed precision the locations are factored in Z-order: the minor's locations are {.code locs[morton_order(locs)[1:k], ]} for its order k."
      cli::cli_abort(c("{conditionMessage(e)}", i = hint, i = order), class = c("gpustats_error_not_pd", "gpustats_error"),
                     call = call)
    }
  )
}

# L^-1 b ("forward"), L b ("multiply") or Sigma^-1 b ("solve"), b with a
# row per location. With locations in Z-order the rows of b go in permuted;
# products and solves come back in the caller's order, while the forward
# solve stays in Z-order: it whitens (its sums of squares are what is used),
# and any orthogonal reordering of a whitening is one too.
gp_apply <- function(gp, what, b, call) {
  code <- gs_code("gp_apply", what)
  if (is.null(gp$order)) return(gs_call(.Call(gs_r_gp_apply, gp$ptr, code, b), call))
  b <- if (is.matrix(b)) b[gp$order, , drop = FALSE] else b[gp$order]
  out <- gs_call(.Call(gs_r_gp_apply, gp$ptr, code, b), call)
  if (what == "forward") return(out)
  if (is.matrix(out)) out[gp$order, ] <- out else out[gp$order] <- out
  out
}
