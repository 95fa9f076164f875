# Alpha-stable d/p/q/r against 30-digit references, R conventions, and the
# properties a sampler must have.

stable_reference <- function() {
  ref <- utils::read.csv(test_path("fixtures", "stable.csv"), stringsAsFactors = FALSE)
  # rows whose reference value in an exponentially thin tail (beta = +-1)
  # disagrees with two independent high-precision evaluations: replaced by
  # those (see stable-thin-tail.csv)
  fix <- utils::read.csv(test_path("fixtures", "stable-thin-tail.csv"), stringsAsFactors = FALSE)
  key <- function(d) paste(d$alpha, d$beta, d$x)
  m <- match(key(fix), key(ref))
  stopifnot(!anyNA(m))
  # columns not recomputed there are not compared (NA)
  for (col in c("pdf", "cdf", "ccdf")) ref[[col]][m] <- fix[[col]]
  ref$recomputed <- seq_len(nrow(ref)) %in% m
  ref
}

stable_zone <- function(alpha) {
  cut(alpha, c(0, 0.5, 0.98, 1.02, 1.5, 2), right = FALSE, include.lowest = TRUE,
      labels = c("alpha < 0.5", "0.5-0.98", "near 1", "1.02-1.5", "1.5-2"))
}

test_that("densities and both tails match the reference to 1e-12", {
  ref <- stable_reference()
  d <- dstable(ref$x, ref$alpha, ref$beta, device = "cpu")
  lo <- pstable(ref$x, ref$alpha, ref$beta, device = "cpu")
  up <- pstable(ref$x, ref$alpha, ref$beta, lower.tail = FALSE, device = "cpu")
  rel <- function(v, r) ifelse(!is.na(r) & r > 1e-300, abs(v / r - 1), 0)
  err <- data.frame(zone = stable_zone(ref$alpha), pdf = rel(d, ref$pdf),
                    cdf = rel(lo, ref$cdf), ccdf = rel(up, ref$ccdf))
  main <- !ref$recomputed
  worst <- aggregate(cbind(pdf, cdf, ccdf) ~ zone, err[main, ], max)
  expect_true(all(as.matrix(worst[, -1]) <= 1e-12), info = paste(capture.output(print(worst)), collapse = "\n"))
  # the recomputed thin-tail rows: their values carry the quadrature error
  # of the recomputation, about 1e-12
  expect_lt(max(as.matrix(err[!main, -1])), 2e-12)
  # outside the support of alpha < 1, beta = +-1: exactly 0 and 0 or 1
  out <- ref$pdf == 0 & ref$alpha < 1
  expect_true(all(d[out] == 0))
})

test_that("densities and both tails match 40-digit values at random points to 1e-12", {
  # tools/make-stable-points.py; its first rows are points where an earlier
  # stopping rule of the quadrature was off by up to 4e-12
  ref <- utils::read.csv(test_path("fixtures", "stable-random.csv"))
  expect_gt(nrow(ref), 100)
  rel <- function(v, r) max(abs(v / r - 1))
  expect_lt(rel(dstable(ref$x, ref$alpha, ref$beta, device = "cpu"), ref$pdf), 1e-12)
  expect_lt(rel(pstable(ref$x, ref$alpha, ref$beta, device = "cpu"), ref$cdf), 1e-12)
  expect_lt(rel(pstable(ref$x, ref$alpha, ref$beta, lower.tail = FALSE, device = "cpu"), ref$ccdf),
            1e-12)
})

test_that("alpha = 1 with beta != 0 keeps full accuracy far out, to 1e20", {
  # tools/make-stable-points.py --alpha1: log h there is the difference of
  # two terms of size |x| / beta
  ref <- utils::read.csv(test_path("fixtures", "stable-alpha1.csv"))
  expect_gt(nrow(ref), 40)
  rel <- function(v, r) max(abs(v / r - 1))
  expect_lt(rel(dstable(ref$x, 1, ref$beta, device = "cpu"), ref$pdf), 1e-12)
  expect_lt(rel(pstable(ref$x, 1, ref$beta, device = "cpu"), ref$cdf), 1e-12)
  expect_lt(rel(pstable(ref$x, 1, ref$beta, lower.tail = FALSE, device = "cpu"), ref$ccdf), 1e-12)
  # beyond 1e18 the power law (1 + beta) / (pi x) and its density, to the
  # largest doubles, on the log scale too
  x <- c(1e20, 1e200, 1e308)
  expect_equal(pstable(x, 1, 0.5, lower.tail = FALSE, log.p = TRUE), log(1.5 / pi) - log(x),
               tolerance = 1e-15)
  expect_equal(dstable(-x, 1, 0.5, log = TRUE), log(0.5 / pi) - 2 * log(x), tolerance = 1e-15)
  expect_equal(pstable(-x, 1, 1), c(0, 0, 0))
})

