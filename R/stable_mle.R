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

# The coordinates Newton's method works in. For alpha < 1 the law has a
# steep side: its positive part is a totally skewed law whose support starts
# at the S1 location delta - beta gamma tan(pi alpha / 2), the negative part
# (weight (1 - beta) / 2) only smears that edge. The points next to it pin the
# edge so tightly that in S0 coordinates the log-likelihood is a narrow,
# curved ridge: at alpha = 0.3, beta = 0.9 (n = 2000) its second difference
# in alpha jumped between -1.4e7 and +3e6 within 1e-3, and Newton's steps
# crawled along it for 100 iterations. With the S1 location in place of
# delta the ridge lies along an axis and the profile in alpha is a parabola
# (second difference -5.57e4 to 0.1 % over the same range). Towards
# alpha = 1 the edge moves out into a tail with few points and
# tan(pi alpha / 2) has its pole: there S0 is kept. The switch is at 0.5:
# with it at 0.9, fits of n = 500 at (0.5, 0.9) and (0.8, 1) took 14 and 21
# Newton steps (at 0.7, 14 and 4) against 6 and 4, for the same maximum. The chart
# is chosen at each point where the derivatives are taken, and every step is
# taken in the chart of its derivatives.
stable_chart_alpha <- 0.5

# With delta fixed the chart is never used: holding the S1 location would
# move the S0 location that is fixed as alpha, beta or gamma change.
stable_chart_of <- function(theta, free) theta[, 1] < stable_chart_alpha & free[[4]]

stable_chart_shift <- function(phi, chart) {
  ifelse(chart, phi[, 2] * phi[, 3] * tan(pi * phi[, 1] / 2), 0)
}

stable_to_chart <- function(theta, chart) {
  theta[, 4] <- theta[, 4] - stable_chart_shift(theta, chart)
  theta
}

stable_from_chart <- function(phi, chart) {
  phi[, 4] <- phi[, 4] + stable_chart_shift(phi, chart)
  phi
}

# d theta / d phi at theta: the identity but for delta's row.
stable_chart_jacobian <- function(theta, chart) {
  jac <- diag(4)
  if (chart) {
    t <- tan(pi * theta[1] / 2)
    jac[4, 1:3] <- c(theta[2] * theta[3] * pi / 2 / cos(pi * theta[1] / 2)^2, theta[3] * t,
                     theta[2] * t)
  }
  jac
}

# Finite-difference steps, relative to gamma for gamma and delta (so that
# they follow the scale as it changes): each is a fiftieth of the
# parameter's conditional standard error 1 / sqrt(-H_ii) at the last
# Hessian, so that a probe moves the log-likelihood by about 2e-4 whatever
# n and the law, far above the rounding of the sum. A fixed step of 1e-4
# could be as long as the standard error itself (5e-4 in alpha at
# alpha = 0.3, beta = 0.9, n = 2000) and was the same for n = 100 and 1e5.
# A step is kept until the rule wants it more than 3 times longer or
# shorter, so that the derivatives of one iteration and the next are of the
# same differences.
stable_fd_initial <- c(1e-4, 1e-4, 1e-4, 1e-4)
stable_fd_limits <- list(lower = c(1e-8, 1e-8, 1e-8, 1e-8), upper = c(1e-3, 1e-3, 1e-3, 1e-3))

stable_fd_steps <- function(h, hess, gamma) {
  curv <- -cbind(hess[, 1, 1], hess[, 2, 2], hess[, 3, 3] * gamma^2, hess[, 4, 4] * gamma^2)
  want <- 0.02 / sqrt(pmax(curv, 0))
  want <- pmin(pmax(want, rep(stable_fd_limits$lower, each = nrow(h))),
               rep(stable_fd_limits$upper, each = nrow(h)))
  change <- is.finite(want) & curv > 0 & (want > 3 * h | want < h / 3)
  h[change] <- want[change]
  h
}

# Finite-difference offsets of each parameter at theta (one row per sample)
# for relative steps h: two offsets per parameter, +h and -h inside the
# bounds, else both on the inside (+h, +2h or -h, -2h).
stable_fd_offsets <- function(theta, h) {
  h <- h * cbind(1, 1, theta[, 3], theta[, 3])
  lo <- sweep(theta, 2, stable_lower) < h
  hi <- sweep(-theta, 2, -stable_upper) < h
  a <- ifelse(hi, -h, h)
  b <- ifelse(hi, -2 * h, ifelse(lo, 2 * h, -h))
  list(a = a, b = b)
}

