# Legendre <-> Chebyshev conversions: closed forms, the definition evaluated
# on a grid, 40-digit references (tools/make-legcheb-reference.py) for both
# methods, round trips, methods against each other, bad input.

test_that("legendre_to_chebyshev() gives the Chebyshev series of P_n", {
  for (method in c("direct", "toeplitz-hankel")) {
    expect_equal(legendre_to_chebyshev(c(0, 0, 1), method), c(1, 0, 3) / 4, tolerance = 1e-15)
    expect_equal(legendre_to_chebyshev(c(0, 0, 0, 1), method), c(0, 3, 0, 5) / 8, tolerance = 1e-15)
    expect_equal(chebyshev_to_legendre(c(0, 3, 0, 5) / 8, method), c(0, 0, 0, 1), tolerance = 1e-15)
  }
  # P_n(cos t) by its recurrence against sum_k c_k cos(k t)
  t <- seq(0, pi, length.out = 101)
  N <- 60
  P <- matrix(0, length(t), N + 1)
  P[, 1] <- 1
  P[, 2] <- cos(t)
  for (n in 2:N) P[, n + 1] <- ((2 * n - 1) * cos(t) * P[, n] - (n - 1) * P[, n - 1]) / n
  for (method in c("direct", "toeplitz-hankel")) {
    C <- legendre_to_chebyshev(diag(N + 1), method)
    expect_lte(max(abs(cos(outer(t, 0:N)) %*% C - P)), 1e-13)
  }
})

legcheb_input <- function(n, decay) {
  j <- 0:(n - 1)
  v <- (((7919 * j + 13) %% 1000) - 500) / 512
  if (decay) v / (j + 1)^2 else v
}

test_that("both methods match 40-digit references for n = 10 .. 5000", {
  ref <- utils::read.csv(test_path("fixtures", "poly-legcheb.csv"), colClasses = c(y = "character"))
  ref$y <- as.numeric(ref$y)
  for (n in unique(ref$n)) for (to_cheb in 0:1) for (decay in 0:1) {
    r <- ref[ref$n == n & ref$to_chebyshev == to_cheb & ref$decay == decay, ]
    f <- if (to_cheb == 1) legendre_to_chebyshev else chebyshev_to_legendre
    x <- legcheb_input(n, decay)
    for (method in c("direct", "toeplitz-hankel")) {
      if (method == "direct" && n > 1000) next # the fast test stays fast
      err <- max(abs(f(x, method)[r$k + 1] - r$y)) / max(abs(r$y))
      # measured: at most 3.2e-15 (direct) and 1.0e-15 (fast) up to n = 5000
      expect_lte(err, 8e-15, label = sprintf("%s n = %d to_chebyshev = %d decay = %d error", method, n, to_cheb, decay))
    }
  }
})

test_that("the conversions invert each other on columns", {
  set.seed(10)
  x <- matrix(rnorm(400 * 3), 400)
  for (method in c("direct", "toeplitz-hankel")) {
    expect_lte(max(abs(chebyshev_to_legendre(legendre_to_chebyshev(x, method), method) - x)), 1e-13)
    expect_lte(max(abs(legendre_to_chebyshev(chebyshev_to_legendre(x, method), method) - x)), 1e-13)
    expect_equal(legendre_to_chebyshev(x[, 2], method), legendre_to_chebyshev(x, method)[, 2])
  }
  # a large round trip by the fast method alone, decaying and not
  x <- cbind(rnorm(20000), rnorm(20000) / (1:20000))
  back <- chebyshev_to_legendre(legendre_to_chebyshev(x, "toeplitz-hankel"), "toeplitz-hankel")
  expect_lte(max(abs(back - x)), 1e-13)
})

test_that("the fast method equals the direct one at every small size and parity", {
  set.seed(3)
  for (n in c(1:9, 31, 32, 33, 257)) {
    x <- matrix(rnorm(2 * n), n)
    for (f in list(legendre_to_chebyshev, chebyshev_to_legendre)) {
      d <- f(x, "direct")
      expect_lte(max(abs(f(x, "toeplitz-hankel") - d)), 1e-14 * max(1, abs(d)))
    }
  }
  # "auto" switches at the crossover and gives the same values on either side
  x <- rnorm(1100)
  expect_equal(legendre_to_chebyshev(x), legendre_to_chebyshev(x, "toeplitz-hankel"))
  expect_equal(legendre_to_chebyshev(x[1:100]), legendre_to_chebyshev(x[1:100], "direct"))
})

