# Subnormal, tiny and huge x, and orders from 1000 up, against 40-digit
# references (tools/make-reference.py, besselk-extreme.csv).

ext <- utils::read.csv(test_path("fixtures", "besselk-extreme.csv"), stringsAsFactors = FALSE)
# the reference as R reads it: beyond the double range it is Inf or 0, the
# value a correctly rounded result has there
representable <- function(v) is.finite(v) & abs(v) >= .Machine$double.xmin
ref_row <- function(x, nu) {
  r <- ext[ext$x == x & ext$nu == nu, ]
  stopifnot(nrow(r) == 1L)
  r
}

test_that("the reproducers of subnormal and huge x give the true values", {
  r <- ref_row(1e-310, 0.5)
  expect_equal(bessel_k(1e-310, 0.5, device = "cpu"), r$K, tolerance = 1e-15) # was Inf
  r <- ref_row(1e-310, 1)
  expect_equal(bessel_k(1e-310, 1, log = TRUE, device = "cpu"), r$log_K, tolerance = 1e-15) # was Inf
  r <- ref_row(4.9e-324, 0) # 4.9e-324 reads as the smallest subnormal, 5e-324
  expect_no_warning(v <- bessel_k(4.9e-324, 0, device = "cpu")) # was NaN with a warning
  expect_equal(v, r$K, tolerance = 1e-15)
  r <- ref_row(5e-324, 0.7)
  expect_equal(bessel_k(5e-324, 0.7, device = "cpu"), r$K, tolerance = 1e-15) # was NaN
  r <- ref_row(1e308, 1)
  expect_equal(bessel_k(1e308, 1, log = TRUE, device = "cpu"), r$log_K, tolerance = 1e-15) # was -Inf
  expect_equal(bessel_k(1e308, 1, expon_scaled = TRUE, device = "cpu"), r$K_scaled, tolerance = 1e-15) # was 0
  r <- ref_row(1e-308, 0.7)
  expect_equal(bessel_k_deriv(1e-308, 0.7, device = "cpu"), r$dlogK_dnu, tolerance = 1e-15) # was NaN
  r <- ref_row(1e308, 0.7)
  expect_equal(bessel_k_deriv(1e308, 0.7, "x", device = "cpu"), r$dlogK_dx, tolerance = 1e-15) # was NaN
})

# worst error per region: relative for values and derivatives, absolute for
# logarithms below 1 in size, relative above
ext_err <- function(got, ref, log_scale = FALSE) {
  ok <- representable(ref)
  # outside the double range the result must be the rounded value itself
  # (Inf, 0) or a subnormal within a few steps of it
  exact <- !ok & (got == ref | abs(got - ref) < 4 * 5e-324)
  if (!all(ok | exact)) return(Inf)
  den <- if (log_scale) pmax(1, abs(ref)) else abs(ref)
  max(0, abs(got[ok] - ref[ok]) / den[ok])
}

# Measured worst cases, rounded up (relative error; absolute for logarithms
# below 1). The scaled values of Debye's region (orders >= 1000) are limited
# by their exponent, -nu^2 / (2x) or so, computed to a few ulps: 2.9e-13 at
# an exponent of 557 (the error an ulp of nu or x would cause is 1.4e-13);
# before, nu eta - x cancelled (2.3e-8). The order derivative at subnormal
# and tiny x carries the recurrence over up to 450 steps (2.6e-15).
ext_bound <- list(
  subnormal_x = c(log_K = 3e-16, log_K_scaled = 3e-16, K = 8e-16, K_scaled = 8e-16, dlogK_dnu = 4e-15, dlogK_dx = 3e-16),
  tiny_x = c(log_K = 3e-16, log_K_scaled = 3e-16, K = 4e-16, K_scaled = 4e-16, dlogK_dnu = 3e-15, dlogK_dx = 3e-16),
  huge_x = c(log_K = 3e-16, log_K_scaled = 3e-16, K = 4e-16, K_scaled = 4e-16, dlogK_dnu = 4e-16, dlogK_dx = 3e-16),
  debye = c(log_K = 6e-16, log_K_scaled = 8e-16, K = 4e-16, K_scaled = 4e-13, dlogK_dnu = 4e-16, dlogK_dx = 4e-16),
  huge_nu = c(log_K = 3e-16, log_K_scaled = 4e-16, K = 4e-16, K_scaled = 4e-16, dlogK_dnu = 3e-16, dlogK_dx = 3e-16)
)

test_that("values, logarithms and derivatives meet the per-region bounds", {
  got <- list(
    log_K = bessel_k(ext$x, ext$nu, log = TRUE, device = "cpu"),
    log_K_scaled = bessel_k(ext$x, ext$nu, expon_scaled = TRUE, log = TRUE, device = "cpu"),
    K = bessel_k(ext$x, ext$nu, device = "cpu"),
    K_scaled = bessel_k(ext$x, ext$nu, expon_scaled = TRUE, device = "cpu"),
    dlogK_dnu = bessel_k_deriv(ext$x, ext$nu, "nu", device = "cpu"),
    dlogK_dx = bessel_k_deriv(ext$x, ext$nu, "x", device = "cpu")
  )
  for (r in names(ext_bound)) {
    rows <- ext$region == r
    expect_gt(sum(rows), 0)
    for (q in names(ext_bound[[r]])) {
      err <- ext_err(got[[q]][rows], ext[[q]][rows], log_scale = startsWith(q, "log"))
      expect_lte(err, ext_bound[[r]][[q]], label = paste("worst error of", q, "in", r))
    }
  }
})

test_that("where K overflows it is Inf and its logarithm stays finite", {
  big <- !is.finite(ext$K) & is.finite(ext$log_K)
  expect_gt(sum(big), 20)
  expect_true(all(bessel_k(ext$x[big], ext$nu[big], device = "cpu") == Inf))
  expect_true(all(is.finite(bessel_k(ext$x[big], ext$nu[big], log = TRUE, device = "cpu"))))
})

test_that("every finite positive x and order gives a number without a warning", {
  xs <- c(5e-324, 1e-320, 2^-1022, 1e-300, 2^-400, 1e-100, 0.5, 1, 3, 1e17, 2^60, 1e300,
          .Machine$double.xmax)
  nus <- c(0, 1e-300, 1e-5, 0.3, 0.5, 0.7, 1, 2.5, 7.3, 999.99, 1000, 1e5, 1e15, 1e300,
           .Machine$double.xmax)
  g <- expand.grid(x = xs, nu = nus)
  for (mode in list(c(FALSE, FALSE), c(TRUE, FALSE), c(FALSE, TRUE), c(TRUE, TRUE))) {
    expect_no_warning(v <- bessel_k(g$x, g$nu, expon_scaled = mode[1], log = mode[2], device = "cpu"))
    expect_false(anyNA(v))
  }
  for (wrt in c("nu", "x")) {
    expect_no_warning(v <- bessel_k_deriv(g$x, g$nu, wrt, device = "cpu"))
    expect_false(anyNA(v))
  }
  # log K is finite wherever it is below the largest double
  expect_true(all(is.finite(bessel_k(g$x, g$nu, log = TRUE, device = "cpu")[g$nu < 1e300])))
})
