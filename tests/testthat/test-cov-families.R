# The covariance families beside the Matérn (gp_covariance_models): their
# correlations against plain-R formulas, positive definiteness, the rule
# that refuses invalid ones, the derivatives against finite differences,
# and the exact path (fits, likelihood, prediction against gstat, draws).

ns <- asNamespace("gpustats")

# The correlations written out in R, z = d / range.
ref_corr <- function(family, z, s = list()) {
  switch(family,
    gaussian = exp(-z^2),
    spherical = ifelse(z < 1, 1 - 1.5 * z + 0.5 * z^3, 0),
    powexp = exp(-z^s$power),
    cauchy = (1 + z^s$power)^(-s$tail / s$power),
    wendland = {
      k <- s$kappa
      a <- s$mu + k
      P <- switch(k + 1, 1, 1 + a * z, 1 + a * z + (a^2 - 1) * z^2 / 3)
      ifelse(z < 1, pmax(1 - z, 0)^a * P, 0)
    }
  )
}

# Each family with shape values of its domain (valid in 3 dimensions).
family_cases <- list(
  list(cov = "gaussian", shape = list()),
  list(cov = "spherical", shape = list()),
  list(cov = "powexp", shape = list(power = 0.7)),
  list(cov = "powexp", shape = list(power = 1.6)),
  list(cov = "cauchy", shape = list(power = 1.3, tail = 0.6)),
  list(cov = "cauchy", shape = list(power = 2, tail = 3)),
  list(cov = "wendland", shape = list(kappa = 0, mu = 2.5)),
  list(cov = "wendland", shape = list(kappa = 1, mu = 3.4)),
  list(cov = "wendland", shape = list(kappa = 2, mu = 4))
)

# The correlation at distances h from the origin of 1-D locations.
native_corr <- function(case, h, range) {
  drop(do.call(gp_cov_matrix, c(list(matrix(h), matrix(0), cov = case$cov, range = range, device = "cpu"), case$shape)))
}

test_that("the correlations match their formulas from d = 0 past the support, at tiny and huge ranges", {
  z <- c(0, 1e-300, 1e-12, 1e-6, 0.01, 0.3, 0.5, 0.9, 0.999999, 1, 1 + 1e-12, 1.5, 3, 10, 40, 1e3, 1e100)
  for (case in family_cases) {
    for (range in c(1e-200, 1e-3, 1, 7.5, 1e200)) {
      d <- z * range
      ref <- ref_corr(case$cov, d / range, case$shape) # the z the core sees: d rounded, then divided
      v <- native_corr(case, d, range)
      info <- paste(case$cov, paste(format(unlist(case$shape)), collapse = " "), "range", range)
      expect_identical(v[1], 1, info = info)
      expect_identical(v[ref == 0] == 0, rep(TRUE, sum(ref == 0)), info = info)
      # relative to the value, and absolute for the reference's own cancellation
      # (the spherical's 1 - 3z/2 + z^3/2 next to z = 1)
      expect_true(all(abs(v - ref) <= 1e-13 * ref + 4e-16), info = info)
    }
  }
  # the Gaussian is the powered exponential at power 2
  z <- seq(0, 4, by = 0.01)
  expect_equal(native_corr(list(cov = "gaussian", shape = list()), z, 1),
               native_corr(list(cov = "powexp", shape = list(power = 2)), z, 1), tolerance = 1e-15)
})

test_that("covariance matrices are positive definite on random 2-D and 3-D points", {
  set.seed(11)
  for (dim in 2:3) {
    locs <- matrix(runif(150 * dim), ncol = dim)
    for (case in family_cases) {
      for (range in c(0.1, 0.6)) {
        S <- do.call(gp_cov_matrix, c(list(locs, cov = case$cov, range = range, device = "cpu"), case$shape))
        expect_true(isSymmetric(S))
        expect_gt(min(eigen(S, symmetric = TRUE, only.values = TRUE)$values), -1e-10 * nrow(S))
      }
    }
  }
})

