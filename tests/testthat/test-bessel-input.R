test_that("special values follow base R", {
  expect_identical(bessel_k(0, 1.2, device = "cpu"), Inf)
  expect_identical(bessel_k(0, 1.2, log = TRUE, device = "cpu"), Inf)
  expect_identical(bessel_k(Inf, 1.2, device = "cpu"), 0)
  expect_identical(bessel_k(Inf, 1.2, log = TRUE, device = "cpu"), -Inf)
  expect_identical(bessel_k(NA_real_, 1, device = "cpu"), NA_real_)
  expect_identical(bessel_k(1, NA_real_, device = "cpu"), NA_real_)
  expect_true(is.nan(bessel_k(NaN, 1, device = "cpu")))
  expect_warning(v <- bessel_k(c(-1, 2), 1, device = "cpu"), "NaNs produced")
  expect_true(is.nan(v[1]))
  expect_equal(v[2], besselK(2, 1))
  expect_no_warning(bessel_k(c(NaN, NA), 1, device = "cpu"))
  expect_identical(bessel_k_deriv(0, 1, "x", device = "cpu"), -Inf)
  expect_identical(bessel_k_deriv(2, 0, "nu", device = "cpu"), 0)
})

test_that("recycling, lengths and attributes are those of R's math functions", {
  expect_identical(bessel_k(numeric(0), 1, device = "cpu"), numeric(0))
  expect_identical(bessel_k(1, numeric(0), device = "cpu"), numeric(0))
  expect_length(bessel_k(1:6, c(0.5, 1.5), device = "cpu"), 6)
  expect_equal(bessel_k(1:6, c(0.5, 1.5), device = "cpu"), besselK(1:6, c(0.5, 1.5)), tolerance = 1e-14)
  expect_warning(bessel_k(1:5, c(1, 2), device = "cpu"), "multiple")
  m <- matrix(1:6, 2, dimnames = list(c("a", "b"), NULL))
  r <- bessel_k(m, 1, device = "cpu")
  expect_identical(dim(r), dim(m))
  expect_identical(dimnames(r), dimnames(m))
  expect_identical(names(bessel_k(c(a = 1, b = 2), 1, device = "cpu")), c("a", "b"))
  expect_equal(bessel_k(TRUE, 1L, device = "cpu"), besselK(1, 1), tolerance = 1e-15)
})

test_that("bad arguments give clear errors", {
  expect_error(bessel_k("a", 1), class = "gpustats_error_argument")
  expect_error(bessel_k(1, list(1)), class = "gpustats_error_argument")
  expect_error(bessel_k(1, 1, log = NA), class = "gpustats_error_argument")
  expect_error(bessel_k(1, 1, expon_scaled = c(TRUE, FALSE)), class = "gpustats_error_argument")
  expect_error(bessel_k(1, 1, device = "tpu"), class = "gpustats_error_argument")
  expect_error(bessel_k_deriv(1, 1, wrt = "y"))
  expect_error(bessel_k(1 + 2i, 1), class = "gpustats_error_argument")
})

test_that("the device option and gpu queries behave", {
  expect_type(gpu_available(), "logical")
  info <- gpu_info()
  expect_s3_class(info, "data.frame")
  expect_named(info, c("id", "name", "total_memory", "free_memory", "compute_capability",
                       "driver_version", "runtime_version", "multiprocessors"))
  expect_identical(nrow(info) > 0, gpu_available())
  if (!gpu_available()) {
    expect_error(bessel_k(1, 1, device = "gpu"), class = "gpustats_error_no_gpu")
    withr_opt <- options(gpustats.device = "gpu")
    on.exit(options(withr_opt))
    expect_error(bessel_k(1, 1), class = "gpustats_error_no_gpu")
  }
})

test_that("the CPU path gives the same results on 1 and all threads", {
  set.seed(2)
  x <- exp(runif(5000, -7, 5)); nu <- runif(5000, 0, 30)
  all_threads <- bessel_k(x, nu, log = TRUE, device = "cpu")
  old <- options(gpustats.threads = 1L)
  on.exit(options(old))
  expect_identical(bessel_k(x, nu, log = TRUE, device = "cpu"), all_threads)
})

test_that("an interrupt between batches stops the work cleanly", {
  # the progress callback raises a real user interrupt once a third is done
  interrupt_at_third <- function(done) if (done > 0.3) tools::pskill(Sys.getpid(), tools::SIGINT)
  x <- runif(2e6)
  expect_identical(interrupt_outcome(gpustats:::gs_call(.Call(gpustats:::gs_r_map, 2L, list(x, 1.5), -1L, 0L, interrupt_at_third,
                                                    0L, -1, c(1, 1)), environment())), "interrupt")
  locs <- matrix(runif(1e4), ncol = 2) # several batches of columns
  expect_identical(interrupt_outcome(gpustats:::gs_call(.Call(gpustats:::gs_r_matern_cov, locs, NULL, c(1, 0.1, 1.3, 0), 0L, -1L, 0L,
                                                    interrupt_at_third), environment())), "interrupt")
  # and the next call works
  expect_equal(bessel_k(x[1:5], 1.5, device = "cpu"), besselK(x[1:5], 1.5), tolerance = 1e-14)
})
