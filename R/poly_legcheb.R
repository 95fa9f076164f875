#' Legendre and Chebyshev coefficients
#'
#' `legendre_to_chebyshev()` converts the coefficients \eqn{a_n} of
#' \eqn{\sum_n a_n P_n(x)} (Legendre polynomials, standard normalisation
#' \eqn{P_n(1) = 1}) into the coefficients \eqn{c_k} of the same polynomial
#' in Chebyshev polynomials of the first kind, \eqn{\sum_k c_k T_k(x)};
#' `chebyshev_to_legendre()` is the inverse. Each column of a matrix is one
#' polynomial.
#'
#' Both conversions multiply by the connection matrices of Alpert and
#' Rokhlin (1991): with \eqn{\Lambda(z) = \Gamma(z + 1/2) / \Gamma(z + 1)},
#' \eqn{P_n = \sum_{k} (2 - \delta_{k0}) \pi^{-1} \Lambda((n - k)/2)
#' \Lambda((n + k)/2) T_k} over \eqn{k \le n} with \eqn{n - k} even, and the
#' inverse matrix has a closed form of the same kind. The \eqn{\Lambda}
#' values come from an asymptotic series (a recurrence for small arguments),
#' accurate to long double precision without overflow at any degree.
#'
#' Two methods apply them:
#' \describe{
#'   \item{`"direct"`}{builds the \eqn{n \times n}{n x n} triangular matrix
#'     (entries in long double) and multiplies with BLAS, a panel of its columns at a time (so that
#'     an interrupt is taken between panels): \eqn{O(n^2)} time, \eqn{O(n)}
#'     memory beside the data, \eqn{n \le 46340}. The reference.}
#'   \item{`"toeplitz-hankel"`}{the fast method of Townsend, Webb and Olver
#'     (2018): each matrix is a diagonally scaled Hadamard product
#'     \eqn{D_1 (T \circ H) D_2} of a Toeplitz matrix \eqn{T} and a positive
#'     definite Hankel matrix \eqn{H}. A pivoted Cholesky factorisation
#'     \eqn{H \approx \sum_{r \le K} l_r l_r^T} (of \eqn{H} scaled to a
#'     unit diagonal, so that the tolerance is relative to every entry),
#'     stopped when the largest remaining pivot falls below
#'     \eqn{\epsilon \log n},
#'     gives \eqn{(T \circ H) x = \sum_r \mathrm{diag}(l_r) T
#'     \mathrm{diag}(l_r) x}, each Toeplitz product by FFTs (FFTW3) of a
#'     circulant embedding. Even and odd degrees are converted apart (the
#'     matrices vanish where \eqn{n - k} is odd). The rank \eqn{K} grows
#'     like \eqn{\log n} (measured: 26 to 28 at \eqn{n = 1000}, 51 to 57 at
#'     \eqn{n = 2^{20}}); the cost is \eqn{O(n \log^2 n)} time and
#'     \eqn{O(K n)} memory, and the factorisation is made once per call and
#'     serves every column. Needs FFTW3.}
#'   \item{`"auto"`}{(the default) the fast method from \eqn{n \ge 1024},
#'     the direct one below, or everywhere when gpustats was built without
#'     FFTW3. Measured on one thread with R's reference BLAS
#'     (`inst/bench/poly-legcheb.R`): at \eqn{n = 1024} both take about 2 ms
#'     for one column and the fast method is 1.6 times faster for 32
#'     columns; at \eqn{n = 2048} it is about 60 times faster (0.128 s
#'     against 0.002 s). At \eqn{n = 2^{20}} one conversion takes 2.4 s on
#'     two threads.}
#' }
#'
#' Accuracy, measured against 40-digit references
#' (`tools/make-legcheb-reference.py`; the tests check these sizes): the
#' largest error relative to the largest output coefficient, worst over both
#' directions and over inputs with and without decay (\eqn{1/(j+1)^2}):
#' \tabular{rrr}{
#'   \eqn{n} \tab direct \tab Toeplitz-Hankel \cr
#'   10 \tab 1.8e-16 \tab 2.4e-16 \cr
#'   50 \tab 4.3e-16 \tab 1.0e-15 \cr
#'   200 \tab 4.5e-16 \tab 4.5e-16 \cr
#'   1000 \tab 2.1e-15 \tab 3.9e-16 \cr
#'   5000 \tab 3.2e-15 \tab 7.0e-16
#' }
#' The fast method's error grows slowly with \eqn{n}, like that of the
#' paper (near machine precision times a slowly growing factor); its round
#' trip and its difference from the direct method at larger \eqn{n} are
#' printed by `inst/bench/poly-legcheb.R`.
#'
#' On the CPU the fast method uses the threads of `gpustats.threads` (the
#' terms of the factorisation in parallel). On a GPU (`device = "gpu"`) it
#' is the only method (`"auto"` takes it at every size, `"direct"` is an
#' error): the Hankel factor is computed on the CPU as above, the same
#' factor for both devices, and the Toeplitz products run as batched cuFFT
#' transforms over all the terms and columns at once; the columns go through
#' in chunks that fit the GPU's memory, and FFTW3 is not needed. The GPU
#' result agrees with the CPU's to rounding (the sums run in another order).
#' `device = "auto"` keeps these conversions on the CPU. A long batch shows
#' a progress bar and can be interrupted between columns (between chunks on
#' a GPU).
#'
#' @param x Coefficients: a vector or a matrix (one polynomial per column),
#'   lowest degree first.
#' @param method `"auto"`, `"direct"` or `"toeplitz-hankel"` (see Details).
#' @param device `"auto"`, `"cpu"` or `"gpu"`; see [gpustats-package] and
#'   Details.
#' @return Coefficients in the other basis, of the shape of `x`.
#' @references
#' B. K. Alpert and V. Rokhlin (1991). A fast algorithm for the evaluation of
#' Legendre expansions. SIAM J. Sci. Stat. Comput. 12, 158-179.
#'
#' A. Townsend, M. Webb and S. Olver (2018). Fast polynomial transforms
#' based on Toeplitz and Hankel matrices. Math. Comp. 87, 1913-1934.
#' @examples
#' # P_2 = (3 x^2 - 1) / 2 = (T_0 + 3 T_2) / 4
#' legendre_to_chebyshev(c(0, 0, 1))
#' chebyshev_to_legendre(c(0.25, 0, 0.75))
#' # the two methods agree
#' a <- rnorm(2000) / (1:2000)
#' max(abs(legendre_to_chebyshev(a, "toeplitz-hankel") - legendre_to_chebyshev(a, "direct")))
#' @export
legendre_to_chebyshev <- function(x, method = c("auto", "direct", "toeplitz-hankel"),
                                  device = getOption("gpustats.device", "auto")) {
  leg_cheb(x, TRUE, method, device, environment())
}

