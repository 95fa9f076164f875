# Spatial GLMMs: the exact Laplace approximation of Poisson and binomial
# models with a Matérn latent field (or another covariance family's).

# The Laplace log-likelihood by a dense Newton iteration in plain R
# (Rasmussen and Williams 2006, algorithms 3.1 and 5.1), the reference for
# the native one. param: theta (negative binomial) or shape (Gamma); w the
# prior weights (the Gamma's scale its shape, the others' their log
# density).
laplace_reference <- function(y, trials, eta0, K, family, param = NULL, w = rep(1, length(y))) {
  n <- length(y)
  a <- f <- rep(0, n)
  point <- function(f) {
    eta <- eta0 + f
    mu <- exp(eta)
    q <- switch(family,
      poisson = list(g = y - mu, W = mu, logp = dpois(y, mu, log = TRUE)),
      binomial = {
        p <- plogis(eta)
        list(g = y - trials * p, W = trials * p * (1 - p), logp = dbinom(y, trials, p, log = TRUE))
      },
      negative_binomial = list(g = param * (y - mu) / (param + mu), W = param * mu * (y + param) / (param + mu)^2,
                               logp = dnbinom(y, size = param, mu = mu, log = TRUE)),
      Gamma = {
        k <- w * param
        w <- 1
        list(g = k * (y / mu - 1), W = k * y / mu, logp = dgamma(y, shape = k, rate = k / mu, log = TRUE))
      }
    )
    if (family != "Gamma") q <- list(g = w * q$g, W = w * q$W, logp = w * q$logp)
    q$logp <- sum(q$logp)
    q
  }
  for (it in 1:100) {
    q <- point(f)
    s <- sqrt(q$W)
    L <- t(chol(diag(n) + outer(s, s) * K))
    b <- q$W * f + q$g
    a <- b - s * backsolve(t(L), forwardsolve(L, s * drop(K %*% b)))
    f_new <- drop(K %*% a)
    done <- max(abs(f_new - f)) < 1e-12
    f <- f_new
    if (done) break
  }
  q <- point(f)
  s <- sqrt(q$W)
  -sum(a * f) / 2 + q$logp - sum(log(diag(chol(diag(n) + outer(s, s) * K))))
}

# n locations on the unit square, a covariate, and a field drawn from cov.
glmm_sim <- function(n, cov, seed) {
  set.seed(seed)
  locs <- matrix(round(runif(2 * n), 4), ncol = 2)
  K <- matern_cov(locs, sigma2 = cov[["sigma2"]], range = cov[["range"]], smoothness = cov[["smoothness"]])
  list(locs = locs, x = rnorm(n), field = drop(t(chol(K + 1e-10 * diag(n))) %*% rnorm(n)), K = K)
}

cov0 <- c(sigma2 = 0.7, range = 0.15, smoothness = 1.2, nugget = 0)

test_that("the Laplace log-likelihood equals a dense reference in R", {
  s <- glmm_sim(150, cov0, 1)
  X <- cbind(1, s$x)
  beta <- c(0.4, 0.3)
  eta0 <- drop(X %*% beta)
  y <- rpois(150, exp(eta0 + s$field))
  ours <- gpustats:::glmm_loglik(y, s$locs, X, beta, cov0, poisson())
  expect_true(ours$converged)
  expect_equal(ours$loglik, laplace_reference(y, NULL, eta0, s$K, "poisson"), tolerance = 1e-8)
  yb <- rbinom(150, 1, plogis(eta0 + s$field))
  expect_equal(gpustats:::glmm_loglik(yb, s$locs, X, beta, cov0, binomial())$loglik,
               laplace_reference(yb, rep(1, 150), eta0, s$K, "binomial"), tolerance = 1e-8)
  trials <- sample(1:6, 150, TRUE)
  ys <- rbinom(150, trials, plogis(eta0 + s$field))
  offset <- log(runif(150, 0.5, 2))
  expect_equal(gpustats:::glmm_loglik(ys, s$locs, X, beta, cov0, binomial(), trials = trials, offset = offset)$loglik,
               laplace_reference(ys, trials, eta0 + offset, s$K, "binomial"), tolerance = 1e-8)
})

