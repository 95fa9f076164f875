# The likelihood search of gp_fit() (search_nlminb, R/gp_fit_search.R): its
# stopping rule ends the search once the log-likelihood and the parameters
# have stopped moving, with fewer evaluations and the same maximum as the
# search without it (control loglik.tol = 0, par.tol = 0), for the exact
# fit (trend, nugget, free smoothness, ML and REML, both gradients) and the
# Vecchia fit.

ns <- asNamespace("gpustats")

scoring_data <- function(n, seed = 3) {
  set.seed(seed)
  locs <- matrix(runif(2 * n), ncol = 2)
  x1 <- sin(2 * pi * locs[, 1])
  list(locs = locs, X = cbind(1, x1 = x1), y = 1 + 0.5 * x1 + gp_simulate(locs, 1, 0.15, 0.8, 0.1, device = "cpu"))
}

rule_off <- list(loglik.tol = 0, par.tol = 0)

# The fit with the rule (on) ends at the maximum of nlminb alone (off), in
# no more evaluations.
expect_same_maximum <- function(on, off) {
  expect_lte(on$evaluations, off$evaluations)
  expect_lt(abs(on$loglik - off$loglik), 1e-3)
  expect_equal(on$covariance, off$covariance, tolerance = 1e-3)
}

test_that("the rule stops a search whose gradient is noisy where nlminb's own tests go on", {
  # a quadratic of the size of a log-likelihood of 10,000 observations,
  # with gradients off by 1e-2 (as differences of a rounded likelihood are):
  # 10 evaluations with the rule, 31 without
  f <- function(x) 1e4 + 500 * sum((x - c(-2, 0.3, 0.1))^2)
  g <- function(x) 1000 * (x - c(-2, 0.3, 0.1)) + 1e-2 * sin(1e6 * x + 1:3)
  ctrl <- ns$fit_control(list(), environment())
  count <- function(ctrl) {
    k <- 0L
    opt <- ns$search_nlminb(c(0, 0, 0), function(x) { k <<- k + 1L; f(x) }, g, NULL, c(-5, -5, 0), c(5, 5, 10), ctrl)
    c(evaluations = k, objective = opt$objective, opt$par)
  }
  on <- count(ctrl)
  off <- count(utils::modifyList(ctrl, rule_off))
  expect_lt(on[["evaluations"]], off[["evaluations"]] / 2)
  expect_lt(abs(on[["objective"]] - off[["objective"]]), 1e-3)
  expect_equal(on[-(1:2)], off[-(1:2)], tolerance = 1e-4)
})

test_that("the rule returns nlminb's answer at the best point, and a point evaluated again does not stop it", {
  ctrl <- ns$fit_control(list(), environment())
  opt <- ns$search_nlminb(c(1, 1), function(x) sum((x - 0.5)^2), function(x) 2 * (x - 0.5), NULL, c(-1, -1), c(2, 2),
                          ctrl)
  expect_identical(opt$convergence, 0L)
  expect_equal(unname(opt$par), c(0.5, 0.5), tolerance = 1e-6)
  expect_true(all(c("par", "objective", "iterations", "message") %in% names(opt)))
  expect_false(ns$search_settled(list(par = c(1, 2), objective = 3), c(1, 2), 3, ctrl))
  expect_true(ns$search_settled(list(par = c(1, 2), objective = 3), c(1, 2 + 1e-7), 3 + 1e-10, ctrl))
  expect_false(ns$search_settled(list(par = c(1, 2), objective = 3), c(1, 2 + 1e-3), 3 + 1e-10, ctrl))
  expect_false(ns$search_settled(list(par = c(1, 2), objective = 3), c(1, 2 + 1e-7), 3 + 1e-6, ctrl))
  expect_false(ns$search_settled(list(par = c(1, 2), objective = Inf), c(1, 2 + 1e-7), 3, ctrl))
  expect_false(ns$search_settled(list(par = c(1, 2), objective = 3), c(1, 2 + 1e-7), 3, utils::modifyList(ctrl, rule_off)))
})

test_that("exact fits reach the maximum of the search without the rule, in no more evaluations", {
  d <- scoring_data(300)
  quiet <- list(trace = FALSE, hessian = FALSE)
  cases <- list(list(X = NULL, method = "reml", fixed = list(), gradient = "differences"),
                list(X = d$X, method = "ml", fixed = list(), gradient = "differences"),
                list(X = d$X, method = "reml", fixed = list(smoothness = 0.8), gradient = "differences"),
                list(X = d$X, method = "ml", fixed = list(), gradient = "analytic"),
                list(X = d$X, method = "reml", fixed = list(), gradient = "analytic"))
  for (k in cases) {
    fit <- function(ctrl) {
      gp_fit(d$y, d$locs, X = k$X, method = k$method, fixed = k$fixed, device = "cpu",
             control = c(quiet, ctrl, gradient = k$gradient))
    }
    on <- fit(list())
    off <- fit(rule_off)
    expect_true(on$converged)
    expect_same_maximum(on, off)
  }
})

test_that("the warm-started exact fit stops earlier with the rule, at the same maximum", {
  # the model of the exact fit at n = 50,000 that went on for 29 evaluations
  # after its log-likelihood had settled: trend, nugget, free smoothness, ML
  d <- scoring_data(1000, seed = 4)
  data <- data.frame(z = d$y, x1 = d$X[, "x1"], x = d$locs[, 1], y = d$locs[, 2])
  fit <- function(ctrl) {
    gp_fit(z ~ x1, data, coords = ~ x + y, method = "ml", device = "cpu",
           control = c(list(trace = FALSE, hessian = FALSE), ctrl))
  }
  on <- fit(list())
  off <- fit(rule_off)
  expect_lt(on$evaluations, off$evaluations)
  expect_match(on$message, "loglik.tol and par.tol")
  expect_same_maximum(on, off)
  expect_equal(on$beta, off$beta, tolerance = 1e-3)
})

test_that("the Vecchia fit takes the same rule", {
  d <- scoring_data(500, seed = 5)
  fit <- function(ctrl) {
    gp_fit(d$y, d$locs, X = d$X, approx = "vecchia", m = 15, device = "cpu",
           control = c(list(trace = FALSE), ctrl))
  }
  on <- fit(list())
  off <- fit(rule_off)
  expect_true(on$converged)
  expect_same_maximum(on, off)
})

test_that("the rule's tolerances are checked", {
  set.seed(1)
  locs <- matrix(runif(40), ncol = 2)
  y <- rnorm(20)
  for (bad in list(list(loglik.tol = -1e-9), list(loglik.tol = 1), list(loglik.tol = NA), list(par.tol = "1e-5"),
                   list(par.tol = c(1e-5, 1e-5)), list(par.tol = Inf))) {
    expect_error(gp_fit(y, locs, control = c(list(trace = FALSE), bad)), class = "gpustats_error_argument")
  }
  expect_error(gp_fit(y, locs, control = list(trace = FALSE, par.tol = 2)), "par.tol.*below 1",
               class = "gpustats_error_argument")
})