# Gradient and Hessian of the log-likelihoods at theta, in the coordinates
# of chart, in the free parameters (those of a fixed parameter are 0), from
# 1 + 2 k + k (k - 1) / 2 probes per sample for k free parameters: phi,
# phi + a_i e_i, phi + b_i e_i, phi + a_i e_i + a_j e_j. The log-likelihoods
# of samples plain$s at plain$theta (S0) are taken in the same call, as
# plain_loglik.
stable_fd_derivatives <- function(samples, s, theta, h, chart, free, device, call,
                                  plain = list(s = integer(), theta = theta[0, , drop = FALSE])) {
  m <- nrow(theta)
  theta <- stable_to_chart(theta, chart)
  off <- stable_fd_offsets(theta, h)
  idx <- which(free)
  pairs <- if (length(idx) > 1L) utils::combn(idx, 2) else matrix(0L, 2, 0)
  moved <- function(p, i, o) {
    p[, i] <- p[, i] + o[, i]
    p
  }
  probes <- c(list(theta), lapply(idx, moved, p = theta, o = off$a),
              lapply(idx, moved, p = theta, o = off$b),
              lapply(seq_len(ncol(pairs)), function(k) {
                moved(moved(theta, pairs[1, k], off$a), pairs[2, k], off$a)
              }))
  all <- stable_from_chart(do.call(rbind, probes), rep(chart, length(probes)))
  ll <- stable_loglik_batch(samples, c(rep(s, length(probes)), plain$s), rbind(all, plain$theta), device,
                            call)
  plain_loglik <- ll[nrow(all) + seq_along(plain$s)]
  ll <- matrix(ll[seq_len(nrow(all))], m)
  f0 <- ll[, 1]
  fa <- ll[, 1L + seq_along(idx), drop = FALSE]
  fb <- ll[, 1L + length(idx) + seq_along(idx), drop = FALSE]
  fab <- ll[, 1L + 2L * length(idx) + seq_len(ncol(pairs)), drop = FALSE]
  grad <- matrix(0, m, 4)
  hess <- array(0, c(m, 4, 4))
  for (r in seq_along(idx)) {
    i <- idx[r]
    # the quadratic through (0, f0), (a, fa), (b, fb)
    a <- off$a[, i]
    b <- off$b[, i]
    da <- (fa[, r] - f0) / a
    db <- (fb[, r] - f0) / b
    hess[, i, i] <- 2 * (da - db) / (a - b)
    grad[, i] <- da - hess[, i, i] * a / 2
  }
  for (k in seq_len(ncol(pairs))) {
    i <- pairs[1, k]
    j <- pairs[2, k]
    hij <- (fab[, k] - fa[, match(i, idx)] - fa[, match(j, idx)] + f0) / (off$a[, i] * off$a[, j])
    hess[, i, j] <- hess[, j, i] <- hij
  }
  list(loglik = f0, grad = grad, hess = hess, plain_loglik = plain_loglik)
}

# The derivatives at theta in the chart of each row, which they keep (and
# the log-likelihoods of plain, as stable_fd_derivatives).
stable_fd_at <- function(samples, s, theta, h, free, device, call, ...) {
  chart <- stable_chart_of(theta, free)
  c(stable_fd_derivatives(samples, s, theta, h, chart, free, device, call, ...), list(chart = chart))
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
  stable_step_capped(d, scale)
}

# A Newton step no longer than 0.2 in alpha, 0.4 in beta, and one gamma in
# gamma and delta, shortened along its direction: from McCulloch's start
# (alpha = 0.5) for a sample of alpha = 0.3, beta = 0.9, the first full
# steps went to alpha = 0.1 and beta = -1, where the data had no density,
# and each had to be cut back by the line search.
stable_step_capped <- function(d, scale) {
  excess <- max(abs(d) / (c(0.2, 0.4, 1, 1) * c(1, 1, scale[3], scale[3])))
  if (excess > 1) d / excess else d
}

stable_project <- function(theta) {
  pmin(pmax(theta, rep(stable_lower, each = nrow(theta))), rep(stable_upper, each = nrow(theta)))
}

# theta + step * dir in the coordinates of chart, inside the bounds, gamma
# shrinking at most fourfold; in S0.
stable_trial <- function(theta, dir, step, chart) {
  phi <- stable_to_chart(theta, chart)
  trial <- stable_project(phi + step * dir)
  trial[, 3] <- pmax(trial[, 3], phi[, 3] / 4)
  stable_from_chart(trial, chart)
}

