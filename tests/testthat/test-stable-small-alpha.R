# The alpha-stable laws at small alpha: the plain integrals below
# alpha = 1e-3, the limit law below 1e-200, quantiles as the distance from
# zeta, and draws.

tiny_ref <- function() utils::read.csv(test_path("fixtures", "stable-tiny-alpha.csv"))

test_that("small alpha matches mpmath in each regime", {
  # tools/make-stable-small-alpha.py tiny (40 digits). Worst relative errors
  # measured, per regime (density where it is a normal double; probabilities
  # both tails, linear and log):
  #   general rules, alpha = 5e-3, 2e-3:        density 8.6e-14, probabilities 9.1e-15
  #   plain rule, alpha = 1e-3 .. 1e-20:        density 6.7e-14, probabilities 6.7e-16
  #   limit law, alpha = 1e-300:                density 5.9e-14, probabilities 2.2e-16
  # (the density is exp(log density), whose rounding grows with |log
  # density|, up to 690 here).
  ref <- tiny_ref()
  rel <- function(v, r) abs(v / r - 1)
  for (regime in list(list(ref$alpha > 1e-3, "general"),
                      list(ref$alpha <= 1e-3 & ref$alpha >= 1e-200, "plain"),
                      list(ref$alpha < 1e-200, "limit"))) {
    r <- ref[regime[[1]], ]
    by_pm <- function(f, ...) {
      v <- numeric(nrow(r))
      for (pm in 0:1) {
        i <- r$pm == pm
        v[i] <- f(r$x[i], r$alpha[i], r$beta[i], pm = pm, ..., device = "cpu")
      }
      v
    }
    d <- by_pm(dstable)
    ld <- by_pm(dstable, log = TRUE)
    lo <- by_pm(pstable)
    up <- by_pm(pstable, lower.tail = FALSE)
    llo <- by_pm(pstable, log.p = TRUE)
    lup <- by_pm(pstable, lower.tail = FALSE, log.p = TRUE)
    normal <- r$pdf > 1e-300
    label <- regime[[2]]
    expect_lt(max(rel(d, r$pdf)[normal]), 1e-13, label = paste(label, "density"))
    # the log density also where the density underflows (to 1e-600)
    expect_lt(max(abs(ld - log(r$pdf))[normal]), 1e-12, label = paste(label, "log density"))
    expect_lt(max(rel(lo, r$cdf)), 1e-14, label = paste(label, "cdf"))
    expect_lt(max(rel(up, r$ccdf)), 1e-14, label = paste(label, "upper tail"))
    expect_lt(max(abs(llo - log(r$cdf))), 1e-14, label = paste(label, "log cdf"))
    expect_lt(max(abs(lup - log(r$ccdf))), 1e-14, label = paste(label, "log upper tail"))
  }
  # the log density where the density is not a normal double (down to
  # 1e-604), from the reference's digits
  txt <- utils::read.csv(test_path("fixtures", "stable-tiny-alpha.csv"), colClasses = "character")
  tiny <- ref$pdf < 1e-300 & ref$pm == 0
  parts <- strsplit(txt$pdf[tiny], "e", fixed = TRUE)
  lref <- vapply(parts, function(s) log(as.numeric(s[1])) + as.numeric(s[2]) * log(10), 1)
  ld <- dstable(ref$x[tiny], ref$alpha[tiny], ref$beta[tiny], log = TRUE, device = "cpu")
  expect_lt(max(abs(ld / lref - 1)), 1e-15)
})

test_that("the reproducers at tiny alpha", {
  # pstable(1, 1e-12, 0.3) was 0.5722, alpha = 1e-308 NaN with a warning,
  # qstable(0.3, 1e-308, 0.3) 3.8e219
  lim <- 0.35 + 0.65 * exp(-1)  # the limit law: (1 - beta) / 2 + (1 + beta) / 2 e^-1
  expect_equal(pstable(1, 1e-12, 0.3, device = "cpu"), 0.5891216367615755337916, tolerance = 1e-14)
  expect_silent(p <- pstable(1, c(1e-308, 5e-324), 0.3, device = "cpu"))
  expect_equal(p, c(lim, lim), tolerance = 1e-15)
  expect_equal(dstable(1, 1e-308, 0.3, device = "cpu"), 0.65 * exp(-1) * 1e-308, tolerance = 1e-12)
  expect_equal(dstable(1, 1e-12, 0.3, device = "cpu"), 2.391216367613248256205e-13, tolerance = 1e-14)
  # P(X <= z) = 0.3 < P(X <= zeta) = 0.35: z lies left of zeta = -B, closer
  # than exp(-6e307), i.e. at -B in S0 and at (minus) 0 in S1
  expect_equal(qstable(0.3, 1e-308, 0.3, device = "cpu"), -0.3 * tan(pi / 2 * 1e-308), tolerance = 1e-12)
  expect_identical(qstable(0.3, 1e-308, 0.3, pm = 1, device = "cpu"), 0)
  # the upper quantiles beyond the largest double are infinite, not NaN
  expect_identical(qstable(0.9, 1e-3, 0.3, device = "cpu"), Inf)
})

