#' Orderings and conditioning sets of the Vecchia approximation
#'
#' The Vecchia approximation of a Gaussian process (Vecchia 1988; Guinness
#' 2018) orders the locations and conditions each observation on at most `m`
#' earlier ones, its nearest earlier neighbours. `vecchia_neighbors()`
#' computes the ordering and these conditioning sets, as [vecchia_loglik()]
#' uses them, so that they can be inspected or passed to another package.
#'
#' The maxmin ordering takes the location nearest the mean of the locations
#' first, then each time the location whose distance to those already
#' ordered is largest; it is the ordering that makes the approximation
#' accurate for a given `m` (Guinness 2018). `"maxmin_exact"` computes it
#' exactly (ties to the lowest row) with a k-d tree, one location at a time.
#' `"maxmin_approx"` orders by nested nets (Schäfer, Katzfuss and Owhadi
#' 2021): level by level, with radius \eqn{r = D / 2^k} (\eqn{D} the largest
#' extent of the locations), each location at distance \eqn{r} or more from
#' all those already ordered, so that a location's distance to the earlier
#' ones is its maxmin distance to within a factor of 2 (a level is one pass
#' over the locations left in Z-order, each looking up the grid cells of
#' width \eqn{r} around it), for up to 3 coordinates
#' (`distance = "great_circle"` orders on the unit sphere in space).
#' `"maxmin"` (the default) is the exact ordering up to
#' \eqn{10^5} locations and the approximate one above, as GpGp and
#' GPvecchia also approximate it for large data; the result says which.
#' Above that size the exact ordering's time grows faster than the number
#' of locations while the approximation's accuracy barely changes. On one
#' core of a 2-core machine, uniform locations in the square: 0.21 s
#' against 0.10 s at \eqn{10^5}, 1.9 s against 0.53 s at
#' \eqn{5 \times 10^5}, 5.3 s against 1.2 s at \eqn{10^6}. For Matérn
#' data drawn from the exact process (sigma2 1, nugget 0.01, the range 16
#' times the spacing of the locations, m = 30), the mean of the exact minus the
#' Vecchia log-likelihood, which estimates the Kullback-Leibler divergence
#' of the approximation, was for smoothness 2.5: at n = 5,000 (10 draws)
#' 31.8 with the exact ordering and 31.5 with the approximate one (grouped;
#' 48.9 and 47.5 ungrouped), at n = 20,000 (4 draws) 135 and 147 (189 and
#' 206 ungrouped): the approximate ordering costs about a quarter of what
#' grouping gains; for smoothness 0.5 at most 0.6 and 2.0.
#' `"random"` is a random permutation from R's generator (reproducible under
#' [set.seed()]), `"none"` keeps the rows as given.
#'
#' The neighbours are exact: for each location the `m` nearest among the
#' earlier ones (Euclidean distance, or for `distance = "great_circle"`
#' the chordal distance on the sphere, which orders pairs as the great-circle
#' distance does), nearest first, ties to the earlier location, found with
#' the k-d tree on all CPU cores.
#'
#' With `group = TRUE` the points are also grouped into blocks (Guinness
#' 2021) by the rule of GpGp's `group_obs(NNarray, exponent = 2)`: for each
#' column of `neighbors` from the second and each row `j` in turn, the block
#' held by `j` takes in that of its neighbour `k` when \eqn{u_{jk}^2 \le
#' u_j^2 + u_k^2}, where the \eqn{u} are the numbers of distinct entries of
#' the rows of the blocks' points (taken together for \eqn{u_{jk}}; the
#' `NA` padding counts as one, as in GpGp). The grouped likelihood factors
#' once, for each block, the covariance of the union of its points'
#' conditioning sets and the points (sorted in the ordering), and
#' conditions each point on the points of that union before it: a valid
#' Vecchia approximation with larger conditioning sets at about the cost of
#' the ungrouped one, and closer to the exact likelihood. The grouping runs
#' on the threads of the `gpustats.threads` option: the merge tests of a
#' column that share no block run at once, so the blocks are those of
#' GpGp's sequential pass for any number of threads.
#'
#' The result is also the structure that [vecchia_loglik()] and
#' [gp_loglik()] take in place of `locs`, so that repeated evaluations of the
#' likelihood (an optimizer, a profile, a grid, MCMC) compute the ordering,
#' the neighbours and the grouping once; see [vecchia_loglik()].
#'
#' @param locs Locations, one per row: a numeric matrix or data frame. For
#'   `distance = "great_circle"`, longitude and latitude in degrees.
#' @param m Size of the conditioning sets, a whole number from 0 to
#'   `nrow(locs) - 1`.
#' @param ordering `"maxmin"`, `"maxmin_exact"`, `"maxmin_approx"`,
#'   `"random"` or `"none"`; see Details.
#' @param group `TRUE` to group the points into blocks as well; see Details.
#' @inheritParams matern_cov
#' @return A list of class `vecchia_neighbors` with `order`, the permutation
#'   of the rows of `locs` (`locs[order, ]` are the ordered locations), and
#'   `neighbors`, an `nrow(locs)` by `m + 1` integer matrix in the form of
#'   GpGp's `NNarray`: row `i` holds `i` itself, then the positions (in the
#'   ordering) of its conditioning set, nearest first, and `NA` where a
#'   location has fewer than `m` earlier ones (the first `m` rows);
#'   `ordering`, the ordering used (`"maxmin"` resolved to `"maxmin_exact"`
#'   or `"maxmin_approx"`); with `group = TRUE`, `blocks`: the block of each
#'   position of the ordering, numbered from 1 in GpGp's order of blocks
#'   (`split(seq_along(blocks), blocks)` lists the points of each, as GpGp's
#'   `global_resp_inds` does); and `locs`, `m` and `distance`, as given.
#' @references Vecchia, A. V. (1988). Estimation and model identification for
#'   continuous spatial processes. JRSS B 50, 297-312.
#'   Guinness, J. (2018). Permutation and grouping methods for sharpening
#'   Gaussian process approximations. Technometrics 60, 415-429.
#'   Schäfer, F., Katzfuss, M. and Owhadi, H. (2021). Sparse Cholesky
#'   factorization by Kullback-Leibler minimization. SIAM J. Sci. Comput.
#'   43, A2019-A2046.
#'   Guinness, J. (2021). Gaussian process learning via Fisher scoring of
#'   Vecchia's approximation. Statistics and Computing 31, 25.
#' @seealso [vecchia_loglik()]
#' @examples
#' set.seed(1)
#' locs <- matrix(runif(200), ncol = 2)
#' nb <- vecchia_neighbors(locs, m = 5)
#' head(nb$order)
#' nb$neighbors[1:8, ]
#' gb <- vecchia_neighbors(locs, m = 5, group = TRUE)
#' table(tabulate(gb$blocks)) # points per block
#' gb
#' @export
vecchia_neighbors <- function(locs, m = 30, ordering = c("maxmin", "maxmin_exact", "maxmin_approx", "random", "none"),
                              distance = c("euclidean", "great_circle"), group = FALSE) {
  call <- environment()
  ordering <- match_choice(ordering, vecchia_orderings, "ordering", call)
  distance <- match_choice(distance, c("euclidean", "great_circle"), "distance", call)
  check_flag(group, "group", call)
  locs <- as_locations(locs, "locs", distance, call)
  check_vecchia_m(m, nrow(locs), call)
  vecchia_structure(locs, m, ordering, distance, group, call, "vecchia_neighbors: conditioning sets")
}

