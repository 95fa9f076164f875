test_that("stable_fit('mle') matches a careful optimisation of the same likelihood", {
  set.seed(11)
  x <- rstable(1000, alpha = 1.5, beta = 0.3, gamma = 2, delta = 1)
  fit <- stable_fit(x, device = "cpu")
  expect_true(fit$converged)
  nll <- function(p) -sum(dstable(x, p[1], p[2], p[3], p[4], log = TRUE, device = "cpu"))
  start <- coef(fit) + c(0.02, -0.03, 0.02, 0.02)
  opt <- stats::optim(start, nll, method = "L-BFGS-B", lower = c(0.1, -1, 1e-3, -Inf),
                      upper = c(2, 1, Inf, Inf),
                      control = list(factr = 1, pgtol = 0, parscale = rep(0.01, 4), maxit = 1000))
  expect_lte(max(abs(opt$par - coef(fit))), 1e-4)
  expect_gte(fit$loglik, -opt$value - 1e-8)
  expect_equal(fit$loglik, sum(dstable(x, coef(fit)[1], coef(fit)[2], coef(fit)[3], coef(fit)[4],
                                       log = TRUE)), tolerance = 1e-12)
})

test_that("a fit started at McCulloch's alpha = 2 reaches a heavy tail in a few Newton steps", {
  # the log-likelihood falls like log(2 - alpha) towards 2: Newton steps
  # from there had only doubled 2 - alpha (14 steps for this sample)
  set.seed(22)
  x <- rstable(1000, alpha = 1.97, beta = -0.5)
  expect_equal(coef(stable_fit(x, method = "mcculloch"))[["alpha"]], 2)
  fit <- stable_fit(x, device = "cpu")
  expect_true(fit$converged)
  expect_lte(fit$iterations, 6)
  nll <- function(p) -sum(dstable(x, p[1], p[2], p[3], p[4], log = TRUE, device = "cpu"))
  opt <- stats::optim(coef(fit) + c(-0.01, 0.05, 0.01, 0.01), nll, method = "L-BFGS-B",
                      lower = c(0.1, -1, 1e-3, -Inf), upper = c(2, 1, Inf, Inf),
                      control = list(factr = 1, pgtol = 0, parscale = rep(0.01, 4), maxit = 1000))
  expect_lte(max(abs(opt$par - coef(fit))), 1e-4)
  expect_gte(fit$loglik, -opt$value - 1e-8)
})

test_that("stable_fit('mle') holds a parameter at its bound and gives the others standard errors", {
  set.seed(12)
  x <- rstable(400, alpha = 1.8, beta = 1)
  fit <- stable_fit(x, device = "cpu")
  vc <- vcov(fit)
  expect_equal(dim(vc), c(4L, 4L))
  expect_equal(rownames(vc), c("alpha", "beta", "gamma", "delta"))
  if (coef(fit)[["beta"]] == 1) {
    expect_true(all(is.na(vc["beta", ])))
    expect_true(all(is.finite(vc[-2, -2])))
  }
  expect_equal(vc[-2, -2], t(vc[-2, -2]))
  expect_true(all(diag(vc[-2, -2]) > 0))
})

test_that("several samples are fitted like each one alone", {
  set.seed(13)
  xs <- matrix(rstable(200 * 2, alpha = rep(c(1.2, 1.9), each = 200), beta = rep(c(-0.5, 0.2), each = 200)),
               ncol = 2, dimnames = list(NULL, c("a", "b")))
  for (method in c("mcculloch", "koutrouvelis", "mle")) {
    tab <- stable_fit(xs, method = method, device = "cpu")
    expect_s3_class(tab, "data.frame")
    expect_equal(rownames(tab), c("a", "b"))
    for (j in 1:2) {
      one <- stable_fit(xs[, j], method = method, device = "cpu")
      expect_equal(unlist(tab[j, c("alpha", "beta", "gamma", "delta")]), coef(one), tolerance = 1e-10)
    }
  }
  expect_true(all(c("se_alpha", "se_delta", "loglik", "converged") %in% names(stable_fit(list(xs[, 1]), device = "cpu"))))
})

test_that("a batch's log-likelihoods give each sample its own parameters", {
  set.seed(14)
  th <- cbind(c(1.3, 0.7, 1.9), c(0.4, -1, 0), c(1, 2, 0.5), c(0, -1, 3))
  direct <- function(xs) vapply(1:3, function(k) sum(dstable(xs[[k]], th[k, 1], th[k, 2], th[k, 3], th[k, 4],
                                                             log = TRUE, device = "cpu")), 0)
  for (len in list(c(50, 50, 50), c(20, 70, 5))) {
    xs <- lapply(len, function(m) rstable(m, 1.5, 0, device = "cpu"))
    ll <- gpustats:::stable_loglik_batch(xs, 1:3, th, "cpu", environment())
    expect_equal(ll, direct(xs), tolerance = 1e-13)
  }
})

test_that("McCulloch's and Koutrouvelis' estimators recover the parameters of a large sample", {
  set.seed(14)
  x <- rstable(20000, alpha = 1.6, beta = 0.5, gamma = 3, delta = -2)
  truth <- c(alpha = 1.6, beta = 0.5, gamma = 3, delta = -2)
  tol <- c(0.05, 0.15, 0.1, 0.15)
  for (method in c("mcculloch", "koutrouvelis")) {
    cf <- coef(stable_fit(x, method = method))
    expect_true(all(abs(cf - truth) < tol * c(1, 1, 3, 3)), info = method)
  }
})

test_that("pm = 1 reports the S1 location of the same law", {
  set.seed(15)
  x <- rstable(300, alpha = 1.4, beta = 0.6)
  f0 <- stable_fit(x, method = "mle", device = "cpu")
  f1 <- stable_fit(x, method = "mle", pm = 1, device = "cpu")
  c0 <- coef(f0)
  c1 <- coef(f1)
  expect_equal(c1[1:3], c0[1:3])
  expect_equal(c1[["delta"]], c0[["delta"]] - c0[["beta"]] * c0[["gamma"]] * tan(pi * c0[["alpha"]] / 2))
  expect_equal(sum(dstable(x, c1[1], c1[2], c1[3], c1[4], pm = 1, log = TRUE)), f0$loglik,
               tolerance = 1e-10)
  expect_equal(f1$loglik, f0$loglik)
})

test_that("stable_fit methods", {
  set.seed(16)
  fit <- stable_fit(rstable(200, alpha = 1.7, beta = 0), device = "cpu")
  expect_s3_class(fit, "stable_fit")
  expect_named(coef(fit), c("alpha", "beta", "gamma", "delta"))
  ll <- logLik(fit)
  expect_s3_class(ll, "logLik")
  expect_equal(attr(ll, "df"), 4L)
  expect_equal(nobs(fit), 200L)
  expect_output(print(fit), "maximum likelihood")
  expect_output(print(summary(fit)), "Std. Error")
  expect_null(vcov(stable_fit(rstable(50, 1.5, 0), method = "mcculloch")))
})

test_that("stable_fit rejects bad input", {
  expect_error(stable_fit(c(1:20, NA)), class = "gpustats_error")
  expect_error(stable_fit(c(1:20, Inf)), class = "gpustats_error")
  expect_error(stable_fit(1:5), class = "gpustats_error")
  expect_error(stable_fit(rep(1, 20)), class = "gpustats_error")
  expect_error(stable_fit(letters), class = "gpustats_error")
  expect_error(stable_fit(list()), class = "gpustats_error")
  expect_error(stable_fit(rnorm(20), pm = 2), class = "gpustats_error")
  expect_error(stable_fit(rnorm(20), method = "moments"))
})
