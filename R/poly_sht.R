#' Spherical-harmonic transforms of real fields
#'
#' `sht_analysis()` computes the spherical-harmonic coefficients of real
#' fields given on a latitude-longitude grid ([sht_grid()]); `sht_synthesis()`
#' evaluates the fields of given coefficients on a grid. Several fields are
#' transformed in one call (the third dimension of `values`).
#'
#' **Conventions.** A field is \eqn{f(\theta, \phi) = \sum_{l=0}^{L}
#' \sum_{m=0}^{l} \bar P_l^m(\cos\theta) (C_{lm} c_m(\phi) + S_{lm} s_m(\phi))}
#' with \eqn{c_0 = 1}, \eqn{c_m = \sqrt{2}\cos(m\phi)} and
#' \eqn{s_m = \sqrt{2}\sin(m\phi)} for \eqn{m > 0}, and
#' \eqn{\bar P_l^m(x) = (-1)^m \sqrt{\frac{2l+1}{4\pi}\frac{(l-m)!}{(l+m)!}}
#' (1 - x^2)^{m/2} \frac{d^m}{dx^m} P_l(x)}: the real harmonics are
#' orthonormal on the unit sphere (\eqn{\int Y^2 d\Omega = 1}) and include
#' the Condon-Shortley phase \eqn{(-1)^m}. \eqn{\bar P_l^m} is
#' `gsl::legendre_sphPlm(l, m, x)`. The complex coefficients of
#' \eqn{f = \sum a_{lm} \bar P_l^m e^{im\phi}} (SHTns's orthonormal
#' convention with the Condon-Shortley phase) are \eqn{a_{l0} = C_{l0}} and
#' \eqn{a_{lm} = (C_{lm} - i S_{lm}) / \sqrt{2}},
#' \eqn{a_{l,-m} = (-1)^m \overline{a_{lm}}}; without the phase, multiply
#' \eqn{C_{lm}, S_{lm}} by \eqn{(-1)^m}.
#'
#' **Method.** A real FFT (FFTW) along each latitude, then for each order
#' \eqn{m} the Legendre sums over the latitudes with the Gauss-Legendre (or
#' Fejér) weights, the \eqn{\bar P_l^m} computed on the fly by the standard
#' three-term recurrence in \eqn{l} from \eqn{\bar P_m^m \propto
#' \sin^m\theta}. The seed \eqn{\sin^m\theta} underflows near the poles at
#' high order, so it carries a separate binary exponent, as in SHTns and
#' libsharp; values below \eqn{2^{-600}} are dropped. Cost
#' \eqn{O(L^2 n_\theta)} per field, orders spread over the CPU threads. On
#' the CPU, mirror latitudes \eqn{\theta} and \eqn{\pi - \theta} (exactly
#' opposite nodes, as on Gauss grids) share one recurrence, since
#' \eqn{\bar P_l^m(-x) = (-1)^{l-m} \bar P_l^m(x)}, and blocks of 16 of them run
#' in SIMD instructions; from the equator, the latitudes of an order stop at
#' the first block whose values are all dropped. On a GPU, cuFFT along the
#' latitudes and one thread per latitude and order for the Legendre sums,
#' with the same recurrence.
#'
#' **Accuracy near the poles.** The recurrence in \eqn{l} loses accuracy
#' next to the poles, at the low orders, growing about as \eqn{l^2} (or
#' faster): against mpmath at exact double nodes (so without the nodes' own
#' rounding), the error of \eqn{\bar P_l^m} relative to
#' \eqn{\sqrt{(2l+1)/(4\pi)}} (its largest value) was, for orders 0 to 2
#' and 10:
#' \tabular{lrrrr}{
#'   \eqn{\theta} from a pole \tab \eqn{l = 2047}, all four \tab \eqn{l = 8191}, \eqn{m = 0}
#'     \tab \eqn{m = 1, 2} \tab \eqn{m = 10} \cr
#'   1e-5 to 1e-4 \tab 4.0e-12 \tab 2.7e-10 \tab 8.7e-12 \tab 2.4e-23 \cr
#'   3e-4 to 1e-3 \tab 2.8e-12 \tab 8.3e-11 \tab 4.2e-12 \tab 2.8e-13 \cr
#'   0.01 \tab 8.5e-14 \tab 3.2e-13 \tab 2.3e-13 \tab 8.7e-14 \cr
#'   0.1 to \eqn{\pi/2} \tab 1.6e-15 \tab 1.6e-14 \tab 2.3e-15 \tab 2.0e-15
#' }
#' Relative to the function's own value the error is larger where it
#' passes through zero (3e-9 at \eqn{l = 8191}, \eqn{\theta} = 3e-4).
#' Gauss nodes lie no closer to a pole than about
#' \eqn{2.4 / l_{max}} (3e-4 at \eqn{l_{max} = 8191}). These are the numbers
#' of the package's polar references (made with mpmath); the test
#' file checks those of degree 2047.
#'
#' @param values Field values: an `nlat` x `nlon` matrix (rows: colatitudes
#'   from the north pole, as in [sht_grid()]; columns: longitudes from 0
#'   eastwards), or an `nlat` x `nlon` x `nfield` array.
#' @param lmax The largest degree to compute; by default the largest the
#'   grid resolves.
#' @param grid The [sht_grid()] of `values`; by default the Gauss grid of
#'   `nrow(values)` latitudes and `ncol(values)` longitudes, computed once and
#'   kept for later calls with values of the same size (the package keeps
#'   the last four grids made).
#' @param coef An `sht` object (from `sht_analysis()`).
#' @inheritParams dct
#' @return `sht_analysis()`: an object of class `sht`, a list with `cos`
#'   and `sin` (arrays `lmax + 1` x `lmax + 1` x `nfield`, entry
#'   `[l + 1, m + 1, k]`; zero for \eqn{m > l} and in `sin[, 1, ]`), `lmax`
#'   and `grid`; it has `print`, `plot` (the power spectrum
#'   \eqn{\sum_m C_{lm}^2 + S_{lm}^2} against \eqn{l}) and `as.data.frame`
#'   methods. `sht_synthesis()`: a matrix, or an array for several fields.
#' @examples
#' g <- sht_grid(8)
#' theta <- acos(g$cos_colat); phi <- g$lon * pi / 180
#' # Y_2^1 with the sqrt(2) cos(phi) of the real harmonics
#' f <- outer(sqrt(15 / (8 * pi)) * -sin(theta) * cos(theta), sqrt(2) * cos(phi))
#' a <- sht_analysis(f, grid = g)
#' a
#' round(a$cos[3, 2, 1], 12)   # C_21 = 1
#' max(abs(sht_synthesis(a) - f))
#' @export
sht_analysis <- function(values, lmax = NULL, grid = NULL, device = getOption("gpustats.device", "auto")) {
  call <- environment()
  v <- sht_values(values, call)
  d <- c(dim(v), 1L)[1:3] # nlat, nlon, nfield
  if (is.null(grid)) {
    glmax <- min(d[1] - 1L, (d[2] - 1L) %/% 2L)
    grid <- sht_grid_cached("gauss", glmax, d[1], d[2], call)
  }
  validate_sht_grid(grid, "grid", call)
  if (d[1] != grid$nlat || d[2] != grid$nlon) {
    abort_arg("{.arg values} has {d[1]} x {d[2]} points, the grid {grid$nlat} x {grid$nlon}.", call)
  }
  top <- min(grid$lmax, (grid$nlon - 1L) %/% 2L)
  lmax <- if (is.null(lmax)) top else check_count(lmax, "lmax", call)
  if (lmax > top) {
    abort_arg(c("The grid resolves degrees up to {top}, not {lmax}.", i = "Use a finer grid."), call)
  }
  work <- as.double(lmax + 1)^2 * grid$nlat * d[3]
  dev <- resolve_device(device, as.double(length(v)), "map", call)
  if (dev < 0L) check_fftw("sht_analysis()", call)
  bar <- gs_progress_bar(work, "sht_analysis", call)
  out <- gs_call(.Call(gs_r_sht, v, grid$cos_colat, grid$cos_colat_lo, grid$weights, lmax, grid$nlon, TRUE, dev,
                       gs_threads(call), bar), call)
  structure(list(cos = out$cos, sin = out$sin, lmax = lmax, grid = grid), class = "sht")
}

