#' Grids for spherical-harmonic transforms
#'
#' A latitude-longitude grid on the sphere: `nlat` colatitudes
#' \eqn{\theta_i} from the north pole southwards and `nlon` equally spaced
#' longitudes \eqn{\phi_j = 2\pi j / n_\phi} (from 0, eastwards), with the
#' quadrature weights of the latitudes. `"gauss"`: the \eqn{\cos\theta_i}
#' are the Gauss-Legendre nodes, `nlat = lmax + 1` by default, and the
#' quadrature is exact for the harmonics up to degree `lmax`.
#' `"equiangular"`: \eqn{\theta_i = \pi (i + 1/2) / n_\theta} with Fejér's
#' first rule, `nlat = 2 lmax + 2` by default (exact when
#' \eqn{n_\theta \ge 2 l_{max} + 1}). `nlon` must exceed `2 lmax`.
#'
#' **Method.** The Gauss-Legendre nodes and weights take \eqn{O(n_\theta)}
#' time, spread over the CPU threads: Newton's method in \eqn{\theta} on
#' \eqn{P_n(\cos\theta)}, evaluated in long double by its Stieltjes
#' asymptotic expansion (a few terms a node; Hale and Townsend 2013), or by
#' the three-term recurrence at the few nodes next to each pole where the
#' expansion does not reach long double accuracy. Against mpmath (up to
#' \eqn{n_\theta = 100001}) `cos_colat` is correctly rounded, `cos_colat +
#' cos_colat_lo` within 0.001 units in the last place of `cos_colat`, and
#' the weights within one unit; \eqn{10^5} nodes take 0.03 s on two cores,
#' \eqn{10^6} 0.3 s. The
#' Fejér weights take one DCT (FFTW), \eqn{O(n_\theta \log n_\theta)}.
#' A grid is computed once: calling `sht_grid()` again with the same
#' arguments, or [sht_analysis()] without a grid on values of the same size,
#' returns the grid kept from the first call (the last four are kept).
#'
#' A grid on which one field (`nlat * nlon` doubles) would not fit in the
#' memory available is refused, with the memory it would need and the time a
#' transform of it would take (the Legendre sums cost about
#' \eqn{l_{max}^2 n_\theta / 2} steps): `sht_grid(1e6)` would hold 16 TB a
#' field.
#'
#' @param lmax The largest spherical-harmonic degree the grid is for.
#' @param kind `"gauss"` or `"equiangular"`.
#' @param nlat,nlon Numbers of latitudes and longitudes.
#' @return An object of class `sht_grid`: a list with `kind`, `lmax`, `nlat`,
#'   `nlon`, `cos_colat` (\eqn{\cos\theta_i}), `cos_colat_lo` (Gauss grids:
#'   the rounding errors of `cos_colat`, which the transforms add back; near
#'   the poles a node rounded to double moves the low orders' Legendre
#'   functions by up to \eqn{l^2} ulps), `weights` (summing to 2), `lat` and
#'   `lon` (degrees).
#' @seealso [sht_analysis()]
#' @examples
#' g <- sht_grid(15)
#' g
#' sum(g$weights)
#' @export
sht_grid <- function(lmax, kind = c("gauss", "equiangular"),
                     nlat = if (kind == "gauss") lmax + 1 else 2 * lmax + 2, nlon = 2 * lmax + 2) {
  call <- environment()
  kind <- match_choice(kind, c("gauss", "equiangular"), "kind", call)
  lmax <- check_count(lmax, "lmax", call)
  check_scalar(nlat, "nlat", call, lower = 1)
  check_scalar(nlon, "nlon", call, lower = 1)
  check_sht_grid_size(kind, lmax, nlat, nlon, call)
  nlat <- check_count(nlat, "nlat", call, lower = 1)
  nlon <- check_count(nlon, "nlon", call, lower = 1)
  exact <- if (kind == "gauss") lmax + 1 else 2 * lmax + 1
  if (nlat < exact || nlon <= 2 * lmax) {
    abort_arg(c("A {kind} grid of {nlat} x {nlon} points is too small for degree {lmax}.",
                i = "Use nlat >= {exact} and nlon >= {2 * lmax + 1}."), call)
  }
  sht_grid_cached(kind, lmax, nlat, nlon, call)
}