test_that("the negative binomial's and the Gamma's Laplace log-likelihoods, with prior weights, equal a dense reference", {
  skip_if_not_installed("MASS")
  skip_if_not_installed("mgcv")
  s <- glmm_sim(120, cov0, 11)
  X <- cbind(1, s$x)
  beta <- c(0.8, 0.3)
  eta0 <- drop(X %*% beta)
  w <- runif(120, 0.5, 3)
  y <- rnbinom(120, size = 1.7, mu = exp(eta0 + s$field))
  nb <- gpustats:::glmm_loglik(y, s$locs, X, beta, cov0, MASS::negative.binomial(1.7))
  expect_true(nb$converged)
  expect_equal(nb$loglik, laplace_reference(y, NULL, eta0, s$K, "negative_binomial", 1.7), tolerance = 1e-8)
  expect_equal(gpustats:::glmm_loglik(y, s$locs, X, beta, cov0, mgcv::nb(), param = 0.4, weights = w)$loglik,
               laplace_reference(y, NULL, eta0, s$K, "negative_binomial", 0.4, w), tolerance = 1e-8)
  yg <- rgamma(120, shape = 2.5, rate = 2.5 / exp(eta0 + s$field))
  expect_equal(gpustats:::glmm_loglik(yg, s$locs, X, beta, cov0, Gamma(link = "log"), param = 2.5)$loglik,
               laplace_reference(yg, NULL, eta0, s$K, "Gamma", 2.5), tolerance = 1e-8)
  expect_equal(gpustats:::glmm_loglik(yg, s$locs, X, beta, cov0, Gamma(link = "log"), param = 2.5, weights = w)$loglik,
               laplace_reference(yg, NULL, eta0, s$K, "Gamma", 2.5, w), tolerance = 1e-8)
  yp <- rpois(120, exp(eta0 + s$field))
  expect_equal(gpustats:::glmm_loglik(yp, s$locs, X, beta, cov0, poisson(), weights = w)$loglik,
               laplace_reference(yp, NULL, eta0, s$K, "poisson", w = w), tolerance = 1e-8)
  # a weight of 2 is the observation twice at its location (one value of the field)
  twice <- c(1:120, 1:10)
  expect_equal(gpustats:::glmm_loglik(yp, s$locs, X, beta, cov0, poisson(), weights = rep(1:2, c(110, 10))[order(c(11:120, 1:10))])$loglik,
               gpustats:::glmm_loglik(yp[twice], s$locs[twice, ], X[twice, ], beta, cov0, poisson())$loglik, tolerance = 1e-6)
})

test_that("the Laplace log-likelihood equals glmmTMB's for the same model and parameters", {
  skip_if_not_installed("glmmTMB")
  skip_if_not_installed("TMB")
  s <- glmm_sim(100, cov0, 2)
  df <- data.frame(lon = s$locs[, 1], lat = s$locs[, 2], x = s$x, g = factor(1))
  df$pos <- glmmTMB::numFactor(df$lon, df$lat)
  beta <- c(0.3, -0.4)
  eta <- beta[1] + beta[2] * df$x + s$field
  # glmmTMB's mat(): sd^2 2^(1 - nu) / Gamma(nu) (d / phi)^nu K_nu(d / phi),
  # theta = (log sd, log phi, log nu): sigma2 = sd^2, range = phi, smoothness = nu
  theta <- c(log(sqrt(cov0[["sigma2"]])), log(cov0[["range"]]), log(cov0[["smoothness"]]))
  tmb_loglik <- function(formula, family) {
    st <- glmmTMB::glmmTMB(formula, family = family, data = df, doFit = FALSE)
    obj <- TMB::MakeADFun(data = st$data.tmb, parameters = st$parameters, map = st$mapArg, random = st$randomArg,
                          silent = TRUE, DLL = "glmmTMB")
    -as.numeric(obj$fn(c(beta, theta)))
  }
  df$y <- rpois(100, exp(eta))
  expect_equal(gpustats:::glmm_loglik(df$y, s$locs, cbind(1, df$x), beta, cov0, poisson())$loglik,
               tmb_loglik(y ~ x + mat(pos + 0 | g), poisson()), tolerance = 1e-6)
  df$trials <- sample(1:4, 100, TRUE)
  df$succ <- rbinom(100, df$trials, plogis(eta))
  expect_equal(gpustats:::glmm_loglik(df$succ, s$locs, cbind(1, df$x), beta, cov0, binomial(), trials = df$trials)$loglik,
               tmb_loglik(cbind(succ, trials - succ) ~ x + mat(pos + 0 | g), binomial()), tolerance = 1e-6)
  # the dispersion parameter, after beta: nbinom2's log theta (variance mu +
  # mu^2 / theta); Gamma's log shape (the template's phi, whose sigma() is
  # 1 / sqrt(shape))
  tmb_disp_loglik <- function(formula, family, log_disp) {
    st <- glmmTMB::glmmTMB(formula, family = family, data = df, doFit = FALSE)
    obj <- TMB::MakeADFun(data = st$data.tmb, parameters = st$parameters, map = st$mapArg, random = st$randomArg,
                          silent = TRUE, DLL = "glmmTMB")
    -as.numeric(obj$fn(c(beta, log_disp, theta)))
  }
  df$count <- rnbinom(100, size = 1.5, mu = exp(eta))
  expect_equal(gpustats:::glmm_loglik(df$count, s$locs, cbind(1, df$x), beta, cov0, MASS::negative.binomial(1.5))$loglik,
               tmb_disp_loglik(count ~ x + mat(pos + 0 | g), glmmTMB::nbinom2(), log(1.5)), tolerance = 1e-6)
  df$pos_y <- rgamma(100, shape = 3, rate = 3 / exp(eta))
  expect_equal(gpustats:::glmm_loglik(df$pos_y, s$locs, cbind(1, df$x), beta, cov0, Gamma(link = "log"), param = 3)$loglik,
               tmb_disp_loglik(pos_y ~ x + mat(pos + 0 | g), Gamma(link = "log"), log(3)), tolerance = 1e-6)
})

