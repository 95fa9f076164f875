#' Bhattacharyya coefficient between a GBEES density and samples
#'
#' Compares a recorded GBEES density with samples of the same distribution,
#' such as a [gbees_mc()] run, by the Bhattacharyya coefficient
#' `BC = sum over cells sqrt(a_i b_i)` of two distributions over the grid's
#' cells: 1 for equal distributions, 0 for disjoint ones.
#'
#' With `method = "kde"` (the default) both sides are smoothed by the same
#' Gaussian kernel, Scott's rule as in `scipy.stats.gaussian_kde`:
#' `H = n^(-2 / (d + 4))` times the sample covariance of the `n` finite
#' samples. At every cell centre `x_i`, `b_i = sum_j N(x_i; s_j, H)` over the
#' samples and `a_i = sum_k p_k N(x_i; x_k, H)` over the cells (the grid
#' density smoothed by the same kernel); `a` and `b` are normalised to sum 1
#' over the cells. The sums are exact over all pairs closer than `cutoff`
#' kernel standard deviations (Mahalanobis distance in `H`), found through
#' boxes of a third of that width in every state, so that each cell visits only the
#' sources within about a cut-off of it, on all cores or on a GPU. A grid of more than
#' `max_cells` cells is evaluated at `max_cells` cells drawn at random with
#' probability `(p_i + 1 / cells) / 2`, and the coefficients are ratio
#' estimates (a bias of order `1 / max_cells`, far below the standard error
#' reported beside them). The literal one-sided coefficient
#' `sum sqrt(p_i b_i)` (kernel-smoothed samples against the unsmoothed grid
#' density) is returned as a diagnostic: it is lowered by the kernel's own
#' width even at perfect agreement.
#'
#' With `method = "bins"` the samples are binned on the grid's cells (the cell
#' of a state is the nearest cell centre in each coordinate), with
#' `P_samples` the fraction of all samples in the cell, after summing both
#' sides over blocks of `bin^dim` cells. Samples outside the grid lower it.
#' The binned coefficient depends on the binning: finer bins resolve more of
#' the difference between a grid density (smoothed by the scheme's numerical
#' diffusion) and the samples, and show more sampling noise.
#'
#' The exact-agreement reference applies the same measure to as many samples
#' (as many finite ones) drawn from the grid density itself (a cell by its probability, then a
#' uniform point in it): the value the measure would give if the samples
#' followed the grid density exactly.
#'
#' @param object A [gbees()] result.
#' @param samples A [gbees_mc()] result or a matrix of states (one per row).
#' @param time A recorded time (default: the last).
#' @param method `"kde"` or `"bins"`, see Details.
#' @param posterior At a measurement time, compare the density after the
#'   update; by default the one before, which is what a Monte Carlo run
#'   without measurements samples.
#' @param bin For `method = "bins"`: cells per bin along each state.
#' @param reference Also compute the exact-agreement reference (this draws
#'   samples with R's random number generator, so set a seed for
#'   reproducible results).
#' @param cutoff For `method = "kde"`: kernel sums include every pair closer
#'   than this many kernel standard deviations (at least 8).
#' @param max_cells For `method = "kde"`: the most cells evaluated exactly;
#'   larger grids are estimated from this many sampled cells.
#' @param device `"auto"`, `"cpu"` or `"gpu"` for the kernel sums (`"bins"`
#'   runs in R).
#' @return An object of class `gbees_bhattacharyya`, a list with `method`,
#'   `coefficient`, `reference` (the exact-agreement reference, `NA` if not
#'   asked for), `one_sided` (for `"kde"`; `NA` for `"bins"`), their standard
#'   errors `coefficient_se`, `reference_se` and `one_sided_se` (0 when the
#'   sums are exact), `time`, `posterior`, `cells` (of the density),
#'   `evaluated` (cells at which the kernel sums ran), `samples` (rows given)
#'   and `finite` (those used by `"kde"`), `bandwidth` (the kernel covariance
#'   `H`, for `"kde"`), `cutoff`, `bin` and `exact`. `as.double()` gives the
#'   coefficient.
#' @seealso [gbees()], [gbees_mc()]
#' @examples
#' fit <- gbees(lorenz63(), x0 = c(-11.5, -10, 9.5), cov = diag(3), dx = 1, times = 0.1)
#' mc <- gbees_mc(lorenz63(), x0 = c(-11.5, -10, 9.5), cov = diag(3), times = 0.1, n = 2000)
#' bhattacharyya(fit, mc)
#' bhattacharyya(fit, mc, method = "bins", bin = 2)$coefficient
#' @export
bhattacharyya <- function(object, samples, time = NULL, method = c("kde", "bins"), posterior = FALSE, bin = 1L,
                          reference = TRUE, cutoff = 8, max_cells = 1e6,
                          device = getOption("gpustats.device", "auto")) {
  call <- environment()
  validate_gbees(object, "object", call)
  method <- match_choice(method, c("kde", "bins"), "method", call)
  check_scalar(bin, "bin", call, 1)
  if (bin != trunc(bin)) abort_arg("{.arg bin} must be a whole number of cells, not {bin}.", call)
  check_flag(reference, "reference", call)
  check_scalar(cutoff, "cutoff", call, 8)
  check_scalar(max_cells, "max_cells", call, 1)
  s <- gbees_snapshot(object, time, posterior, call)
  x <- bc_samples(object, samples, s$time, call)
  finite <- sum(rowSums(!is.finite(x)) == 0)
  dev <- resolve_device(device, if (method == "kde") as.double(length(s$prob)) * nrow(x) else 0, "map", call)
  measure <- if (method == "kde") {
    function(x, label) bc_kde(object, s, x, cutoff, floor(max_cells), dev, label, call)
  } else {
    function(x, label) bc_bins(object, s, x, bin)
  }
  main <- measure(x, "bhattacharyya")
  ref <- if (reference && finite > 0) measure(bc_draw(object, s, finite), "bhattacharyya reference")
  structure(list(method = method, coefficient = main$coefficient, reference = ref$coefficient %||% NA_real_,
                 one_sided = main$one_sided, coefficient_se = main$coefficient_se,
                 reference_se = ref$coefficient_se %||% NA_real_, one_sided_se = main$one_sided_se, time = s$time,
                 posterior = s$posterior, cells = length(s$prob), evaluated = main$evaluated, samples = nrow(x),
                 finite = finite, bandwidth = main$bandwidth,
                 cutoff = if (method == "kde") cutoff else NA_real_, bin = if (method == "bins") bin else NA_real_,
                 exact = main$evaluated == length(s$prob)),
            class = "gbees_bhattacharyya")
}

