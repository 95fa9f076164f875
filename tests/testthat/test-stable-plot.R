# plot() of stable_fit and stable_fit_table objects.

test_that("plot() of a fit draws each panel and all four", {
  set.seed(41)
  fit <- stable_fit(rstable(300, alpha = 1.5, beta = 0.3, gamma = 2, delta = 1), device = "cpu")
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_invisible(plot(fit))
  for (which in list(1, 2, 3, 4, c(4, 1), 2:3)) {
    expect_silent(plot(fit, which = which))
  }
  expect_silent(plot(fit, which = 1:2, las = 1, cex.axis = 0.8, lwd = 2))
  # par() is restored after several panels
  expect_equal(graphics::par("mfrow"), c(1L, 1L))
  # very heavy tails, S1, fixed parameters, a Gaussian fit (its far tails
  # underflow) and a sample above the thinning threshold
  heavy <- stable_fit(rstable(3000, alpha = 0.8, beta = 0.9), device = "cpu", pm = 1)
  expect_silent(plot(heavy))
  sym <- stable_fit(rstable(200, alpha = 1.7, beta = 0), device = "cpu", fixed = list(beta = 0))
  expect_silent(plot(sym))
  gauss <- suppressMessages(stable_fit(stats::rnorm(200), device = "cpu", fixed = list(alpha = 2)))
  expect_silent(plot(gauss, which = 4))
  expect_silent(plot(stable_fit(rstable(50, 1.2, 0), method = "mcculloch")))
})

test_that("plot() of a fit refuses bad input", {
  set.seed(42)
  fit <- stable_fit(rstable(200, alpha = 1.5, beta = 0), method = "mcculloch")
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  for (which in list(0, 5, 1.5, c(1, 1), "1", NA, numeric(0), NULL)) {
    expect_error(plot(fit, which = which), class = "gpustats_error_argument", info = deparse(which))
  }
  expect_error(plot(fit, which = 5), "plots 1 \\(density\\)")
  expect_error(plot(fit, main = "x"), "unknown argument", class = "gpustats_error_argument")
  expect_error(plot(fit, log = "x"), "unknown argument", class = "gpustats_error_argument")
  expect_error(plot(fit, 1, 2), "unnamed", class = "gpustats_error_argument")
  old <- fit
  old$data <- NULL
  expect_error(plot(old), "field .*data", class = "gpustats_error_argument")
})

test_that("plot() of a batched fit draws the sample chosen, and refuses without one", {
  set.seed(43)
  xs <- matrix(rstable(200 * 3, alpha = 1.6, beta = 0), ncol = 3, dimnames = list(NULL, c("a", "b", "c")))
  fits <- stable_fit(xs, device = "cpu", fixed = list(beta = 0))
  expect_s3_class(fits, c("stable_fit_table", "data.frame"))
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_invisible(plot(fits, sample = "b"))
  expect_silent(plot(fits, sample = 3, which = 2))
  # the fits go with the rows they belong to
  expect_silent(plot(fits[c("c", "a"), ], sample = "a", which = 4))
  expect_silent(plot(fits["b", ]))
  expect_error(plot(fits), "holds the fits of 3 samples", class = "gpustats_error_argument")
  for (sample in list(4, 0, "d", c(1, 2), 1.5, NA, TRUE)) {
    expect_error(plot(fits, sample = sample), class = "gpustats_error_argument", info = deparse(sample))
  }
  changed <- fits
  changed$alpha[1] <- 1.9
  expect_error(plot(changed, sample = "a"), "changed after the fit", class = "gpustats_error_argument")
  expect_error(plot(rbind(fits, fits), sample = 4), "changed after the fit",
               class = "gpustats_error_argument")
  expect_error(plot(fits, sample = "a", which = 7), class = "gpustats_error_argument")
})
