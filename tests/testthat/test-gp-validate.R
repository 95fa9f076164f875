# Bad input to the Gaussian-process functions and methods: data with no
# observations, fits altered after they were made (every method validates
# the object it is given), anova() of models that are not nested, and
# arguments that a method does not take.

quiet <- list(trace = FALSE)

small_data <- function() {
  set.seed(1)
  L <- matrix(runif(40), ncol = 2)
  list(L = L, y = sin(6 * L[, 1]) + cos(4 * L[, 2]) + rnorm(20, sd = 0.1))
}

# A fit that takes a fraction of a second: range and smoothness held.
small_fit <- function(...) {
  d <- small_data()
  gp_fit(d$y, d$L, fixed = list(range = 0.3, smoothness = 1.5), control = quiet, device = "cpu", ...)
}

test_that("data without observations gets an error that says so, not a failed condition", {
  d <- small_data()
  expect_error(gp_fit(numeric(0), matrix(numeric(0), 0, 2), control = quiet), "no observations",
               class = "gpustats_error_argument")
  expect_error(expect_message(gp_fit(rep(NA_real_, 20), d$L, control = quiet), "dropped 20"),
               "No observations are left", class = "gpustats_error_argument")
  expect_error(gp_fit(cbind(NA_real_, rep(NA_real_, 20)), d$L, control = quiet),
               "No observations are left", class = "gpustats_error_argument")
  # a replicate with no observed value is dropped, the other fitted alone
  expect_message(one <- gp_fit(cbind(d$y, NA), d$L, control = quiet, fixed = list(range = 0.3, smoothness = 1.5)),
                 "dropped 1 replicate with no observed value")
  expect_identical(one$replicates, 1L)
  frame <- data.frame(z = NA_real_, a = d$L[, 1], b = d$L[, 2])
  expect_error(expect_message(gp_fit(z ~ 1, frame, coords = ~ a + b, control = quiet), "dropped 20"),
               "No observations are left", class = "gpustats_error_argument")
  # a character response is not converted (numbers as strings were fitted, others gave NA)
  frame$z <- as.character(d$y)
  expect_error(gp_fit(z ~ 1, frame, coords = ~ a + b, control = quiet), "response must be numeric",
               class = "gpustats_error_argument")
  frame$z <- letters[1:20]
  expect_error(gp_fit(z ~ 1, frame, coords = ~ a + b, control = quiet), "response must be numeric",
               class = "gpustats_error_argument")
  expect_error(gp_fit(letters[1:20], d$L, control = quiet), "must be numeric", class = "gpustats_error_argument")
  expect_error(gp_variogram(1, matrix(0, 1, 2)), "at least 2 locations", class = "gpustats_error_argument")
})

test_that("every method of a gp_fit names the field of an altered fit", {
  f <- small_fit()
  d <- small_data()
  methods <- list(
    print = function(x) print(x), summary = function(x) summary(x), coef = function(x) coef(x),
    vcov = function(x) vcov(x), logLik = function(x) logLik(x), nobs = function(x) nobs(x),
    fitted = function(x) fitted(x), residuals = function(x) residuals(x),
    confint = function(x) confint(x, method = "wald"), anova = function(x) anova(x, f),
    predict = function(x) predict(x, d$L[1:3, ]), simulate = function(x) simulate(x, 1, seed = 1),
    plot = function(x) plot(x), gp_map = function(x) gp_map(x, n = 5), gp_variogram = function(x) gp_variogram(x),
    update = function(x) update(x, evaluate = FALSE), formula = function(x) formula(x), terms = function(x) terms(x),
    model.frame = function(x) model.frame(x), model.matrix = function(x) model.matrix(x)
  )
  changes <- list(
    locs = list(value = NULL, says = "field locs must be a finite numeric matrix.*absent"),
    locs = list(value = t(f$locs), says = "field locs must be a finite numeric matrix with a row per location \\(20\\).*2 x 20"),
    covariance = list(value = "a", says = "field covariance must be finite numbers named"),
    y = list(value = f$y[1:5], says = "field y must be finite numbers at the 20 locations"),
    model = list(value = NULL, says = "field model must be a covariance model"),
    beta = list(value = c(1, 2), says = "field beta must be finite numbers, one per column"),
    method = list(value = "REML", says = "field method must be one of"),
    vcov = list(value = matrix(0, 3, 3), says = "field vcov must be a 2 x 2 numeric matrix"),
    call = list(value = NULL, says = "field call must be the call of `gp_fit\\(\\)`"),
    model_frame = list(value = data.frame(y = f$y), says = "field model_frame must be NULL for the matrix form")
  )
  for (i in seq_along(changes)) {
    g <- f
    g[names(changes)[i]] <- list(changes[[i]]$value)
    for (m in names(methods)) {
      expect_error(suppressWarnings(methods[[m]](g)), changes[[i]]$says, class = "gpustats_error_argument",
                   info = paste(m, names(changes)[i]))
    }
  }
  empty <- structure(list(), class = "gp_fit")
  for (m in c("coef", "confint", "summary", "print", "logLik")) {
    expect_error(methods[[m]](empty), "not a valid <gp_fit>: its field model", class = "gpustats_error_argument", info = m)
  }
  # the fit a variogram carries, and a summary
  v <- gp_variogram(f)
  attr(v, "fit")$X <- NULL
  expect_error(plot(v), "attr\\(x, \"fit\"\\).*field X", class = "gpustats_error_argument")
  s <- summary(f)
  s$trend <- NULL
  expect_error(print(s), "field trend", class = "gpustats_error_argument")
  map <- gp_map(f, n = 5, device = "cpu")
  map$fit <- map$fit[-1, ]
  expect_error(plot(map), "field fit must be a 5 x 5", class = "gpustats_error_argument")
})

