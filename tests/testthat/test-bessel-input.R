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
  expect_error(bessel_k_deriv(1, 1, wrt = "y"), class = "gpustats_error_argument")
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
  skip_if_signals_late()
  # the progress callback raises a real user interrupt once a third is done
  interrupt_at_third <- function(done) if (done > 0.3) tools::pskill(Sys.getpid(), tools::SIGINT)
  x <- runif(2e6)
  expect_identical(interrupt_outcome(gpustats:::gs_call(.Call(gpustats:::gs_r_map, 2L, list(x, 1.5), -1L, 0L, interrupt_at_third,
                                                    0L, -1, c(1, 1)), environment())), "interrupt")
  locs <- matrix(runif(1e4), ncol = 2) # several batches of columns
  matern_model <- gpustats:::cov_model(c(sigma2 = 1, range = 0.1, smoothness = 1.3, nugget = 0), "euclidean")
  expect_identical(interrupt_outcome(gpustats:::gs_call(.Call(gpustats:::gs_r_matern_cov, locs, NULL, matern_model, -1L, 0L,
                                                    interrupt_at_third), environment())), "interrupt")
  # and the next call works
  expect_equal(bessel_k(x[1:5], 1.5, device = "cpu"), besselK(x[1:5], 1.5), tolerance = 1e-14)
})

test_that("bad input to bessel_k() and bessel_k_deriv() follows base R's besselK", {
  fns <- list(
    bessel_k = function(x, nu) bessel_k(x, nu, device = "cpu"),
    bessel_k_log = function(x, nu) bessel_k(x, nu, log = TRUE, expon_scaled = TRUE, device = "cpu"),
    dnu = function(x, nu) bessel_k_deriv(x, nu, "nu", device = "cpu"),
    dx = function(x, nu) bessel_k_deriv(x, nu, "x", device = "cpu")
  )
  for (f in names(fns)) {
    fn <- fns[[f]]
    # NA stays NA, NaN stays NaN, without a warning
    expect_no_warning(v <- fn(c(NA, NaN, 1), c(1, 1, NA)))
    expect_true(is.na(v[1]) && !is.nan(v[1]) && is.nan(v[2]) && is.na(v[3]), label = f)
    # negative x and infinite orders: NaN with the warning
    expect_warning(v <- fn(c(-1, -Inf, 1, 1), c(1, 1, Inf, -Inf)), "NaNs produced", label = f)
    expect_true(all(is.nan(v)), label = f)
    # empty input, recycling
    expect_identical(fn(numeric(0), 1), numeric(0))
    expect_identical(fn(1, numeric(0)), numeric(0))
    expect_warning(fn(1:3, 1:2), "multiple", label = f)
    # wrong types
    for (bad in list(NULL, "1", list(1), factor(1), 1i, data.frame(a = 1))) {
      expect_error(fn(bad, 1), class = "gpustats_error_argument", label = f)
      expect_error(fn(1, bad), class = "gpustats_error_argument", label = f)
    }
  }
  expect_identical(bessel_k(c(Inf, 0), 1, device = "cpu"), c(0, Inf))
  expect_identical(bessel_k_deriv(c(Inf, 0), 1, "x", device = "cpu"), c(-1, -Inf))
  for (bad in list(NA, 1, "y", NULL, c("x", "z"))) {
    expect_error(bessel_k_deriv(1, 1, wrt = bad), class = "gpustats_error_argument")
  }
  expect_identical(bessel_k_deriv(2, 1.5, wrt = "x", device = "cpu"), bessel_k_deriv(2, 1.5, "x", device = "cpu"))
  for (flag in c("expon_scaled", "log")) {
    for (bad in list(NA, NULL, "yes", 1, c(TRUE, FALSE))) {
      args <- list(x = 1, nu = 1)
      args[flag] <- list(bad)
      expect_error(do.call(bessel_k, args), class = "gpustats_error_argument")
    }
  }
})