test_that("Poisson and Bernoulli fits recover the parameters of simulated data", {
  cov <- c(sigma2 = 1, range = 0.2, smoothness = 0.5, nugget = 0)
  s <- glmm_sim(400, cov, 3)
  df <- data.frame(lon = s$locs[, 1], lat = s$locs[, 2], x = s$x, pop = runif(400, 1, 3))
  df$cases <- rpois(400, df$pop * exp(0.5 + 0.5 * df$x + s$field))
  fit <- gp_fit(cases ~ offset(log(pop)) + x, df, coords = ~ lon + lat, family = poisson(), fixed = list(smoothness = 0.5),
                control = list(trace = FALSE))
  expect_equal(unname(fit$beta), c(0.5, 0.5), tolerance = 0.3)
  expect_equal(fit$covariance[["sigma2"]], 1, tolerance = 0.6)
  expect_equal(fit$covariance[["range"]], 0.2, tolerance = 0.6)
  expect_equal(fit$family, "poisson")
  expect_equal(fit$offset, log(df$pop))
  expect_true(all(is.finite(sqrt(diag(vcov(fit))))))
  expect_equal(attr(logLik(fit), "df"), 4)
  expect_equal(AIC(fit), -2 * fit$loglik + 8)
  expect_output(print(fit), "poisson family.*Laplace")
  expect_output(print(summary(fit)), "Laplace")

  df$present <- rbinom(400, 1, plogis(-0.3 + 1 * df$x + s$field))
  fit <- gp_fit(present ~ x, df, coords = ~ lon + lat, family = binomial(), fixed = list(smoothness = 0.5, range = 0.2),
                control = list(trace = FALSE))
  # the intercept absorbs the mean of the field's one realization
  expect_lt(max(abs(fit$beta - c(-0.3, 1))), 0.7)
  expect_equal(fit$covariance[["sigma2"]], 1, tolerance = 0.8)
})

# The Laplace approximation's prediction of the linear predictor at new
# locations in plain R: the field's conditional mean k'a and variance
# sigma2 - k'(K + W^-1)^-1 k at the mode, plus the trend's uncertainty as
# universal kriging adds it. eta: the linear predictor at the mode; W and
# grad: minus the second and the first derivative of log p(y | eta) there
# (grad by default the Poisson's or the binomial's).
laplace_predict_reference <- function(fit, locs_new, X0, offset_new, eta, W,
                                      grad = if (fit$family == "poisson") fit$y - exp(eta) else fit$y - fit$trials * plogis(eta)) {
  cv <- fit$covariance
  cov_of <- function(a, b) {
    do.call(gp_cov_matrix, c(list(a, b, cov = fit$model$family, sigma2 = cv[["sigma2"]], range = cv[["range"]]),
                             as.list(cv[fit$model$shapes])))
  }
  K <- cov_of(fit$locs, fit$locs)
  k <- cov_of(locs_new, fit$locs)
  Si <- solve(K + diag(1 / W))
  D <- X0 - k %*% Si %*% fit$X
  var <- cv[["sigma2"]] - rowSums((k %*% Si) * k) + rowSums((D %*% solve(crossprod(fit$X, Si %*% fit$X))) * D)
  list(fit = offset_new + drop(X0 %*% fit$beta) + drop(k %*% grad), se = sqrt(var))
}