# The structure of vecchia_neighbors() for checked locations and m; `label`
# names the progress bars after what the user asked for.
vecchia_structure <- function(locs, m, ordering, distance, group, call, label) {
  nb <- vecchia_order_and_neighbors(locs, as.integer(m), ordering, distance, call, group, label)
  # the environment where the likelihood keeps its native object between
  # calls (vecchia_engine_for)
  structure(c(nb, list(locs = locs, m = as.integer(m), distance = distance)), class = "vecchia_neighbors",
            engine = new.env(parent = emptyenv()))
}

#' @rdname vecchia_neighbors
#' @param x A `vecchia_neighbors` structure.
#' @param ... Unused.
#' @export
print.vecchia_neighbors <- function(x, ...) {
  validate_vecchia_neighbors(x, "x", environment())
  blocks <- if (is.null(x$blocks)) "" else sprintf(", %s blocks", format(max(x$blocks), big.mark = ","))
  cat(sprintf("<vecchia_neighbors> %s locations, m = %d, %s ordering, %s distance%s\n",
              format(nrow(x$locs), big.mark = ","), x$m, x$ordering, x$distance, blocks))
  invisible(x)
}

# Checks that `nb` is a valid structure of vecchia_neighbors(), and that
# m, ordering and distance agree with it where the caller gave them
# (`given`, by name).
check_vecchia_structure <- function(nb, m, ordering, distance, given, call) {
  validate_vecchia_neighbors(nb, "locs", call)
  n <- nrow(nb$locs)
  if (given[["m"]]) {
    check_vecchia_m(m, n, call)
    if (m != nb$m) {
      abort_arg(c("{.arg m} is {m} but the structure {.arg locs} has conditioning sets of {nb$m}.",
                  i = "Leave {.arg m} out, or make the structure with {.code vecchia_neighbors(m = {m})}."), call)
    }
  }
  if (given[["ordering"]] && ordering != nb$ordering && !(ordering == "maxmin" && startsWith(nb$ordering, "maxmin"))) {
    abort_arg(c("{.arg ordering} is {.val {ordering}} but the structure {.arg locs} has the {.val {nb$ordering}} ordering.",
                i = "Leave {.arg ordering} out, or make the structure with {.code vecchia_neighbors(ordering = \"{ordering}\")}."),
              call)
  }
  if (given[["distance"]] && distance != nb$distance) {
    abort_arg(c("{.arg distance} is {.val {distance}} but the structure {.arg locs} was made for {.val {nb$distance}} distances.",
                i = "Leave {.arg distance} out, or make the structure with {.code vecchia_neighbors(distance = \"{distance}\")}."),
              call)
  }
}