# The line search's test: sufficient increase (Armijo), or any increase
# once the step is short.
stable_step_accepted <- function(ft, f0, step, decrement) {
  ft >= f0 + 1e-4 * step * decrement | ft > f0 & step < 1e-3
}

# Whether a Newton step of predicted gain (decrement) d, at a point where the
# step before it predicted d0, is the last: d is below 1e-6 and at most d0^2,
# so Newton's quadratic convergence is at work with a constant of at most
# 1, and the gain it leaves is of order d^2 <= 1e-12, far below the 1e-9 at
# which a fit counts as converged. The point it reaches then needs its
# log-likelihood alone, not the 15 probes of the derivatives, and keeps the
# observed information of the point before, a step of at most 1e-3
# standard errors away. On 96 fits over the grid of inst/bench/stable-fit.R
# (n = 50 and 500) the gain after a step that passed the test was at most
# 3e-11, but for 2.4e-8 at one point where the fit then stopped without
# moving, no step increasing its log-likelihood; where the
# convergence was linear (the gain falling by a factor of 60 a step), d0^2
# was far below d, and the fit went on as before.
stable_last_step <- function(d, d0) d < 1e-6 & d <= d0^2

# Starting values: McCulloch's estimates, and the best of them and a few
# variants closer to the edges of the parameter space. Where its alpha is
# above 1.9, alphas closer to 2: the log-likelihood grows like
# log(2 - alpha) times the number of points in a heavy tail, so Newton steps
# from just below 2 only double 2 - alpha (from McCulloch's alpha = 2 a fit
# took 14 steps down to 1.965). Where |beta| is above 0.5, betas closer to
# 0: next to beta = -1 with alpha > 1 a point in the thin tail has a
# log-density that falls without bound, and Newton steps likewise only
# doubled 1 + beta (a sample of (1.2, -0.9), n = 2000, started at
# beta = -0.9997 and took 14 steps). A start whose support misses some of
# the data (alpha < 1, |beta| near 1) gets less skewness until every point
# has a density. Where McCulloch's alpha is at the end of its table (0.5),
# alphas below it, each with the gamma and delta that match the sample's
# quartiles and median (McCulloch's rule for them, from qstable): 12
# samples (n = 2000, one per law of alpha 0.3 and 0.5 in the grid of
# inst/bench/stable-fit.R) took 119 Newton steps in all from McCulloch's
# start, 104 with these.
stable_start_alpha <- 2 - c(0.1, 0.05, 0.02, 0.01, 0.005, 0.002, 0.001)
stable_start_beta <- c(0.99, 0.95, 0.9, 0.8, 0.6)
stable_start_small_alpha <- c(0.45, 0.4, 0.35, 0.3, 0.25, 0.2, 0.15)

# Fixed parameters take their values in the start and in every variant (a
# variant of a fixed parameter is then a copy of the start, which costs a
# density evaluation and keeps one rule for making the variants).
stable_mle_start <- function(samples, fixed, device, call) {
  theta <- do.call(rbind, lapply(samples, function(x) stable_mcculloch(x)$coefficients))
  theta <- stable_project(theta)
  theta[, 1] <- pmax(theta[, 1], 0.11) # off the lower bound, so differences are two-sided
  theta <- stable_with_fixed(theta, fixed)
  todo <- seq_len(nrow(theta))
  small <- stable_start_small(samples, theta)
  for (k in 1:20) {
    cs <- stable_start_candidates(theta, todo, small)
    cs$theta <- stable_with_fixed(cs$theta, fixed[cs$owner, , drop = FALSE])
    ll <- stable_loglik_batch(samples, cs$owner, cs$theta, device, call)
    o <- order(cs$owner, -ll)
    best <- o[!duplicated(cs$owner[o])]
    found <- is.finite(ll[best])
    theta[todo[found], ] <- cs$theta[best[found], ]
    todo <- todo[!found]
    if (length(todo) == 0L) break
    theta[todo, 2] <- theta[todo, 2] / 2
  }
  theta
}

# theta with the fixed values in place (fixed: a matrix like theta, NA
# where the parameter is free).
stable_with_fixed <- function(theta, fixed) {
  held <- !is.na(fixed)
  theta[held] <- fixed[held]
  theta
}