test_that("predictions of the linear predictor and of the mean equal a dense reference", {
  s <- glmm_sim(70, cov0, 6)
  df <- data.frame(lon = s$locs[, 1], lat = s$locs[, 2], x = s$x, pop = runif(70, 1, 3))
  df$y <- rpois(70, df$pop * exp(0.3 + 0.4 * df$x + s$field))
  fit <- gp_fit(y ~ offset(log(pop)) + x, df, coords = ~ lon + lat, family = poisson(), fixed = list(smoothness = 1.2),
                control = list(trace = FALSE))
  eta <- unname(log(df$pop) + drop(fit$X %*% fit$beta) + fit$mode)
  # at the observed locations the field's mean is its mode
  expect_equal(predict(fit), eta, tolerance = 1e-10)
  new <- data.frame(lon = c(0.2, 0.5, 0.9), lat = c(0.3, 0.5, 0.1), x = c(-1, 0, 1), pop = c(1, 2, 4))
  ref <- laplace_predict_reference(fit, as.matrix(new[, 1:2]), cbind(1, new$x), log(new$pop), eta, exp(eta))
  p <- predict(fit, new, se.fit = TRUE, interval = "confidence", level = 0.9)
  expect_equal(unname(p$fit[, "fit"]), ref$fit, tolerance = 1e-9)
  expect_equal(p$se.fit, ref$se, tolerance = 1e-9)
  expect_equal(unname(p$fit[, "upr"]), ref$fit + qnorm(0.95) * ref$se, tolerance = 1e-9)
  r <- predict(fit, new, se.fit = TRUE, interval = "confidence", level = 0.9, type = "response")
  expect_equal(unname(r$fit), exp(unname(p$fit)), tolerance = 1e-12) # bounds transformed from the link scale
  expect_equal(r$se.fit, exp(ref$fit) * ref$se, tolerance = 1e-9) # the delta method
  expect_error(predict(fit, new, interval = "prediction"), "Prediction intervals", class = "gpustats_error_argument")

  trials <- sample(1:5, 70, TRUE)
  df$succ <- rbinom(70, trials, plogis(-0.2 + 0.5 * df$x + s$field))
  df$fail <- trials - df$succ
  fit <- gp_fit(cbind(succ, fail) ~ x, df, coords = ~ lon + lat, family = binomial(),
                fixed = list(smoothness = 1.2, range = 0.15), control = list(trace = FALSE))
  eta <- unname(drop(fit$X %*% fit$beta) + fit$mode)
  expect_equal(predict(fit), eta, tolerance = 1e-10)
  ref <- laplace_predict_reference(fit, as.matrix(new[, 1:2]), cbind(1, new$x), 0, eta, trials * dlogis(eta))
  r <- predict(fit, new, se.fit = TRUE, type = "response")
  expect_equal(r$fit, plogis(ref$fit), tolerance = 1e-9)
  expect_equal(r$se.fit, dlogis(ref$fit) * ref$se, tolerance = 1e-9)
  # a matrix of coordinates for a matrix fit, and the fit without covariates
  fit0 <- gp_fit(df$succ > 0, s$locs, family = binomial(), fixed = list(sigma2 = 0.7, smoothness = 1.2, range = 0.15),
                 control = list(trace = FALSE))
  eta <- fit0$beta[[1]] + fit0$mode
  ref <- laplace_predict_reference(fit0, as.matrix(new[, 1:2]), matrix(1, 3), 0, eta, dlogis(eta))
  p <- predict(fit0, as.matrix(new[, 1:2]), se.fit = TRUE)
  expect_equal(p$fit, ref$fit, tolerance = 1e-9)
  expect_equal(p$se.fit, ref$se, tolerance = 1e-9)
})