test_that("names are accepted in gstat's and other spellings, in any case", {
  same <- function(a, b) expect_identical(ns$gp_cov_model(a, 2, "euclidean", NULL)[c("family", "native", "geometry")],
                                          ns$gp_cov_model(b, 2, "euclidean", NULL)[c("family", "native", "geometry")])
  same("Sph", "spherical")
  same("GAU", "gaussian")
  same("squared_exponential", "gaussian")
  same("Exp", "exponential")
  same("Mat", "matern")
  same("Exc", "powexp")
  same("powered_exponential_aniso", "powexp_aniso")
  same("Matern_Isotropic", "matern")
  same("generalized_cauchy", "cauchy")
  locs <- matrix(runif(10), ncol = 2)
  expect_identical(gp_cov_matrix(locs, cov = "Sph", range = 0.4), gp_cov_matrix(locs, cov = "spherical", range = 0.4))
})

test_that("unknown families, shapes out of their domain and invalid families for the locations are refused", {
  locs <- matrix(runif(20), ncol = 2)
  e <- expect_error(gp_cov_matrix(locs, cov = "hole"), class = "gpustats_error_argument")
  expect_match(conditionMessage(e), "spherical \\(sph")
  expect_match(conditionMessage(e), "gaussian \\(gau, squared_exponential\\)")
  expect_error(gp_cov_matrix(locs, cov = "powexp", power = 2.5), "power in", class = "gpustats_error_cov_shape")
  expect_error(gp_cov_matrix(locs, cov = "powexp", power = 0), "power in", class = "gpustats_error_argument")
  expect_error(gp_cov_matrix(locs, cov = "cauchy", power = 1, tail = 0), "tail > 0", class = "gpustats_error_argument")
  expect_error(gp_cov_matrix(locs, cov = "wendland", kappa = 3, mu = 6), "kappa 0, 1 or 2")
  expect_error(gp_cov_matrix(locs, cov = "wendland", kappa = 1, mu = 2), "not positive definite in 2 dimensions",
               class = "gpustats_error_cov_dimension")
  expect_error(gp_cov_matrix(locs, cov = "powexp"), "needs `power`")
  expect_error(gp_cov_matrix(locs, cov = "spherical", power = 1), "no parameter")
  expect_error(gp_cov_matrix(locs, cov = "exponential", smoothness = 1), "has smoothness 0.5")
  expect_error(gp_cov_matrix(matrix(runif(40), ncol = 4), cov = "spherical"), class = "gpustats_error_cov_dimension")
  expect_error(gp_cov_matrix(matrix(runif(40), ncol = 4), cov = "wendland", mu = 3), "in 4 dimensions")
  # great-circle distance: the Gaussian never, the others within Gneiting's (2013) conditions
  ll <- cbind(runif(10, -10, 10), runif(10, 40, 50))
  expect_error(gp_cov_matrix(ll, cov = "gaussian", range = 500, distance = "great_circle"),
               class = "gpustats_error_cov_sphere")
  expect_error(gp_cov_matrix(ll, cov = "powexp", range = 500, power = 1.5, distance = "great_circle"), "power <= 1",
               class = "gpustats_error_cov_sphere")
  expect_error(gp_cov_matrix(ll, cov = "spherical", range = 3e4, distance = "great_circle"), "pi times",
               class = "gpustats_error_cov_sphere")
  expect_error(gp_cov_matrix(ll, cov = "wendland", range = 500, mu = 2.5, distance = "great_circle"), "mu >= 2 \\+ kappa")
  S <- gp_cov_matrix(ll, cov = "wendland", range = 500, mu = 3, distance = "great_circle")
  expect_gt(min(eigen(S, only.values = TRUE)$values), 0)
  expect_silent(gp_cov_matrix(ll, cov = "cauchy", range = 500, power = 1, tail = 2, distance = "great_circle"))
  expect_error(gp_loglik(rnorm(10), locs, 1, 0.3, cov = "wendland", mu = 1, approx = "vecchia", m = 3),
               "not positive definite in 2 dimensions")
})

# u' dS u for dS the derivative of S in each parameter, natively and by
# central differences of the plain-R covariance.
derivative_case <- function(case, n = 30, seed = 3) {
  set.seed(seed)
  locs <- matrix(runif(2 * n), ncol = 2)
  model <- ns$gp_cov_model(case$cov, 2, "euclidean", NULL)
  params <- ns$gp_cov_params(1.7, 0.45, unlist(case$shape), 0.2)
  D <- as.matrix(dist(locs))
  S_of <- function(p) p[["sigma2"]] * ref_corr(case$cov, D / p[["range"]], as.list(p)) + diag(p[["nugget"]], n)
  list(locs = locs, model = model, params = params, S_of = S_of, u = rnorm(n))
}

