ref <- read_fixture("matern.csv")

test_that("the Matérn correlation is accurate to 1e-14 absolute for nu <= 20", {
  got <- matern(ref$z, smoothness = ref$nu, device = "cpu")
  err <- abs(got - ref$corr)
  expect_lte(max(err[ref$nu <= 20]), 1e-14)
  expect_lte(max(err / ref$corr), 1e-12)
})

test_that("half-integer smoothness uses the closed forms", {
  z <- c(0, 1e-8, 0.01, 0.3, 1, 2.5, 10, 100, 600)
  expect_equal(matern(z, smoothness = 0.5, device = "cpu"), exp(-z), tolerance = 1e-16)
  expect_equal(matern(z, smoothness = 1.5, device = "cpu"), (1 + z) * exp(-z), tolerance = 1e-16)
  expect_equal(matern(z, smoothness = 2.5, device = "cpu"), (1 + z + z^2 / 3) * exp(-z), tolerance = 1e-16)
})

test_that("parameters scale and shift as documented", {
  d <- c(0, 0.05, 0.2, 1)
  expect_equal(matern(d, sigma2 = 2, range = 0.1, smoothness = 1.3, nugget = 0.5, device = "cpu"),
               2 * matern(d / 0.1, smoothness = 1.3, device = "cpu") + c(0.5, 0, 0, 0))
  expect_identical(matern(0, sigma2 = 3, nugget = 1, device = "cpu"), 4)
  # the definition, through base R's besselK, away from d = 0
  z <- c(0.1, 1, 3); nu <- 3.7
  expect_equal(matern(z, smoothness = nu, device = "cpu"),
               2^(1 - nu) / gamma(nu) * z^nu * besselK(z, nu), tolerance = 1e-13)
})

test_that("invalid Matérn parameters give NaN with a warning", {
  expect_warning(v <- matern(1, range = -1, device = "cpu"), "NaNs produced")
  expect_true(is.nan(v))
  expect_warning(matern(-1, device = "cpu"), "NaNs produced")
  expect_warning(matern(1, smoothness = 0, device = "cpu"), "NaNs produced")
  expect_identical(matern(NA_real_, device = "cpu"), NA_real_)
  expect_error(matern("1"), class = "gpustats_error_argument")
})

test_that("matern_cov matches matern on the pairwise distances", {
  set.seed(5)
  locs <- matrix(runif(60), ncol = 2)
  S <- matern_cov(locs, sigma2 = 1.5, range = 0.2, smoothness = 0.8, nugget = 0.1, device = "cpu")
  D <- as.matrix(dist(locs))
  expected <- 1.5 * matern(D, range = 0.2, smoothness = 0.8, device = "cpu")
  diag(expected) <- 1.5 + 0.1
  expect_equal(S, expected, tolerance = 1e-15, ignore_attr = TRUE)
  expect_true(isSymmetric(S))
  locs2 <- matrix(runif(20), ncol = 2)
  C <- matern_cov(locs, locs2, range = 0.2, smoothness = 0.8, nugget = 0.1, device = "cpu")
  expect_identical(dim(C), c(30L, 10L))
  D2 <- sqrt(outer(locs[, 1], locs2[, 1], "-")^2 + outer(locs[, 2], locs2[, 2], "-")^2)
  expect_equal(C, matern(D2, range = 0.2, smoothness = 0.8, device = "cpu"), tolerance = 1e-15)
  rownames(locs) <- paste0("s", 1:30)
  expect_identical(rownames(matern_cov(locs, device = "cpu")), rownames(locs))
  expect_equal(matern_cov(as.data.frame(locs), device = "cpu"), matern_cov(locs, device = "cpu"))
  expect_equal(dim(matern_cov(runif(7), device = "cpu")), c(7L, 7L))
})

test_that("great-circle distances are haversine distances in km", {
  locs <- cbind(lon = c(0, 0, 90, -73.9857), lat = c(0, 1, 0, 40.7484))
  S <- matern_cov(locs, range = 100, smoothness = 0.5, distance = "great_circle", device = "cpu")
  # one degree of latitude: 6371 * pi / 180 km
  expect_equal(S[1, 2], exp(-6371 * pi / 180 / 100), tolerance = 1e-14)
  expect_equal(S[1, 3], exp(-6371 * pi / 2 / 100), tolerance = 1e-14)
  expect_error(matern_cov(cbind(1:3, 1:3, 1:3), distance = "great_circle"), class = "gpustats_error_argument")
  expect_error(matern_cov(cbind(0, 100), distance = "great_circle"), class = "gpustats_error_argument")
})

test_that("bad locations and parameters are refused clearly", {
  expect_error(matern_cov(matrix(c(1, NA), 1)), class = "gpustats_error_argument")
  expect_error(matern_cov(matrix(c(1, Inf), 1)), class = "gpustats_error_argument")
  expect_error(matern_cov(matrix("a", 2, 2)), class = "gpustats_error_argument")
  expect_error(matern_cov(matrix(1:4, 2), matrix(1:3, 1)), class = "gpustats_error_argument")
  expect_error(matern_cov(matrix(1:4, 2), range = 0), class = "gpustats_error_argument")
  expect_error(matern_cov(matrix(1:4, 2), smoothness = c(1, 2)), class = "gpustats_error_argument")
  expect_error(matern_cov(matrix(1:4, 2), sigma2 = -1), class = "gpustats_error_argument")
  expect_error(matern_cov(matrix(1:4, 2), nugget = NA), class = "gpustats_error_argument")
  expect_error(matern_cov(matrix(1:4, 2), distance = "manhattan"))
})

test_that("a matrix larger than the host's memory is refused before allocating", {
  big <- matrix(0, 3e6, 1)
  expect_error(matern_cov(big, device = "cpu"), class = "gpustats_error_memory")
})

test_that("empty location sets give empty matrices", {
  expect_identical(dim(matern_cov(matrix(numeric(0), 0, 2), device = "cpu")), c(0L, 0L))
  expect_identical(dim(matern_cov(matrix(1, 1, 2), matrix(numeric(0), 0, 2), device = "cpu")), c(1L, 0L))
})
