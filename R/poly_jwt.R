#' Jones-Worland transforms
#'
#' `jwt_synthesis()` evaluates expansions in unit Jones-Worland polynomials
#' of one harmonic degree `l` (see [jw_eval()]) on the radial grid
#' [jw_grid()]`(nr)`; `jwt_analysis()` computes the coefficients of grid
#' values by quadrature on that grid (the projection onto the first `n`
#' polynomials; the inverse of the synthesis when `nr >= n + ceiling(l / 2)`).
#' Each column of `coef` or `values` is one expansion.
#'
#' **Methods.** `"connection"` (the default) goes through Chebyshev
#' coefficients: the degree-\eqn{l} coefficients are connected to those of
#' degree \eqn{l - 2, l - 4, \dots} down to 0 or 1 by bidiagonal products and
#' bidiagonal solves (\eqn{(1 + x) P^{(\alpha,\beta)}} in the basis
#' \eqn{P^{(\alpha,\beta-1)}}, and the change of basis from
#' \eqn{P^{(\alpha,\beta-1)}} to \eqn{P^{(\alpha,\beta-2)}}, for orthonormal
#' Jacobi polynomials), whose coefficients are computed once per call; a
#' DCT then evaluates \eqn{W^0_n \propto T_{2n}(r)} (DCT-III; DCT-II for the
#' analysis) or \eqn{W^1_n \propto T_{2n+1}(r)} (DCT-IV). Its cost per
#' column is \eqn{O(l (n + l/2) + n_r \log n_r)} and its error grows like
#' \eqn{\sqrt{n}}. `"quadrature"` builds the \eqn{n_r \times n} matrix of
#' polynomial values (by the recurrence of [jw_eval()], whose rescaled seed
#' does not underflow at large `l`) and multiplies by it with BLAS: cost
#' \eqn{O(n_r n)} per column, error growing like \eqn{n}. Both need FFTW3
#' only for the connection method. On a GPU the connection chain runs one
#' thread per column with the CPU's arithmetic and the DCT through cuFFT;
#' the quadrature builds its matrix on the GPU and multiplies with cuBLAS.
#' These functions build the method's tables for their one degree at each
#' call; [jwt_plan()] builds them once and transforms every degree of a
#' field in one call.
#'
#' @param coef Coefficients: a vector of length `n` or an `n`-row matrix.
#' @param values Grid values: a vector of length `nr` or an `nr`-row matrix.
#' @param l The harmonic degree, a whole number \eqn{\ge 0}.
#' @param nr Number of radial grid points, at least `n + ceiling(l / 2)`.
#' @param n Number of coefficients to compute.
#' @param method `"connection"` or `"quadrature"`.
#' @inheritParams dct
#' @seealso [jwt_plan()] for every degree of a field at once.
#' @return `jwt_synthesis()`: grid values (`nr` rows); `jwt_analysis()`:
#'   coefficients (`n` rows); a vector for a vector.
#' @examples
#' coef <- c(1, 0.5, -0.25)
#' v <- jwt_synthesis(coef, l = 4, nr = 8)
#' jwt_analysis(v, l = 4, n = 3)
#' # the same values by the definition
#' g <- jw_grid(8)
#' drop(outer(g$r, 0:2, function(r, n) jw_eval(n, 4, r)) %*% coef) - v
#' @export
jwt_synthesis <- function(coef, l, nr, method = c("connection", "quadrature"),
                          device = getOption("gpustats.device", "auto")) {
  call <- environment()
  x <- as_finite_matrix(coef, "coef", call)
  jwt_run(x, l, nrow(x), nr, method, analysis = FALSE, shape = coef, device, call)
}

#' @rdname jwt_synthesis
#' @export
jwt_analysis <- function(values, l, n, method = c("connection", "quadrature"),
                         device = getOption("gpustats.device", "auto")) {
  call <- environment()
  x <- as_finite_matrix(values, "values", call)
  jwt_run(x, l, n, nrow(x), method, analysis = TRUE, shape = values, device, call)
}

jwt_run <- function(x, l, n, nr, method, analysis, shape, device, call) {
  method <- match_choice(method, c("connection", "quadrature"), "method", call)
  l <- check_count(l, "l", call)
  n <- check_count(n, "n", call, lower = 1)
  nr <- check_count(nr, "nr", call, lower = 1)
  if (nr < n + ceiling(l / 2)) {
    abort_arg(c("The grid of {nr} point{?s} is too small for {n} coefficient{?s} of degree {l}.",
                i = "Use {.arg nr} >= n + ceiling(l / 2) = {n + ceiling(l / 2)}."), call)
  }
  dev <- resolve_device(device, as.double(nr) * ncol(x), "jwt", call)
  if (method == "connection" && dev < 0L) check_fftw("The connection method", call)
  code <- gs_code("jw_method", method)
  out <- gs_call(.Call(gs_r_jwt, x, l, n, nr, code, analysis, dev, gs_threads(call)), call)
  as_input_shape(out, shape)
}