test_that("the closed-form derivatives match central differences in the range and every shape", {
  for (case in family_cases) {
    dc <- derivative_case(case)
    deriv <- setdiff(names(dc$params), "kappa")
    gp <- ns$gp_open(dc$locs, "euclidean", "cpu", environment(), 0, dc$model$native)
    ns$gp_factor(gp, dc$params, dc$locs, environment())
    r <- ns$gp_derivatives(gp, dc$params, deriv, matrix(0, nrow(dc$locs), 0), matrix(dc$u), FALSE, environment())
    ns$gp_close(gp)
    for (k in deriv) {
      h <- 1e-5 * dc$params[[k]]
      up <- dn <- dc$params
      up[[k]] <- up[[k]] + h
      dn[[k]] <- dn[[k]] - h
      fd <- (sum(dc$u * (dc$S_of(up) %*% dc$u)) - sum(dc$u * (dc$S_of(dn) %*% dc$u))) / (2 * h)
      expect_lt(abs(r$quad[[k]] / fd - 1), 1e-6, label = paste(case$cov, k))
    }
  }
})

test_that("gp_loglik and gp_simulate take the families, as the dense Gaussian law", {
  set.seed(4)
  locs <- matrix(runif(80), ncol = 2)
  y <- rnorm(40)
  for (case in family_cases) {
    S <- do.call(gp_cov_matrix, c(list(locs, cov = case$cov, sigma2 = 1.3, range = 0.5, nugget = 0.1), case$shape))
    ll <- do.call(gp_loglik, c(list(y, locs, sigma2 = 1.3, range = 0.5, nugget = 0.1, cov = case$cov), case$shape))
    L <- t(chol(S))
    ref <- -0.5 * (40 * log(2 * pi) + 2 * sum(log(diag(L))) + sum(forwardsolve(L, y)^2))
    expect_lt(abs(ll[[1]] - ref), 1e-10 * abs(ref))
    set.seed(9)
    draw <- do.call(gp_simulate, c(list(locs, sigma2 = 1.3, range = 0.5, nugget = 0.1, cov = case$cov), case$shape))
    set.seed(9)
    expect_lt(max(abs(draw - drop(L %*% rnorm(40)))), 1e-10)
  }
})

test_that("gp_fit recovers the parameters of each family on simulated data", {
  set.seed(21)
  n <- 500
  locs <- matrix(runif(2 * n), ncol = 2)
  truth <- list(
    list(cov = "spherical", shape = list(), fixed = list()),
    list(cov = "gaussian", shape = list(), fixed = list()),
    list(cov = "powexp", shape = list(power = 1.2), fixed = list()),
    list(cov = "cauchy", shape = list(power = 1, tail = 1.5), fixed = list(power = 1, tail = 1.5)),
    list(cov = "wendland", shape = list(kappa = 1, mu = 3), fixed = list(mu = 3))
  )
  for (t in truth) {
    S <- do.call(gp_cov_matrix, c(list(locs, cov = t$cov, sigma2 = 1, range = 0.3, nugget = 0.05), t$shape))
    y <- 2 + drop(t(chol(S)) %*% rnorm(n))
    fit <- gp_fit(y, locs, cov = t$cov, fixed = t$fixed, control = list(trace = FALSE))
    info <- t$cov
    expect_equal(fit$covariance[["range"]], 0.3, tolerance = 0.35, info = info)
    expect_equal(fit$covariance[["sigma2"]], 1, tolerance = 0.5, info = info)
    expect_equal(fit$covariance[["nugget"]], 0.05, tolerance = 0.6, info = info)
    if (t$cov == "powexp") expect_equal(fit$covariance[["power"]], 1.2, tolerance = 0.25)
    expect_identical(fit$vcov_type, "fisher")
    expect_true(all(is.finite(sqrt(diag(fit$vcov)))), info = info)
    expect_output(print(fit), paste(t$cov, "covariance"))
    # the maximum is no lower than the likelihood at the truth
    at_truth <- gp_fit(y, locs, cov = t$cov, fixed = c(list(sigma2 = 1, range = 0.3, nugget = 0.05), t$shape),
                       control = list(trace = FALSE))
    expect_gte(fit$loglik, at_truth$loglik - 1e-6)
  }
})