test_that("the rank of the Hankel factor grows like log n", {
  rank <- function(n) .Call(gpustats:::gs_r_legcheb_rank, as.integer(n), TRUE, 0L)
  r <- vapply(c(100, 1000, 10000), rank, integer(1))
  expect_true(all(diff(r) > 0) && all(diff(r) < 12) && r[3] < 45)
})

test_that("bad input gets classed errors", {
  expect_error(legendre_to_chebyshev(c(1, NA)), class = "gpustats_error_argument")
  expect_error(chebyshev_to_legendre("a"), class = "gpustats_error_argument")
  expect_error(legendre_to_chebyshev(1:3, method = "fft"), class = "gpustats_error_argument")
  expect_error(legendre_to_chebyshev(c(1, Inf), method = "toeplitz-hankel"), class = "gpustats_error_argument")
  expect_error(legendre_to_chebyshev(numeric(46341), method = "direct"), class = "gpustats_error_argument")
  expect_identical(legendre_to_chebyshev(numeric(0), "toeplitz-hankel"), numeric(0))
  expect_error(legendre_to_chebyshev(1:3, "direct", device = "gpu"), "CPU only", class = "gpustats_error_argument")
  expect_error(chebyshev_to_legendre(1:3, device = "tpu"), class = "gpustats_error_argument")
  if (!gpu_available()) {
    expect_error(chebyshev_to_legendre(1:3, device = "gpu"), class = "gpustats_error_no_gpu")
  }
})

test_that("the GPU converts as the CPU does, one column or many", {
  skip_without_gpu()
  set.seed(12)
  # the same Hankel factor on both devices (the same pivots, its rows by the
  # same arithmetic on the GPU, n = 4097 and 65536 with rows beyond the first
  # sample): the results differ by the rounding of the FFTs and of the sums
  # over the terms, a few sqrt(n) ulps
  # of each column's largest coefficient (the GPU needs no FFTW3; without it
  # the CPU's reference is the direct method, within 1e-15 of the fast one)
  fftw <- .Call(gpustats:::gs_r_poly_have_fftw)
  cpu_method <- if (fftw) "toeplitz-hankel" else "direct"
  for (n in c(1, 2, 3, 4, 17, 1000, 4097, if (fftw) 65536)) {
    x <- matrix(rnorm(n * 3), n)
    x[, 3] <- x[, 3] / seq_len(n)^2
    tol <- 8 * sqrt(n) * .Machine$double.eps
    for (f in list(legendre_to_chebyshev, chebyshev_to_legendre)) {
      cpu <- f(x, cpu_method, device = "cpu")
      gpu <- f(x, "toeplitz-hankel", device = "gpu")
      expect_equal(dim(gpu), dim(cpu))
      scale <- rep(apply(abs(cpu), 2, max), each = n)
      expect_lte(max(abs(gpu - cpu) / scale), tol, label = sprintf("n = %d GPU - CPU", n))
      one <- f(x[, 2], device = "gpu") # "auto" is the fast method on the GPU
      expect_null(dim(one))
      expect_lte(max(abs(one - cpu[, 2])) / max(abs(cpu[, 2])), tol)
    }
  }
  # against the 40-digit references too, and a round trip
  ref <- utils::read.csv(test_path("fixtures", "poly-legcheb.csv"), colClasses = c(y = "character"))
  ref$y <- as.numeric(ref$y)
  r <- ref[ref$n == 5000 & ref$to_chebyshev == 0 & ref$decay == 0, ]
  y <- chebyshev_to_legendre(legcheb_input(5000, FALSE), device = "gpu")
  expect_lte(max(abs(y[r$k + 1] - r$y)) / max(abs(r$y)), 8e-15)
  x <- matrix(rnorm(20000 * 2), 20000)
  back <- chebyshev_to_legendre(legendre_to_chebyshev(x, device = "gpu"), device = "gpu")
  expect_lte(max(abs(back - x)), 1e-13)
})
