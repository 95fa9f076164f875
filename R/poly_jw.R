#' Jones-Worland polynomials
#'
#' The Jones-Worland polynomials \eqn{W_n^l(r) = r^l P_n^{(-1/2, l-1/2)}(2r^2 - 1)}
#' (\eqn{P} a Jacobi polynomial) expand the radial part of the degree-\eqn{l}
#' component of a smooth field in a ball. `jw_grid()` gives the radial grid
#' of the transforms and `jw_eval()` evaluates the polynomials.
#'
#' **Normalisations.** `"natural"` is the definition above, with
#' \eqn{W_n^l(1) = \Gamma(n + 1/2) / (\sqrt{\pi}\, n!)}. `"unit"` divides by
#' \eqn{\sqrt{h_n}}, \eqn{h_n = \int_0^1 (W_n^l)^2 (1 - r^2)^{-1/2} dr
#' = \Gamma(n + 1/2)\Gamma(n + l + 1/2) / (2 (2n + l) \Gamma(n + l)\, n!)}
#' (\eqn{\pi/2} for \eqn{n = l = 0}), so that the unit polynomials of one
#' \eqn{l} are orthonormal for the weight \eqn{(1 - r^2)^{-1/2}} on
#' \eqn{[0, 1]}. The transforms use the unit polynomials; in that
#' normalisation \eqn{W_n^0(r) = (2/\sqrt{\pi}) T_{2n}(r)} (\eqn{n \ge 1}),
#' \eqn{W_0^0 = \sqrt{2/\pi}} and \eqn{W_n^1(r) = (2/\sqrt{\pi}) T_{2n+1}(r)}.
#'
#' **Evaluation.** By the three-term recurrence of the orthonormal Jacobi
#' polynomials in \eqn{x = 2r^2 - 1}, seeded with \eqn{r^l}. The seed and
#' the recurrence carry a separate binary exponent, so that \eqn{r^l}, which
#' underflows in double precision for large \eqn{l} near \eqn{r = 0}, does not
#' turn values that are representable into zeros. \eqn{h_n} is computed
#' with `lgamma` in long double. At \eqn{r = 1}, the ball's surface, where the
#' recurrence's error grows like \eqn{n^2}, the value is its closed form,
#' exact to the last bit. Just inside it, the recurrence runs in
#' \eqn{x = 2r^2 - 1}, whose rounding moves the value by up to about
#' \eqn{n^2 10^{-16}} of \eqn{W_n^l(1)} (measured: \eqn{2 \times 10^{-8}} at
#' \eqn{n = 20000}, \eqn{1.4 \times 10^{-5}} at \eqn{n = 10^6}, at
#' \eqn{r = 1 - 10^{-14}}).
#'
#' **Grid.** `jw_grid(nr)` has the nodes \eqn{r_k = \cos(\pi (2k + 1) / (4 n_r))},
#' \eqn{k = 0, \dots, n_r - 1} (descending; the Chebyshev-Gauss nodes in
#' \eqn{x}) and the constant weight \eqn{\pi / (2 n_r)}: the quadrature
#' \eqn{\sum_k w f(r_k)} integrates \eqn{f(r)(1-r^2)^{-1/2}} over \eqn{[0, 1]}
#' exactly for every product \eqn{W_i^l W_j^l} with \eqn{i, j < N} when
#' \eqn{n_r \ge N + \lceil l/2 \rceil}.
#'
#' @param nr Number of radial grid points.
#' @param n,l Degrees \eqn{n \ge 0} and harmonic degrees \eqn{l \ge 0} (each at most 10^6)
#'   (whole numbers).
#' @param r Radii in \eqn{[0, 1]}. `n`, `l` and `r` are recycled.
#' @param norm `"unit"` or `"natural"`.
#' @return `jw_grid()`: a list with `r` (the nodes) and `w` (the weights).
#'   `jw_eval()`: a numeric vector.
#' @seealso [jwt_synthesis()], and [jwt_plan()] for every degree of a ball field at once
#' @examples
#' g <- jw_grid(8)
#' W <- outer(g$r, 0:3, function(r, n) jw_eval(n, 2, r))
#' round(crossprod(W, g$w * W), 12)   # the identity
#' jw_eval(0:4, 5, 1, norm = "natural")
#' gamma(0:4 + 0.5) / (sqrt(pi) * factorial(0:4))
#' @export
jw_grid <- function(nr) {
  nr <- check_count(nr, "nr", environment(), lower = 1)
  check_host_memory(24 * nr, sprintf("A radial grid of %.0f points", nr), environment())
  list(r = cos(pi * (2 * seq_len(nr) - 1) / (4 * nr)), w = rep(pi / (2 * nr), nr))
}

#' @rdname jw_grid
#' @export
jw_eval <- function(n, l, r, norm = c("unit", "natural")) {
  call <- environment()
  norm <- match_choice(norm, c("unit", "natural"), "norm", call)
  for (arg in c("n", "l", "r")) check_numeric_arg(get(arg), arg, call)
  if (anyNA(n) || any(n < 0 | n != trunc(n)) || anyNA(l) || any(l < 0 | l != trunc(l))) {
    abort_arg("{.arg n} and {.arg l} must be whole numbers >= 0.", call)
  }
  if (anyNA(r) || any(r < 0 | r > 1)) abort_arg("{.arg r} must lie in [0, 1].", call)
  len <- if (length(n) && length(l) && length(r)) max(length(n), length(l), length(r)) else 0L
  # degrees beyond the int range reach the core's limit on n, not NA
  out <- gs_call(.Call(gs_r_jw_eval, rep_len(as.integer(pmin(n, .Machine$integer.max)), len), rep_len(as.integer(pmin(l, .Machine$integer.max)), len),
                       rep_len(as.double(r), len), gs_code("jw_norm", norm)), call)
  if (length(r) == len) attributes(out) <- attributes(r)
  out
}