# The starts of samples todo and their variants, with the sample of each;
# small holds the variants below alpha = 0.5, taken while the start's beta
# is the one they were made for.
stable_start_candidates <- function(theta, todo, small) {
  near2 <- todo[theta[todo, 1] > 1.9]
  skewed <- todo[abs(theta[todo, 2]) > 0.5]
  owner <- c(todo, rep(near2, each = length(stable_start_alpha)),
             rep(skewed, each = length(stable_start_beta)))
  cand <- theta[owner, , drop = FALSE]
  a <- length(todo) + seq_len(length(near2) * length(stable_start_alpha))
  cand[a, 1] <- rep(stable_start_alpha, length(near2))
  b <- length(todo) + length(a) + seq_len(length(skewed) * length(stable_start_beta))
  cand[b, 2] <- cand[b, 2] * rep(stable_start_beta, length(skewed))
  keep <- small$owner %in% todo & small$theta[, 2] == theta[small$owner, 2]
  list(owner = c(owner, small$owner[keep]),
       theta = rbind(cand, small$theta[keep, , drop = FALSE]))
}

# For the samples whose start is at McCulloch's alpha = 0.5, the variants
# at stable_start_small_alpha with the start's beta: gamma and delta from
# the quartiles and median of the S0 law there.
stable_start_small <- function(samples, theta) {
  at <- which(theta[, 1] <= 0.5)
  na <- length(stable_start_small_alpha)
  owner <- rep(at, each = na)
  alpha <- rep(stable_start_small_alpha, length(at))
  beta <- theta[owner, 2]
  law <- matrix(qstable(rep(c(0.25, 0.5, 0.75), each = length(owner)), alpha, beta, device = "cpu"),
                ncol = 3)
  data <- do.call(rbind, lapply(samples[at], stats::quantile, c(0.25, 0.5, 0.75), type = 5,
                                names = FALSE))
  data <- data[rep(seq_along(at), each = na), , drop = FALSE]
  gamma <- (data[, 3] - data[, 1]) / (law[, 3] - law[, 1])
  list(owner = owner, theta = cbind(alpha, beta, gamma, data[, 2] - gamma * law[, 2]))
}