#' @rdname sht_analysis
#' @export
sht_synthesis <- function(coef, grid = coef$grid, device = getOption("gpustats.device", "auto")) {
  call <- environment()
  validate_sht(coef, "coef", call)
  validate_sht_grid(grid, "grid", call)
  if (grid$nlon <= 2L * coef$lmax) {
    abort_arg("A grid of {grid$nlon} longitudes cannot carry degree {coef$lmax}; use nlon > {2 * coef$lmax}.", call)
  }
  nfield <- dim(coef$cos)[3]
  work <- as.double(coef$lmax + 1)^2 * grid$nlat * nfield
  dev <- resolve_device(device, as.double(grid$nlat) * grid$nlon * nfield, "map", call)
  if (dev < 0L) check_fftw("sht_synthesis()", call)
  bar <- gs_progress_bar(work, "sht_synthesis", call)
  as_double <- function(x) if (is.double(x)) x else as.double(x) # no copy of a double array
  gs_call(.Call(gs_r_sht, list(cos = as_double(coef$cos), sin = as_double(coef$sin)), grid$cos_colat, grid$cos_colat_lo,
                grid$weights, coef$lmax, grid$nlon, FALSE, dev, gs_threads(call), bar), call)
}

# values as a finite double matrix or 3-d array (not copied when it is one).
sht_values <- function(values, call) {
  d <- dim(values)
  if (!(is.numeric(values) || is.logical(values)) || !length(d) %in% 2:3) {
    abort_arg("{.arg values} must be a numeric matrix or 3-d array, not {.obj_type_friendly {values}}.", call)
  }
  if (!is.double(values)) storage.mode(values) <- "double"
  if (!all_finite(values, call)) abort_arg("{.arg values} contains missing or infinite values.", call)
  values
}