# The samples at `time` as a matrix with the model's columns.
bc_samples <- function(object, samples, time, call) {
  if (inherits(samples, "gbees_mc")) {
    validate_gbees_mc(samples, "samples", call)
    k <- which(abs(samples$times - time) <= 1e-9 * max(1, abs(time)))
    if (!length(k)) abort_arg("The Monte Carlo run has no samples at time {time}.", call)
    samples <- samples$samples[[k[1L]]]
  }
  if (!is.matrix(samples) || !is.numeric(samples) || ncol(samples) != object$dim || nrow(samples) == 0L) {
    abort_arg(paste("{.arg samples} must be a matrix with {object$dim} columns and at least one row,",
                    "or a {.fn gbees_mc} result."), call)
  }
  samples
}

# n states drawn from the grid density: a cell by its probability, then a
# uniform point in it.
bc_draw <- function(object, s, n) {
  d <- object$dim
  k <- sample.int(length(s$prob), n, replace = TRUE, prob = pmax(s$prob, 0))
  (s$keys[k, , drop = FALSE] + matrix(stats::runif(n * d) - 0.5, n, d)) * rep(object$dx, each = n) +
    rep(object$center, each = n)
}

# The binned coefficient: fractions of all n samples in blocks of bin^dim cells.
bc_bins <- function(object, s, x, bin) {
  n <- nrow(x)
  x <- x[rowSums(!is.finite(x)) == 0, , drop = FALSE]
  keys <- round((x - rep(object$center, each = nrow(x))) / rep(object$dx, each = nrow(x)))
  keys <- keys[rowSums(abs(keys) < 2^30) == ncol(keys), , drop = FALSE]
  codes <- gbees_key_code(list(floor(s$keys / bin), floor(keys / bin)))
  grid_prob <- rowsum(pmax(s$prob, 0), codes[[1L]], reorder = FALSE)
  bins <- unique(codes[[1L]])
  counts <- tabulate(match(codes[[2L]], bins), nbins = length(bins))
  list(coefficient = sum(sqrt(grid_prob * counts / n)), coefficient_se = 0, one_sided = NA_real_,
       one_sided_se = NA_real_, evaluated = length(s$prob), bandwidth = NULL)
}