test_that("fitted values and residuals are glm's at the mode's linear predictor", {
  s <- glmm_sim(60, cov0, 7)
  df <- data.frame(lon = s$locs[, 1], lat = s$locs[, 2], x = s$x, pop = runif(60, 1, 3), n = sample(1:5, 60, TRUE))
  df$y <- rpois(60, df$pop * exp(0.3 + 0.4 * df$x + s$field))
  df$succ <- rbinom(60, df$n, plogis(0.2 + 0.5 * df$x + s$field))
  fits <- list(
    gp_fit(y ~ offset(log(pop)) + x, df, coords = ~ lon + lat, family = poisson(), fixed = list(smoothness = 1.2),
           control = list(trace = FALSE)),
    gp_fit(cbind(succ, n - succ) ~ x, df, coords = ~ lon + lat, family = binomial(),
           fixed = list(smoothness = 1.2, range = 0.15), control = list(trace = FALSE)))
  for (fit in fits) {
    df$eta <- predict(fit)
    expect_equal(df$eta, unname(fit$X %*% fit$beta + fit$mode + (fit$offset %||% 0))[, 1], tolerance = 1e-10)
    # a glm without coefficients whose linear predictor is the offset
    g <- if (fit$family == "poisson") {
      glm(y ~ 0 + offset(eta), poisson(), df)
    } else {
      glm(cbind(succ, n - succ) ~ 0 + offset(eta), binomial(), df)
    }
    expect_equal(fitted(fit), unname(fitted(g)), tolerance = 1e-10)
    expect_equal(fitted(fit), predict(fit, type = "response"), tolerance = 1e-10)
    for (type in c("deviance", "pearson", "response", "working")) {
      expect_equal(residuals(fit, type), unname(residuals(g, type)), tolerance = 1e-10, info = paste(fit$family, type))
    }
    expect_equal(residuals(fit), residuals(fit, "deviance"))
  }
  expect_error(residuals(fits[[1]], "trend"), "must be one of", class = "gpustats_error_argument")
})

test_that("a covariance family other than the Matern fits, predicts and draws with its own covariance", {
  s <- glmm_sim(60, cov0, 8)
  df <- data.frame(lon = s$locs[, 1], lat = s$locs[, 2], x = s$x)
  df$y <- rpois(60, exp(0.3 + 0.4 * df$x + s$field))
  fit <- gp_fit(y ~ x, df, coords = ~ lon + lat, family = poisson(), cov = "powexp", fixed = list(power = 1.5),
                control = list(trace = FALSE))
  expect_identical(fit$model$native, "powexp")
  cv <- fit$covariance
  expect_identical(cv[["power"]], 1.5)
  K <- gp_cov_matrix(s$locs, cov = "powexp", sigma2 = cv[["sigma2"]], range = cv[["range"]], nugget = cv[["nugget"]],
                     power = 1.5)
  expect_equal(fit$loglik, laplace_reference(df$y, NULL, drop(fit$X %*% fit$beta), K, "poisson"), tolerance = 1e-8)
  eta <- unname(drop(fit$X %*% fit$beta) + fit$mode)
  new <- data.frame(lon = c(0.2, 0.5, 0.9), lat = c(0.3, 0.5, 0.1), x = c(-1, 0, 1))
  ref <- laplace_predict_reference(fit, as.matrix(new[, 1:2]), cbind(1, new$x), 0, eta, exp(eta))
  p <- predict(fit, new, se.fit = TRUE)
  expect_equal(unname(p$fit), ref$fit, tolerance = 1e-9)
  expect_equal(p$se.fit, ref$se, tolerance = 1e-9)
  expect_equal(dim(simulate(fit, nsim = 2, seed = 1)), c(60L, 2L))
})

