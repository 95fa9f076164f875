# S2 (pm = 2), Nolan's parameterization as stabledist defines it: the S0
# law with gamma0 = alpha^(-1 / alpha) gamma and delta0 = delta - gamma0 m,
# m the mode of the standard S0 law, so that the mode is at delta.

s2_as_s0 <- function(alpha, beta, gamma, delta) {
  g0 <- alpha^(-1 / alpha) * gamma
  list(gamma = g0, delta = delta - g0 * stable_mode(alpha, beta))
}

test_that("stable_mode matches 40-digit modes (S0 and S1)", {
  # measured: 3.2e-14 at worst (relative, or absolute below 1) but at
  # beta = 0.01 with alpha = 0.7 (2.9e-13, the mode 0.011 from zeta, where
  # the density of alpha < 1 is not analytic) and 0.5 (8.6e-14); median
  # 3.7e-15 (S1: 1.0e-14)
  r <- read_fixture("stable-mode.csv")
  # the mode of -beta is minus that of beta
  m0 <- stable_mode(c(r$alpha, r$alpha), c(r$beta, -r$beta))
  err0 <- abs(m0 - c(r$mode0, -r$mode0)) / pmax(1, abs(c(r$mode0, r$mode0)))
  expect_lt(max(err0), 5e-13)
  expect_lt(max(err0[abs(c(r$beta, r$beta)) != 0.01]), 5e-14)
  expect_lt(median(err0), 1e-14)
  s1 <- r$alpha != 1
  m1 <- stable_mode(r$alpha[s1], r$beta[s1], pm = 1)
  err1 <- abs(m1 - r$mode1[s1]) / pmax(1, abs(r$mode1[s1]))
  expect_lt(max(err1), 5e-13)
  expect_lt(median(err1), 2e-14)
  # stabledist's stableMode() agrees to its tolerance of 1.2e-4 (measured
  # at most 1e-5 here, 7e-6 at alpha = 0.3, beta = 1)
  skip_if_not_installed("stabledist")
  theirs <- suppressWarnings(mapply(stabledist::stableMode, r$alpha, r$beta))
  expect_lt(max(abs(theirs - r$mode0)), 1e-4)
})

test_that("stable_mode has the closed forms and location-scale rules", {
  # Levy (alpha = 1/2, beta = 1): the S1 density x^-3/2 exp(-1 / (2x)) peaks at 1/3.
  # The search places modes to about 5e-15 (?stable_mode); the last digits
  # move with the machine's arithmetic (1.2e-15 here, 2.4e-15 on another host).
  expect_equal(stable_mode(0.5, 1, pm = 1), 1 / 3, tolerance = 1e-14)
  expect_equal(stable_mode(0.5, -1), 2 / 3, tolerance = 1e-14)
  expect_equal(stable_mode(c(2, 1.3, 1, 0.4), c(0.7, 0, 0, 0), 2, 5), rep(5, 4))
  m <- stable_mode(1.3, 0.4)
  expect_equal(stable_mode(1.3, 0.4, 3, -2), -2 + 3 * m, tolerance = 1e-15)
  expect_equal(stable_mode(1.3, 0.4, 3, -2, pm = 1), -2 + 3 * (m + 0.4 * tan(1.3 * pi / 2)),
               tolerance = 1e-15)
  expect_equal(stable_mode(1, 0.4, 3, -2, pm = 1), -2 + 3 * (stable_mode(1, 0.4) + 0.4 * 2 / pi * log(3)),
               tolerance = 1e-15)
  expect_identical(stable_mode(1.3, 0.4, 3, -2, pm = 2), -2)
  # the density is maximal there, within its rounding: a step of 1e-7
  # lowers it by f'' 1e-14 / 2, about 1e-15 relative
  for (ab in list(c(0.6, 0.8), c(1, -0.5), c(1.7, 1), c(0.35, 0.9))) {
    m <- stable_mode(ab[1], ab[2], 2, 1)
    f <- dstable(m + c(-1e-3, -1e-7, 0, 1e-7, 1e-3), ab[1], ab[2], 2, 1)
    expect_true(all(f[3] >= f[-3] * (1 - 1e-15)), label = paste(ab, collapse = ", "))
  }
  # vectorised, recycled, with the attributes of the longest argument
  a <- c(one = 0.7, two = 1.5, three = 1.5)
  expect_equal(stable_mode(a, 0.5), c(one = stable_mode(0.7, 0.5), two = stable_mode(1.5, 0.5),
                                      three = stable_mode(1.5, 0.5)))
  expect_identical(stable_mode(numeric(0), 0.5), numeric(0))
})

