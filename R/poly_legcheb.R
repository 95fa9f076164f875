#' Legendre and Chebyshev coefficients
#'
#' `legendre_to_chebyshev()` converts the coefficients \eqn{a_n} of
#' \eqn{\sum_n a_n P_n(x)} (Legendre polynomials, standard normalisation
#' \eqn{P_n(1) = 1}) into the coefficients \eqn{c_k} of the same polynomial
#' in Chebyshev polynomials of the first kind, \eqn{\sum_k c_k T_k(x)};
#' `chebyshev_to_legendre()` is the inverse. Each column of a matrix is one
#' polynomial.
#'
#' The conversions multiply by the explicit connection matrices (Alpert and
#' Rokhlin, 1991): with \eqn{\Lambda(z) = \Gamma(z + 1/2) / \Gamma(z + 1)},
#' \eqn{P_n = \sum_{k} (2 - \delta_{k0}) \pi^{-1} \Lambda((n - k)/2)
#' \Lambda((n + k)/2) T_k} over \eqn{k \le n} with \eqn{n - k} even, and the
#' inverse matrix has a closed form of the same kind. This is the direct
#' method: the \eqn{n \times n}{n x n} triangular matrix is formed (its
#' entries in long double) and applied with BLAS, \eqn{O(n^2)} work and
#' memory; fast \eqn{O(n \log n)} methods (Toeplitz-Hankel, Alpert-Rokhlin)
#' are not implemented yet.
#'
#' @param x Coefficients: a vector or a matrix (one polynomial per column),
#'   lowest degree first.
#' @return Coefficients in the other basis, of the shape of `x`.
#' @examples
#' # P_2 = (3 x^2 - 1) / 2 = (T_0 + 3 T_2) / 4
#' legendre_to_chebyshev(c(0, 0, 1))
#' chebyshev_to_legendre(c(0.25, 0, 0.75))
#' @export
legendre_to_chebyshev <- function(x) leg_cheb(x, TRUE, environment())

#' @rdname legendre_to_chebyshev
#' @export
chebyshev_to_legendre <- function(x) leg_cheb(x, FALSE, environment())

leg_cheb <- function(x, to_chebyshev, call) {
  m <- as_finite_matrix(x, "x", call)
  check_host_memory(8 * as.double(nrow(m))^2, sprintf("The %d x %d connection matrix", nrow(m), nrow(m)), call)
  as_input_shape(gs_call(.Call(gs_r_leg_cheb, m, to_chebyshev), call), x)
}
