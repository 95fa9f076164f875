# Jones-Worland polynomials and transforms: references at 40 digits
# (fixtures/poly-jw.csv, tools/make-poly-reference.py), closed forms,
# orthonormality and round trips.

test_that("jw_eval() matches the extended-precision values, also where r^l underflows", {
  ref <- read_fixture("poly-jw.csv")
  for (norm in c("natural", "unit")) {
    v <- jw_eval(ref$n, ref$l, ref$r, norm = norm)
    want <- ref[[norm]]
    # relative to the polynomial's size (a zero of W has no relative accuracy)
    scale <- pmax(abs(want), abs(jw_eval(ref$n, ref$l, 1, norm = norm)))
    ok <- abs(want) > 1e-290
    # the recurrence's error grows with n and l: 1e-13 up to n = 40, l = 200; 2e-12 at n = 300, l = 600
    small <- ref$n <= 40 & ref$l <= 200
    expect_lte(max(abs(v[ok & small] - want[ok & small]) / scale[ok & small]), 1e-13)
    expect_lte(max(abs(v[ok] - want[ok]) / scale[ok]), 2e-12)
    expect_true(all(abs(v[!ok]) < 1e-290))
  }
  tiny <- ref$n == 300 & ref$r %in% c(0.3, 0.25) # r^600 < 1e-300, the value is not
  expect_equal(jw_eval(300, 600, ref$r[tiny], "natural"), ref$natural[tiny], tolerance = 1e-12)
})

test_that("W^0 and W^1 are Chebyshev polynomials, and W_n^l(1) has its closed form", {
  r <- seq(0, 1, length.out = 41)
  for (n in c(0, 1, 5, 30)) {
    expect_equal(jw_eval(n, 0, r), (if (n == 0) sqrt(2 / pi) else 2 / sqrt(pi)) * cos(2 * n * acos(r)),
                 tolerance = 1e-13)
    expect_equal(jw_eval(n, 1, r), 2 / sqrt(pi) * cos((2 * n + 1) * acos(r)), tolerance = 1e-13)
  }
  n <- 0:60
  for (l in c(0, 1, 4, 77)) {
    expect_equal(jw_eval(n, l, 1, "natural"), exp(lgamma(n + 0.5) - lgamma(n + 1)) / sqrt(pi), tolerance = 1e-13)
  }
})

test_that("W_n^l(1) is its closed form to the last bit, at every degree", {
  # mpmath at 40 digits of sqrt(2 (2n + l) Lambda(n) / (pi (n + l - 1/2) Lambda(n + l - 1))) and
  # Lambda(n) / sqrt(pi), Lambda(z) = Gamma(z + 1/2) / Gamma(z + 1); the recurrence was off by
  # 8.8e-9 at n = 20000 and 2.2e-5 at n = 1e6 (its error grows like n^2)
  n <- c(20000, 1e6, 1000, 1e6, 0)
  l <- c(0, 0, 7, 1e6, 3)
  unit <- c(1.1283791670955125739, 1.1283791670955125739, 1.128382108484009919, 1.1620991308107097549,
            1.4272992929222168916)
  natural <- c(0.0039893978701997225389, 0.00056418951302406275121, 0.01783901114585432073,
               0.00056418951302406275121, 1)
  expect_equal(jw_eval(n, l, 1), unit, tolerance = 2.3e-16)
  expect_equal(jw_eval(n, l, 1, "natural"), natural, tolerance = 2.3e-16)
})

test_that("the unit polynomials are orthonormal on a large enough grid", {
  for (l in c(0, 1, 2, 9, 40)) {
    N <- 12
    g <- jw_grid(N + ceiling(l / 2))
    W <- outer(g$r, 0:(N - 1), function(r, n) jw_eval(n, l, r))
    expect_lte(max(abs(crossprod(W, g$w * W) - diag(N))), 1e-13)
  }
  g <- jw_grid(5)
  expect_equal(g$r, cos(pi * (2 * 0:4 + 1) / 20))
  expect_equal(sum(g$w), pi / 2)
})