test_that("draws given the data have predict()'s moments; new responses the model's", {
  s <- glmm_sim(60, cov0, 8)
  df <- data.frame(lon = s$locs[, 1], lat = s$locs[, 2], x = s$x, pop = runif(60, 1, 3), n = sample(1:5, 60, TRUE))
  df$y <- rpois(60, df$pop * exp(0.3 + 0.4 * df$x + s$field))
  fit <- gp_fit(y ~ offset(log(pop)) + x, df, coords = ~ lon + lat, family = poisson(), fixed = list(smoothness = 1.2),
                control = list(trace = FALSE))
  new <- data.frame(lon = c(0.2, 0.5, 0.9, df$lon[1]), lat = c(0.3, 0.5, 0.1, df$lat[1]), x = c(-1, 0, 1, df$x[1]),
                    pop = c(1, 2, 4, df$pop[1]))
  p <- predict(fit, new, se.fit = TRUE)
  nsim <- 5000
  draws <- as.matrix(simulate(fit, nsim, seed = 1, newdata = new))
  expect_equal(dim(draws), c(4L, nsim))
  expect_lt(max(abs(rowMeans(draws) - p$fit) / (p$se.fit / sqrt(nsim))), 4)
  expect_equal(apply(draws, 1, sd), p$se.fit, tolerance = 0.05)
  expect_equal(as.matrix(simulate(fit, 3, seed = 1, newdata = new, type = "response")),
               exp(as.matrix(simulate(fit, 3, seed = 1, newdata = new))), tolerance = 1e-12)
  # unconditional new counts: E y = pop exp(x'beta + sigma2 / 2)
  y <- as.matrix(simulate(fit, 4000, seed = 2))
  expect_true(all(y >= 0 & y == round(y)))
  expected <- df$pop * exp(drop(fit$X %*% fit$beta) + fit$covariance[["sigma2"]] / 2)
  expect_equal(mean(rowMeans(y) / expected), 1, tolerance = 0.05)
  fit <- gp_fit(cbind(succ, n - succ) ~ x, transform(df, succ = rbinom(60, n, plogis(s$field))), coords = ~ lon + lat,
                family = binomial(), fixed = list(sigma2 = 0.7, smoothness = 1.2, range = 0.15), control = list(trace = FALSE))
  y <- as.matrix(simulate(fit, 50, seed = 3))
  expect_true(all(y >= 0 & y <= df$n & y == round(y)))
})

test_that("negative binomial and Gamma fits estimate their parameter with the field, or hold it", {
  skip_if_not_installed("MASS")
  skip_if_not_installed("mgcv")
  cov <- c(sigma2 = 0.5, range = 0.2, smoothness = 0.5, nugget = 0)
  s <- glmm_sim(300, cov, 12)
  df <- data.frame(lon = s$locs[, 1], lat = s$locs[, 2], x = s$x)
  df$count <- rnbinom(300, size = 2, mu = exp(1 + 0.3 * df$x + s$field))
  df$amount <- rgamma(300, shape = 3, rate = 3 / exp(0.5 + 0.3 * df$x + s$field))
  fit_with <- function(formula, family, ...) {
    gp_fit(formula, df, coords = ~ lon + lat, family = family, fixed = list(smoothness = 0.5), control = list(trace = FALSE), ...)
  }
  nb <- fit_with(count ~ x, mgcv::nb())
  expect_equal(nb$family, "negative_binomial")
  expect_equal(nb$family_parameter[["theta"]], 2, tolerance = 0.5)
  expect_true(is.finite(nb$family_parameter_se))
  expect_equal(attr(logLik(nb), "df"), 5)
  expect_output(print(nb), "theta = .*estimated")
  # at its estimate of theta, the fit with theta held is the same maximum
  held <- fit_with(count ~ x, MASS::negative.binomial(nb$family_parameter[["theta"]]))
  expect_equal(held$loglik, nb$loglik, tolerance = 1e-6)
  expect_equal(attr(logLik(held), "df"), 4)
  expect_output(print(held), "theta = .*fixed")
  # predictions from the negative binomial's own weights
  eta <- predict(nb)
  theta <- nb$family_parameter[["theta"]]
  mu <- exp(eta)
  new <- data.frame(lon = c(0.3, 0.7), lat = c(0.6, 0.2), x = c(0.5, -1))
  ref <- laplace_predict_reference(nb, as.matrix(new[, 1:2]), cbind(1, new$x), 0, eta,
                                   W = theta * mu * (df$count + theta) / (theta + mu)^2,
                                   grad = theta * (df$count - mu) / (theta + mu))
  p <- predict(nb, new, se.fit = TRUE)
  expect_equal(p$fit, ref$fit, tolerance = 1e-8)
  expect_equal(p$se.fit, ref$se, tolerance = 1e-8)
  gm <- fit_with(amount ~ x, Gamma(link = "log"))
  expect_equal(gm$family_parameter[["shape"]], 3, tolerance = 0.3)
  expect_equal(unname(gm$beta[2]), 0.3, tolerance = 0.3)
  expect_identical(fit_with(amount ~ x, "Gamma")$link, "log") # Gamma uncalled: the log link
  # glm's residuals, with prior weights, at the mode's linear predictor
  df$w <- runif(300, 0.5, 2)
  gw <- fit_with(amount ~ x, Gamma(link = "log"), weights = df$w)
  df$eta <- predict(gw)
  g <- glm(amount ~ 0 + offset(eta), Gamma(link = "log"), df, weights = w)
  for (type in c("deviance", "pearson", "response", "working")) {
    expect_equal(residuals(gw, type), unname(residuals(g, type)), tolerance = 1e-10)
  }
  df$eta <- predict(nb)
  g <- glm(count ~ 0 + offset(eta), MASS::negative.binomial(nb$family_parameter[["theta"]]), df)
  expect_equal(residuals(nb, "pearson"), unname(residuals(g, "pearson")), tolerance = 1e-10)
  y <- as.matrix(simulate(gm, 20, seed = 1))
  expect_true(all(y > 0))
  expect_equal(dim(y), c(300L, 20L))
})

