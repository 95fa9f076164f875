# Alpha-stable fits altered after they were made: every method validates
# the object it is given and names the bad field.

stable_sample <- function(n = 40, seed = 51) {
  set.seed(seed)
  rstable(n, alpha = 1.6, beta = 0.2)
}

stable_methods <- list(
  print = function(x) print(x), coef = function(x) coef(x), vcov = function(x) vcov(x), nobs = function(x) nobs(x),
  logLik = function(x) logLik(x), AIC = function(x) AIC(x), summary = function(x) print(summary(x)),
  plot = function(x) plot(x, which = 2)
)

test_that("every kind of fit passes every method", {
  x <- stable_sample()
  fits <- list(mle = stable_fit(x, device = "cpu"),
               fixed = stable_fit(x, device = "cpu", fixed = list(beta = 0, delta = 0)),
               s1 = stable_fit(x, device = "cpu", pm = 1, fixed = list(alpha = 1.6)),
               s2 = stable_fit(x, method = "mcculloch", pm = 2),
               koutrouvelis = stable_fit(x, method = "koutrouvelis"))
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  for (f in fits) {
    expect_identical(validate_stable_fit(f, "x", environment()), f)
    for (method in stable_methods) expect_no_error(capture.output(method(f)))
  }
  # the fits of a table, and the table itself, sorted or subset too
  table <- stable_fit(cbind(a = x, b = stable_sample(seed = 52)), device = "cpu", fixed = list(beta = 0))
  for (f in attr(table, "fits")) expect_identical(validate_stable_fit(f, "x", environment()), f)
  for (t in list(table, table["b", ], table[2:1, ])) {
    expect_identical(validate_stable_fit_table(t, "x", environment()), t)
    expect_invisible(plot(t, sample = "b", which = 2))
  }
})

test_that("a fit with a field removed or of the wrong type is refused by every method, naming the field", {
  fit <- stable_fit(stable_sample(), device = "cpu", fixed = list(beta = 0))
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_fields_validated(fit, stable_fit_fields, stable_methods)
  expect_empty_refused("stable_fit", stable_methods)
  # shapes and cross-field rules
  bad <- fit
  bad$vcov <- bad$vcov[1:2, 1:2]
  expect_error(vcov(bad), "field vcov must be .* over alpha, gamma, and delta", class = "gpustats_error_argument")
  bad <- fit
  bad$data <- bad$data[-1]
  expect_error(plot(bad), "field data must be the finite sample of 40 values", class = "gpustats_error_argument")
  bad <- suppressMessages(stable_fit(stable_sample(), method = "mcculloch"))
  bad$vcov <- diag(4)
  expect_error(print(bad), "field vcov must be NULL unless fitted by maximum likelihood", class = "gpustats_error_argument")
})

test_that("a summary and a table of fits with a field removed or of the wrong type are refused", {
  fit <- stable_fit(stable_sample(), device = "cpu", fixed = list(beta = 0))
  expect_fields_validated(summary(fit), summary_stable_fit_fields, list(print = function(x) print(x)))
  expect_empty_refused("summary.stable_fit", list(print = function(x) print(x)))

  table <- stable_fit(cbind(a = stable_sample(), b = stable_sample(seed = 52)), method = "mcculloch")
  plot_b <- list(plot = function(x) plot(x, sample = "b", which = 2))
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_fields_validated(table, stable_fit_table_fields, plot_b, wrong = "a")
  expect_empty_refused(c("stable_fit_table", "data.frame"), plot_b)
  attr(table, "fits") <- NULL
  expect_error(plot(table, sample = "b"), "attribute fits must be a list of <stable_fit> objects",
               class = "gpustats_error_argument")
})
