# gp_simulate(approx = "vecchia"): draws W^-1 z of the Vecchia law.

test_that("with every earlier point in the sets, Vecchia draws are the exact Cholesky draws in the maxmin order", {
  set.seed(11)
  n <- 40
  locs <- matrix(runif(2 * n), ncol = 2)
  nb <- vecchia_neighbors(locs, m = n - 1)
  set.seed(3)
  d <- gp_simulate(locs, 2, 0.2, 1.2, nugget = 0.1, nsim = 3, approx = "vecchia", m = n - 1, device = "cpu")
  set.seed(3)
  z <- matrix(rnorm(3 * n), n, 3)
  S <- 2 * matern_cov(locs[nb$order, ], range = 0.2, smoothness = 1.2, device = "cpu") + diag(0.1, n)
  expect_equal(d[nb$order, ], t(chol(S)) %*% z, tolerance = 1e-10)
})

test_that("Vecchia draws have the covariance of the approximate law", {
  set.seed(12)
  n <- 25
  locs <- matrix(runif(2 * n), ncol = 2)
  d <- gp_simulate(locs, 1.5, 0.3, 0.5, nugget = 0.2, nsim = 20000, approx = "vecchia", m = 5, device = "cpu")
  vc <- gpustats:::vecchia_open(locs, 5, device = "cpu", label = "test")
  on.exit(gpustats:::vecchia_close(vc))
  gpustats:::vecchia_factor(vc, c(sigma2 = 1.5, range = 0.3, smoothness = 0.5, nugget = 0.2))
  Wi <- gpustats:::vecchia_apply(vc, diag(n), what = "inverse")
  target <- tcrossprod(Wi)
  # 20,000 draws: a sample covariance entry is within about 4 standard
  # errors, sqrt((S_ij^2 + S_ii S_jj) / 20000) <= 0.015 here
  expect_lt(max(abs(cov(t(d)) - target)), 0.07)
  expect_lt(max(abs(rowMeans(d))), 0.05)
})

test_that("a structure of vecchia_neighbors gives the draws of its locations", {
  set.seed(13)
  locs <- matrix(runif(600), ncol = 2)
  nb <- vecchia_neighbors(locs, m = 10)
  set.seed(4)
  a <- gp_simulate(locs, 1, 0.1, 0.8, approx = "vecchia", m = 10, device = "cpu")
  set.seed(4)
  b <- gp_simulate(nb, 1, 0.1, 0.8, approx = "vecchia", device = "cpu")
  expect_identical(a, b)
  expect_length(a, 300)
  expect_error(gp_simulate(nb, 1, 0.1, 0.8, approx = "vecchia", m = 12, device = "cpu"), "conditioning sets of 10")
})

test_that("gp_simulate(approx = 'vecchia') refuses what it cannot do", {
  locs <- matrix(runif(20), ncol = 2)
  expect_error(gp_simulate(locs, 1, 0.1, 0.5, approx = "vecchia", precision = "mixed"), "approx = \"exact\"")
  expect_error(gp_simulate(locs, 1, 0.1, 0.5, approx = "vecchia"), "less than the number of locations")
  expect_error(gp_simulate(locs, 1, 0.1, 0.5, approx = "vecchia", m = 3, nsim = 0), "positive whole number")
  expect_error(gp_simulate(locs, 1, -1, 0.5, approx = "vecchia", m = 3), "range")
})

test_that("Vecchia draws on a GPU equal the CPU's for the same seed", {
  skip_without_gpu()
  set.seed(14)
  locs <- matrix(runif(2e4), ncol = 2)
  draw <- function(device) {
    set.seed(5)
    gp_simulate(locs, 1, 0.05, 0.8, nugget = 0.1, nsim = 2, approx = "vecchia", device = device)
  }
  expect_equal(draw("gpu"), draw("cpu"), tolerance = 1e-10)
})
