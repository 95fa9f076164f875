#' Discrete cosine transforms
#'
#' `dct()` computes the discrete cosine transform of types 2, 3 or 4 of a
#' vector or of each column of a matrix, with FFTW's definitions (they are
#' those of `fftw::DCT()` and of FFTW's `REDFT10`, `REDFT01` and `REDFT11`
#' kinds), unnormalised: for a column \eqn{x_0, \dots, x_{n-1}},
#' \deqn{\mathrm{type\ 2:}\quad y_k = 2 \sum_{j=0}^{n-1} x_j \cos(\pi k (j + 1/2) / n),}
#' \deqn{\mathrm{type\ 3:}\quad y_k = x_0 + 2 \sum_{j=1}^{n-1} x_j \cos(\pi j (k + 1/2) / n),}
#' \deqn{\mathrm{type\ 4:}\quad y_k = 2 \sum_{j=0}^{n-1} x_j \cos(\pi (j + 1/2) (k + 1/2) / n).}
#' Type 3 inverts type 2 and type 4 inverts itself, each up to the factor
#' \eqn{2n}: `dct(dct(x, 2), 3) == 2 * n * x`. With `normalized = TRUE` the
#' transforms are the orthonormal ones (the matrix of each is orthogonal):
#' types 2 and 3 are then each other's inverse and type 4 is its own.
#'
#' The CPU path uses FFTW3 (one plan per call, columns spread over the
#' threads of `gpustats.threads`); the GPU path maps each transform onto a
#' complex or real cuFFT transform of the same length with pre- and
#' post-twiddles (cuFFT has no cosine transform). Any length works; lengths
#' with large prime factors are slower (FFTW and cuFFT are fastest for
#' products of 2, 3, 5 and 7).
#'
#' @param x A numeric vector or matrix (each column is transformed).
#' @param type 2, 3 or 4.
#' @param normalized `FALSE` for FFTW's unnormalised transforms, `TRUE` for
#'   the orthonormal ones.
#' @param device `"auto"`, `"cpu"` or `"gpu"`; see [gpustats-package].
#' @return A vector or matrix of the shape of `x`.
#' @examples
#' x <- c(1, 2, 0, -1)
#' dct(x, 2)
#' # the definition
#' sapply(0:3, function(k) 2 * sum(x * cos(pi * k * (0:3 + 0.5) / 4)))
#' dct(dct(x, 2), 3) / 8   # x again
#' dct(dct(x, 4, normalized = TRUE), 4, normalized = TRUE)
#' @export
dct <- function(x, type = 2, normalized = FALSE, device = getOption("gpustats.device", "auto")) {
  call <- environment()
  if (!is.numeric(type) || length(type) != 1L || !(type %in% 2:4)) {
    abort_arg("{.arg type} must be 2, 3 or 4, not {.obj_type_friendly {type}}.", call)
  }
  check_flag(normalized, "normalized", call)
  m <- as_finite_matrix(x, "x", call)
  n <- nrow(m)
  dev <- resolve_device(device, as.double(length(m)), "dct", call)
  if (dev < 0L) check_fftw("dct()", call)
  if (normalized) m <- dct_scale_in(m, type)
  out <- gs_call(.Call(gs_r_dct, m, as.integer(type), dev, gs_threads(call)), call)
  if (normalized) out <- dct_scale_out(out, type)
  as_input_shape(out, x)
}

# The orthonormal DCTs from FFTW's: type 2 scaled by sqrt(1 / (2n)), its
# first output again by 1 / sqrt(2); type 3 the transpose of that; type 4
# by sqrt(1 / (2n)).
dct_scale_in <- function(m, type) {
  if (type == 3 && nrow(m) > 0L) m[1L, ] <- m[1L, ] * sqrt(2)
  m
}

dct_scale_out <- function(m, type) {
  n <- nrow(m)
  if (n == 0L) return(m)
  m <- m / sqrt(2 * n)
  if (type == 2) m[1L, ] <- m[1L, ] / sqrt(2)
  m
}
