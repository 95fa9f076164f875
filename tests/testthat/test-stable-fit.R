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

test_that("the estimates, standard errors and log-likelihood scale with the data", {
  # at 1e200 the fit had stopped after one step at McCulloch's start and
  # reported convergence; at 1e-155 it returned the start unconverged
  set.seed(2)
  y <- rstable(1000, 1.3, 0.4)
  f1 <- stable_fit(y, device = "cpu")
  expect_true(f1$converged)
  se1 <- sqrt(diag(vcov(f1)))
  for (s in c(1e200, 1e150, 1e-150, 1e-155, 1e-300)) {
    f <- stable_fit(y * s, device = "cpu")
    expect_true(f$converged, info = s)
    expect_equal(coef(f) / c(1, 1, s, s), coef(f1), tolerance = 1e-9, info = s)
    expect_equal(f$loglik, f1$loglik - 1000 * log(s), tolerance = 1e-12, info = s)
    if (abs(log10(s)) <= 150) {
      expect_equal(sqrt(diag(vcov(f))) / c(1, 1, s, s), se1, tolerance = 1e-5, info = s)
    }
  }
  # a power of two changes nothing but the scale
  f <- stable_fit(y * 2^-900, device = "cpu")
  expect_identical(coef(f) * c(1, 1, 2^900, 2^900), coef(f1))
  # S1: the location and its variance scale too (alpha != 1)
  g1 <- stable_fit(y, pm = 1, device = "cpu")
  g <- stable_fit(y * 1e-150, pm = 1, device = "cpu")
  expect_equal(coef(g) / c(1, 1, 1e-150, 1e-150), coef(g1), tolerance = 1e-9)
  expect_equal(vcov(g)[4, 4] / 1e-300, vcov(g1)[4, 4], tolerance = 1e-5)
  expect_true(vcov(g1)[4, 4] > 0)
})

test_that("McCulloch's and Koutrouvelis' estimators scale with the data", {
  set.seed(3)
  y <- rstable(500, 1.6, -0.3, 2, 1)
  for (method in c("mcculloch", "koutrouvelis")) {
    f1 <- stable_fit(y, method = method)
    for (s in c(1e250, 1e-250)) {
      f <- stable_fit(y * s, method = method)
      expect_equal(coef(f) / c(1, 1, s, s), coef(f1), tolerance = 1e-9, info = method)
      expect_equal(f$loglik, f1$loglik - 500 * log(s), tolerance = 1e-10, info = method)
    }
  }
})

test_that("a fit that stops early says so: converged FALSE, a classed warning, print and summary", {
  set.seed(1)
  x <- rstable(200, 1.5, 0)
  expect_warning(f <- stable_fit(x, control = list(iter.max = 1), device = "cpu"),
                 class = "gpustats_warning_not_converged")
  expect_false(f$converged)
  expect_equal(f$iterations, 1L)
  expect_output(print(f), "NOT CONVERGED")
  expect_output(print(summary(f)), "NOT CONVERGED")
  expect_warning(tab <- stable_fit(list(a = x, b = -x), control = list(iter.max = 1), device = "cpu"),
                 "samples a, b", class = "gpustats_warning_not_converged")
  expect_false(any(tab$converged))
  full <- expect_silent(stable_fit(x, device = "cpu"))
  expect_true(full$converged)
  expect_output(print(summary(full)), "converged in")
})

