set.seed(11)
x <- exp(runif(2000, log(1e-3), log(140)))
nu <- runif(2000, 0, 20)

test_that("the three-term recurrence holds", {
  lk <- function(v) bessel_k(x, v, log = TRUE, device = "cpu")
  # K_{nu+1} = K_{nu-1} + (2 nu / x) K_nu, divided by K_{nu+1}
  nu1 <- nu + 1
  r <- exp(lk(nu1 - 1) - lk(nu1 + 1)) + (2 * nu1 / x) * exp(lk(nu1) - lk(nu1 + 1))
  expect_lte(max(abs(r - 1)), 1e-12)
})

test_that("K is decreasing in x and increasing in nu >= 0", {
  xs <- exp(seq(log(1e-3), log(700), length.out = 4000))
  for (v in c(0, 0.3, 0.5, 1, 2.7, 20, 75)) {
    expect_true(all(diff(bessel_k(xs, v, log = TRUE, device = "cpu")) < 0), label = paste("nu =", v))
  }
  vs <- seq(0, 60, by = 0.01)
  for (xx in c(1e-3, 0.2, 1, 5, 140)) {
    expect_true(all(diff(bessel_k(xx, vs, log = TRUE, device = "cpu")) > 0), label = paste("x =", xx))
  }
})

test_that("the value is continuous across the method boundaries", {
  # the jump across a boundary, less the first-order change, is rounding only
  eps <- 1e-9
  for (v in c(0.2, 1.7, 12.3)) {
    lo <- bessel_k(1 - eps, v, log = TRUE, device = "cpu")
    hi <- bessel_k(1 + eps, v, log = TRUE, device = "cpu")
    slope <- bessel_k_deriv(1, v, "x", device = "cpu")
    expect_lte(abs(hi - lo - 2 * eps * slope), 1e-14)
  }
  # across the order reduction at half-integers: nu = n + 1/2 -/+ eps
  z <- c(0.01, 0.7, 3, 50)
  for (v in c(0.5, 3.5, 10.5)) {
    a <- bessel_k(z, v - eps, log = TRUE, device = "cpu")
    b <- bessel_k(z, v + eps, log = TRUE, device = "cpu")
    slope <- bessel_k_deriv(z, v, "nu", device = "cpu")
    expect_lte(max(abs(b - a - 2 * eps * slope) / pmax(1, abs(a))), 1e-14)
  }
})

test_that("closed forms at half-integer orders are reproduced", {
  z <- c(1e-3, 0.1, 1, 7, 40)
  expect_equal(bessel_k(z, 0.5, expon_scaled = TRUE, device = "cpu"), sqrt(pi / (2 * z)), tolerance = 1e-15)
  expect_equal(bessel_k(z, 1.5, expon_scaled = TRUE, device = "cpu"),
               sqrt(pi / (2 * z)) * (1 + 1 / z), tolerance = 2e-15)
})

test_that("agrees with base R where base R is accurate", {
  keep <- x > 0.01 & x < 100
  expect_equal(bessel_k(x[keep], nu[keep], device = "cpu"), besselK(x[keep], nu[keep]), tolerance = 1e-12)
})

test_that("derivatives agree with finite differences of log K", {
  h <- 1e-5
  xx <- c(0.01, 0.5, 3, 40); vv <- c(0.3, 2.2, 7.9, 15)
  fd_nu <- (bessel_k(xx, vv + h, log = TRUE, device = "cpu") - bessel_k(xx, vv - h, log = TRUE, device = "cpu")) / (2 * h)
  expect_equal(bessel_k_deriv(xx, vv, "nu", device = "cpu"), fd_nu, tolerance = 1e-7)
  fd_x <- (bessel_k(xx * (1 + h), vv, log = TRUE, device = "cpu") - bessel_k(xx * (1 - h), vv, log = TRUE, device = "cpu")) / (2 * h * xx)
  expect_equal(bessel_k_deriv(xx, vv, "x", device = "cpu"), fd_x, tolerance = 1e-7)
})

test_that("extreme arguments give finite logarithms", {
  expect_true(is.finite(bessel_k(1e-300, 50, log = TRUE, device = "cpu")))
  expect_true(is.finite(bessel_k(1e-320, 0.3, log = TRUE, device = "cpu")))
  expect_true(is.finite(bessel_k(1e5, 3, log = TRUE, device = "cpu")))
  expect_equal(bessel_k(1e5, 3, log = TRUE, device = "cpu"),
               -1e5 + 0.5 * log(pi / 2e5) + log1p((4 * 9 - 1) / 8e5 + (35 * 27) / (2 * 64e10)),
               tolerance = 1e-12)
  # K_nu(x) ~ Gamma(nu)/2 (2/x)^nu for small x
  expect_equal(bessel_k(1e-200, 7.5, log = TRUE, device = "cpu"),
               lgamma(7.5) - log(2) + 7.5 * log(2e200), tolerance = 1e-14)
})

test_that("very large orders use the uniform asymptotic expansion accurately", {
  # log K_nu(x) at 30 digits
  x <- c(1e-3, 1, 300, 999, 1)
  nu <- c(1000, 1000, 1000, 1000, 1000.5)
  ref <- c(13505.42973557045335692, 6597.674206338347701018, 871.6162538220591648613,
           -534.8265457134365663741, 6601.474532693311622436)
  got <- bessel_k(x, nu, log = TRUE, device = "cpu")
  expect_lte(max(abs(got - ref) / abs(ref)), 4e-16)
  # continuous with the recurrence just below the switch, derivatives included
  z <- c(0.01, 3, 800, 5000)
  below <- 1000 - 1e-7
  a <- bessel_k(z, below, log = TRUE, device = "cpu")
  b <- bessel_k(z, 1000, log = TRUE, device = "cpu")
  slope <- bessel_k_deriv(z, 1000, "nu", device = "cpu")
  expect_lte(max(abs(b - a - 1e-7 * slope) / abs(b)), 1e-14)
  expect_equal(bessel_k_deriv(z, below, "nu", device = "cpu"), slope, tolerance = 1e-9)
  expect_equal(bessel_k_deriv(z, below, "x", device = "cpu"), bessel_k_deriv(z, 1000, "x", device = "cpu"),
               tolerance = 1e-9)
  # and quick: no per-unit-of-order work
  expect_true(is.finite(bessel_k(2, 1e12, log = TRUE, device = "cpu")))
})
