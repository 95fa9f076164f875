#' Batched tridiagonal and bidiagonal solves
#'
#' `banded_solve()` solves \eqn{A x = b} for tridiagonal matrices \eqn{A}
#' given by their three diagonals, for every column of `b`: either one
#' matrix for all columns (the diagonals are vectors) or one matrix per
#' column (the diagonals are matrices with one column per system). A
#' bidiagonal system is the case where `lower` or `upper` is zero.
#'
#' Each row and its right-hand side are first scaled by a power of two (no
#' rounding) so that the largest entry of the row is near 1, and no product
#' overflows. The CPU path then runs the Thomas algorithm (Gaussian
#' elimination without pivoting), one system per thread, with one
#' factorisation for all columns of a shared matrix; the GPU path runs the
#' partition method, one warp per system: the warp copies its system into
#' shared memory with asynchronous copies all in flight at once, each lane
#' eliminates the interior of a chunk of about \eqn{n / 32} rows, the 64 rows
#' that join the chunks are solved by parallel cyclic reduction in registers;
#' each row is read from device memory once and its solution written once.
#' The GPU takes the orders whose 32 bytes a row fit a block's shared memory
#' (about 7,200 on an H100; a larger order gets an error that says the
#' limit). Neither pivots, which the matrices of splines, implicit time
#' steps, the connection matrices of the polynomial transforms and other
#' diagonally dominant or symmetric positive definite matrices never need;
#' both watch the growth of their elimination instead: where a step
#' subtracts more than 16 times the largest entry of the scaled row (which
#' loses digits), the system is solved again with partial pivoting (the
#' algorithm of LAPACK's `dgtsv`) on the CPU, and a GPU call with such a
#' system is solved on the CPU. So a general tridiagonal matrix gets the
#' pivoted answer, and only a singular one (a zero pivot with pivoting) is
#' an error (class `gpustats_error_argument`) that names the system.
#'
#' The CPU path is the package's own rather than LAPACK's tridiagonal solvers
#' for two reasons, measured on one thread: the elimination without a pivot
#' test took 0.57 of the time of `dgtsv` and 0.44 of `dgttrf` with `dgttrs`
#' (each with the copies of the diagonals it overwrites; n = 10^6, one
#' right-hand side; n = 10^4 with 16: 0.57 and 0.38), and
#' LAPACK does not scale the rows: on the 1-D Laplacian (2, -1, -1) of order
#' 1,000 with its rows multiplied by powers of two up to \eqn{2^{\pm 600}}
#' (an exact change of the system), `dgtsv`'s multipliers underflowed and it
#' reported a zero pivot, while the scaled rows here give the solution of
#' the unscaled system to 8e-13. The diagonals go to the core without
#' copies in R (a single value is recycled and the off-diagonals padded
#' there), so that a small system costs little more than the call.
#'
#' @param lower The sub-diagonal: length \eqn{n - 1}, or an
#'   \eqn{(n - 1) \times k}{(n - 1) x k} matrix (one column per system), or
#'   `0` for an upper bidiagonal matrix.
#' @param diag The diagonal: length \eqn{n}, or an \eqn{n \times k}{n x k}
#'   matrix.
#' @param upper The super-diagonal, as `lower`; `0` for a lower bidiagonal
#'   matrix.
#' @param b The right-hand sides: a vector of length \eqn{n} or an
#'   \eqn{n \times k}{n x k} matrix.
#' @inheritParams dct
#' @return The solutions, of the shape of `b`.
#' @examples
#' n <- 6
#' lower <- rep(-1, n - 1); upper <- rep(-1, n - 1); diag <- rep(4, n)
#' b <- cbind(1:n, rnorm(n))
#' x <- banded_solve(lower, diag, upper, b)
#' A <- diag(diag); A[cbind(2:n, 1:(n - 1))] <- lower; A[cbind(1:(n - 1), 2:n)] <- upper
#' max(abs(A %*% x - b))
#' # one matrix per system, and a bidiagonal one
#' banded_solve(0, matrix(2:3, n, 2), matrix(1, n - 1, 2), b)
#' @export
banded_solve <- function(lower, diag, upper, b, device = getOption("gpustats.device", "auto")) {
  call <- environment()
  threads <- gs_threads(call)
  b <- as_finite_values(b, "b", call, threads)
  n <- NROW(b)
  k <- NCOL(b)
  if (n == 0L) abort_arg("{.arg b} has no rows.", call)
  dv <- as_finite_values(diag, "diag", call, threads)
  # a single diagonal value is one matrix shared by the systems (also at n = 1)
  systems <- band_columns(diag, "diag", n, k, call, scalar_k = 1L)
  off_k <- if (systems > 1L) k else 1L
  lv <- as_finite_values(lower, "lower", call, threads)
  lower_systems <- band_columns(lower, "lower", n - 1L, off_k, call)
  uv <- as_finite_values(upper, "upper", call, threads)
  upper_systems <- band_columns(upper, "upper", n - 1L, off_k, call)
  if (lower_systems != systems || upper_systems != systems) {
    abort_arg("{.arg lower}, {.arg diag} and {.arg upper} must all be vectors (one matrix) or all have one column per system.", call)
  }
  dev <- resolve_device(device, as.double(n) * k, "map", call)
  gs_call(.Call(gs_r_tridiag_solve, lv, dv, uv, b, systems > 1L, dev, threads), call)
}

# The columns of one diagonal (len values per system): a single value
# stands for every entry of scalar_k columns (0 for a bidiagonal matrix), a
# vector of length `len` is one matrix, a len x k matrix one per system.
# The values themselves go to the core as they are, which recycles a single
# value and pads the off-diagonals.
band_columns <- function(x, arg, len, k, call, scalar_k = k) {
  if (length(x) == 1L) return(as.integer(scalar_k))
  d <- dim(x)
  rows <- if (is.null(d)) length(x) else d[1L]
  cols <- if (is.null(d)) 1L else d[2L]
  if (rows != len || cols != 1L && cols != k) {
    abort_arg("{.arg {arg}} must have length {len}{if (k > 1L) paste0(' or be a ', len, ' x ', k, ' matrix') else ''} (or be a single number), not {.obj_type_friendly {x}} of length {length(x)}.", call)
  }
  cols
}