test_that("stable_mode flags invalid parameters as the distribution functions do", {
  expect_warning(v <- stable_mode(c(1.5, 3, 1.5, 1.5, NA), c(0, 0, 2, 0, 0), c(1, 1, 1, -1, 1)),
                 "NaNs produced")
  expect_identical(is.nan(v), c(FALSE, TRUE, TRUE, TRUE, FALSE))
  expect_true(is.na(v[5]))
  for (pm in list(3, NA, "2", c(0, 2), -1)) {
    expect_error(stable_mode(1.5, 0, pm = pm), class = "gpustats_error_argument")
  }
  expect_error(stable_mode("a", 0), class = "gpustats_error_argument")
})

test_that("pm = 2 matches 40-digit S2 values", {
  r <- read_fixture("stable-s2.csv")
  # measured: 9.5e-15 relative at worst
  rel <- function(x, ref) max(abs(x - ref) / ref)
  expect_lt(rel(dstable(r$x, r$alpha, r$beta, pm = 2), r$pdf), 1e-13)
  expect_lt(rel(pstable(r$x, r$alpha, r$beta, pm = 2), r$cdf), 1e-13)
  expect_lt(rel(pstable(r$x, r$alpha, r$beta, pm = 2, lower.tail = FALSE), r$ccdf), 1e-13)
  # a scale and location move the argument only
  expect_lt(rel(dstable(3 + 2 * r$x, r$alpha, r$beta, 2, 3, pm = 2), r$pdf / 2), 1e-13)
})

test_that("pm = 2 has the Gaussian, Cauchy and Levy laws in closed form", {
  x <- c(-30, -3, -0.5, 0, 0.7, 2, 25)
  # alpha = 2: gamma0 = gamma / sqrt(2), the variance 2 gamma0^2 = gamma^2
  expect_equal(dstable(x, 2, 0.6, 1.5, 1, pm = 2), dnorm(x, 1, 1.5), tolerance = 1e-14)
  expect_equal(pstable(x, 2, -1, 1.5, 1, pm = 2), pnorm(x, 1, 1.5), tolerance = 1e-14)
  expect_equal(qstable(c(1e-10, 0.3, 0.9), 2, 0, 1.5, 1, pm = 2), qnorm(c(1e-10, 0.3, 0.9), 1, 1.5),
               tolerance = 1e-14)
  # alpha = 1, beta = 0: Cauchy, gamma0 = gamma
  expect_equal(dstable(x, 1, 0, 0.5, -1, pm = 2), dcauchy(x, -1, 0.5), tolerance = 1e-14)
  expect_equal(pstable(x, 1, 0, 0.5, -1, pm = 2), pcauchy(x, -1, 0.5), tolerance = 1e-14)
  # alpha = 1/2, beta = 1: Levy with scale gamma0 = 4 gamma, its mode a third
  # of that above its start
  g0 <- 4 * 0.25
  start <- 2 - g0 / 3
  y <- start + c(0.01, 0.1, 1 / 3, 1, 10, 1e4)
  levy <- sqrt(g0 / (2 * pi)) * (y - start)^-1.5 * exp(-g0 / (2 * (y - start)))
  levy_cdf <- 2 * pnorm(-sqrt(g0 / (y - start)))
  # Where the law is steep (y - start = 0.01: d log f / dy = 4850) an error
  # e in the mode moves the values by e g0 times the slope: allow e = 1e-14.
  slope_pdf <- abs(-1.5 / (y - start) + g0 / (2 * (y - start)^2))
  slope_cdf <- dnorm(sqrt(g0 / (y - start))) * sqrt(g0) * (y - start)^-1.5 / levy_cdf
  expect_true(all(abs(dstable(y, 0.5, 1, 0.25, 2, pm = 2) / levy - 1) < 1e-13 + 1e-14 * g0 * slope_pdf))
  expect_true(all(abs(pstable(y, 0.5, 1, 0.25, 2, pm = 2) / levy_cdf - 1) < 1e-13 + 1e-14 * g0 * slope_cdf))
})

