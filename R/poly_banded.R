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
  bm <- as_finite_matrix(b, "b", call)
  n <- nrow(bm)
  k <- ncol(bm)
  if (n == 0L) abort_arg("{.arg b} has no rows.", call)
  # a single diagonal value is one matrix shared by the systems (also at n = 1)
  dm <- band_arg(diag, "diag", n, k, call, scalar_k = 1L)
  per_system <- ncol(dm) > 1L
  dl <- band_arg(lower, "lower", n - 1L, if (per_system) k else 1L, call, pad = "first")
  du <- band_arg(upper, "upper", n - 1L, if (per_system) k else 1L, call, pad = "last")
  if (ncol(dl) != ncol(dm) || ncol(du) != ncol(dm)) {
    abort_arg("{.arg lower}, {.arg diag} and {.arg upper} must all be vectors (one matrix) or all have one column per system.", call)
  }
  dev <- resolve_device(device, as.double(n) * k, "map", call)
  out <- gs_call(.Call(gs_r_tridiag_solve, dl, dm, du, bm, dev, gs_threads(call)), call)
  as_input_shape(out, b)
}

# One diagonal as an n x (1 or k) double matrix: a scalar is recycled (0 for
# a bidiagonal matrix), a vector of length `len` is one matrix, a len x k
# matrix one per system. Off-diagonals (len = n - 1) get a zero row, first
# (`lower`) or last (`upper`), so that every diagonal has n rows.
band_arg <- function(x, arg, len, k, call, pad = "none", scalar_k = k) {
  v <- as_finite_matrix(x, arg, call)
  if (length(v) == 1L) v <- matrix(v[1L], len, scalar_k)
  if (nrow(v) != len || !(ncol(v) %in% c(1L, k))) {
    abort_arg("{.arg {arg}} must have length {len}{if (k > 1L) paste0(' or be a ', len, ' x ', k, ' matrix') else ''} (or be a single number), not {.obj_type_friendly {x}} of length {length(x)}.", call)
  }
  switch(pad, first = rbind(0, v), last = rbind(v, 0), v)
}
