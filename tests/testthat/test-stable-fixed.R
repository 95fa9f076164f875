# Maximum-likelihood fits with some parameters fixed (stable_fit(fixed = )).

# Minus the log-likelihood of x as a function of the free parameters.
nll_free <- function(x, fixed) {
  function(p) {
    th <- c(alpha = NA, beta = NA, gamma = NA, delta = NA)
    th[names(fixed)] <- unlist(fixed)
    th[is.na(th)] <- p
    -sum(dstable(x, th[["alpha"]], th[["beta"]], th[["gamma"]], th[["delta"]], log = TRUE,
                 device = "cpu"))
  }
}

test_that("beta fixed at 0 on symmetric data recovers the free fit, below its log-likelihood", {
  set.seed(31)
  x <- rstable(2000, alpha = 1.5, beta = 0, gamma = 1, delta = 0)
  free <- stable_fit(x, device = "cpu")
  sym <- stable_fit(x, device = "cpu", fixed = list(beta = 0))
  expect_true(sym$converged)
  expect_identical(coef(sym)[["beta"]], 0)
  se_free <- sqrt(diag(vcov(free)))
  se_sym <- sqrt(diag(vcov(sym)))
  keep <- c("alpha", "gamma", "delta")
  expect_named(se_sym, keep)
  expect_true(all(abs(coef(sym)[keep] - coef(free)[keep]) < 0.5 * se_free[keep]))
  expect_lte(sym$loglik, free$loglik)
  expect_true(all(is.finite(se_sym)))
  expect_equal(se_sym, se_free[keep], tolerance = 0.25)
  expect_equal(sym$loglik, sum(dstable(x, coef(sym)[1], 0, coef(sym)[3], coef(sym)[4], log = TRUE)),
               tolerance = 1e-12)
})

test_that("a fit with fixed parameters matches optim() over the free ones", {
  set.seed(32)
  x <- rstable(200, alpha = 1.4, beta = 0.3, gamma = 1.5, delta = -0.5)
  # the last one steps in the S1 location (alpha < 0.5) with beta fixed
  y <- rstable(300, alpha = 0.4, beta = 0.5)
  cases <- list(list(x, list(beta = 0)), list(x, list(delta = 0)), list(x, list(alpha = 1.5, gamma = 1)),
                list(x, list(beta = 0.3, delta = -0.5)), list(x, list(alpha = 1.2)),
                list(y, list(beta = 0.5)), list(y, list(delta = 0)))
  lower <- c(alpha = 0.1, beta = -1, gamma = 1e-3, delta = -Inf)
  upper <- c(alpha = 2, beta = 1, gamma = Inf, delta = Inf)
  for (case in cases) {
    data <- case[[1]]
    fixed <- case[[2]]
    info <- paste(names(fixed), collapse = ", ")
    fit <- stable_fit(data, device = "cpu", fixed = fixed)
    expect_true(fit$converged, info = info)
    est <- coef(fit, complete = FALSE)
    expect_equal(coef(fit)[names(fixed)], unlist(fixed)[names(fixed)], info = info)
    opt <- stats::optim(est * 1.01, nll_free(data, fixed), method = "L-BFGS-B",
                        lower = lower[names(est)], upper = upper[names(est)],
                        control = list(factr = 1, pgtol = 0, parscale = rep(0.01, length(est)),
                                       maxit = 1000))
    expect_lte(max(abs(opt$par - est)), 1e-4)
    # with delta fixed below alpha = 0.5 the steep edge of the law moves
    # with alpha, beta and gamma, and the fit stops 4e-7 below optim()'s
    # maximum (beta 4e-5 apart, a thousandth of its standard error)
    expect_gte(fit$loglik, -opt$value - 1e-6)
  }
})

test_that("the methods mark the fixed parameters; vcov() covers the free ones", {
  set.seed(33)
  x <- rstable(300, alpha = 1.7, beta = 0, gamma = 2, delta = 1)
  fit <- stable_fit(x, device = "cpu", fixed = list(beta = 0, delta = 1))
  expect_named(coef(fit), c("alpha", "beta", "gamma", "delta"))
  expect_named(coef(fit, complete = FALSE), c("alpha", "gamma"))
  expect_equal(dimnames(vcov(fit)), list(c("alpha", "gamma"), c("alpha", "gamma")))
  expect_equal(attr(logLik(fit), "df"), 2L)
  expect_equal(stats::AIC(fit), -2 * fit$loglik + 4)
  expect_equal(fit$fixed, c(beta = 0, delta = 1))
  expect_output(print(fit), "Fixed \\(not estimated\\): beta = 0, delta = 1")
  s <- summary(fit)
  expect_equal(unname(s$table[c("beta", "delta"), "Std. Error"]), c(NA_real_, NA_real_))
  expect_equal(s$table[c("alpha", "gamma"), "Std. Error"], sqrt(diag(vcov(fit))))
  out <- capture.output(print(s))
  expect_match(grep("^beta", out, value = TRUE), "fixed$")
  expect_match(grep("^delta", out, value = TRUE), "fixed$")
  expect_error(coef(fit, complete = NA), class = "gpustats_error_argument")
})