test_that("the analytic gradient and Fisher information serve the families (against finite differences)", {
  set.seed(8)
  n <- 120
  locs <- matrix(runif(2 * n), ncol = 2)
  for (case in list(list(cov = "spherical", shape = list()), list(cov = "powexp", shape = list(power = 1.3)),
                    list(cov = "cauchy", shape = list(power = 1.2, tail = 0.8)),
                    list(cov = "wendland", shape = list(kappa = 2, mu = 4)))) {
    S <- do.call(gp_cov_matrix, c(list(locs, cov = case$cov, sigma2 = 1, range = 0.4, nugget = 0.1), case$shape))
    d <- list(y = drop(t(chol(S)) %*% rnorm(n)), locs = locs, X = matrix(1, n, 1, dimnames = list(NULL, "(Intercept)")))
    model <- ns$gp_cov_model(case$cov, 2, "euclidean", NULL)
    fixed <- if (case$cov == "wendland") list(kappa = case$shape$kappa) else list()
    spec <- ns$fit_spec(d, model, NULL, NULL, NULL, fixed, TRUE, NULL)
    lik <- ns$gp_likelihood(d, model, "reml", "cpu", 0, environment())
    theta <- spec$theta0
    g <- ns$lik_gradient(lik, spec, theta, environment())
    f <- function(t) lik$profile(spec$unpack(t))
    fd <- vapply(seq_along(theta), function(i) {
      h <- 1e-5
      up <- dn <- theta
      up[i] <- up[i] + h
      dn[i] <- dn[i] - h
      (f(up) - f(dn)) / (2 * h)
    }, 0)
    expect_lt(max(abs(g - fd) / pmax(abs(fd), 1)), 1e-5, label = case$cov)
    lik$close()
  }
})

test_that("anisotropic families with equal ranges are the isotropic ones", {
  set.seed(2)
  locs <- matrix(runif(100), ncol = 2)
  y <- rnorm(50)
  for (cov in c("spherical", "gaussian", "powexp")) {
    shape <- if (cov == "powexp") list(power = 1.4) else list()
    iso <- gp_fit(y, locs, cov = cov, fixed = c(list(sigma2 = 1, range = 0.3, nugget = 0.2), shape),
                  control = list(trace = FALSE))
    aniso <- gp_fit(y, locs, cov = paste0(cov, "_aniso"),
                    fixed = c(list(sigma2 = 1, range1 = 0.3, range2 = 0.3, angle = 0.7, nugget = 0.2), shape),
                    control = list(trace = FALSE))
    expect_equal(aniso$loglik, iso$loglik, tolerance = 1e-12)
  }
})

test_that("kriging with the spherical, Gaussian and exponential families matches gstat::krige", {
  skip_if_not_installed("gstat")
  skip_if_not_installed("sp")
  meuse <- NULL
  meuse.grid <- NULL
  utils::data("meuse", package = "sp", envir = environment())
  utils::data("meuse.grid", package = "sp", envir = environment())
  for (fam in c("Sph", "Gau", "Exp")) {
    fit <- gp_fit(log(zinc) ~ sqrt(dist), meuse, coords = ~ x + y, cov = fam, control = list(trace = FALSE))
    p <- predict(fit, meuse.grid, se.fit = TRUE)
    cv <- fit$covariance
    obs <- meuse
    grid <- meuse.grid
    sp::coordinates(obs) <- ~ x + y
    sp::coordinates(grid) <- ~ x + y
    k <- gstat::krige(log(zinc) ~ sqrt(dist), obs, grid,
                      model = gstat::vgm(cv[["sigma2"]], fam, cv[["range"]], cv[["nugget"]]), debug.level = 0)
    expect_lt(max(abs(p$fit - k$var1.pred)), 1e-8, label = fam)
    # gstat's variance is that of a new observation: the field's plus the nugget
    expect_lt(max(abs(p$se.fit^2 + cv[["nugget"]] - k$var1.var)), 1e-8, label = fam)
  }
})

