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

mext <- read_fixture("matern-extreme.csv")

test_that("the correlation is accurate next to 0 and far out for every order", {
  got <- matern(mext$z, smoothness = mext$nu, device = "cpu")
  tiny <- mext$corr < .Machine$double.xmin
  # below the normal range a value keeps only its absolute accuracy
  expect_lte(max(abs(got[tiny] - mext$corr[tiny])), .Machine$double.xmin)
  expect_lte(max_rel_err(got[!tiny], mext$corr[!tiny]), 1e-12)
})

test_that("the correlation never leaves [0, 1]", {
  # was 1 + 1.4e-14 at smoothness 25.3 next to d = 0
  expect_lte(matern(1e-300, 1, 1, 25.3, device = "cpu"), 1)
  g <- expand.grid(z = c(0, 5e-324, 1e-300, 10^seq(-12, -1, by = 0.25), 0.5, 1, 10, 700, 1e4, 1e9, 1e300, Inf),
                   nu = c(0.01, 0.5, 1.5, 2.5, 20.5, seq(20.1, 60, by = 0.7), 99.5, 999.9, 1000, 2500.3, 1e6))
  v <- matern(g$z, smoothness = g$nu, device = "cpu")
  expect_false(anyNA(v))
  expect_true(all(v >= 0 & v <= 1))
})

test_that("far beyond the range the correlation is 0, not Inf", {
  # was Inf: an int overflow in the squaring of exp(-z)
  expect_identical(matern(0.5, 2, 1e-308, 1.2, device = "cpu"), 0)
  z <- 10^seq(5, 308, by = 0.5)
  for (nu in c(0.3, 1.2, 7.7, 999.9)) {
    expect_identical(matern(z, smoothness = nu, device = "cpu"), rep(0, length(z)))
  }
  # orders from 1000 on decay slowly: no NaN, and 0 only where it underflows
  v <- matern(c(1e3, 1e150, 1e300), smoothness = 1e6, device = "cpu")
  expect_gt(v[1], 0.7) # about exp(-z^2 / (4 nu))
  expect_identical(v[-1], c(0, 0))
  # a subnormal range: d / range, not d * (1 / range), which overflows
  expect_identical(matern(0, range = 1e-310, device = "cpu"), 1)
  expect_equal(matern(1e-320, range = 1e-310, device = "cpu"), exp(-1e-320 / 1e-310), tolerance = 1e-15)
})

test_that("distances whose squares underflow or overflow keep their correlation", {
  for (nu in c(0.5, 1.3)) {
    one <- matern(1, smoothness = nu, device = "cpu")
    # was all 1: (1e-200)^2 underflows to 0
    S <- matern_cov(matrix(c(0, 1e-200), 2), range = 1e-200, smoothness = nu, device = "cpu")
    expect_equal(S[1, 2], one, tolerance = 1e-15)
    expect_equal(S[2, 1], one, tolerance = 1e-15)
    expect_equal(diag(S), c(1, 1))
    # (1e200)^2 overflows
    S <- matern_cov(matrix(c(0, 1e200), 2), range = 1e200, smoothness = nu, device = "cpu")
    expect_equal(S[1, 2], one, tolerance = 1e-15)
    # two dimensions, cross-covariance: distance 5e-200 from (3e-200, 4e-200)
    C <- matern_cov(matrix(c(0, 0), 1), matrix(c(3e-200, 4e-200), 1), range = 5e-200, smoothness = nu,
                    device = "cpu")
    expect_equal(C[1, 1], one, tolerance = 1e-15)
    # great circle: 1e-300 degrees of latitude
    d <- 6371 * pi / 180 * 1e-300
    G <- matern_cov(cbind(c(0, 0), c(0, 1e-300)), range = d, smoothness = nu, distance = "great_circle",
                    device = "cpu")
    expect_equal(G[1, 2], one, tolerance = 1e-14)
  }
})

test_that("coordinates whose difference overflows are infinitely far apart", {
  # was NaN: -1e308 - 1e308 overflows, and the scaled distance took Inf / Inf
  S <- matern_cov(matrix(c(-1e308, 1e308), 2), device = "cpu")
  expect_identical(S, diag(2))
  # two dimensions, one coordinate overflowing, cross-covariance; a pair
  # near the double range whose difference does not overflow keeps its value
  C <- matern_cov(cbind(c(-1e308, 0), c(5, 0)), cbind(c(1e308, 1e307), c(5, 1e307)), range = 1e307,
                  device = "cpu")
  expect_identical(C[1, 1], 0)
  expect_equal(C[2, 2], exp(-sqrt(2)), tolerance = 1e-15)
  expect_equal(C[1, 2], exp(-sqrt(122)), tolerance = 1e-15)
})

test_that("bad input to matern() gives NA/NaN with R's warning or a classed error", {
  expect_identical(matern(numeric(0), device = "cpu"), numeric(0))
  expect_identical(matern(1, range = numeric(0), device = "cpu"), numeric(0))
  for (arg in c("d", "sigma2", "range", "smoothness", "nugget")) {
    args <- list(d = 0.5, device = "cpu")
    args[[arg]] <- c(NA, NaN, -Inf, -1)
    expect_warning(v <- do.call(matern, args), "NaNs produced", label = arg)
    expect_true(is.na(v[1]) && !is.nan(v[1]))
    expect_true(all(is.nan(v[-1])), label = arg)
    for (bad in list(NULL, "1", list(1), factor(1), 1i, data.frame(a = 1))) {
      args[arg] <- list(bad)
      expect_error(do.call(matern, args), class = "gpustats_error_argument", label = arg)
    }
  }
  expect_warning(v <- matern(1, smoothness = c(0, Inf), device = "cpu"), "NaNs produced")
  expect_true(all(is.nan(v)))
  expect_warning(v <- matern(1, sigma2 = Inf, device = "cpu"), "NaNs produced")
  expect_warning(matern(1:3, range = 1:2, device = "cpu"), "multiple")
  expect_identical(matern(Inf, device = "cpu"), 0)
})

test_that("bad input to matern_cov() gives a classed error", {
  bad_locs <- list(NULL, "a", list(1, 2), factor(1:3), 1i, data.frame(a = c("x", "y")), matrix(0, 2, 0),
                   c(1, NA), c(1, NaN), c(1, Inf), c(1, -Inf))
  for (l in bad_locs) {
    expect_error(matern_cov(l, device = "cpu"), class = "gpustats_error_argument")
    if (!is.null(l)) expect_error(matern_cov(1:2, l, device = "cpu"), class = "gpustats_error_argument")
  }
  for (arg in c("sigma2", "range", "smoothness", "nugget")) {
    for (bad in list(NA, NaN, Inf, -Inf, -1, NULL, numeric(0), c(1, 2), "1", list(1))) {
      args <- list(locs = 1:3, device = "cpu")
      args[arg] <- list(bad)
      expect_error(do.call(matern_cov, args), class = "gpustats_error_argument")
    }
  }
  expect_error(matern_cov(1:3, range = 0, device = "cpu"), class = "gpustats_error_argument")
  expect_error(matern_cov(1:3, smoothness = 0, device = "cpu"), class = "gpustats_error_argument")
  for (bad in list(NA, 1, "taxicab", c("euclidean", "x"))) {
    expect_error(matern_cov(1:3, distance = bad, device = "cpu"), class = "gpustats_error_argument")
  }
  # partial matching as match.arg()
  expect_identical(matern_cov(cbind(1:3, 0), distance = "great", device = "cpu"),
                   matern_cov(cbind(1:3, 0), distance = "great_circle", device = "cpu"))
})