test_that("synthesis evaluates the expansion and analysis inverts it, by both methods", {
  skip_if_not(.Call(gpustats:::gs_r_poly_have_fftw), "built without FFTW3")
  set.seed(8)
  for (l in c(0, 1, 2, 5, 18, 33)) {
    N <- 20
    nr <- N + ceiling(l / 2) + 3
    coef <- matrix(rnorm(N * 4), N)
    W <- outer(jw_grid(nr)$r, 0:(N - 1), function(r, n) jw_eval(n, l, r))
    for (method in c("connection", "quadrature")) {
      v <- jwt_synthesis(coef, l, nr, method)
      expect_lte(max(abs(v - W %*% coef)) / max(abs(v)), 1e-13)
      expect_lte(max(abs(jwt_analysis(v, l, N, method) - coef)), 1e-13)
    }
  }
  expect_equal(jwt_synthesis(c(1, 2), 0, 4), drop(outer(jw_grid(4)$r, 0:1, function(r, n) jw_eval(n, 0, r)) %*% 1:2))
})

test_that("the connection method is accurate at l >= 130 on a grid of about 200 points", {
  skip_if_not(.Call(gpustats:::gs_r_poly_have_fftw), "built without FFTW3")
  set.seed(9)
  for (l in c(130, 131, 160)) {
    N <- 120
    nr <- N + ceiling(l / 2)
    coef <- matrix(rnorm(N * 2), N)
    v <- jwt_synthesis(coef, l, nr)
    expect_lte(max(abs(jwt_analysis(v, l, N) - coef)), 1e-13)
    # the quadrature's rescaled seed does not underflow: same values, larger error
    expect_lte(max(abs(jwt_synthesis(coef, l, nr, "quadrature") - v)) / max(abs(v)), 1e-11)
  }
})

test_that("the Jones-Worland functions refuse bad input", {
  expect_error(jw_eval(-1, 0, 0.5), class = "gpustats_error_argument")
  expect_error(jw_eval(1.5, 0, 0.5), class = "gpustats_error_argument")
  expect_error(jw_eval(1, 0, 1.5), class = "gpustats_error_argument")
  expect_error(jw_eval(1, 0, 0.5, norm = "x"), class = "gpustats_error_argument")
  expect_error(jw_grid(0), class = "gpustats_error_argument")
  expect_error(jwt_synthesis(1:10, 20, 12), "too small", class = "gpustats_error_argument")
  expect_error(jwt_analysis(1:12, 20, 10), "too small", class = "gpustats_error_argument")
  expect_error(jwt_synthesis(c(1, NA), 2, 12), class = "gpustats_error_argument")
  expect_error(jwt_synthesis(1:3, -1, 12), class = "gpustats_error_argument")
  expect_error(jwt_synthesis(1:3, 2, 12, method = "fast"), class = "gpustats_error_argument")
  expect_identical(length(jw_eval(numeric(0), 1, 0.5)), 0L)
})

test_that("the GPU Jones-Worland transforms equal the CPU's", {
  skip_without_gpu()
  set.seed(12)
  for (l in c(0, 1, 2, 7, 130, 131)) {
    N <- 100
    nr <- N + ceiling(l / 2) + 1
    coef <- matrix(rnorm(N * 37), N)
    for (method in c("connection", "quadrature")) {
      vg <- jwt_synthesis(coef, l, nr, method, device = "gpu")
      vc <- jwt_synthesis(coef, l, nr, method, device = "cpu")
      expect_lte(max(abs(vg - vc)) / max(abs(vc)), 1e-13)
      expect_lte(max(abs(jwt_analysis(vc, l, N, method, device = "gpu") - jwt_analysis(vc, l, N, method, device = "cpu"))),
                 1e-13)
    }
  }
})

test_that("jw_eval refuses degrees beyond its recurrence's range instead of a silent NaN", {
  expect_error(jw_eval(.Machine$integer.max, 1, c(0.1, 0.5)), "at most 1000000", class = "gpustats_error_argument")
  expect_error(jw_eval(1e12, 1, 0.1), "at most 1000000", class = "gpustats_error_argument")
  expect_error(jw_eval(2, .Machine$integer.max, 0.1), "at most 1000000", class = "gpustats_error_argument")
  expect_length(jw_eval(numeric(0), 1, c(0.1, 0.5)), 0)
})

test_that("the choices of the polynomial functions are the core's tables", {
  ns <- asNamespace("gpustats")
  expect_identical(names(ns$gs_table("jw_method")), eval(formals(jwt_plan)$method))
  expect_identical(names(ns$gs_table("jw_norm")), eval(formals(jw_eval)$norm))
  expect_identical(names(ns$gs_table("legcheb_method")), setdiff(eval(formals(legendre_to_chebyshev)$method), "auto"))
})