test_that("anova() tests nested trends and a held theta; gp_map() maps predict()", {
  s <- glmm_sim(80, cov0, 13)
  df <- data.frame(lon = s$locs[, 1], lat = s$locs[, 2], x = s$x, z = rnorm(80))
  df$y <- rpois(80, exp(0.5 + 0.6 * df$x + s$field))
  fit_with <- function(formula, ...) {
    gp_fit(formula, df, coords = ~ lon + lat, fixed = list(smoothness = 1.2), control = list(trace = FALSE), ...)
  }
  small <- fit_with(y ~ 1, family = poisson())
  large <- fit_with(y ~ x + z, family = poisson())
  a <- anova(small, large)
  expect_equal(a$Chisq[2], 2 * (large$loglik - small$loglik))
  expect_equal(a$`Chi Df`[2], 2)
  expect_match(attr(a, "heading"), "GLMM")
  expect_error(anova(small, fit_with(y ~ x + offset(z), family = poisson())), "offsets differ",
               class = "gpustats_error_argument")
  if (requireNamespace("mgcv", quietly = TRUE) && requireNamespace("MASS", quietly = TRUE)) {
    free <- fit_with(y ~ x, family = mgcv::nb())
    held <- fit_with(y ~ x, family = MASS::negative.binomial(3))
    expect_equal(anova(held, free)$`Chi Df`[2], 1)
    expect_error(anova(held, fit_with(y ~ x + z, family = MASS::negative.binomial(4))), "holds theta at 4",
                 class = "gpustats_error_argument")
  }
  m <- gp_map(small, n = 6, type = "response")
  grid <- expand.grid(lon = m$x, lat = m$y)
  p <- predict(small, grid, se.fit = TRUE, type = "response")
  expect_equal(m$points$fit, p$fit)
  expect_equal(m$points$se, p$se.fit)
})