test_that("fits with great-circle distance keep the families valid on the sphere", {
  set.seed(5)
  ll <- cbind(runif(60, -20, 20), runif(60, 30, 60))
  y <- rnorm(60)
  expect_error(gp_fit(y, ll, cov = "gaussian", distance = "great_circle", control = list(trace = FALSE)),
               class = "gpustats_error_cov_sphere")
  expect_error(gp_fit(y, ll, cov = "powexp", distance = "great_circle", upper = list(power = 1.5),
                      control = list(trace = FALSE)), "power <= 1")
  # noise without spatial structure: the estimates go to their bounds, which keep the family valid
  quiet <- function(expr) withCallingHandlers(expr, gpustats_warning_at_bound = function(w) invokeRestart("muffleWarning"))
  fit <- quiet(gp_fit(y, ll, cov = "wendland", distance = "great_circle", control = list(trace = FALSE, hessian = FALSE)))
  expect_gte(fit$covariance[["mu"]], 3 - 1e-12)
  expect_lte(fit$covariance[["range"]], pi * 6371)
  fit <- quiet(gp_fit(y, ll, cov = "powexp", distance = "great_circle", control = list(trace = FALSE, hessian = FALSE)))
  expect_lte(fit$covariance[["power"]], 1)
})

test_that("the Wendland's kappa is held, never searched", {
  locs <- matrix(runif(60), ncol = 2)
  expect_error(gp_fit(rnorm(30), locs, cov = "wendland", start = list(kappa = 1), control = list(trace = FALSE)),
               "not estimated")
  fit <- gp_fit(rnorm(30), locs, cov = "wendland", fixed = list(kappa = 0, mu = 2), control = list(trace = FALSE, hessian = FALSE))
  expect_identical(fit$covariance[["kappa"]], 0)
  expect_false("kappa" %in% fit$estimated)
})

test_that("the Vecchia likelihood with every earlier point conditioned on is the exact one", {
  set.seed(6)
  n <- 60
  locs <- matrix(runif(2 * n), ncol = 2)
  y <- rnorm(n)
  for (case in family_cases) {
    args <- c(list(y, locs, sigma2 = 1.2, range = 0.4, nugget = 0.1, cov = case$cov), case$shape)
    exact <- do.call(gp_loglik, args)[[1]]
    for (group in c(FALSE, TRUE)) {
      v <- do.call(gp_loglik, c(args, list(approx = "vecchia", m = n - 1, group = group)))[[1]]
      expect_lt(abs(v - exact), 1e-8 * abs(exact), label = paste(case$cov, group))
    }
    v <- do.call(vecchia_loglik, c(list(y, locs, sigma2 = 1.2, range = 0.4, nugget = 0.1, m = n - 1, cov = case$cov),
                                   case$shape))[[1]]
    expect_lt(abs(v - exact), 1e-8 * abs(exact), label = case$cov)
  }
})

