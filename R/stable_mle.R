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

# theta + step * dir inside the bounds, gamma shrinking at most fourfold.
stable_trial <- function(theta, dir, step) {
  trial <- stable_project(theta + step * dir)
  trial[, 3] <- pmax(trial[, 3], theta[, 3] / 4)
  trial
}

# The line search's test: sufficient increase (Armijo), or any increase
# once the step is short.
stable_step_accepted <- function(ft, f0, step, decrement) {
  ft >= f0 + 1e-4 * step * decrement | ft > f0 & step < 1e-3
}

# Starting values: McCulloch's estimates, and where its alpha is above 1.9
# the best of it and a few alphas closer to 2. The log-likelihood grows like
# log(2 - alpha) times the number of points in a heavy tail, so Newton steps
# from just below 2 only double 2 - alpha: from McCulloch's alpha = 2 a fit
# took 14 steps down to 1.965. A start whose support misses some of the
# data (alpha < 1, |beta| near 1) gets less skewness until every point has
# a density.
stable_mle_start <- function(samples, device, call) {
  theta <- do.call(rbind, lapply(samples, function(x) stable_mcculloch(x)$coefficients))
  theta <- stable_project(theta)
  theta[, 1] <- pmax(theta[, 1], 0.11) # off the lower bound, so differences are two-sided
  alts <- 2 - c(0.1, 0.05, 0.02, 0.01, 0.005, 0.002, 0.001)
  todo <- seq_len(nrow(theta))
  for (k in 1:20) {
    near <- todo[theta[todo, 1] > 1.9]
    owner <- c(todo, rep(near, each = length(alts)))
    cand <- theta[owner, , drop = FALSE]
    cand[-seq_along(todo), 1] <- rep(alts, length(near))
    ll <- stable_loglik_batch(samples, owner, cand, device, call)
    o <- order(owner, -ll)
    best <- o[!duplicated(owner[o])]
    found <- is.finite(ll[best])
    theta[todo[found], ] <- cand[best[found], ]
    todo <- todo[!found]
    if (length(todo) == 0L) break
    theta[todo, 2] <- theta[todo, 2] / 2
  }
  theta
}

# Backtracking from a rejected Newton step, four step lengths per call
# (1/2 to 1/16, then 1/32 to 1/256, ...): each sample takes the longest
# accepted one. moved is FALSE where none down to 2^-28 was.
stable_backtrack <- function(samples, s, theta, dir, f0, decrement, device, call) {
  moved <- logical(length(s))
  steps <- 2^-(1:4)
  todo <- seq_along(s)
  while (length(todo) && steps[1] > 2^-30) {
    k <- rep(todo, each = length(steps))
    step <- rep(steps, length(todo))
    trial <- stable_trial(theta[k, , drop = FALSE], dir[k, , drop = FALSE], step)
    ft <- stable_loglik_batch(samples, s[k], trial, device, call)
    ok <- matrix(stable_step_accepted(ft, f0[k], step, decrement[k]), length(steps))
    first <- apply(ok, 2, function(col) match(TRUE, col))
    hit <- !is.na(first)
    rows <- (which(hit) - 1L) * length(steps) + first[hit]
    theta[todo[hit], ] <- trial[rows, , drop = FALSE]
    moved[todo[hit]] <- TRUE
    todo <- todo[!hit]
    steps <- steps / 16
  }
  list(theta = theta, moved = moved)
}