test_that("an information that is not positive definite gives NA standard errors and a warning", {
  held <- c(FALSE, FALSE, FALSE, FALSE)
  bad <- -diag(c(1, -1, 2, 3)) # minus the Hessian has a negative eigenvalue
  v <- gpustats:::stable_mle_vcov(bad, rep(TRUE, 4), held)
  expect_false(v$ok)
  expect_true(all(is.na(v$vcov)))
  good <- gpustats:::stable_mle_vcov(-diag(c(4, 1, 2, 5)), rep(TRUE, 4), c(FALSE, TRUE, FALSE, FALSE))
  expect_true(good$ok)
  expect_equal(diag(good$vcov), c(alpha = 0.25, beta = NA, gamma = 0.5, delta = 0.2))
  expect_true(all(is.na(gpustats:::stable_se(matrix(c(-1, 0, 0, NA), 2)))))
  fits <- list(list(converged = TRUE, information_ok = FALSE))
  expect_warning(gpustats:::stable_fit_warn(fits, NULL, environment()),
                 class = "gpustats_warning_information")
})

test_that("a batched fit shows a progress bar, unless control$progress is FALSE", {
  # cli's logger handler reports every event of a bar, whatever its timing
  old <- options(cli.progress_handlers_only = "logger")
  on.exit(options(old))
  set.seed(4)
  xs <- list(rstable(300, 1.5, 0), rstable(300, 1.2, 0), rstable(300, 1.7, 0.5))
  for (method in c("mle", "koutrouvelis")) {
    out <- testthat::capture_output(stable_fit(xs, method = method, device = "cpu"))
    expect_match(out, "0/3 created", info = method)
    expect_match(out, "3/3 terminated", info = method)
    out <- testthat::capture_output(stable_fit(xs, method = method, device = "cpu", control = list(progress = FALSE)))
    expect_identical(out, "", info = method)
  }
})

test_that("degenerate data give a clear error at once", {
  fast_error <- function(x, pattern, ...) {
    t <- system.time(expect_error(stable_fit(x, device = "cpu", ...), pattern,
                                  class = "gpustats_error_argument"))[["elapsed"]]
    expect_lt(t, 5)
  }
  # had run for minutes chasing an unbounded likelihood, then failed
  fast_error(c(rep(0, 500), rep(1, 500), 2:4), "unbounded")
  # had failed with "missing value where TRUE/FALSE needed"
  for (method in c("mle", "mcculloch", "koutrouvelis")) {
    fast_error(c(rep(0, 990), 1:10), "interquartile range", method = method)
  }
  fast_error(rep(3, 100), "distinct")
  fast_error(c(rep(1, 70), 1:30 / 7), "interquartile range")
  for (n in 1:3) fast_error(rnorm(n), "at least 10")
  for (bad in list(NA, NaN, Inf, -Inf, NA_real_)) fast_error(c(rnorm(20), bad), "finite")
  fast_error(list(rnorm(20), c(rnorm(20), NaN)), "sample 2")
  # ties below 1/11 of the sample are fitted; the quantile methods take more
  set.seed(5)
  x <- c(rep(0, 80), rstable(920, 1.5, 0))
  expect_s3_class(stable_fit(x, method = "mcculloch"), "stable_fit")
  expect_s3_class(stable_fit(c(rep(0, 500), rep(1, 500), 2:4), method = "mcculloch"), "stable_fit")
})

test_that("control entries are checked", {
  x <- rnorm(50)
  bad <- list(list(iter.max = NA), list(iter.max = -1), list(iter.max = 0), list(iter.max = 2.5),
              list(iter.max = "10"), list(iter.max = c(1, 2)), list(maxit = 10), list(progress = NA),
              list(progress = "yes"), list(10), 3, "a")
  for (ctrl in bad) {
    expect_error(stable_fit(x, control = ctrl), class = "gpustats_error_argument",
                 info = deparse(ctrl))
  }
  expect_error(stable_fit(x, control = list(maxit = 10)), "iter.max")
})