# The points on which orderings and neighbours are computed: the locations,
# or for great-circle distances their positions on the unit sphere.
vecchia_search_points <- function(locs, distance) {
  if (distance == "euclidean") return(locs)
  lon <- locs[, 1L] * pi / 180
  lat <- locs[, 2L] * pi / 180
  cbind(cos(lat) * cos(lon), cos(lat) * sin(lon), sin(lat))
}

vecchia_orderings <- c("maxmin", "maxmin_exact", "maxmin_approx", "random", "none")

# "maxmin" as the exact ordering up to 1e5 locations (and for more than 3
# coordinates, beyond the Morton keys of the approximate one), the
# approximate one above, where the exact one takes 4 times as long and
# more (vecchia_neighbors's Details).
vecchia_maxmin_kind <- function(ordering, pts, call) {
  if (ordering == "maxmin") return(if (nrow(pts) <= 1e5 || ncol(pts) > 3L) "maxmin_exact" else "maxmin_approx")
  if (ordering == "maxmin_approx" && ncol(pts) > 3L) {
    abort_arg("{.code ordering = \"maxmin_approx\"} takes locations of at most 3 coordinates; use {.val maxmin_exact}.", call)
  }
  ordering
}

# The maxmin order of the rows of pts (search points): ordering "maxmin",
# "maxmin_exact" or "maxmin_approx"; the order with attribute "ordering", the
# kind used.
vecchia_maxmin_order <- function(pts, ordering, bar, call) {
  kind <- vecchia_maxmin_kind(ordering, pts, call)
  structure(gs_call(.Call(gs_r_vecchia_maxmin, pts, kind == "maxmin_exact", bar), call), ordering = kind)
}

vecchia_order_and_neighbors <- function(locs, m, ordering, distance, call, group = FALSE, label) {
  pts <- vecchia_search_points(locs, distance)
  n <- nrow(locs)
  bar <- gs_progress_bar(as.double(n) * (m + 1) * 20, label, call)
  order <- switch(ordering,
    random = sample.int(n),
    none = seq_len(n),
    vecchia_maxmin_order(pts, ordering, bar, call)
  )
  kind <- if (is.null(attr(order, "ordering"))) ordering else attr(order, "ordering")
  attr(order, "ordering") <- NULL
  nn <- gs_call(.Call(gs_r_vecchia_neighbors, pts[order, , drop = FALSE], m, gs_threads(call), bar), call)
  dup <- attr(nn, "duplicate")
  if (!is.null(dup)) vecchia_abort_duplicates(sort(order[dup]), call)
  out <- list(order = order, neighbors = nn, ordering = kind)
  if (group) out$blocks <- vecchia_group(nn, call, label)
  out
}