# Newton's method with a line search, every sample in lockstep. Each round
# takes, in one call, the derivatives at each sample's full Newton step and,
# for a sample that backtracked in the previous round, at its new point; a
# full step that is accepted then needs no call of its own. progress(done)
# is told how many samples have finished after each round.
stable_mle <- function(samples, device, call, max_iter = 100L, progress = function(done) NULL) {
  m <- length(samples)
  theta <- stable_mle_start(samples, device, call)
  # the derivatives at theta where fresh, kept for the observed information
  fd <- list(loglik = numeric(m), grad = matrix(0, m, 4), hess = array(0, c(m, 4, 4)))
  fresh <- logical(m)
  keep_fd <- function(new, s, k) {
    fd$loglik[s] <<- new$loglik[k]
    fd$grad[s, ] <<- new$grad[k, , drop = FALSE]
    fd$hess[s, , ] <<- new$hess[k, , , drop = FALSE]
    fresh[s] <<- TRUE
  }
  dir <- matrix(0, m, 4)
  decrement <- numeric(m)
  iterations <- integer(m)
  converged <- logical(m)
  active <- seq_len(m)
  # each round, every sample either stops or takes a step (counted in
  # iterations) or has just backtracked, so at most 2 max_iter + 1 rounds
  repeat {
    have <- active[fresh[active]]
    for (s in have) {
      held <- stable_held(theta[s, ], fd$grad[s, ])
      scale <- c(1, 1, theta[s, 3], theta[s, 3])
      dir[s, ] <- stable_newton_direction(fd$grad[s, ], fd$hess[s, , ], held, scale)
      decrement[s] <- sum(fd$grad[s, ] * dir[s, ])
    }
    # converged: the predicted gain of the step is below 1e-9 (log-likelihood
    # units); a probe without a density (next to a support end), or the step
    # limit, stops the fit unconverged
    stuck <- !is.finite(decrement[have])
    done <- stuck | decrement[have] < 1e-9
    converged[have[done & !stuck]] <- TRUE
    go <- have[!done & iterations[have] < max_iter]
    iterations[go] <- iterations[go] + 1L
    need <- active[!fresh[active]]
    active <- c(need, go)
    progress(m - length(active))
    if (length(active) == 0L) break
    trial <- stable_trial(theta[go, , drop = FALSE], dir[go, , drop = FALSE], 1)
    new <- stable_fd_derivatives(samples, active, rbind(theta[need, , drop = FALSE], trial),
                                 device, call)
    keep_fd(new, need, seq_along(need))
    k <- length(need) + seq_along(go)
    ok <- stable_step_accepted(new$loglik[k], fd$loglik[go], 1, decrement[go])
    theta[go[ok], ] <- trial[ok, , drop = FALSE]
    keep_fd(new, go[ok], k[ok])
    back <- go[!ok]
    if (length(back)) {
      bt <- stable_backtrack(samples, back, theta[back, , drop = FALSE], dir[back, , drop = FALSE],
                             fd$loglik[back], decrement[back], device, call)
      theta[back, ] <- bt$theta
      fresh[back[bt$moved]] <- FALSE
      # no step found an increase: the fit stops, converged only where the
      # predicted gain was already within the rounding of the log-likelihood
      # (a probe without a density, as at a scale the data did not have
      # before they were standardized, gave such stops far from the maximum)
      stopped <- back[!bt$moved]
      converged[stopped] <- decrement[stopped] < 1e-5
      active <- setdiff(active, stopped)
    }
  }
  # observed information at the estimates
  stale <- which(!fresh)
  if (length(stale)) {
    keep_fd(stable_fd_derivatives(samples, stale, theta[stale, , drop = FALSE], device, call),
            stale, seq_along(stale))
  }
  lapply(seq_len(m), function(k) {
    info <- stable_mle_vcov(fd$hess[k, , ], stable_held(theta[k, ], fd$grad[k, ]))
    list(coefficients = stats::setNames(theta[k, ], names(stable_lower)), vcov = info$vcov,
         loglik = fd$loglik[k], iterations = iterations[k], converged = converged[k],
         information_ok = info$ok)
  })
}

# The inverse of the observed information (minus the Hessian) over the free
# parameters; NA for a parameter held at a bound, and NA throughout where the
# information is not positive definite (ok = FALSE), as its inverse would
# give negative or meaningless variances.
stable_mle_vcov <- function(hess, held) {
  nm <- names(stable_lower)
  vc <- matrix(NA_real_, 4, 4, dimnames = list(nm, nm))
  free <- !held
  if (!any(free)) return(list(vcov = vc, ok = TRUE))
  info <- -hess[free, free, drop = FALSE]
  info <- (info + t(info)) / 2
  R <- if (all(is.finite(info))) tryCatch(chol(info), error = function(e) NULL)
  # a pivot this small relative to the diagonal is rounding, not information
  ok <- !is.null(R) && min(diag(R)) > sqrt(.Machine$double.eps) * sqrt(max(diag(info)))
  if (ok) vc[free, free] <- chol2inv(R)
  list(vcov = vc, ok = ok)
}