test_that("pm = 2 is S0 at the converted parameters, as stabledist defines it", {
  skip_if_not_installed("stabledist")
  # stabledist's pm = 2 is its S0 law at delta - gamma0 stableMode(), so
  # (1) ours at its mode matches its pm = 2, and (2) its S0 at our mode
  # matches our pm = 2, both as closely as its S0 matches ours: measured
  # 2.0e-13 relative for |beta| < 1 and 2.4e-8 at |beta| = 1 on a grid of
  # 7 alpha, 5 beta, 3 (gamma, delta) and 7 x, of which this is a part
  # (stabledist's thin tail at alpha = 1.2; its S0 at alpha = 1, beta = -+1,
  # off by 1.8e-6, is left out). Its pm = 2 itself differs from ours by up
  # to 1.8e-3, the error of its mode (optimize() to 1.2e-4, beta capped at
  # 1 - 1e-11).
  rel <- function(u, v) max(ifelse(u == v, 0, abs(u - v) / abs(v)))
  for (a in c(0.3, 0.8, 1.2, 1.9, 2)) {
    for (b in c(-1, -0.4, 0.6)) {
      tol <- if (abs(b) == 1) 5e-8 else 1e-12
      for (gd in list(c(1, 0), c(0.1, 3))) {
        x <- gd[2] + gd[1] * c(-5, -0.3, 0, 0.2, 4)
        label <- paste(a, b, gd[1], gd[2])
        s0 <- s2_as_s0(a, b, gd[1], gd[2])
        theirs <- suppressWarnings(stabledist::dstable(x, a, b, s0$gamma, s0$delta, pm = 0))
        expect_lt(rel(dstable(x, a, b, gd[1], gd[2], pm = 2), theirs), tol, label = label)
        m <- suppressWarnings(stabledist::stableMode(a, b))
        theirs2 <- suppressWarnings(stabledist::dstable(x, a, b, gd[1], gd[2], pm = 2))
        expect_lt(rel(dstable(x, a, b, s0$gamma, gd[2] - s0$gamma * m), theirs2), tol, label = label)
      }
    }
  }
})

test_that("pm = 2 quantiles invert the distribution function, in both tails", {
  # (p = 1e-100: the quantiles of smaller p exceed the doubles at alpha < 0.9)
  p <- c(1e-100, 1e-10, 0.01, 0.3, 0.5, 0.8)
  for (ab in list(c(0.4, 0.7), c(0.9, -1), c(1, 0.5), c(1.6, 0.2))) {
    q <- qstable(p, ab[1], ab[2], 2, -1, pm = 2)
    expect_lt(max(abs(pstable(q, ab[1], ab[2], 2, -1, pm = 2) / p - 1)), 1e-12)
    q <- qstable(log(p), ab[1], ab[2], 2, -1, pm = 2, lower.tail = FALSE, log.p = TRUE)
    expect_lt(max(abs(pstable(q, ab[1], ab[2], 2, -1, pm = 2, lower.tail = FALSE, log.p = TRUE) /
                        log(p) - 1)), 1e-13)
    # x from the log of its smaller tail (next to the end of the support of
    # alpha = 0.9, beta = -1 the upper tail is far below 1e-16)
    x <- c(-10, -1, 0, 0.5, 3)
    up <- x > 0
    lower <- pstable(x, ab[1], ab[2], pm = 2, log.p = TRUE)
    upper <- pstable(x, ab[1], ab[2], pm = 2, lower.tail = FALSE, log.p = TRUE)
    back <- ifelse(up, qstable(upper, ab[1], ab[2], pm = 2, lower.tail = FALSE, log.p = TRUE),
                   qstable(lower, ab[1], ab[2], pm = 2, log.p = TRUE))
    expect_lt(max(abs(back - x)), 1e-12 * 10)
  }
})