test_that("bad responses, families and options give clear errors", {
  s <- glmm_sim(30, cov0, 4)
  df <- data.frame(lon = s$locs[, 1], lat = s$locs[, 2], y = rpois(30, 2), n = 5)
  fit_with <- function(formula, family, ...) {
    gp_fit(formula, df, coords = ~ lon + lat, family = family, control = list(trace = FALSE), ...)
  }
  df$neg <- df$y - 3
  df$frac <- df$y + 0.5
  df$zero <- 0
  df$twos <- df$y + 2
  df$over <- df$n + 1
  expect_error(fit_with(neg ~ 1, poisson()), "whole numbers from 0", class = "gpustats_error_argument")
  expect_error(fit_with(frac ~ 1, poisson()), "whole numbers from 0", class = "gpustats_error_argument")
  expect_error(fit_with(zero ~ 1, poisson()), "All responses are 0", class = "gpustats_error_argument")
  expect_error(fit_with(twos ~ 1, binomial()), "must be 0 or 1", class = "gpustats_error_argument")
  expect_error(fit_with(cbind(over, n - over) ~ 1, binomial()), "whole numbers from 0", class = "gpustats_error_argument")
  df$huge <- df$y * 2^53 # 1e300 used to reach glm.fit's "NA/NaN/Inf in 'x'"
  expect_error(fit_with(huge ~ 1, poisson()), "at most 2\\^53", class = "gpustats_error_argument")
  expect_error(fit_with(y ~ 1, Gamma()), "Supported", class = "gpustats_error_argument")
  expect_error(fit_with(neg ~ 1, Gamma(link = "log")), "must be positive", class = "gpustats_error_argument")
  expect_error(fit_with(zero ~ 1, Gamma(link = "log")), "must be positive", class = "gpustats_error_argument")
  df$inf <- df$y + 1
  df$inf[3] <- Inf
  expect_error(fit_with(inf ~ 1, Gamma(link = "log")), "positive and finite", class = "gpustats_error_argument")
  df$vast <- (df$y + 1) * 1e300 # used to reach glm.fit's "NA/NaN/Inf in 'x'": the squared mean overflows
  expect_error(fit_with(vast ~ 1, Gamma(link = "log")), "at most 1e150", class = "gpustats_error_argument")
  if (requireNamespace("MASS", quietly = TRUE)) {
    expect_error(fit_with(frac ~ 1, MASS::negative.binomial(2)), "whole numbers from 0", class = "gpustats_error_argument")
    expect_error(fit_with(zero ~ 1, MASS::negative.binomial(2)), "All responses are 0", class = "gpustats_error_argument")
  }
  expect_error(fit_with(y ~ 1, poisson(), weights = rep(-1, 30)), "positive and finite", class = "gpustats_error_argument")
  expect_error(fit_with(y ~ 1, poisson(), weights = 1:3), "a value per observation", class = "gpustats_error_argument")
  expect_error(fit_with(y ~ 1, gaussian(), weights = rep(1, 30)), "prior weights of non-Gaussian", class = "gpustats_error_argument")
  expect_error(fit_with(y ~ 1, poisson(link = "identity")), "Supported", class = "gpustats_error_argument")
  expect_error(fit_with(y ~ 1, poisson(), cluster = 2), "one process", class = "gpustats_error_argument")
  expect_error(fit_with(y ~ 1, poisson(), method = "reml"), "maximum likelihood", class = "gpustats_error_argument")
})

test_that("an inner Newton iteration that cannot converge is reported, not taken", {
  s <- glmm_sim(40, cov0, 5)
  y <- rpois(40, 3)
  r <- gpustats:::glmm_loglik(y, s$locs, matrix(1, 40, 1), 0, cov0, poisson())
  expect_true(r$converged)
  lik <- gpustats:::glmm_likelihood(list(y = as.double(y), locs = s$locs, X = matrix(1, 40, 1)), list(family = "poisson"),
                                    "euclidean", environment(), max_iter = 1L)
  on.exit(lik$close())
  expect_false(lik$mode(0, cov0)$converged)
})

test_that("confint() of a GLMM: Wald for the trend, profiles of the Laplace likelihood for the covariance", {
  s <- glmm_sim(80, cov0, 13)
  df <- data.frame(lon = s$locs[, 1], lat = s$locs[, 2], x = s$x)
  df$y <- rpois(80, exp(0.5 + 0.6 * df$x + s$field))
  fixed <- list(smoothness = 1.2)
  fit <- gp_fit(y ~ x, df, coords = ~ lon + lat, family = poisson(), fixed = fixed, control = list(trace = FALSE))
  ci <- confint(fit, c("x", "range"))
  z <- qnorm(0.975)
  se <- sqrt(fit$vcov_beta["x", "x"])
  expect_equal(ci["x", ], fit$beta[["x"]] + c(-1, 1) * z * se, ignore_attr = TRUE)
  # at each profile limit the fit with the range held there is the maximum less qchisq(0.95, 1) / 2
  for (limit in ci["range", ]) {
    held <- gp_fit(y ~ x, df, coords = ~ lon + lat, family = poisson(), fixed = c(fixed, range = limit),
                   control = list(trace = FALSE))
    expect_equal(fit$loglik - held$loglik, qchisq(0.95, 1) / 2, tolerance = 1e-3)
  }
  expect_lt(ci["range", 1], fit$covariance[["range"]])
  expect_gt(ci["range", 2], fit$covariance[["range"]])
  wald <- confint(fit, "sigma2", method = "wald")
  se2 <- sqrt(fit$vcov["sigma2", "sigma2"])
  expect_equal(unname(wald[1, ]), fit$covariance[["sigma2"]] * exp(c(-1, 1) * z * se2 / fit$covariance[["sigma2"]]))
})