# Backtracking from a rejected Newton step, four step lengths per call
# (1/2 to 1/16, then 1/32 to 1/256, ...): each sample takes the longest
# accepted one. moved is FALSE where none down to 2^-28 was.
stable_backtrack <- function(samples, s, theta, dir, chart, f0, decrement, device, call) {
  moved <- logical(length(s))
  steps <- 2^-(1:4)
  todo <- seq_along(s)
  while (length(todo) && steps[1] > 2^-30) {
    k <- rep(todo, each = length(steps))
    step <- rep(steps, length(todo))
    trial <- stable_trial(theta[k, , drop = FALSE], dir[k, , drop = FALSE], step, chart[k])
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
# is told how many samples have finished after each round. fixed is an
# m x 4 matrix of the values of the fixed parameters (on the scale of each
# sample), NA where a parameter is free; the same parameters are fixed in
# every sample. A fixed parameter is held like one at a bound: it has no
# derivatives, no Newton step and no variance.
stable_mle <- function(samples, fixed, device, call, max_iter = 100L, progress = function(done) NULL) {
  m <- length(samples)
  free <- is.na(fixed[1, ])
  theta <- stable_mle_start(samples, fixed, device, call)
  # the derivatives at theta where fresh, kept for the observed information
  fd <- list(loglik = numeric(m), grad = matrix(0, m, 4), hess = array(0, c(m, 4, 4)))
  fresh <- logical(m)
  h <- matrix(stable_fd_initial, m, 4, byrow = TRUE)
  chart <- logical(m)
  keep_fd <- function(new, s, k) {
    if (length(s) == 0L) return()
    chart[s] <<- new$chart[k]
    fd$loglik[s] <<- new$loglik[k]
    fd$grad[s, ] <<- new$grad[k, , drop = FALSE]
    fd$hess[s, , ] <<- new$hess[k, , , drop = FALSE]
    fresh[s] <<- TRUE
    h[s, ] <<- stable_fd_steps(h[s, , drop = FALSE], new$hess[k, , , drop = FALSE], theta[s, 3])
  }
  dir <- matrix(0, m, 4)
  decrement <- numeric(m)
  previous <- numeric(m) # the decrement at the point before, 0 at the start
  iterations <- integer(m)
  converged <- logical(m)
  active <- seq_len(m)
  # each round, every sample either stops or takes a step (counted in
  # iterations) or has just backtracked, so at most 2 max_iter + 1 rounds
  repeat {
    have <- active[fresh[active]]
    for (s in have) {
      held <- stable_held(theta[s, ], fd$grad[s, ]) | !free
      scale <- c(1, 1, theta[s, 3], theta[s, 3])
      dir[s, ] <- stable_newton_direction(fd$grad[s, ], fd$hess[s, , ], held, scale)
      previous[s] <- decrement[s]
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
    trial <- stable_trial(theta[go, , drop = FALSE], dir[go, , drop = FALSE], 1, chart[go])
    last <- stable_last_step(decrement[go], previous[go])
    probed <- c(need, go[!last])
    plain <- list(s = go[last], theta = trial[last, , drop = FALSE])
    new <- if (length(probed)) {
      stable_fd_at(samples, probed, rbind(theta[need, , drop = FALSE], trial[!last, , drop = FALSE]),
                   h[probed, , drop = FALSE], free, device, call, plain = plain)
    } else {
      list(plain_loglik = stable_loglik_batch(samples, plain$s, plain$theta, device, call))
    }
    keep_fd(new, need, seq_along(need))
    ft <- numeric(length(go))
    k <- length(need) + seq_len(sum(!last))
    ft[!last] <- new$loglik[k]
    ft[last] <- new$plain_loglik
    ok <- stable_step_accepted(ft, fd$loglik[go], 1, decrement[go])
    theta[go[ok], ] <- trial[ok, , drop = FALSE]
    keep_fd(new, go[!last][ok[!last]], k[ok[!last]])
    # a last step that is accepted ends its fit, converged, with the
    # derivatives of the point before it
    ended <- go[last & ok]
    fd$loglik[ended] <- ft[last & ok]
    converged[ended] <- TRUE
    active <- setdiff(active, ended)
    back <- go[!ok]
    if (length(back)) {
      bt <- stable_backtrack(samples, back, theta[back, , drop = FALSE], dir[back, , drop = FALSE],
                             chart[back], fd$loglik[back], decrement[back], device, call)
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
    keep_fd(stable_fd_at(samples, stale, theta[stale, , drop = FALSE], h[stale, , drop = FALSE],
                         free, device, call),
            stale, seq_along(stale))
  }
  lapply(seq_len(m), function(k) {
    bound <- stable_at_boundary(theta[k, ], fd$grad[k, ], free)
    info <- stable_mle_vcov(fd$hess[k, , ], free, bound, stable_chart_jacobian(theta[k, ], chart[k]))
    list(coefficients = stats::setNames(theta[k, ], names(stable_lower)), vcov = info$vcov,
         loglik = fd$loglik[k], iterations = iterations[k], converged = converged[k],
         information_ok = info$ok, boundary = names(stable_lower)[bound])
  })
}

# The free parameters whose estimate is on the boundary, where the observed
# information says nothing about them: those held at a bound, and beta where
# alpha is 2 (the Gaussian law, which beta no longer changes: its row of the
# information is zero).
stable_at_boundary <- function(theta, grad, free) {
  bound <- stable_held(theta, grad)
  bound[2] <- bound[2] || theta[1] >= stable_upper[[1]]
  bound & free
}

# The covariance of the free parameters: the inverse of the observed
# information (minus the Hessian) over those estimated inside the parameter
# space; NA for a parameter held at a bound, and NA throughout where the
# information is not positive definite (ok = FALSE), as its inverse would
# give negative or meaningless variances.
stable_mle_vcov <- function(hess, free, held, jac = diag(4)) {
  nm <- names(stable_lower)[free]
  vc <- matrix(NA_real_, length(nm), length(nm), dimnames = list(nm, nm))
  inside <- free & !held
  if (!any(inside)) return(list(vcov = vc, ok = TRUE))
  info <- -hess[inside, inside, drop = FALSE]
  info <- (info + t(info)) / 2
  R <- if (all(is.finite(info))) tryCatch(chol(info), error = function(e) NULL)
  # a pivot this small relative to the diagonal is rounding, not information
  ok <- !is.null(R) && min(diag(R)) > sqrt(.Machine$double.eps) * sqrt(max(diag(info)))
  if (ok) {
    # from the chart's coordinates to S0: at the maximum the gradient is
    # zero, so the information transforms with the Jacobian alone; a held
    # parameter has no variance, and the others are conditional on it
    j <- jac[inside, inside, drop = FALSE]
    vc[inside[free], inside[free]] <- j %*% chol2inv(R) %*% t(j)
  }
  list(vcov = vc, ok = ok)
}
