# Batched tridiagonal solves against dense solves (LAPACK with pivoting).

dense_tridiag <- function(lower, diag, upper) {
  n <- length(diag)
  A <- base::diag(diag, n)
  if (n > 1) {
    A[cbind(2:n, 1:(n - 1))] <- lower
    A[cbind(1:(n - 1), 2:n)] <- upper
  }
  A
}

test_that("banded_solve() solves one matrix with many right-hand sides", {
  set.seed(5)
  n <- 50
  lower <- runif(n - 1, -1, 1); upper <- runif(n - 1, -1, 1); diag <- runif(n, 2.5, 4)
  b <- matrix(rnorm(n * 7), n, 7)
  x <- banded_solve(lower, diag, upper, b, device = "cpu")
  expect_equal(x, solve(dense_tridiag(lower, diag, upper), b), tolerance = 1e-13)
  expect_equal(banded_solve(lower, diag, upper, b[, 2], device = "cpu"), x[, 2], tolerance = 1e-15)
  expect_equal(banded_solve(numeric(0), 4, numeric(0), 2, device = "cpu"), 0.5)
  # a single diagonal value shared by several 1 x 1 systems (it used to be taken as one matrix per system)
  expect_equal(banded_solve(numeric(0), 4, numeric(0), matrix(c(2, 8), 1), device = "cpu"), matrix(c(0.5, 2), 1))
})

test_that("banded_solve() recycles single values, reads integers, and keeps the shape of b", {
  # the core recycles a single value and pads the off-diagonals itself
  n <- 6
  b <- matrix(1:12, n, 2, dimnames = list(letters[1:n], c("u", "v")))
  x <- banded_solve(-1L, 4, 1, b, device = "cpu")
  expect_identical(dimnames(x), dimnames(b))
  expect_equal(unname(x), solve(dense_tridiag(rep(-1, n - 1), rep(4, n), rep(1, n - 1)), unname(b)),
               tolerance = 1e-14)
  per_system <- banded_solve(2, matrix(c(5, 6), n, 2, byrow = TRUE), -1, b, device = "cpu")
  expect_equal(unname(per_system[, 2]),
               solve(dense_tridiag(rep(2, n - 1), rep(6, n), rep(-1, n - 1)), b[, 2]), tolerance = 1e-14)
  v <- banded_solve(-1, rep(4, n), 1, stats::setNames(as.double(1:n), letters[1:n]), device = "cpu")
  expect_null(attributes(v))
  expect_equal(v, unname(x[, 1]), tolerance = 1e-15)
})

test_that("banded_solve() solves one matrix per system, and bidiagonal systems", {
  set.seed(6)
  n <- 17; k <- 9
  lower <- matrix(runif((n - 1) * k, -1, 1), n - 1); upper <- matrix(runif((n - 1) * k, -1, 1), n - 1)
  diag <- matrix(runif(n * k, 2.5, 4), n)
  b <- matrix(rnorm(n * k), n)
  x <- banded_solve(lower, diag, upper, b, device = "cpu")
  for (j in seq_len(k)) {
    expect_equal(x[, j], solve(dense_tridiag(lower[, j], diag[, j], upper[, j]), b[, j]), tolerance = 1e-13)
  }
  xb <- banded_solve(0, diag, upper, b, device = "cpu")
  expect_equal(xb[, 3], solve(dense_tridiag(rep(0, n - 1), diag[, 3], upper[, 3]), b[, 3]), tolerance = 1e-13)
  xl <- banded_solve(lower[, 1], diag[, 1], 0, b, device = "cpu")
  expect_equal(xl, solve(dense_tridiag(lower[, 1], diag[, 1], rep(0, n - 1)), b), tolerance = 1e-13)
})