test_that("the Vecchia gradient matches differences of its likelihood, and Vecchia fits reach the exact maximum", {
  set.seed(7)
  n <- 80
  locs <- matrix(runif(2 * n), ncol = 2)
  y <- rnorm(n)
  X <- matrix(1, n, 1)
  for (case in family_cases) {
    model <- ns$gp_cov_model(case$cov, 2, "euclidean", NULL)
    params <- ns$gp_cov_params(1.1, 0.3, unlist(case$shape), 0.2)
    deriv <- setdiff(names(params), "kappa")
    vc <- ns$vecchia_open(locs, 10, label = "test")
    at <- function(p, deriv) {
      ns$vecchia_loglik_grad_info(vc, p, y, X, deriv = deriv, method = "reml", label = "test", family = model$native)
    }
    g <- at(params, deriv)$grad
    for (k in deriv) {
      h <- 1e-6 * params[[k]]
      f <- function(step) {
        p <- params
        p[[k]] <- p[[k]] + step * h
        at(p, character())$loglik
      }
      # second-order differences, one-sided at the power's bound of 2
      fd <- if (k == "power" && params[[k]] == 2) (3 * f(0) - 4 * f(-1) + f(-2)) / (2 * h) else (f(1) - f(-1)) / (2 * h)
      expect_lt(abs(g[[k]] - fd), 1e-5 * max(1, abs(fd)), label = paste(case$cov, k))
    }
    ns$vecchia_close(vc)
  }
  for (cov in c("spherical", "powexp")) {
    shape <- if (cov == "powexp") list(power = 1.3) else list()
    S <- do.call(gp_cov_matrix, c(list(locs, cov = cov, sigma2 = 1, range = 0.3, nugget = 0.1), shape))
    z <- drop(t(chol(S)) %*% rnorm(n))
    # from one start: the spherical's likelihood may have several maxima in the range
    exact <- gp_fit(z, locs, cov = cov, start = list(range = 0.3), control = list(trace = FALSE, hessian = FALSE))
    vecchia <- gp_fit(z, locs, cov = cov, approx = "vecchia", m = n - 1, start = list(range = 0.3),
                      control = list(trace = FALSE))
    expect_equal(vecchia$loglik, exact$loglik, tolerance = 1e-7, info = cov)
    expect_equal(vecchia$covariance[names(exact$covariance)], exact$covariance, tolerance = 1e-3, info = cov)
    p_exact <- predict(exact, locs[1:5, ] + 0.01)
    p_vecchia <- predict(vecchia, locs[1:5, ] + 0.01, m_pred = n)
    expect_equal(p_vecchia, p_exact, tolerance = 1e-3, info = cov)
  }
})

test_that("the Fisher information is the curvature of the expected log-likelihood (finite differences)", {
  # E over y ~ N(0, Sigma0) of the log-likelihood at theta is
  # -(log |Sigma(theta)| + tr(Sigma(theta)^-1 Sigma0)) / 2 + const, whose
  # Hessian at theta0 is minus the information; the native call gives twice
  # it, tr(P dS_i P dS_j) with P = Sigma^-1 (ML without a trend). Steps are
  # relative, p (1 + s), so the Hessian in s is p_i p_j times the natural one.
  for (case in family_cases) {
    dc <- derivative_case(case, n = 25)
    deriv <- setdiff(names(dc$params), "kappa")
    gp <- ns$gp_open(dc$locs, "euclidean", "cpu", environment(), 0, dc$model$native)
    ns$gp_factor(gp, dc$params, dc$locs, environment())
    r <- ns$gp_derivatives(gp, dc$params, deriv, matrix(0, nrow(dc$locs), 0), matrix(dc$u), TRUE, environment())
    ns$gp_close(gp)
    S0 <- dc$S_of(dc$params)
    expected <- function(p) {
      S <- dc$S_of(p)
      -0.5 * (as.numeric(determinant(S)$modulus) + sum(diag(solve(S, S0))))
    }
    at <- function(steps) {
      p <- dc$params
      p[names(steps)] <- p[names(steps)] * (1 + steps)
      expected(p)
    }
    h <- 1e-4
    for (i in deriv) {
      for (j in deriv) {
        hij <- if (i == j) {
          (at(stats::setNames(h, i)) - 2 * expected(dc$params) + at(stats::setNames(-h, i))) / h^2
        } else {
          (at(stats::setNames(c(h, h), c(i, j))) - at(stats::setNames(c(h, -h), c(i, j))) -
             at(stats::setNames(c(-h, h), c(i, j))) + at(stats::setNames(c(-h, -h), c(i, j)))) / (4 * h^2)
        }
        fisher <- 0.5 * r$info[i, j] * dc$params[[i]] * dc$params[[j]]
        expect_lt(abs(-hij - fisher), 1e-5 * max(1, abs(fisher)), label = paste(case$cov, i, j))
      }
    }
  }
})