test_that("a valid fit passes its validator: exact, Vecchia, formula and zero-mean fits", {
  d <- small_data()
  fits <- list(small_fit(), small_fit(X = matrix(0, 20, 0)),
               gp_fit(d$y, d$L, approx = "vecchia", m = 5, fixed = list(smoothness = 1.5), control = quiet, device = "cpu"),
               gp_fit(y ~ a, data.frame(y = d$y, a = d$L[, 1], b = d$L[, 2]), coords = ~ a + b,
                      fixed = list(range = 0.3, smoothness = 1.5), control = quiet, device = "cpu"))
  for (f in fits) {
    expect_identical(validate_gp_fit(f, "x", environment()), f)
    expect_length(coef(f), length(f$beta) + 4L)
  }
})

test_that("anova refuses fits of other data, models that are not nested, and a larger model that fits worse", {
  d <- small_data()
  f0 <- small_fit(nugget = FALSE)
  f1 <- small_fit()
  a <- anova(f0, f1)
  expect_identical(a$`Chi Df`[2], 1)
  expect_equal(a$Chisq[2], 2 * (f1$loglik - f0$loglik))
  expect_true(a$Chisq[2] >= 0)
  other <- suppressWarnings(gp_fit(rev(d$y), d$L, fixed = list(range = 0.3, smoothness = 1.5), control = quiet,
                                   device = "cpu")) # its nugget at 0 is fine here
  expect_error(anova(f1, other), "Model 2 is a fit to other data than model 1: their y differ",
               class = "gpustats_error_argument")
  moved <- gp_fit(d$y, d$L + 0.01, fixed = list(range = 0.3, smoothness = 1.5), control = quiet, device = "cpu")
  expect_error(anova(f1, moved), "their locs differ", class = "gpustats_error_argument")
  # smoothness held at different values: neither is a special case of the other
  s25 <- gp_fit(d$y, d$L, fixed = list(range = 0.3, smoothness = 2.5), control = quiet, device = "cpu")
  expect_error(anova(f0, s25), "not nested.*holds smoothness at 2.5", class = "gpustats_error_argument")
  expect_error(anova(f1, f1), "not nested.*as many parameters", class = "gpustats_error_argument")
  # estimates on their search bounds (a nugget of 0, a long range) are fine here
  iso <- suppressWarnings(gp_fit(d$y, d$L, cov = "matern32", control = quiet, device = "cpu"))
  aniso <- suppressWarnings(gp_fit(d$y, d$L, cov = "matern32_aniso", control = quiet, device = "cpu"))
  expect_identical(anova(iso, aniso)$`Chi Df`[2], 2)
  # an anisotropic model is not a special case of an isotropic one
  aniso_held <- suppressWarnings(gp_fit(d$y, d$L, cov = "exponential_aniso", nugget = FALSE, fixed = list(angle = 0),
                                        control = quiet, device = "cpu"))
  matern <- suppressWarnings(gp_fit(d$y, d$L, control = quiet, device = "cpu"))
  expect_error(anova(aniso_held, matern), "not nested.*\\(exponential_aniso\\) is not a special case",
               class = "gpustats_error_argument")
  # a trend not within the larger model's
  ml <- function(X) gp_fit(d$y, d$L, X = X, method = "ml", fixed = list(range = 0.3, smoothness = 1.5), control = quiet,
                           device = "cpu")
  expect_error(anova(ml(cbind(1, d$L[, 1])), ml(cbind(1, d$L[, 2], d$L[, 2]^2))), "trend is not within",
               class = "gpustats_error_argument")
  expect_identical(anova(ml(cbind(1, d$L[, 1])), ml(cbind(1, d$L)))$`Chi Df`[2], 1)
  expect_error(anova(f0, gp_fit(d$y, d$L, approx = "vecchia", m = 5, fixed = list(range = 0.3, smoothness = 1.5),
                                control = quiet, device = "cpu")),
               "different likelihoods", class = "gpustats_error_argument")
  # a larger model below the smaller: its search stopped short; no negative statistic is printed
  short <- f1
  short$loglik <- f0$loglik - 0.5
  expect_error(anova(f0, short), "Model 2 has a lower log-likelihood .* stopped short", class = "gpustats_error_argument")
  # equal maxima to the search's tolerance: a statistic of 0
  tied <- f1
  tied$loglik <- f0$loglik - 1e-9
  expect_identical(anova(f0, tied)$Chisq[2], 0)
  expect_identical(anova(f0, tied)$`Pr(>Chisq)`[2], 1)
})