test_that("banded_solve() pivots where the elimination without pivoting would grow", {
  # were NaN NaN -Inf: products past the double range
  x <- banded_solve(c(1e308, 1e308), c(4e307, 4e307, 4e307), c(1e307, 1e307), c(1e308, 1e308, 1e308),
                    device = "cpu")
  expect_equal(x, c(-1.875, 17.5, -41.25), tolerance = 1e-14)
  # were 0 1 and 1.49e284 1: a tiny pivot, taken without pivoting
  expect_equal(banded_solve(1, c(1e-20, 1), 1, c(1, 2), device = "cpu"), c(1, 1), tolerance = 1e-15)
  expect_equal(banded_solve(1, c(1e-300, 1), 1, c(1, 2), device = "cpu"), c(1, 1), tolerance = 1e-15)
  # were refused for a zero pivot; they are not singular
  expect_equal(banded_solve(1, c(0, 1), 1, 1:2, device = "cpu"), c(1, 1))
  expect_equal(banded_solve(c(1, 1), c(1, 1, 1), c(1, 1), 1:3, device = "cpu"),
               solve(dense_tridiag(c(1, 1), c(1, 1, 1), c(1, 1)), 1:3), tolerance = 1e-15)
  # random matrices far from diagonal dominance, shared and one per system
  set.seed(8)
  n <- 40; k <- 6
  lower <- matrix(rnorm((n - 1) * k), n - 1); upper <- matrix(rnorm((n - 1) * k), n - 1)
  diag <- matrix(rnorm(n * k, sd = 1e-3), n)
  b <- matrix(rnorm(n * k), n)
  x <- banded_solve(lower, diag, upper, b, device = "cpu")
  xs <- banded_solve(lower[, 1], diag[, 1], upper[, 1], b, device = "cpu")
  for (j in seq_len(k)) {
    expect_equal(x[, j], solve(dense_tridiag(lower[, j], diag[, j], upper[, j]), b[, j]), tolerance = 1e-11)
    expect_equal(xs[, j], solve(dense_tridiag(lower[, 1], diag[, 1], upper[, 1]), b[, j]), tolerance = 1e-11)
  }
})

test_that("banded_solve() refuses singular, misshapen and non-finite input", {
  expect_error(banded_solve(1, c(1, 1), 1, 1:2), "singular", class = "gpustats_error_argument")
  expect_error(banded_solve(c(1, 2), c(1, 1, 0), c(1, 0), 1:3), "row 3", class = "gpustats_error_argument")
  expect_error(banded_solve(1:2, rep(4, 3), 1:2, 1:4), class = "gpustats_error_argument")
  expect_error(banded_solve(1:3, rep(4, 3), 1:2, 1:3), class = "gpustats_error_argument")
  expect_error(banded_solve(c(1, NA), rep(4, 3), 1:2, 1:3), class = "gpustats_error_argument")
  expect_error(banded_solve(1:2, rep(4, 3), 1:2, c(1, Inf, 3)), class = "gpustats_error_argument")
  expect_error(banded_solve(1:2, matrix(4, 3, 2), 1:2, matrix(1, 3, 3)), class = "gpustats_error_argument")
  d <- matrix(4, 2, 2); d[, 2] <- 1
  expect_error(banded_solve(matrix(1, 1, 2), d, matrix(1, 1, 2), matrix(1, 2, 2)), "system 2",
               class = "gpustats_error_argument")
})

test_that("the GPU solves what the CPU solves", {
  skip_without_gpu()
  set.seed(7)
  # chunks of 3 rows per lane up to n = 96, of ceiling(n / 32) rounded up to odd beyond
  for (n in c(1, 2, 31, 32, 33, 64, 95, 97, 1000, 1025, 5000)) {
    k <- 70
    lower <- matrix(runif((n - 1) * k, -1, 1), n - 1, k)
    upper <- matrix(runif((n - 1) * k, -1, 1), n - 1, k)
    diag <- matrix(runif(n * k, 2.5, 4), n)
    b <- matrix(rnorm(n * k), n)
    expect_equal(banded_solve(lower, diag, upper, b, device = "gpu"),
                 banded_solve(lower, diag, upper, b, device = "cpu"), tolerance = 1e-13)
    expect_equal(banded_solve(lower[, 1], diag[, 1], upper[, 1], b, device = "gpu"),
                 banded_solve(lower[, 1], diag[, 1], upper[, 1], b, device = "cpu"), tolerance = 1e-13)
  }
  # systems that need pivoting: the GPU's growth check hands them to the CPU
  lower <- matrix(rnorm(39 * 6), 39); upper <- matrix(rnorm(39 * 6), 39)
  diag <- matrix(rnorm(40 * 6, sd = 1e-3), 40); b <- matrix(rnorm(40 * 6), 40)
  expect_identical(banded_solve(lower, diag, upper, b, device = "gpu"),
                   banded_solve(lower, diag, upper, b, device = "cpu"))
  expect_equal(banded_solve(1, c(1e-20, 1), 1, c(1, 2), device = "gpu"), c(1, 1), tolerance = 1e-15)
  expect_equal(banded_solve(c(1e308, 1e308), c(4e307, 4e307, 4e307), c(1e307, 1e307), c(1e308, 1e308, 1e308),
                            device = "gpu"), c(-1.875, 17.5, -41.25), tolerance = 1e-14)
  # past what a warp's shared memory holds: a classed error, not a crash
  expect_error(banded_solve(rep(1, 19999), rep(4, 20000), rep(1, 19999), rnorm(20000), device = "gpu"),
               "order up to", class = "gpustats_error_argument")
})