test_that("log densities reach far below the double range", {
  ref <- stable_reference()
  far <- ref$pdf < 1e-300 & ref$pdf > 0 | is.finite(ref$log_pdf) & ref$log_pdf < -690
  ld <- dstable(ref$x[far], ref$alpha[far], ref$beta[far], log = TRUE)
  expect_true(all(is.finite(ld) & ld < -690))
  # the Levy law (alpha = 1/2, beta = 1) in closed form: S1 scale 1, location 0
  x <- c(1e-3, 0.1, 1, 10, 1e4)
  levy <- sqrt(1 / (2 * pi)) * x^-1.5 * exp(-1 / (2 * x))
  expect_lt(max(abs(dstable(x, 0.5, 1, pm = 1) / levy - 1)), 1e-12)
  expect_lt(max(abs(dstable(x, 0.5, 1, pm = 1, log = TRUE) - log(levy))), 1e-12)
})

test_that("closed forms: Gauss at alpha = 2 and Cauchy at alpha = 1, beta = 0", {
  x <- c(-40, -3, 0, 0.5, 7)
  expect_equal(dstable(x, 2, 0.3), dnorm(x, sd = sqrt(2)), tolerance = 1e-14)
  expect_equal(pstable(x, 2, 0), pnorm(x, sd = sqrt(2)), tolerance = 1e-14)
  expect_equal(pstable(x, 2, 0, log.p = TRUE), pnorm(x, sd = sqrt(2), log.p = TRUE),
               tolerance = 1e-12)
  expect_equal(dstable(x, 1, 0, gamma = 2, delta = 1), dcauchy(x, 1, 2), tolerance = 1e-14)
  expect_equal(pstable(x, 1, 0, lower.tail = FALSE), pcauchy(x, lower.tail = FALSE),
               tolerance = 1e-14)
})

test_that("S0 is continuous through alpha = 1, S1 is a shift of S0", {
  x <- c(-5, -1, 0, 2, 8)
  # on the log scale, which also covers densities that underflow (x = 30, beta = -1)
  for (b in c(-1, -0.3, 0.7)) {
    at1 <- dstable(x, 1, b, log = TRUE)
    for (e in c(1e-6, 1e-9)) {
      expect_lt(max(abs(dstable(x, 1 + e, b, log = TRUE) / at1 - 1)), 1e-4)
      expect_lt(max(abs(dstable(x, 1 - e, b, log = TRUE) / at1 - 1)), 1e-4)
    }
  }
  a <- 1.3; b <- -0.6; g <- 2; d <- 0.5
  shift <- b * g * tan(pi * a / 2)
  expect_equal(dstable(x, a, b, g, d, pm = 1), dstable(x, a, b, g, d + shift, pm = 0),
               tolerance = 1e-13)
  expect_equal(pstable(x, 1, b, g, d, pm = 1),
               pstable(x, 1, b, g, d + 2 / pi * b * g * log(g), pm = 0), tolerance = 1e-13)
})

test_that("the density integrates to the distribution function", {
  for (p in list(c(0.6, 0.4), c(1.5, -0.8), c(1 + 1e-7, 0.9), c(1.95, 1))) {
    F <- pstable(c(-2, 3), p[1], p[2])
    I <- stats::integrate(function(x) dstable(x, p[1], p[2], device = "cpu"), -2, 3,
                          rel.tol = 1e-12)$value
    expect_equal(I, diff(F), tolerance = 1e-10)
  }
})

# pstable at q = qstable(p, a, b) matches p to 1e-12 relative in the tail p
# is in, or to the change of the tail over two ulps of q where the tail is so
# steep (exponentially thin tails) that no double does better.
expect_round_trip <- function(q, p, a, b, label) {
  lower <- p <= 0.5
  back <- ifelse(lower, pstable(q, a, b), pstable(q, a, b, lower.tail = FALSE))
  target <- ifelse(lower, p, 1 - p)
  ulp2 <- abs(q * dstable(q, a, b) / target) * 4.5e-16
  expect_true(all(abs(back / target - 1) <= pmax(1e-12, ulp2)), label = label)
}