test_that("the S1 quantile near zeta keeps its relative precision", {
  # qstable(0.3, 0.01, 0.3, pm = 1) was exactly 0 (z + B cancelled). The
  # reference is one Newton step at 40 digits from the value returned
  # (tools/make-stable-small-alpha.py newton 1e-2 0.3 0.3 -6.7716332340214137e-30):
  # the cdf there is 0.3 - 3.2e-18, the value within 3.3e-15 of the step
  q <- qstable(0.3, 0.01, 0.3, pm = 1, device = "cpu")
  expect_equal(q, -6.771633234021391113e-30, tolerance = 1e-13)
  expect_equal(pstable(q, 0.01, 0.3, pm = 1, device = "cpu"), 0.3, tolerance = 1e-14)
  # at small alpha, both sides of zeta and both tails
  for (p in c(1e-10, 0.3, 0.34, 0.36, 0.5, 0.9)) for (a in c(1e-3, 3e-3)) {
    q <- qstable(p, a, 0.3, pm = 1, device = "cpu")
    if (is.finite(q) && q != 0)
      expect_equal(pstable(q, a, 0.3, pm = 1, device = "cpu"), p, tolerance = 1e-13,
                   label = paste("p =", p, "alpha =", a))
    qu <- qstable(p, a, 0.3, pm = 1, lower.tail = FALSE, device = "cpu")
    if (is.finite(qu) && qu != 0)
      expect_equal(pstable(qu, a, 0.3, pm = 1, lower.tail = FALSE, device = "cpu"), p,
                   tolerance = 1e-13, label = paste("upper p =", p, "alpha =", a))
  }
})

test_that("alpha from 1e-308 to 1e-8: no NaN, the tails sum to 1, quantiles in order", {
  g <- expand.grid(alpha = c(5e-324, 1e-308, 1e-200, 1e-100, 1e-20, 1e-8),
                   beta = c(-1, -0.3, 0, 0.3, 1),
                   x = c(-1e300, -1, -1e-300, 0, 1e-300, 1, 1e300))
  for (pm in 0:1) {
    d <- dstable(g$x, g$alpha, g$beta, pm = pm, log = TRUE, device = "cpu")
    lo <- pstable(g$x, g$alpha, g$beta, pm = pm, device = "cpu")
    up <- pstable(g$x, g$alpha, g$beta, pm = pm, lower.tail = FALSE, device = "cpu")
    lup <- pstable(g$x, g$alpha, g$beta, pm = pm, lower.tail = FALSE, log.p = TRUE, device = "cpu")
    expect_false(anyNA(c(d, lo, up, lup)))
    expect_lt(max(abs(lo + up - 1)), 1e-15)
    expect_equal(lup[up > 0], log(up[up > 0]), tolerance = 1e-14)
  }
  q <- qstable(rep(c(1e-300, 0.1, 0.5, 0.9), each = 6), rep(unique(g$alpha), 4), 0.3,
               device = "cpu")
  expect_false(anyNA(q))
  expect_false(any(apply(matrix(q, 6), 1, is.unsorted)))
})

test_that("rstable at small alpha follows pstable", {
  # counts in intervals of the S1 variable against pstable's probabilities
  # (|X1|^-alpha is about exponential, so draws reach 0 and Inf)
  set.seed(11)
  n <- 20000
  # (at alpha = 0.001 and 0.01 a part of the draws was NaN, where
  # cos(U)^(-1/alpha) overflowed: 19.6 % and 0.04 % of 1e5)
  for (a in c(1e-2, 1e-3, 1e-12)) {
    x <- rstable(n, a, 0.3, pm = 1, device = "cpu")
    expect_false(anyNA(x))
    edges <- c(-Inf, -1e100, -1, -1e-100, 1e-100, 1, 1e100, Inf)
    prob <- diff(c(0, pstable(edges[-c(1, 8)], a, 0.3, pm = 1, device = "cpu"), 1))
    counts <- table(cut(x, edges, include.lowest = TRUE))
    keep <- prob > 0
    chi <- sum((counts[keep] - n * prob[keep])^2 / (n * prob[keep]))
    expect_gt(stats::pchisq(chi, sum(keep) - 1, lower.tail = FALSE), 1e-3)
  }
})

test_that("small alpha on the GPU agrees with the CPU", {
  skip_without_gpu()
  set.seed(3)
  n <- 5000
  x <- sinh(runif(n, -690, 690))
  a <- 10^runif(n, -300, -2.5)
  b <- runif(n, -1, 1)
  expect_stable_gpu_equal_cpu(x, a, b, 1e-13)
  p <- runif(500)
  qg <- qstable(p, a[1:500], b[1:500], pm = 1, device = "gpu")
  qc <- qstable(p, a[1:500], b[1:500], pm = 1, device = "cpu")
  expect_identical(is.finite(qg), is.finite(qc))
  f <- is.finite(qc) & qc != 0
  expect_lt(max(abs(qg[f] / qc[f] - 1)), 1e-10)
  set.seed(5)
  rg <- rstable(1e5, 1e-3, 0.4, device = "gpu")
  set.seed(5)
  rc <- rstable(1e5, 1e-3, 0.4, device = "cpu")
  f <- is.finite(rc)
  expect_identical(is.finite(rg), f)
  expect_lt(max(abs(rg[f] - rc[f]) / pmax(1e-300, abs(rc[f]))), 1e-10)
})