test_that("gp_map takes whole grid sizes and plot() plots 1 and 2", {
  f <- small_fit()
  expect_error(gp_map(f, n = 2.5), "whole number of cells per side, not 2.5", class = "gpustats_error_argument")
  expect_identical(dim(gp_map(f, n = 3, device = "cpu")$fit), c(3L, 3L))
  pdf(NULL)
  on.exit(dev.off())
  expect_error(plot(f, which = 7), "plots 1 .* and 2 .*\\(7\\)", class = "gpustats_error_argument")
  expect_error(plot(f, which = c(1, 1)), "plots 1", class = "gpustats_error_argument")
  expect_error(plot(f, which = integer(0)), "plots 1", class = "gpustats_error_argument")
  expect_invisible(plot(f, which = 2, lwd = 2))
})

test_that("predict, simulate and plot of a fit name arguments they do not take", {
  f <- small_fit()
  d <- small_data()
  expect_error(predict(f, newlocs = d$L[1:2, ]), "unknown argument `newlocs`", class = "gpustats_error_argument")
  expect_error(predict(f, d$L[1:2, ], FALSE, "none", 0.9, NULL, NULL, "cpu", "link", NULL, 5), "1 unnamed argument too many",
               class = "gpustats_error_argument")
  expect_error(simulate(f, 1, newlocs = d$L[1:2, ], sed = 1), "unknown arguments `newlocs` and `sed`",
               class = "gpustats_error_argument")
  pdf(NULL)
  on.exit(dev.off())
  expect_error(plot(f, wich = 1), "unknown argument `wich`", class = "gpustats_error_argument")
  expect_error(plot(f, pch = 3), "unknown argument `pch`.*sets itself", class = "gpustats_error_argument")
  # the arguments are named, not evaluated
  expect_error(predict(f, newlocs = stop("evaluated")), "unknown argument `newlocs`", class = "gpustats_error_argument")
})

test_that("control tolerances outside nlminb's range and a parm that names nothing are refused", {
  d <- small_data()
  # rel.tol = 1e-300 used to run a search that stopped at once with nlminb's "out of range"
  for (tol in c(1e-300, 1e-16)) {
    expect_error(gp_fit(d$y, d$L, control = list(trace = FALSE, rel.tol = tol)), "from 2.2e-16",
                 class = "gpustats_error_argument")
  }
  f <- small_fit()
  # character(0) used to give an empty table, list("sigma2") a table
  for (parm in list(character(0), list("sigma2"), TRUE)) {
    expect_error(confint(f, parm, method = "profile"), "must name one or more", class = "gpustats_error_argument")
  }
})