test_that("qstable inverts pstable to 1e-12 in the tail p is in, and is monotone", {
  p <- c(1e-10, 1e-6, 0.01, 0.2, 0.5, 0.8, 0.99, 1 - 1e-6, 1 - 1e-10)
  for (a in c(0.3, 0.8, 1, 1 + 1e-6, 1.4, 1.9)) {
    for (b in c(-1, 0, 0.5)) {
      q <- qstable(p, a, b)
      expect_true(all(diff(q) > 0), info = paste(a, b))
      expect_round_trip(q, p, a, b, paste("round trip", a, b))
    }
  }
  # random laws and probabilities, both tails down to 1e-10: every rule of the
  # search (Halley steps where the evaluation gives the density's slope,
  # Newton within 0.02 of alpha = 1)
  set.seed(11)
  n <- 3000
  a <- c(runif(n - 600, 0.5, 2), runif(300, 0.98, 1.02), rep(1, 100), runif(200, 1.95, 2))
  b <- runif(n, -1, 1)
  b[seq(1, n, by = 10)] <- 1
  pl <- exp(runif(n, log(1e-10), log(0.5)))
  p <- ifelse(seq_len(n) %% 2 == 0, pl, 1 - pl)
  expect_round_trip(qstable(p, a, b), p, a, b, "random round trips")
  # upper tail and log scale are exact, far beyond 1 - p
  q <- qstable(-500, 1.5, 0.2, lower.tail = FALSE, log.p = TRUE)
  expect_equal(pstable(q, 1.5, 0.2, lower.tail = FALSE, log.p = TRUE), -500, tolerance = 1e-13)
  expect_equal(qstable(c(0, 1), 1.5, 0), c(-Inf, Inf))
  # support ends: zeta for alpha < 1, beta = 1
  expect_equal(qstable(0, 0.5, 1), -tan(pi / 4))
})

test_that("rstable is reproducible and passes Kolmogorov-Smirnov tests in every zone", {
  set.seed(42)
  a <- rstable(10, 1.2, 0.5)
  set.seed(42)
  expect_identical(rstable(10, 1.2, 0.5), a)
  set.seed(1)
  cases <- list(c(0.3, 0.7), c(0.8, -1), c(1, 0.9), c(1 - 1e-5, -0.6), c(1 + 1e-4, 1),
                c(1.5, 0), c(1.9, -0.9), c(2, 0))
  for (p in cases) {
    x <- rstable(4000, p[1], p[2], gamma = 1.5, delta = -1, device = "cpu")
    ks <- suppressWarnings(stats::ks.test(x, function(q) pstable(q, p[1], p[2], 1.5, -1)))
    expect_gt(ks$p.value, 1e-3, label = paste("KS p-value at alpha", p[1], "beta", p[2]))
  }
  # S1 draws are S0 draws shifted
  set.seed(3)
  x1 <- rstable(5, 1.3, 0.4, gamma = 2, pm = 1)
  set.seed(3)
  x0 <- rstable(5, 1.3, 0.4, gamma = 2, pm = 0)
  expect_equal(x1 - x0, rep(0.4 * 2 * tan(pi * 1.3 / 2), 5), tolerance = 1e-12)
})

test_that("bad input gives NaN with a warning or a clear error, as stats does", {
  expect_warning(v <- dstable(1, c(0, 2.5, 1), c(0, 0, 2)), "NaNs produced")
  expect_true(all(is.nan(v)))
  expect_warning(expect_true(is.nan(pstable(1, 1.5, 0, gamma = -1))), "NaNs produced")
  expect_warning(expect_true(is.nan(qstable(1.5, 1.5, 0))), "NaNs produced")
  expect_identical(dstable(c(NA, 1), 1.5, 0)[1], NA_real_)
  expect_true(is.nan(dstable(NaN, 1.5, 0)))
  expect_equal(dstable(c(-Inf, Inf), 1.5, 0), c(0, 0))
  expect_equal(pstable(c(-Inf, Inf), 1.5, 0), c(0, 1))
  expect_identical(dstable(numeric(0), 1.5, 0), numeric(0))
  expect_warning(expect_true(all(is.na(rstable(3, 3, 0)))), "NAs produced")
  expect_error(rstable(-1, 1.5, 0), class = "gpustats_error_argument")
  expect_error(rstable(2.5, 1.5, 0), class = "gpustats_error_argument")
  expect_error(dstable(1, 1.5, 0, pm = 2), class = "gpustats_error_argument")
  expect_error(dstable("a", 1.5, 0), class = "gpustats_error_argument")
  expect_identical(rstable(0, 1.5, 0), numeric(0))
  # recycling and attributes of the longest argument
  x <- matrix(c(-1, 0, 1, 2), 2, dimnames = list(c("a", "b"), NULL))
  expect_identical(dim(dstable(x, 1.5, 0)), c(2L, 2L))
  expect_equal(dstable(0, c(0.5, 1.5), c(0, 0.5)),
               c(dstable(0, 0.5, 0), dstable(0, 1.5, 0.5)))
})
