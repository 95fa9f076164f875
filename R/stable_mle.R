# Maximum likelihood for alpha-stable laws: every sample takes Newton steps
# in lockstep, so that each round evaluates the densities of all samples and
# all finite-difference probes in one call.

stable_lower <- c(alpha = 0.1, beta = -1, gamma = -Inf, delta = -Inf)
stable_upper <- c(alpha = 2, beta = 1, gamma = Inf, delta = Inf)

# Log-likelihoods of sample s[k] at parameters theta[k, ] (S0), one call.
# A batch of 1,000 fits evaluates 8e7 densities in 200 calls. Where the
# samples are of one length, each parameter serves its sample's points in
# the map (each =) and the sums are taken by column; laying the parameters
# out per point, and rowsum(), had each taken as long as the densities on a
# GPU.
stable_loglik_batch <- function(samples, s, theta, device, call) {
  n <- lengths(samples)[s]
  x <- unlist(samples[s], use.names = FALSE)
  flags <- stable_flags(0, log = TRUE, call = call)
  par <- list(x = x, alpha = theta[, 1], beta = theta[, 2], gamma = theta[, 3], delta = theta[, 4])
  ll <- if (all(n == n[1])) {
    ld <- stable_map("stable_d", par, flags, device, call, each = c(1, rep(n[1], 4)))
    .colSums(ld, n[1], length(n))
  } else {
    ld <- stable_map("stable_d", c(par[1], lapply(par[-1], rep.int, n)), flags, device, call)
    ends <- cumsum(n)
    vapply(seq_along(n), function(k) sum(ld[seq.int(to = ends[k], length.out = n[k])]), 0)
  }
  ll[!is.finite(ll)] <- -Inf
  ll
}

# Finite-difference offsets of each parameter at theta (one row per sample):
# two offsets per parameter, +h and -h inside the bounds, else both on the
# inside (+h, +2h or -h, -2h).
stable_fd_offsets <- function(theta) {
  h <- cbind(1e-4, 1e-4, 1e-4 * theta[, 3], 1e-4 * theta[, 3])
  lo <- sweep(theta, 2, stable_lower) < h
  hi <- sweep(-theta, 2, -stable_upper) < h
  a <- ifelse(hi, -h, h)
  b <- ifelse(hi, -2 * h, ifelse(lo, 2 * h, -h))
  list(a = a, b = b)
}

# Gradient and Hessian of the log-likelihoods at theta from 15 probes per
# sample: theta, theta + a_i e_i, theta + b_i e_i, theta + a_i e_i + a_j e_j.
stable_fd_derivatives <- function(samples, s, theta, device, call) {
  m <- nrow(theta)
  off <- stable_fd_offsets(theta)
  probes <- list(theta)
  for (i in 1:4) {
    for (o in list(off$a, off$b)) {
      p <- theta
      p[, i] <- p[, i] + o[, i]
      probes[[length(probes) + 1L]] <- p
    }
  }
  pairs <- utils::combn(4, 2)
  for (k in seq_len(ncol(pairs))) {
    i <- pairs[1, k]
    j <- pairs[2, k]
    p <- theta
    p[, i] <- p[, i] + off$a[, i]
    p[, j] <- p[, j] + off$a[, j]
    probes[[length(probes) + 1L]] <- p
  }
  all <- do.call(rbind, probes)
  ll <- matrix(stable_loglik_batch(samples, rep(s, length(probes)), all, device, call), m)
  f0 <- ll[, 1]
  grad <- matrix(0, m, 4)
  hess <- array(0, c(m, 4, 4))
  for (i in 1:4) {
    # the quadratic through (0, f0), (a, fa), (b, fb)
    a <- off$a[, i]
    b <- off$b[, i]
    da <- (ll[, 2 * i] - f0) / a
    db <- (ll[, 2 * i + 1] - f0) / b
    hess[, i, i] <- 2 * (da - db) / (a - b)
    grad[, i] <- da - hess[, i, i] * a / 2
  }
  for (k in seq_len(ncol(pairs))) {
    i <- pairs[1, k]
    j <- pairs[2, k]
    hij <- (ll[, 9 + k] - ll[, 2 * i] - ll[, 2 * j] + f0) / (off$a[, i] * off$a[, j])
    hess[, i, j] <- hess[, j, i] <- hij
  }
  list(loglik = f0, grad = grad, hess = hess)
}

# Parameters held at a bound: there, with the gradient pointing outwards.
stable_held <- function(theta, grad) {
  (theta <= stable_lower + 1e-12 & grad < 0) | (theta >= stable_upper - 1e-12 & grad > 0)
}