# The blocks of the grouped approximation (vecchia_neighbors's Details).
vecchia_group <- function(nn, call, label) {
  bar <- gs_progress_bar(as.double(nrow(nn)) * ncol(nn)^2, label, call)
  gs_call(.Call(gs_r_vecchia_group, nn, gs_threads(call), bar), call)
}

# Found by the neighbour search (a nearest earlier neighbour at distance 0);
# with m = 0 the approximation is the independent one, which duplicates do
# not harm.
vecchia_abort_duplicates <- function(rows, call) {
  abort_arg(c("{.arg locs} has duplicated locations (rows {rows[1]} and {rows[2]}).",
              i = "The Vecchia approximation needs distinct locations: average the observations at each location, or perturb them."),
            call)
}

check_vecchia_m <- function(m, n, call) {
  if (!is.numeric(m) || length(m) != 1L || !is.finite(m) || m < 0 || m != round(m)) {
    abort_arg("{.arg m} must be a whole number, the size of the conditioning sets.", call)
  }
  if (m >= n) {
    abort_arg(c("{.arg m} ({m}) must be less than the number of locations ({n}).",
                i = "A conditioning set holds at most the {n - 1} other locations."), call)
  }
}

#' Vecchia approximation of the Gaussian-process log-likelihood
#'
#' `vecchia_loglik()` is the Vecchia approximation (Vecchia 1988, Guinness
#' 2018, 2021) of [gp_loglik()]: the product, over the locations in the
#' maxmin ordering, of the law of each observation given those of its `m`
#' nearest earlier neighbours ([vecchia_neighbors()]), under the Matérn
#' covariance of [matern()]. It costs \eqn{O(n m^3)} time and
#' \eqn{O(n m)} memory instead of \eqn{O(n^3)} and \eqn{O(n^2)}, and tends to
#' the exact log-likelihood as `m` grows (it equals it for `m = n - 1`).
#'
#' With covariates `X`, the regression coefficients are profiled out by
#' generalized least squares under the approximate covariance, as GpGp's
#' `vecchia_profbeta_loglik` does; the estimate is the attribute `beta`.
#'
#' Each conditioning set's covariance is generated where it is factored,
#' from the same Matérn code as [matern()], and factored by a small Cholesky
#' factorization: on the CPU one set per thread on all cores, on a GPU one
#' set per warp (a set of 40 points or more per thread block of 4 warps),
#' its matrix in shared memory. No \eqn{n \times n} matrix is
#' ever formed.
#'
#' @section Repeated evaluations:
#' Each call with the locations orders them, searches the neighbours,
#' groups them and opens a native object: at \eqn{n = 10^5}, m = 30 on a
#' 2-core CPU, 0.44 s, 0.21 s and 0.19 s (grouped), against 2.2 s for the
#' grouped likelihood itself (smoothness 0.8); on a GPU the likelihood is a
#' small part of the call. A caller who evaluates the likelihood many times at
#' the same locations makes the structure once with [vecchia_neighbors()]
#' and passes it as `locs`: each call then reuses its ordering, neighbours
#' and blocks (the blocks computed at the first grouped call where the
#' structure has none), and the native object that the first call opened
#' (on a GPU, the locations and conditioning sets in device memory), which
#' the structure keeps until it is garbage collected. The likelihood is the
#' one of the same call with the locations. `m`, `ordering` and `distance`
#' are then those of the structure; given, they must agree with it, and
#' `y` and `X` must have a row per location of it. The native object is
#' opened again when the device, the `gpustats.threads` option or the
#' grouping changes, or when the structure's parts have been replaced; it
#' is not saved with [saveRDS()], and a structure read back opens a new one
#' at its first call.
#'
#' @section Clusters:
#' With `cluster`, a cluster of R's \pkg{parallel} package, each
#' evaluation is split over its workers. The log-likelihood, its gradient,
#' the Fisher information and the sums that profile the trend are sums over
#' the blocks of the approximation (the points, with `group = FALSE`): the
#' driver orders the locations and finds the conditioning sets once, cuts
#' space into one region per worker with about the same number of blocks
#' (the cells of a k-d tree), and sends each worker the locations,
#' observations and covariates of its region's blocks with the halo of
#' earlier points their conditioning sets name: the points near the
#' region's edges and a few of the coarse levels of the ordering (about 1 %
#' of the points at \eqn{n = 2 \times 10^5}, m = 30, for 2 to 32 workers),
#' so that a worker holds about \eqn{n / k} points. Each worker keeps its piece in a
#' native object (on its GPU, or its cores) and returns its part of the
#' sums, which the driver adds: an evaluation sends the parameters out and
#' brings a few hundred numbers back, and [gp_fit()] runs the same Fisher
#' scoring on them. The result is the one-process result up to the order in
#' which rounding errors add: at n = 3,000 (m = 20, 2 and 3 workers) the
#' likelihood and the information within \eqn{10^{-15}}, the gradient
#' within \eqn{2 \times 10^{-13}} and the fit's estimates and standard
#' errors within \eqn{5 \times 10^{-14}} (relative).
#'
#' Any snow-style cluster serves: [parallel::makeCluster()] with PSOCK
#' workers on this host or, over ssh, on others (each with gpustats
#' installed), a FORK cluster, or an MPI cluster through \pkg{Rmpi} and
#' OpenMPI (`makeCluster(k, type = "MPI")`). Workers on one host share its
#' cores (`detectCores()` divided among them) and take its GPUs in turn,
#' unless a worker has its own `gpustats.threads` or `gpustats.gpus`
#' option (set with [parallel::clusterEvalQ()]). A worker that fails, or
#' runs out of memory, gives an error that names it and its host, and the
#' driver's session goes on; a worker that has stopped must be replaced by
#' making the cluster again. An interrupt takes effect once the workers
#' have answered the evaluation in progress, so that no answer is left on
#' the cluster's connections. The driver holds all the data and the
#' conditioning sets while it cuts them (see [vecchia_neighbors()] for
#' their size).
#'
#' @inheritParams gp_loglik
#' @param y Observations, a numeric vector of length `nrow(locs)`.
#' @param locs Locations, one per row: a numeric matrix or data frame (for
#'   `distance = "great_circle"`, longitude and latitude in degrees); or a
#'   structure from [vecchia_neighbors()] for repeated evaluations (see
#'   Repeated evaluations).
#' @param m Size of the conditioning sets.
#' @param X Optional covariates: a numeric matrix with `nrow(locs)` rows
#'   (include a column of ones for a constant mean), or `NULL` for a
#'   zero-mean process.
#' @param ordering The ordering of the locations; see [vecchia_neighbors()].
#' @param group `TRUE` (the default, on every device) for the grouped
#'   approximation (Guinness 2021; see [vecchia_neighbors()]): each block of
#'   nearby points from one factorization of the union of their conditioning
#'   sets, each point conditioned on the points of that union before it,
#'   which is closer to the exact likelihood for the same `m`, as GpGp's
#'   `fit_model` computes it by default. `FALSE` for the classic
#'   approximation, each point on its own `m` neighbours, as GpGp's
#'   `vecchia_meanzero_loglik` and `vecchia_profbeta_loglik` compute it.
#'   The same call gives the same approximation, and the same
#'   log-likelihood to rounding, on the CPU and on a GPU. Grouping costs
#'   little on a GPU: on an H200 at \eqn{n = 10^5}, m = 30, one grouped
#'   evaluation with gradient and information took 0.057 s against 0.039 s
#'   ungrouped, and a whole [gp_fit()] (smoothness and nugget free) 0.93 s
#'   against 0.69 s (at \eqn{10^6}, 8.4 s against 5.9 s). This rule holds
#'   for every likelihood of the package's Vecchia path: [gp_loglik()],
#'   [gp_fit()] and the profiles of [confint.gp_fit()], which use the fit's
#'   own choice. Predictions and draws ([predict.gp_fit()],
#'   [simulate.gp_fit()]) condition each point on its own nearest
#'   neighbours, as GpGp's predictions and `fast_Gp_sim` do: grouping
#'   changes the likelihood, not the law they are drawn from.
#' @param cluster `NULL` for one process, or a cluster of the
#'   \pkg{parallel} package over whose workers the evaluation is split;
#'   see Clusters.
#' @return The log-likelihood, with attributes `logdet` (the log-determinant
#'   of the approximate covariance), `quadform` (the quadratic form of the
#'   residuals) and, with `X`, `beta`.
#' @seealso [gp_loglik()] for the exact log-likelihood, [vecchia_neighbors()].
#' @examples
#' set.seed(1)
#' locs <- matrix(runif(600), ncol = 2)
#' y <- gp_simulate(locs, sigma2 = 1, range = 0.1, smoothness = 0.8, nugget = 0.1)
#' vecchia_loglik(y, locs, sigma2 = 1, range = 0.1, smoothness = 0.8, nugget = 0.1, m = 10)
#' gp_loglik(y, locs, sigma2 = 1, range = 0.1, smoothness = 0.8, nugget = 0.1)
#' vecchia_loglik(y, locs, sigma2 = 1, range = 0.1, smoothness = 0.8, nugget = 0.1, m = 10,
#'                group = FALSE)
#'
#' # many evaluations at the same locations: one structure, reused by each
#' nb <- vecchia_neighbors(locs, m = 10)
#' negloglik <- function(logp) {
#'   -vecchia_loglik(y, nb, sigma2 = exp(logp[1]), range = exp(logp[2]), smoothness = 0.8,
#'                   nugget = exp(logp[3]))
#' }
#' fit <- optim(log(c(0.5, 0.2, 0.5)), negloglik, control = list(maxit = 60))
#' exp(fit$par) # sigma2, range, nugget
#' @export
vecchia_loglik <- function(y, locs, sigma2, range, smoothness, nugget = 0, m = 30, X = NULL,
                           ordering = c("maxmin", "maxmin_exact", "maxmin_approx", "random", "none"),
                           distance = c("euclidean", "great_circle"),
                           device = getOption("gpustats.device", "auto"), group = TRUE, cluster = NULL,
                           cov = "matern", ...) {
  call <- environment()
  given <- c(m = !missing(m), ordering = !missing(ordering), distance = !missing(distance))
  ordering <- match_choice(ordering, vecchia_orderings, "ordering", call)
  distance <- match_choice(distance, c("euclidean", "great_circle"), "distance", call)
  check_flag(group, "group", call)
  if (!is.null(cluster)) check_cluster(cluster, call)
  shape <- c(if (!missing(smoothness)) list(smoothness = smoothness), list(...))
  f <- cov_family_params(cov, sigma2, range, nugget, shape, vecchia_locs_dim(locs), distance, call)
  vecchia_loglik_at(y, locs, f$params, m, X, ordering, distance, device, group, given, call, "vecchia_loglik", cluster,
                    family = f$model$native)
}