test_that("fixed values apply to every sample of a batched fit", {
  set.seed(34)
  xs <- matrix(rstable(250 * 2, alpha = 1.5, beta = 0), ncol = 2, dimnames = list(NULL, c("a", "b")))
  tab <- stable_fit(xs, device = "cpu", fixed = list(beta = 0))
  expect_equal(tab$beta, c(0, 0))
  expect_true(all(is.na(tab$se_beta)))
  for (j in 1:2) {
    one <- stable_fit(xs[, j], device = "cpu", fixed = list(beta = 0))
    expect_equal(unlist(tab[j, c("alpha", "beta", "gamma", "delta")]), coef(one), tolerance = 1e-10)
    expect_equal(unlist(tab[j, c("se_alpha", "se_gamma", "se_delta")]),
                 sqrt(diag(vcov(one))), tolerance = 1e-8, ignore_attr = TRUE)
  }
})

test_that("fixed values are read in the parameterization pm", {
  set.seed(35)
  x <- rstable(300, alpha = 1.3, beta = 0, gamma = 1, delta = 0.5)
  f0 <- stable_fit(x, device = "cpu", fixed = list(beta = 0, delta = 0.5))
  # at beta = 0 the S1 and S2 locations are the S0 one
  for (pm in 1:2) {
    f <- stable_fit(x, device = "cpu", pm = pm, fixed = list(beta = 0, delta = 0.5))
    expect_equal(coef(f)[["delta"]], 0.5)
    expect_equal(coef(f)[["alpha"]], coef(f0)[["alpha"]], tolerance = 1e-10)
    expect_equal(f$loglik, f0$loglik, tolerance = 1e-12)
  }
  # the S2 scale, with alpha fixed
  f2 <- stable_fit(x, device = "cpu", pm = 2, fixed = list(alpha = 1.3, gamma = 1.2))
  cf <- coef(f2)
  expect_equal(cf[c("alpha", "gamma")], c(alpha = 1.3, gamma = 1.2))
  expect_equal(f2$loglik, sum(dstable(x, cf[1], cf[2], cf[3], cf[4], pm = 2, log = TRUE)), tolerance = 1e-10)
  expect_equal(rownames(vcov(f2)), c("beta", "delta"))
  # the S1 location of a fit with alpha fixed at 1 has a standard error
  f1 <- stable_fit(x, device = "cpu", pm = 1, fixed = list(alpha = 1))
  expect_true(all(is.finite(sqrt(diag(vcov(f1))))))
})

test_that("fixed is checked", {
  set.seed(36)
  x <- rstable(100, alpha = 1.5, beta = 0)
  bad <- list(list(0), c(0), list(kappa = 1), list(beta = 0, beta = 0.5), list(beta = NA),
              list(beta = "0"), list(beta = c(0, 1)), list(beta = 1.5), list(alpha = 0.05),
              list(alpha = 2.1), list(gamma = 0), list(gamma = -1), list(delta = Inf),
              list(alpha = 1.5, beta = 0, gamma = 1, delta = 0), "beta", TRUE)
  for (fixed in bad) {
    expect_error(stable_fit(x, device = "cpu", fixed = fixed), class = "gpustats_error_argument",
                 info = deparse(fixed))
  }
  expect_error(stable_fit(x, fixed = list(kappa = 1)), "unknown parameter")
  expect_error(stable_fit(x, fixed = list(alpha = 3)), "outside the parameter space")
  expect_error(stable_fit(x, fixed = list(alpha = 1.5, beta = 0, gamma = 1, delta = 0)),
               "nothing is left to estimate")
  # the quantile and regression estimators do not hold parameters fixed
  for (method in c("mcculloch", "koutrouvelis")) {
    expect_error(stable_fit(x, method = method, fixed = list(beta = 0)), "method = \"mle\"",
                 class = "gpustats_error_argument")
  }
  # a fixed S1 or S2 location or S2 scale needs an S0 value
  expect_error(stable_fit(x, pm = 1, fixed = list(delta = 0)), "beta.* fixed at 0",
               class = "gpustats_error_argument")
  expect_error(stable_fit(x, pm = 2, fixed = list(beta = 0.2, delta = 0)), "beta.* fixed at 0",
               class = "gpustats_error_argument")
  expect_error(stable_fit(x, pm = 2, fixed = list(gamma = 1)), "alpha.* fixed too",
               class = "gpustats_error_argument")
  # nothing fixed is the plain fit
  expect_equal(coef(stable_fit(x, device = "cpu", fixed = list())), coef(stable_fit(x, device = "cpu")))
})
