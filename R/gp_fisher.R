# The exact likelihood's derivatives from the native object
# (gs_gp_derivatives): with the factor of R = M + ratio I at a point of the
# search, the traces tr(P dR_i), the quadratic forms u' dR_i u (u = R^-1 r
# for the GLS residuals r) and the information tr(P dR_i P dR_j), where P is
# R^-1 (ML) or its REML projection and dR_i the derivative matrices of the
# covariance family (matern_deriv_math.h and cov_family_math.h, the Vecchia
# engine's). From them: the
# gradient of the profiled log-likelihood and the Fisher information of the
# covariance parameters.

# Whether they serve a fit: isotropic models (an anisotropic or space-time
# model's ranges and angles act through the mapped coordinates, which the
# native object does not differentiate), a dense factor (not the tile
# Cholesky, which mixed precision and the largest n use), and for REML one
# data set (the REML projection of replicates differs between their mean and
# their spread). Replicates with missing values (ML) sum those of their
# patterns' factors.
gp_derivatives_available <- function(lik, model) {
  model$geometry == "isotropic" && !lik$tiled && (gp_replicates(lik$d$y) == 1L || lik$method == "ml")
}

# The native call at the object's last factor (that of `params`, named as
# cov_model() takes them): trace, quad and info (or NULL) for the
# parameters named in `deriv`.
gp_derivatives <- function(gp, params, deriv, X, U, info, call, bar = NULL) {
  storage.mode(X) <- "double"
  storage.mode(U) <- "double"
  at <- gs_code("cov_param", deriv)
  r <- gs_call(.Call(gs_r_gp_derivatives, gp$ptr, cov_model(params, gp$distance, gp$family), as.integer(sum(2L^at)), X, U,
                     info, bar), call)
  at <- at + 1L
  list(trace = stats::setNames(r$trace[at], deriv), quad = stats::setNames(r$quad[at], deriv),
       info = if (info) matrix(r$info[at, at], length(at), dimnames = list(deriv, deriv)))
}

# The derivatives of R at the point `par` of the search, in the natural
# parameters `deriv` ("range", the shapes, "nugget" standing for the
# ratio, whose dR is I), with the point's GLS quantities `gls`; NULL where R
# is not positive definite there. The trace and the information are those of
# one replicate, `reps` times which is all of them; the quadratic forms sum
# over the replicates. Replicates with missing values add their patterns'
# (ML only, see gp_derivatives_available()), reps 1.
lik_derivatives <- function(lik, par, deriv, info, call, bar = NULL) {
  g <- lik$factored(par)
  if (is.na(g$logdet)) return(NULL)
  d <- lik$d
  params <- gp_cov_params(1, par$geom[["range"]], par$shape, par$ratio)
  if (!is.null(lik$patterns)) {
    return(c(pattern_derivatives(lik$patterns, d, g$beta, params, deriv, info, lik$model, lik$device_asked,
                                 lik$accuracy, call),
             list(reps = 1L, gls = g)))
  }
  resid <- as.matrix(d$y - drop(d$X %*% g$beta)) # a column per replicate
  U <- as.matrix(gp_apply(lik$gp, "solve", resid, call))
  X <- if (lik$method == "reml") d$X else matrix(0, nrow(d$locs), 0L)
  r <- gp_derivatives(lik$gp, params, deriv, X, U, info, call, bar)
  c(r, list(reps = gp_replicates(d$y), gls = g))
}

# The natural parameters of the search's parameters' dR (the ratio's is the
# nugget's, I).
fit_deriv_names <- function(free) sub("^ratio$", "nugget", free)

# The chain rule from the natural parameters `names` to the search's scale:
# their values in `values` where searched on a log scale, else 1.
fit_log_chain <- function(names, values) {
  vapply(names, function(k) if (fit_scale_is_log(k)) values[[k]] else 1, numeric(1))
}

# The gradient of the profiled log-likelihood (the exact search's objective,
# negated) in the search's parameters theta (log range, log shapes,
# ratio): with sigma2 profiled (or fixed) at s2,
#   d l / d theta_i = -reps tr(P dR_i) / 2 + sum_j u_j' dR_i u_j / (2 s2),
# reps replicates sharing R (the quadratic form of the profiled sigma2 has
# no derivative of its own: Q / n_eff is its maximiser).
lik_gradient <- function(lik, spec, theta, call) {
  par <- spec$unpack(theta)
  deriv <- fit_deriv_names(spec$free)
  r <- lik_derivatives(lik, par, deriv, FALSE, call)
  if (is.null(r)) return(stats::setNames(rep(NA_real_, length(theta)), spec$free))
  s2 <- spec$fixed$sigma2 %||% (r$gls$q / lik$n_eff)
  g <- -0.5 * r$reps * r$trace + 0.5 * r$quad / s2
  stats::setNames(g * fit_log_chain(deriv, c(par$geom, par$shape)), spec$free)
}

# The expected (Fisher) information of the covariance parameters `interior`
# on the scale of fit_vcov: log sigma2, log range, log shapes and the
# nugget as its ratio to sigma2. With Sigma = sigma2 R and P of R (P R P = P
# for ML and REML alike), per replicate:
#   I(log sigma2, log sigma2) = n_eff / 2,
#   I(log sigma2, b)          = c_b tr(P dR_b) / 2,
#   I(a, b)                   = c_a c_b tr(P dR_a P dR_b) / 2,
# c the chain rule to the log scale (the range, the shapes; 1 for the
# ratio, whose dR is I). The trend is profiled by GLS: the information of
# (beta, theta) is block diagonal, so this block is that of theta.
lik_information <- function(lik, covariance, interior, call, bar = NULL) {
  s2 <- covariance[["sigma2"]]
  shapes <- setdiff(names(covariance), c("sigma2", "range", "nugget"))
  par <- list(geom = c(range = covariance[["range"]]), shape = covariance[shapes], ratio = covariance[["nugget"]] / s2)
  corr <- setdiff(interior, "sigma2")
  I <- matrix(0, length(interior), length(interior), dimnames = list(interior, interior))
  if ("sigma2" %in% interior) I["sigma2", "sigma2"] <- 0.5 * lik$n_eff
  if (!length(corr)) return(I)
  r <- lik_derivatives(lik, par, corr, TRUE, call, bar)
  if (is.null(r)) return(NULL)
  c <- fit_log_chain(corr, covariance)
  I[corr, corr] <- 0.5 * r$reps * outer(c, c) * r$info
  if ("sigma2" %in% interior) I["sigma2", corr] <- I[corr, "sigma2"] <- 0.5 * r$reps * c * r$trace
  I
}