# vecchia_loglik()'s value, for it and gp_loglik(): at `locs`, the
# locations (an object opened and closed for the call) or a structure of
# vecchia_neighbors() (its kept object; its m, ordering and distance where
# `given` says the caller gave none); over the workers of `cluster` (an
# engine opened and closed for the call) where it is not NULL. `fn`: the
# exported function the user called, which names the progress bars.
# `family`: the core's covariance family (gp_cov_model()'s `native`).
vecchia_loglik_at <- function(y, locs, params, m, X, ordering, distance, device, group, given, call, fn, cluster = NULL,
                              family = "matern") {
  kept <- inherits(locs, "vecchia_neighbors")
  if (kept) {
    check_vecchia_structure(locs, m, ordering, distance, given, call)
  } else {
    locs <- as_locations(locs, "locs", distance, call)
    check_vecchia_m(m, nrow(locs), call)
  }
  n <- if (kept) nrow(locs$locs) else nrow(locs)
  y <- as_observations(y, n, call)
  if (is.matrix(y) && ncol(y) != 1L) abort_arg("{.arg y} must be a vector (one data set).", call)
  X <- if (is.null(X)) matrix(0, n, 0L) else as_design(X, n, call)
  storage.mode(X) <- "double"
  sets <- paste0(fn, ": conditioning sets")
  vc <- if (!is.null(cluster)) {
    nb <- if (kept) locs else vecchia_structure(locs, m, ordering, distance, group, call, sets)
    vecchia_cluster_open(cluster, nb, as.double(y), X, group, device, call, sets)
  } else if (kept) {
    vecchia_engine_for(locs, group, device, call, sets)
  } else {
    vecchia_open(locs, m, ordering, distance, device, call, group = group, label = sets)
  }
  if (!kept || !is.null(cluster)) on.exit(vecchia_close(vc))
  r <- vecchia_loglik_grad_info(vc, params, y, X, deriv = character(), call = call, label = paste0(fn, ": likelihood"),
                                family = family)
  structure(r$loglik, logdet = r$logdet, quadform = r$quadform, beta = r$beta)
}