test_that("rstable with pm = 2 draws the S2 law", {
  # the same variates as the law in S0 (S1 for alpha < 1/2) moved by the mode
  set.seed(3)
  x2 <- rstable(20, 1.4, -0.6, 2, 1, pm = 2)
  set.seed(3)
  s0 <- s2_as_s0(1.4, -0.6, 2, 1)
  expect_equal(x2, rstable(20, 1.4, -0.6, s0$gamma, s0$delta), tolerance = 1e-15)
  set.seed(3)
  x2 <- rstable(20, 0.3, 0.8, 2, 1, pm = 2)
  set.seed(3)
  g0 <- 0.3^(-1 / 0.3) * 2
  expect_equal(x2, rstable(20, 0.3, 0.8, g0, 1 - g0 * stable_mode(0.3, 0.8, pm = 1), pm = 1),
               tolerance = 1e-15)
  # and they follow pstable(pm = 2) (Kolmogorov-Smirnov, fixed seed)
  for (ab in list(c(0.7, 1), c(1, 0.5), c(1.8, -0.3))) {
    set.seed(11)
    x <- rstable(3000, ab[1], ab[2], 0.5, 2, pm = 2)
    ks <- stats::ks.test(x, function(q) pstable(q, ab[1], ab[2], 0.5, 2, pm = 2))
    expect_gt(ks$p.value, 0.01)
  }
})

test_that("pm = 2 with alpha on both sides of 1/2 in one call equals separate calls", {
  a <- c(0.3, 1.5, 0.45, 0.8)
  x <- matrix(c(-1, 0, 0.5, 2), 2, dimnames = list(c("u", "v"), NULL))
  v <- dstable(x, a, 0.7, 2, 1, pm = 2)
  expect_equal(dim(v), c(2L, 2L))
  expect_equal(dimnames(v), dimnames(x))
  expect_equal(as.vector(v), mapply(function(x, a) dstable(x, a, 0.7, 2, 1, pm = 2), as.vector(x), a))
  # one warning, though the call is split in two
  n <- 0L
  v <- withCallingHandlers(pstable(0.5, c(0.3, 1.5, 3, 0.2), c(0.7, 0.7, 0, 2), pm = 2),
                           warning = function(w) {
                             n <<- n + 1L
                             invokeRestart("muffleWarning")
                           })
  expect_identical(n, 1L)
  expect_identical(is.nan(v), c(FALSE, FALSE, TRUE, TRUE))
  set.seed(2)
  r <- rstable(6, c(0.3, 1.5), 0.7, pm = 2)
  expect_length(r, 6)
  expect_true(all(is.finite(r)))
  expect_equal(qstable(c(0.2, 0.7), c(0.3, 1.5), -0.2, pm = 2),
               c(qstable(0.2, 0.3, -0.2, pm = 2), qstable(0.7, 1.5, -0.2, pm = 2)))
})

test_that("pm = 2 keeps the NaN, NA and recycling rules", {
  expect_warning(v <- dstable(0, c(1.5, 0, 1.5, 1.5), c(0, 0, 2, 0), c(1, 1, 1, Inf), pm = 2),
                 "NaNs produced")
  expect_identical(is.nan(v), c(FALSE, TRUE, TRUE, TRUE))
  expect_true(is.na(dstable(NA, 1.5, 0.3, pm = 2)))
  expect_true(is.na(pstable(0, NA, 0.3, pm = 2)))
  expect_identical(dstable(numeric(0), 1.5, 0.3, pm = 2), numeric(0))
  expect_identical(rstable(0, 1.5, 0.3, pm = 2), numeric(0))
  expect_equal(dstable(c(a = 1, b = 2), 1.5, 0.3, pm = 2),
               c(a = dstable(1, 1.5, 0.3, pm = 2), b = dstable(2, 1.5, 0.3, pm = 2)))
  # the names of a longest delta survive the conversion
  expect_named(dstable(1, 1.5, 0.3, delta = c(p = 0, q = 1), pm = 2), c("p", "q"))
  for (pm in list(3, NA, "2", c(0, 2), 2.5)) {
    for (f in list(dstable, pstable, qstable)) {
      expect_error(f(0.5, 1.5, 0, pm = pm), class = "gpustats_error_argument")
    }
    expect_error(rstable(2, 1.5, 0, pm = pm), class = "gpustats_error_argument")
    expect_error(stable_fit(rnorm(30), pm = pm), class = "gpustats_error_argument")
  }
  expect_error(dstable(0.5, 1.5, 0, pm = 3), "must be 0 \\(S0\\), 1 \\(S1\\) or 2 \\(S2\\)")
})

