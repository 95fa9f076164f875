# Accuracy against 30-40 digit references, worst case per region.

ref <- besselk_reference()

test_that("log K meets the per-region bound on the CPU", {
  got <- bessel_k(ref$x, ref$nu, log = TRUE, device = "cpu")
  err <- abs(got - ref$log_K)
  bound <- c(core = 1e-13, small_x = 1e-13, near_int = 1e-13, ext_nu = 1e-12, ext_x = 1e-12)
  for (r in names(bound)) {
    worst <- max(err[ref$region == r])
    expect_lte(worst, bound[[r]], label = paste("worst |log K - ref| in", r))
  }
})

test_that("K and exp(x) K are accurate where they are representable", {
  ok <- ref$K > 1e-300 & ref$K < 1e300
  k <- bessel_k(ref$x[ok], ref$nu[ok], device = "cpu")
  expect_lte(max_rel_err(k, ref$K[ok]), 2e-13)
  oks <- ref$K_scaled > 1e-300 & ref$K_scaled < 1e300
  ks <- bessel_k(ref$x[oks], ref$nu[oks], expon_scaled = TRUE, device = "cpu")
  expect_lte(max_rel_err(ks, ref$K_scaled[oks]), 2e-13)
  # log of the scaled value
  ls <- bessel_k(ref$x, ref$nu, expon_scaled = TRUE, log = TRUE, device = "cpu")
  expect_lte(max(abs(ls - (ref$log_K + ref$x))), 2e-12)
})

test_that("derivatives of log K are accurate to 1e-10 relative", {
  dnu <- bessel_k_deriv(ref$x, ref$nu, "nu", device = "cpu")
  dx <- bessel_k_deriv(ref$x, ref$nu, "x", device = "cpu")
  expect_lte(max_rel_err(dnu, ref$dlogK_dnu), 1e-10)
  expect_lte(max_rel_err(dx, ref$dlogK_dx), 1e-10)
})

test_that("negative orders use K_{-nu} = K_nu", {
  expect_identical(bessel_k(ref$x, -ref$nu, log = TRUE, device = "cpu"),
                   bessel_k(ref$x, ref$nu, log = TRUE, device = "cpu"))
  expect_identical(bessel_k_deriv(ref$x, -ref$nu, "nu", device = "cpu"),
                   -bessel_k_deriv(ref$x, ref$nu, "nu", device = "cpu"))
})