# The Newton direction of one sample over its free parameters; where minus
# the Hessian is not positive definite, a Levenberg shift makes it so.
stable_newton_direction <- function(grad, hess, held, scale) {
  free <- !held
  d <- numeric(4)
  if (!any(free)) return(d)
  # in scaled coordinates (gamma and delta relative to gamma)
  g <- grad[free] * scale[free]
  H <- -hess[free, free, drop = FALSE] * outer(scale[free], scale[free])
  H <- (H + t(H)) / 2
  lambda <- 0
  for (k in 1:60) {
    R <- tryCatch(chol(H + lambda * diag(nrow(H))), error = function(e) NULL)
    if (!is.null(R)) break
    lambda <- max(2 * lambda, 1e-6 * max(abs(diag(H)), 1))
  }
  if (is.null(R)) return(d)
  d[free] <- backsolve(R, forwardsolve(t(R), g)) * scale[free]
  d
}

stable_project <- function(theta) {
  pmin(pmax(theta, rep(stable_lower, each = nrow(theta))), rep(stable_upper, each = nrow(theta)))
}

stable_mle <- function(samples, device, call, max_iter = 100L) {
  m <- length(samples)
  theta <- do.call(rbind, lapply(samples, function(x) stable_mcculloch(x)$coefficients))
  theta <- stable_project(theta)
  theta[, 1] <- pmax(theta[, 1], 0.11) # off the lower bound, so differences are two-sided
  # a start whose support misses some of the data (alpha < 1, |beta| near 1):
  # less skewness until every point has a density
  for (k in 1:20) {
    bad <- which(!is.finite(stable_loglik_batch(samples, seq_len(m), theta, device, call)))
    if (length(bad) == 0L) break
    theta[bad, 2] <- theta[bad, 2] / 2
  }
  iterations <- integer(m)
  converged <- logical(m)
  active <- seq_len(m)
  # the derivatives of each sample at its current theta, kept for the
  # observed information: most samples end where they were last taken
  fd_all <- list(loglik = numeric(m), grad = matrix(0, m, 4), hess = array(0, c(m, 4, 4)))
  fresh <- logical(m)
  keep_fd <- function(fd, s) {
    fd_all$loglik[s] <<- fd$loglik
    fd_all$grad[s, ] <<- fd$grad
    fd_all$hess[s, , ] <<- fd$hess
    fresh[s] <<- TRUE
  }
  for (it in seq_len(max_iter)) {
    if (length(active) == 0L) break
    fd <- stable_fd_derivatives(samples, active, theta[active, , drop = FALSE], device, call)
    keep_fd(fd, active)
    dir <- matrix(0, length(active), 4)
    decrement <- numeric(length(active))
    for (k in seq_along(active)) {
      held <- stable_held(theta[active[k], ], fd$grad[k, ])
      scale <- c(1, 1, theta[active[k], 3], theta[active[k], 3])
      dir[k, ] <- stable_newton_direction(fd$grad[k, ], fd$hess[k, , ], held, scale)
      decrement[k] <- sum(fd$grad[k, ] * dir[k, ])
    }
    iterations[active] <- it
    # converged: the predicted gain of the step is below 1e-9 (log-likelihood
    # units); a probe without a density (next to a support end) stops the fit
    # unconverged
    stuck <- !is.finite(decrement)
    done <- stuck | decrement < 1e-9
    converged[active[done & !stuck]] <- TRUE
    # backtracking line search, all samples of this round together
    go <- which(!done)
    step <- rep(1, length(go))
    f0 <- fd$loglik[go]
    for (ls in 1:30) {
      if (length(go) == 0L) break
      trial <- stable_project(theta[active[go], , drop = FALSE] + step * dir[go, , drop = FALSE])
      trial[, 3] <- pmax(trial[, 3], theta[active[go], 3] / 4)
      ft <- stable_loglik_batch(samples, active[go], trial, device, call)
      ok <- ft >= f0 + 1e-4 * step * decrement[go] | ft > f0 & step < 1e-3
      theta[active[go[ok]], ] <- trial[ok, , drop = FALSE]
      fresh[active[go[ok]]] <- FALSE
      go <- go[!ok]
      f0 <- f0[!ok]
      step <- step[!ok] / 2
    }
    # a step that found no increase: the estimate cannot be improved further
    converged[active[go]] <- TRUE
    active <- active[!done & !(seq_along(active) %in% go)]
  }
  # observed information at the estimates
  stale <- which(!fresh)
  if (length(stale)) {
    keep_fd(stable_fd_derivatives(samples, stale, theta[stale, , drop = FALSE], device, call), stale)
  }
  fd <- fd_all
  lapply(seq_len(m), function(k) {
    held <- stable_held(theta[k, ], fd$grad[k, ])
    vc <- matrix(NA_real_, 4, 4, dimnames = list(names(stable_lower), names(stable_lower)))
    free <- !held
    info <- -fd$hess[k, , ][free, free, drop = FALSE]
    inv <- tryCatch(solve((info + t(info)) / 2), error = function(e) NULL)
    if (!is.null(inv)) vc[free, free] <- inv
    list(coefficients = stats::setNames(theta[k, ], names(stable_lower)), vcov = vc,
         loglik = fd$loglik[k], iterations = iterations[k], converged = converged[k])
  })
}