# The kernel-smoothed coefficients. Positions are taken relative to the
# grid's centre and whitened by H = R'R (rows times R^-1), so that the core
# sums an isotropic unit kernel; the kernel's constant cancels in the
# normalisation. The glue whitens: the cells from their integer keys (times
# dx R^-1), in one pass over what may be tens of millions of cells. The
# cells evaluated are all of them, or max_cells drawn with probability q,
# and each sum over cells is estimated by the mean of its terms over q (the
# ratio estimates of bc_ratio).
bc_kde <- function(object, s, x, cutoff, max_cells, dev, label, call) {
  d <- object$dim
  x <- x[rowSums(!is.finite(x)) == 0, , drop = FALSE]
  n <- nrow(x)
  if (n <= d) abort_arg("The kernel density needs more than {d} finite samples, not {n}.", call)
  H <- stats::cov(x) * n^(-2 / (d + 4))
  R <- tryCatch(chol(H), error = function(e) NULL)
  if (is.null(R)) {
    abort_arg("The samples' covariance is singular: the kernel density needs samples that span all {d} states.", call)
  }
  whiten <- backsolve(R, diag(d))
  p <- pmax(s$prob, 0) / sum(pmax(s$prob, 0))
  N <- length(p)
  exact <- N <= max_cells
  q <- if (exact) rep(1 / N, N) else (p + 1 / N) / 2
  at <- if (exact) seq_len(N) else sort(sample.int(N, max_cells, replace = TRUE, prob = q))
  bar <- gs_progress_bar(2 * as.double(length(at)) * (N + n) / 100, label, call)
  sums <- function(src, w, eval, map, part) {
    progress <- if (!is.null(bar)) function(done) bar((part + done) / 2)
    gs_call(.Call(gs_r_gbees_kernel_sums, src, w, eval, map, as.double(cutoff), gs_threads(call), dev, progress),
            call)
  }
  keys <- s$keys[at, , drop = FALSE]
  A <- sums(s$keys, p, keys, object$dx * whiten, 0)
  B <- sums(x - rep(object$center, each = n), NULL, keys * rep(object$dx, each = nrow(keys)), whiten, 1)
  both <- bc_ratio(sqrt(A * B) / q[at], list(A / q[at], B / q[at]), exact)
  one <- bc_ratio(sqrt(p[at] * B) / q[at], list(B / q[at]), exact)
  dimnames(H) <- list(object$model$state_names, object$model$state_names)
  list(coefficient = both$estimate, coefficient_se = both$se, one_sided = one$estimate, one_sided_se = one$se,
       evaluated = length(at), bandwidth = H)
}

# mean(num) / prod(sqrt(mean(den_k))) and its delta-method standard error
# (0 for exact sums); 0 where a denominator is 0 (samples far from every cell).
bc_ratio <- function(num, dens, exact) {
  means <- vapply(dens, mean, 0)
  if (any(means <= 0)) return(list(estimate = 0, se = 0))
  est <- mean(num) / prod(sqrt(means))
  if (exact || length(num) < 2L) return(list(estimate = est, se = 0))
  grad <- c(est / mean(num), -est / (2 * means))
  v <- stats::cov(cbind(num, do.call(cbind, dens)))
  list(estimate = est, se = sqrt(max(0, drop(grad %*% v %*% grad)) / length(num)))
}

#' @export
print.gbees_bhattacharyya <- function(x, ...) {
  validate_gbees_bhattacharyya(x, "x", environment())
  se <- function(v) if (is.finite(v) && v > 0) sprintf(" (standard error %.2g)", v) else ""
  what <- if (x$method == "kde") sprintf("kernel-smoothed (Scott, cut-off %g sd)", x$cutoff) else
    sprintf("binned on blocks of %g cell%s a side", x$bin, if (x$bin == 1) "" else "s")
  cat(sprintf("<gbees_bhattacharyya> %s, t = %s%s\n", what, format(x$time), if (x$posterior) " (updated)" else ""))
  cat(sprintf("  coefficient %.6f%s\n", x$coefficient, se(x$coefficient_se)))
  if (is.finite(x$reference)) {
    cat(sprintf("  exact-agreement reference %.6f%s\n", x$reference, se(x$reference_se)))
  }
  if (x$method == "kde") {
    cat(sprintf("  one-sided (smoothed samples against the grid) %.6f%s\n", x$one_sided, se(x$one_sided_se)))
  }
  cat(sprintf("  %d cells%s, %d samples\n", x$cells,
              if (x$exact) "" else sprintf(" (%d sampled)", x$evaluated), x$samples))
  invisible(x)
}

#' @export
as.double.gbees_bhattacharyya <- function(x, ...) {
  validate_gbees_bhattacharyya(x, "x", environment())
  x$coefficient
}
