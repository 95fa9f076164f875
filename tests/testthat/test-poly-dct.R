# DCTs against O(n^2) sums at 40 digits (fixtures/poly-dct.csv, made by
# tools/make-poly-reference.py), and their inverses.

test_that("dct() matches the extended-precision sums of FFTW's definitions", {
  skip_if_not(.Call(gpustats:::gs_r_poly_have_fftw), "built without FFTW3")
  ref <- read_fixture("poly-dct.csv")
  for (n in unique(ref$n)) {
    r <- ref[ref$n == n, ]
    for (type in 2:4) {
      y <- dct(r$x, type, device = "cpu")
      want <- r[[paste0("y", type)]]
      expect_lte(max(abs(y - want)) / max(abs(want)), 4 * sqrt(n) * .Machine$double.eps)
    }
  }
})

test_that("dct() transforms columns, inverts with the complementary type and keeps shapes", {
  skip_if_not(.Call(gpustats:::gs_r_poly_have_fftw), "built without FFTW3")
  set.seed(3)
  x <- matrix(rnorm(60 * 5), 60, 5)
  expect_equal(dct(dct(x, 2, device = "cpu"), 3, device = "cpu") / 120, x, tolerance = 1e-14)
  expect_equal(dct(dct(x, 4, device = "cpu"), 4, device = "cpu") / 120, x, tolerance = 1e-14)
  expect_equal(dct(x, 2, device = "cpu")[, 4], dct(x[, 4], 2, device = "cpu"))
  for (type in 2:4) {
    y <- dct(x, type, normalized = TRUE, device = "cpu")
    expect_equal(colSums(y^2), colSums(x^2), tolerance = 1e-13) # orthogonal
  }
  expect_equal(dct(dct(x, 2, TRUE, device = "cpu"), 3, TRUE, device = "cpu"), x, tolerance = 1e-14)
  expect_equal(dct(x[, 1], 3, TRUE, device = "cpu"), drop(t(dct(diag(60), 2, TRUE, device = "cpu")) %*% x[, 1]),
               tolerance = 1e-13)
  expect_null(dim(dct(1:5, device = "cpu")))
})

test_that("dct() refuses bad input with classed errors", {
  expect_error(dct(1:4, 5), class = "gpustats_error_argument")
  expect_error(dct(c(1, NA)), class = "gpustats_error_argument")
  expect_error(dct(c(1, Inf)), class = "gpustats_error_argument")
  expect_error(dct("a"), class = "gpustats_error_argument")
  expect_error(dct(array(1, c(2, 2, 2))), class = "gpustats_error_argument")
  expect_error(dct(1:4, normalized = NA), class = "gpustats_error_argument")
})

test_that("the GPU DCTs equal the CPU's", {
  skip_without_gpu()
  set.seed(4)
  for (n in c(1, 2, 7, 64, 100, 243, 1000)) {
    x <- matrix(rnorm(n * 33), n, 33)
    for (type in 2:4) {
      g <- dct(x, type, device = "gpu")
      c <- dct(x, type, device = "cpu")
      expect_lte(max(abs(g - c)) / max(abs(c)), 8 * sqrt(n) * .Machine$double.eps)
    }
  }
})

test_that("without FFTW3 the FFT-based functions say what to install", {
  skip_if(.Call(gpustats:::gs_r_poly_have_fftw), "built with FFTW3")
  expect_error(dct(1:4, device = "cpu"), "libfftw3-dev", class = "gpustats_error_no_fftw")
  expect_error(jwt_synthesis(1:3, 2, 6, device = "cpu"), class = "gpustats_error_no_fftw")
  expect_error(sht_analysis(matrix(1, 4, 8)), class = "gpustats_error_no_fftw")
})