test_that("simulate() and predict() of a fit follow its family", {
  set.seed(12)
  locs <- matrix(runif(80), ncol = 2)
  K <- gp_cov_matrix(locs, cov = "wendland", range = 0.5, mu = 3, nugget = 0.05)
  y <- drop(t(chol(K)) %*% rnorm(40))
  fit <- gp_fit(y, locs, cov = "wendland", fixed = list(sigma2 = 1, range = 0.5, mu = 3, nugget = 0.05),
                control = list(trace = FALSE))
  expect_identical(dim(simulate(fit, nsim = 2)), c(40L, 2L))
  # the predictions are the universal kriging of the family's covariance
  new <- matrix(runif(10), ncol = 2)
  k0 <- gp_cov_matrix(new, locs, cov = "wendland", range = 0.5, mu = 3)
  Kiy <- solve(K, y)
  Ki1 <- solve(K, rep(1, 40))
  beta <- sum(Kiy) / sum(Ki1) # the GLS mean
  ref <- drop(k0 %*% Kiy) + (1 - drop(k0 %*% Ki1)) * beta
  expect_equal(unname(predict(fit, new)), ref, tolerance = 1e-10)
  expect_identical(dim(simulate(fit, nsim = 3, newdata = new)), c(5L, 3L))
})

test_that("the GPU evaluates the families as the CPU does: matrices, likelihoods, derivatives, Vecchia", {
  skip_without_gpu()
  set.seed(13)
  n <- 300
  locs <- matrix(runif(2 * n), ncol = 2)
  y <- rnorm(n)
  for (case in family_cases) {
    args <- c(list(locs, cov = case$cov, sigma2 = 1.2, range = 0.3, nugget = 0.1), case$shape)
    expect_equal(do.call(gp_cov_matrix, c(args, device = "gpu")), do.call(gp_cov_matrix, c(args, device = "cpu")),
                 tolerance = 1e-13, info = case$cov)
    ll <- c(list(y), args[-1L], list(locs = locs))
    for (approx in c("exact", "vecchia")) {
      at <- function(device) do.call(gp_loglik, c(ll, list(approx = approx, m = 20, device = device)))[[1]]
      expect_equal(at("gpu"), at("cpu"), tolerance = 1e-10, info = paste(case$cov, approx))
    }
    params <- ns$gp_cov_params(1.2, 0.3, unlist(case$shape), 0.1)
    deriv <- setdiff(names(params), "kappa")
    model <- ns$gp_cov_model(case$cov, 2, "euclidean", NULL)
    native <- function(device) {
      gp <- ns$gp_open(locs, "euclidean", device, environment(), 0, model$native)
      on.exit(ns$gp_close(gp))
      ns$gp_factor(gp, params, locs, environment())
      ns$gp_derivatives(gp, params, deriv, matrix(1, n, 1), matrix(y), TRUE, environment())
    }
    expect_equal(native("gpu"), native("cpu"), tolerance = 1e-9, info = case$cov)
    grad <- function(device) {
      vc <- ns$vecchia_open(locs, 20, device = device, label = "test")
      on.exit(ns$vecchia_close(vc))
      ns$vecchia_loglik_grad_info(vc, params, y, matrix(1, n, 1), deriv = deriv, label = "test", family = model$native)
    }
    g_gpu <- grad("gpu")
    g_cpu <- grad("cpu")
    expect_equal(g_gpu$grad, g_cpu$grad, tolerance = 1e-9, info = case$cov)
    expect_equal(g_gpu$info, g_cpu$info, tolerance = 1e-9, info = case$cov)
  }
})

test_that("anova() nests fits of one family only, and confint() profiles a Wendland fit with kappa held", {
  set.seed(14)
  locs <- matrix(runif(120), ncol = 2)
  y <- drop(t(chol(gp_cov_matrix(locs, cov = "wendland", range = 0.6, mu = 3, nugget = 0.1))) %*% rnorm(60))
  q <- list(trace = FALSE)
  sph <- gp_fit(y, locs, cov = "spherical", control = q)
  held <- gp_fit(y, locs, cov = "wendland", fixed = list(mu = 3), control = q)
  free <- suppressWarnings(gp_fit(y, locs, cov = "wendland", control = q))
  expect_error(anova(sph, free), "covariance family \\(spherical\\) is not the larger model's \\(wendland\\)")
  a <- anova(held, free)
  expect_equal(a$Chisq[2], 2 * (free$loglik - held$loglik), tolerance = 1e-12)
  ci <- suppressWarnings(confint(held, parm = "range"))
  expect_true(ci[1] < held$covariance[["range"]] && held$covariance[["range"]] < ci[2])
})