#' @rdname legendre_to_chebyshev
#' @export
chebyshev_to_legendre <- function(x, method = c("auto", "direct", "toeplitz-hankel"),
                                  device = getOption("gpustats.device", "auto")) {
  leg_cheb(x, FALSE, method, device, environment())
}

# The degree from which "auto" takes the fast method (inst/bench/poly-legcheb.R).
legcheb_crossover <- 1024L

# The largest n of the direct method: its n x n matrix has at most 2^31 - 1 entries.
legcheb_direct_max <- 46340L

leg_cheb <- function(x, to_chebyshev, method, device, call) {
  method <- match_choice(method, c("auto", "direct", "toeplitz-hankel"), "method", call)
  m <- as_finite_matrix(x, "x", call)
  n <- nrow(m)
  dev <- legcheb_device(device, method, as.double(n) * ncol(m), call)
  if (method == "auto") {
    fast <- dev >= 0L || (n >= legcheb_crossover && .Call(gs_r_poly_have_fftw))
    method <- if (fast) "toeplitz-hankel" else "direct"
  }
  if (method == "direct") {
    if (n > legcheb_direct_max) {
      abort_arg(c("The direct method takes at most {legcheb_direct_max} coefficients, not {n}.",
                  i = "Use {.code method = \"toeplitz-hankel\"}."), call)
    }
  } else {
    if (dev < 0L) check_fftw("The Toeplitz-Hankel method", call)
    check_host_memory(legcheb_th_bytes(n), sprintf("The Toeplitz-Hankel transform of size %d", n), call)
  }
  name <- if (to_chebyshev) "legendre_to_chebyshev" else "chebyshev_to_legendre"
  work <- if (method == "direct") as.double(n)^2 * ncol(m) else as.double(n) * ncol(m) * log2(n + 1) * 10
  bar <- gs_progress_bar(work, name, call)
  code <- gs_code("legcheb_method", method)
  out <- gs_call(.Call(gs_r_leg_cheb, m, to_chebyshev, code, dev, gs_threads(call), bar), call)
  as_input_shape(out, x)
}

# The device id, or -1 for the CPU: the GPU has the fast method only, so
# "direct" keeps "auto" on the CPU and is an error with "gpu".
legcheb_device <- function(device, method, work, call) {
  if (method == "direct") {
    check_device(device, call)
    if (device == "gpu") {
      abort_arg(c("The direct method runs on the CPU only.",
                  i = "Use {.code method = \"toeplitz-hankel\"} on the GPU, or {.code device = \"cpu\"}."), call)
    }
    return(-1L)
  }
  resolve_device(device, work, "legcheb", call)
}

# The memory of the fast method, bounded from its measured ranks (at most
# 3 log2(n) + 8): the factor of one parity (n / 2 x rank), the Hankel and
# diagonal tables, and the FFT buffers of every thread.
legcheb_th_bytes <- function(n) {
  rank <- 3 * log2(n + 1) + 8
  8 * (n / 2 * rank + 4 * n + (cpu_threads() + 1) * 4 * n)
}
