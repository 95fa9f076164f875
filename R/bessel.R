#' Modified Bessel function of the second kind
#'
#' `bessel_k()` computes \eqn{K_\nu(x)}, on a GPU when one is available and
#' the input is large, otherwise on all CPU cores. It is vectorised over `x`
#' and `nu` with recycling, like [base::besselK()], and adds a logarithmic
#' scale: `log = TRUE` returns \eqn{\log K_\nu(x)} without overflow or
#' underflow, even where \eqn{K_\nu(x)} itself is far outside the range of a
#' double.
#'
#' @details
#' With \eqn{\nu = \mu + n}, \eqn{|\mu| \le 1/2}, the pair
#' \eqn{K_\mu, K_{\mu+1}} comes from Temme's series for \eqn{x < 1}, from the
#' trapezoid rule on \eqn{e^x K_\mu(x) = \int_0^\infty e^{-x(\cosh t - 1)}
#' \cosh(\mu t)\,dt} with a step matched to the width of the integrand
#' (12 to 18 nodes) otherwise, and from the closed form at half-integer
#' orders; the forward recurrence in the order then reaches \eqn{\nu}. All
#' intermediate values carry a separate exponent, so neither the scaled nor
#' the logarithmic result ever overflows. Measured against 30-digit
#' references, the error of \eqn{\log K} is below \eqn{10^{-13}} for
#' \eqn{\nu \le 20}, \eqn{10^{-3} \le x \le 140} and below \eqn{10^{-12}} up
#' to \eqn{\nu = 100}, \eqn{x = 700} (see `vignette("bessel-matern")`).
#' The recurrence costs one step per unit of order; from \eqn{\nu = 1000} on,
#' Debye's uniform asymptotic expansion replaces it.
#'
#' `bessel_k_deriv()` returns the partial derivative of \eqn{\log K_\nu(x)}.
#' In `x` it is \eqn{-(K_{\nu-1} + K_{\nu+1}) / (2 K_\nu)}; in `nu` the
#' integral \eqn{\int t \sinh(\mu t) e^{-x \cosh t} dt} is carried up by the
#' recurrence differentiated in the order. Both are accurate to about
#' \eqn{10^{-14}} relative; they are what gradient-based fitting of the
#' Matérn smoothness needs.
#'
#' @param x Non-negative numeric vector. `x = 0` gives `Inf`, `x < 0` gives
#'   `NaN` with a warning, `NA` stays `NA`.
#' @param nu Numeric vector of orders; \eqn{K_{-\nu} = K_\nu}.
#' @param expon_scaled If `TRUE`, return \eqn{e^x K_\nu(x)}.
#' @param log If `TRUE`, return the natural logarithm (of the scaled value
#'   when `expon_scaled = TRUE`).
#' @param device `"auto"`, `"cpu"` or `"gpu"`; see [gpustats-package].
#' @return A numeric vector as long as the longer of `x` and `nu`, with the
#'   names, dim and dimnames of the longer one.
#' @seealso [base::besselK()], [matern()]
#' @examples
#' bessel_k(c(0.1, 1, 10), nu = 2.5)
#' besselK(c(0.1, 1, 10), nu = 2.5)
#' bessel_k(1e-3, nu = 100, log = TRUE)  # K itself overflows
#' bessel_k_deriv(2, nu = 1.5, wrt = "nu")
#' @export
bessel_k <- function(x, nu, expon_scaled = FALSE, log = FALSE,
                     device = getOption("gpustats.device", "auto")) {
  call <- environment()
  check_numeric_arg(x, "x", call)
  check_numeric_arg(nu, "nu", call)
  check_flag(expon_scaled, "expon_scaled", call)
  check_flag(log, "log", call)
  op <- if (log) {
    if (expon_scaled) "bessel_k_log_scaled" else "bessel_k_log"
  } else {
    if (expon_scaled) "bessel_k_scaled" else "bessel_k"
  }
  gs_map(op, list(x, nu), device, call)
}

#' @rdname bessel_k
#' @param wrt `"nu"` or `"x"`: the variable to differentiate by.
#' @export
bessel_k_deriv <- function(x, nu, wrt = c("nu", "x"),
                           device = getOption("gpustats.device", "auto")) {
  call <- environment()
  check_numeric_arg(x, "x", call)
  check_numeric_arg(nu, "nu", call)
  wrt <- match_choice(wrt, c("nu", "x"), "wrt", call)
  gs_map(if (wrt == "nu") "bessel_k_dnu" else "bessel_k_dx", list(x, nu), device, call)
}