# Lane-degree steps of the Legendre sums per second and thread, measured on
# the CPU path (analysis at degree 2047 on two x86 cores: 1.6e9): for the
# time a grid's transforms would take, in check_sht_grid_size().
SHT_STEPS_PER_SECOND <- 1.5e9

# Refuses a grid on which one field would not fit in the memory available
# now, saying how much memory it needs and how long a transform of it would
# take (the sums cost (lmax + 1)^2 / 2 steps per latitude).
check_sht_grid_size <- function(kind, lmax, nlat, nlon, call) {
  seconds <- (lmax + 1)^2 / 2 * nlat / (SHT_STEPS_PER_SECOND * cpu_threads())
  what <- sprintf("One field on the %s grid for degree %d (%.0f x %.0f points; a transform of it takes about %s on %d threads here)",
                  kind, lmax, nlat, nlon, format_seconds(seconds), cpu_threads())
  check_host_memory(8 * as.double(nlat) * nlon, what, call)
}

# A duration in the largest unit that keeps it above 1.
format_seconds <- function(s) {
  units <- c(second = 1, minute = 60, hour = 3600, day = 86400, year = 365.25 * 86400)
  u <- units[max(1L, findInterval(s, units))]
  n <- signif(s / u, 2)
  sprintf("%s %s%s", format(n), names(u), if (n == 1) "" else "s")
}

# The grids made last, most recent first: sht_analysis() of values without a
# grid, and sht_grid() called again with the same arguments, take the grid
# from here rather than compute its nodes again. `builds` counts the grids
# computed (the tests read it).
sht_grid_cache <- new.env(parent = emptyenv())
sht_grid_cache$grids <- list()
sht_grid_cache$builds <- 0
SHT_GRID_CACHE_SIZE <- 4L

sht_grid_cached <- function(kind, lmax, nlat, nlon, call) {
  key <- sprintf("%s %d %d %d", kind, lmax, nlat, nlon)
  grid <- sht_grid_cache$grids[[key]]
  if (is.null(grid)) {
    grid <- sht_grid_make(kind, lmax, nlat, nlon, call)
    sht_grid_cache$builds <- sht_grid_cache$builds + 1
  }
  others <- sht_grid_cache$grids[names(sht_grid_cache$grids) != key]
  sht_grid_cache$grids <- c(stats::setNames(list(grid), key), utils::head(others, SHT_GRID_CACHE_SIZE - 1L))
  grid
}

sht_grid_make <- function(kind, lmax, nlat, nlon, call) {
  q <- if (kind == "gauss") {
    gs_call(.Call(gs_r_gauss_legendre, nlat, gs_threads(call), gs_progress_bar(nlat, "sht_grid", call)), call)
  } else {
    fejer_rule(nlat, call)
  }
  structure(list(kind = kind, lmax = lmax, nlat = nlat, nlon = nlon, cos_colat = q$x, cos_colat_lo = q$x_lo,
                 weights = q$w, lat = 90 - acos(q$x) * 180 / pi, lon = 360 * (seq_len(nlon) - 1) / nlon),
            class = "sht_grid")
}

# Fejer's first rule on theta_i = pi (i + 1/2) / n, exact for polynomials in
# cos(theta) of degree < n: w_i = 2 / n (1 - 2 sum_{k = 1}^{n / 2} cos(2 k theta_i) / (4 k^2 - 1)),
# one DCT-III, y_i = c_0 + 2 sum_{j < n} c_j cos(pi j (2 i + 1) / (2 n)), of
# c_0 = 1, c_2k = -1 / (4 k^2 - 1) (the term 2k = n is cos(pi (i + 1/2)) = 0).
fejer_rule <- function(n, call) {
  check_fftw("sht_grid(kind = \"equiangular\")", call)
  coef <- numeric(n)
  coef[1] <- 1
  k <- seq_len((n - 1) %/% 2)
  coef[2 * k + 1] <- -1 / (4 * k^2 - 1)
  y <- gs_call(.Call(gs_r_dct, matrix(coef), 3L, -1L, gs_threads(call)), call)
  list(x = cos(pi * (seq_len(n) - 0.5) / n), w = 2 / n * drop(y))
}

#' @export
print.sht_grid <- function(x, ...) {
  validate_sht_grid(x, "x", environment())
  cat(sprintf("<sht_grid> %s, %d latitudes x %d longitudes, for degrees up to %d\n",
              x$kind, x$nlat, x$nlon, x$lmax))
  invisible(x)
}