test_that("stable_fit rejects bad input", {
  expect_error(stable_fit(c(1:20, NA)), class = "gpustats_error")
  expect_error(stable_fit(c(1:20, Inf)), class = "gpustats_error")
  expect_error(stable_fit(1:5), class = "gpustats_error")
  expect_error(stable_fit(rep(1, 20)), class = "gpustats_error")
  expect_error(stable_fit(letters), class = "gpustats_error")
  expect_error(stable_fit(list()), class = "gpustats_error")
  expect_error(stable_fit(rnorm(20), pm = 3), class = "gpustats_error")
  expect_error(stable_fit(rnorm(20), method = "moments"))
  x <- rnorm(20)
  for (bad in list(NULL, numeric(0), factor(1:20), as.complex(1:20), list(x, "a"), list(x, NULL),
                   matrix(numeric(0), 20, 0), TRUE)) {
    expect_error(stable_fit(bad), class = "gpustats_error_argument", info = deparse(bad))
  }
  for (pm in list(NA, -1, 0.5, "0", c(0, 1))) {
    expect_error(stable_fit(x, pm = pm), class = "gpustats_error_argument", info = deparse(pm))
  }
  expect_error(stable_fit(x, device = "tpu"), class = "gpustats_error_argument")
  expect_error(stable_fit(x, method = NA))
  # a data frame is a list of samples, one per column
  set.seed(6)
  df <- data.frame(a = rstable(100, 1.5, 0), b = rstable(100, 1.8, 0))
  tab <- stable_fit(df, method = "mcculloch")
  expect_equal(rownames(tab), c("a", "b"))
})

test_that("the methods of a fit work on fits of every method", {
  set.seed(7)
  x <- rstable(200, 1.4, 0.2)
  for (method in c("mle", "mcculloch", "koutrouvelis")) {
    f <- stable_fit(x, method = method, device = "cpu")
    expect_output(print(f), "fitted by")
    s <- summary(f)
    expect_output(print(s), "AIC")
    expect_equal(stats::AIC(f), -2 * f$loglik + 8)
    expect_equal(nobs(f), 200L)
    if (method == "mle") expect_equal(unname(s$table[, 2]), unname(sqrt(diag(vcov(f)))))
    else expect_true(all(is.na(s$table[, 2])))
  }
})

test_that("small samples of distinct values: 11 or more are fitted, 10 are refused as too small", {
  # n = 10 distinct values had been refused as "repeats ... 1 times"
  for (seed in 1:4) {
    set.seed(seed)
    x <- rstable(10, 1.5, 0)
    err <- tryCatch(stable_fit(x, device = "cpu"), gpustats_error_argument = function(e) e)
    expect_s3_class(err, "gpustats_error_argument")
    msg <- conditionMessage(err)
    expect_match(msg, "at least 11")
    expect_no_match(msg, "repeats|tied")
    # the other methods fit it
    expect_s3_class(stable_fit(x, method = "mcculloch"), "stable_fit")
    for (n in c(11, 12, 15)) {
      fit <- suppressMessages(suppressWarnings(stable_fit(rstable(n, 1.5, 0), device = "cpu")))
      expect_s3_class(fit, "stable_fit")
      expect_true(all(is.finite(coef(fit))), info = paste(seed, n))
    }
  }
  # a real tie is still named as one
  expect_error(stable_fit(c(rep(0, 2), rnorm(19)), device = "cpu"), "repeats 0 2 times",
               class = "gpustats_error_argument")
})

test_that("a time series is fitted as its values, a multivariate one per column", {
  r <- diff(log(EuStockMarkets))
  fit <- stable_fit(r[, "DAX"], method = "mcculloch")
  expect_equal(coef(fit), coef(stable_fit(as.numeric(r[, "DAX"]), method = "mcculloch")))
  set.seed(7)
  y <- stats::ts(rstable(200, 1.6, 0.2), start = 2000, frequency = 12)
  expect_equal(coef(stable_fit(y, device = "cpu")), coef(stable_fit(as.numeric(y), device = "cpu")))
  tab <- stable_fit(r, method = "mcculloch")
  expect_equal(rownames(tab), colnames(r))
  expect_equal(unlist(tab["FTSE", 1:4]), coef(stable_fit(as.numeric(r[, "FTSE"]), method = "mcculloch")))
})
