#' Grids for spherical-harmonic transforms
#'
#' A latitude-longitude grid on the sphere: `nlat` colatitudes
#' \eqn{\theta_i} from the north pole southwards and `nlon` equally spaced
#' longitudes \eqn{\phi_j = 2\pi j / n_\phi} (from 0, eastwards), with the
#' quadrature weights of the latitudes. `"gauss"`: the \eqn{\cos\theta_i}
#' are the Gauss-Legendre nodes (Newton's method on \eqn{P_n} in
#' \eqn{\theta}), `nlat = lmax + 1` by default, and the quadrature is exact
#' for the harmonics up to degree `lmax`. `"equiangular"`:
#' \eqn{\theta_i = \pi (i + 1/2) / n_\theta} with Fejér's first rule,
#' `nlat = 2 lmax + 2` by default (exact when \eqn{n_\theta \ge 2 l_{max} + 1}).
#' `nlon` must exceed `2 lmax`.
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
  nlat <- check_count(nlat, "nlat", call, lower = 1)
  nlon <- check_count(nlon, "nlon", call, lower = 1)
  exact <- if (kind == "gauss") lmax + 1 else 2 * lmax + 1
  if (nlat < exact || nlon <= 2 * lmax) {
    abort_arg(c("A {kind} grid of {nlat} x {nlon} points is too small for degree {lmax}.",
                i = "Use nlat >= {exact} and nlon >= {2 * lmax + 1}."), call)
  }
  q <- if (kind == "gauss") .Call(gs_r_gauss_legendre, nlat) else fejer_rule(nlat)
  structure(list(kind = kind, lmax = lmax, nlat = nlat, nlon = nlon, cos_colat = q$x, cos_colat_lo = q$x_lo,
                 weights = q$w, lat = 90 - acos(q$x) * 180 / pi, lon = 360 * (seq_len(nlon) - 1) / nlon),
            class = "sht_grid")
}

# Fejer's first rule on theta_i = pi (i + 1/2) / n: exact for polynomials in
# cos(theta) of degree < n.
fejer_rule <- function(n) {
  theta <- pi * (seq_len(n) - 0.5) / n
  k <- seq_len(n %/% 2)
  s <- if (length(k)) drop(cos(outer(theta, 2 * k)) %*% (1 / (4 * k^2 - 1))) else 0
  list(x = cos(theta), w = 2 / n * (1 - 2 * s))
}

#' @export
print.sht_grid <- function(x, ...) {
  cat(sprintf("<sht_grid> %s, %d latitudes x %d longitudes, for degrees up to %d\n",
              x$kind, x$nlat, x$nlon, x$lmax))
  invisible(x)
}