test_that("stable_fit with pm = 2 reports the S0 fit in S2", {
  set.seed(4)
  x <- rstable(400, 1.5, 0.5, 2, 1, pm = 2)
  f0 <- stable_fit(x, device = "cpu")
  f2 <- stable_fit(x, pm = 2, device = "cpu")
  c0 <- coef(f0)
  c2 <- coef(f2)
  expect_equal(c2[1:2], c0[1:2])
  expect_equal(c2[["gamma"]], c0[["gamma"]] * c0[["alpha"]]^(1 / c0[["alpha"]]), tolerance = 1e-15)
  expect_equal(c2[["delta"]], stable_mode(c0[["alpha"]], c0[["beta"]], c0[["gamma"]], c0[["delta"]]),
               tolerance = 1e-15)
  expect_equal(f2$loglik, f0$loglik)
  expect_equal(sum(dstable(x, c2[1], c2[2], c2[3], c2[4], pm = 2, log = TRUE)), f0$loglik,
               tolerance = 1e-12)
  expect_identical(f2$pm, 2)
  expect_output(print(f2), "S2")
  # the covariance by the delta method, with the Jacobian of the map from S0
  # to S2 estimates by central differences of step 1e-3 (Richardson)
  to_s2 <- function(p) c(p[1], p[2], p[3] * p[1]^(1 / p[1]), stable_mode(p[1], p[2], p[3], p[4]))
  jac <- sapply(1:4, function(j) {
    d <- function(h) {
      e <- replace(numeric(4), j, h)
      (to_s2(c0 + e) - to_s2(c0 - e)) / (2 * h)
    }
    (4 * d(5e-4) - d(1e-3)) / 3
  })
  expect_equal(vcov(f2), jac %*% vcov(f0) %*% t(jac), tolerance = 1e-6, ignore_attr = TRUE)
  expect_identical(dimnames(vcov(f2)), dimnames(vcov(f0)))
  # a batch: the same rows
  tab <- stable_fit(list(x, x[1:200]), method = "mcculloch", pm = 2)
  one <- stable_fit(x, method = "mcculloch", pm = 2)
  expect_equal(unlist(tab[1, 1:4]), coef(one), ignore_attr = TRUE)
})

test_that("the four functions still take every argument of stabledist's with pm = 2", {
  skip_if_not_installed("stabledist")
  for (f in c("dstable", "pstable", "qstable", "rstable")) {
    theirs <- formals(getExportedValue("stabledist", f))
    ours <- formals(getExportedValue("gpustats", f))
    expect_identical(names(ours)[seq_along(theirs)], names(theirs), label = f)
  }
  # a stabledist call with pm = 2 runs unchanged
  expect_equal(dstable(1, 1.5, 0.3, 2, 1, 2, FALSE, 1e-10, NULL, 100),
               dstable(1, 1.5, 0.3, 2, 1, pm = 2))
})

test_that("pm = 2 on the GPU agrees with the CPU (the mode, and so the frame, is the same)", {
  skip_without_gpu()
  set.seed(12)
  n <- 20000
  x <- runif(n, -20, 20)
  # 40 distinct (alpha, beta) pairs on both sides of alpha = 1/2
  a <- rep(runif(40, 0.3, 2), length.out = n)
  b <- rep(runif(40, -1, 1), length.out = n)
  g <- dstable(x, a, b, 2, 1, pm = 2, log = TRUE, device = "gpu")
  c <- dstable(x, a, b, 2, 1, pm = 2, log = TRUE, device = "cpu")
  expect_lt(max(abs(g - c) / pmax(1, abs(c))), 1e-12)
  g <- pstable(x, a, b, 2, 1, pm = 2, device = "gpu")
  c <- pstable(x, a, b, 2, 1, pm = 2, device = "cpu")
  expect_lt(max(abs(g / c - 1)[c > 1e-300]), 1e-12)
  set.seed(5)
  rg <- rstable(1e5, c(0.4, 1.3), 0.4, pm = 2, device = "gpu")
  set.seed(5)
  rc <- rstable(1e5, c(0.4, 1.3), 0.4, pm = 2, device = "cpu")
  expect_lt(max(abs(rg - rc) / pmax(1, abs(rc))), 1e-10)
})
