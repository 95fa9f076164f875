# Legendre <-> Chebyshev conversions: closed forms, the definition evaluated
# on a grid, and round trips.

test_that("legendre_to_chebyshev() gives the Chebyshev series of P_n", {
  expect_equal(legendre_to_chebyshev(c(0, 0, 1)), c(1, 0, 3) / 4, tolerance = 1e-15)
  expect_equal(legendre_to_chebyshev(c(0, 0, 0, 1)), c(0, 3, 0, 5) / 8, tolerance = 1e-15)
  expect_equal(chebyshev_to_legendre(c(0, 3, 0, 5) / 8), c(0, 0, 0, 1), tolerance = 1e-15)
  # P_n(cos t) by its recurrence against sum_k c_k cos(k t)
  t <- seq(0, pi, length.out = 101)
  N <- 60
  P <- matrix(0, length(t), N + 1)
  P[, 1] <- 1
  P[, 2] <- cos(t)
  for (n in 2:N) P[, n + 1] <- ((2 * n - 1) * cos(t) * P[, n] - (n - 1) * P[, n - 1]) / n
  C <- legendre_to_chebyshev(diag(N + 1))
  expect_lte(max(abs(cos(outer(t, 0:N)) %*% C - P)), 1e-13)
})

test_that("the conversions invert each other on columns", {
  set.seed(10)
  x <- matrix(rnorm(400 * 3), 400)
  expect_lte(max(abs(chebyshev_to_legendre(legendre_to_chebyshev(x)) - x)), 1e-13)
  expect_lte(max(abs(legendre_to_chebyshev(chebyshev_to_legendre(x)) - x)), 1e-13)
  expect_equal(legendre_to_chebyshev(x[, 2]), legendre_to_chebyshev(x)[, 2])
  expect_error(legendre_to_chebyshev(c(1, NA)), class = "gpustats_error_argument")
  expect_error(chebyshev_to_legendre("a"), class = "gpustats_error_argument")
})
