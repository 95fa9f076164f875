# McCulloch's quantile estimator and Koutrouvelis' regression estimator.
# Both return list(coefficients = c(alpha, beta, gamma, delta)) in S0.

stable_cache <- new.env(parent = emptyenv())

# McCulloch's tables, computed once with qstable: for each (alpha, beta) of
# the grid, the indices nu_alpha, nu_beta, the interquartile range and the
# median of the standard S0 law.
stable_mcculloch_table <- function() {
  if (!is.null(stable_cache$mcculloch)) return(stable_cache$mcculloch)
  alpha <- seq(0.5, 2, by = 0.05)
  beta <- seq(0, 1, by = 0.1)
  grid <- expand.grid(alpha = alpha, beta = beta)
  probs <- c(0.05, 0.25, 0.5, 0.75, 0.95)
  q <- matrix(qstable(rep(probs, each = nrow(grid)), grid$alpha, grid$beta, device = "cpu"),
              ncol = length(probs))
  shape <- c(length(alpha), length(beta))
  tab <- list(alpha = alpha, beta = beta,
              nu_alpha = matrix((q[, 5] - q[, 1]) / (q[, 4] - q[, 2]), shape[1]),
              nu_beta = matrix((q[, 5] + q[, 1] - 2 * q[, 3]) / (q[, 5] - q[, 1]), shape[1]),
              iqr = matrix(q[, 4] - q[, 2], shape[1]),
              median = matrix(q[, 3], shape[1]))
  stable_cache$mcculloch <- tab
  tab
}

# stats::approx(x, y, xout, rule = 2, ties = mean)$y without its argument
# processing, which took most of the time of a batched fit's starting values
# (2.3 ms per sample).
stable_interp <- function(x, y, xout) {
  o <- order(x)
  x <- x[o]
  y <- y[o]
  if (anyDuplicated(x)) return(stats::approx(x, y, xout, rule = 2, ties = mean)$y)
  i <- findInterval(xout, x, all.inside = TRUE)
  w <- (pmin(pmax(xout, x[1]), x[length(x)]) - x[i]) / (x[i + 1] - x[i])
  y[i] + (y[i + 1] - y[i]) * w
}

# Linear interpolation of a table column-wise at alpha a[j] for column j
# (a: one alpha for every column, or one per column).
stable_table_at_alpha <- function(tab, m, a) {
  a <- rep_len(pmin(pmax(a, tab$alpha[1]), tab$alpha[length(tab$alpha)]), ncol(m))
  i <- findInterval(a, tab$alpha, all.inside = TRUE)
  w <- (a - tab$alpha[i]) / (tab$alpha[i + 1] - tab$alpha[i])
  j <- seq_len(ncol(m))
  m[cbind(i, j)] + (m[cbind(i + 1, j)] - m[cbind(i, j)]) * w
}

stable_mcculloch <- function(x) {
  tab <- stable_mcculloch_table()
  q <- stats::quantile(x, c(0.05, 0.25, 0.5, 0.75, 0.95), type = 5, names = FALSE)
  v_alpha <- (q[5] - q[1]) / (q[4] - q[2])
  v_beta <- (q[5] + q[1] - 2 * q[3]) / (q[5] - q[1])
  sgn <- if (v_beta < 0) -1 else 1
  # for each grid beta, the alpha that matches nu_alpha (decreasing in alpha),
  # then the nu_beta there; beta is read off where that matches |v_beta|
  a_at_b <- apply(tab$nu_alpha, 2, function(col) stable_interp(col, tab$alpha, v_alpha))
  nb_at_b <- stable_table_at_alpha(tab, tab$nu_beta, a_at_b)
  # at alpha = 2 every beta gives the same (Gaussian) law: beta is 0 there
  beta <- if (diff(range(nb_at_b)) < 1e-12) 0 else stable_interp(nb_at_b, tab$beta, abs(v_beta))
  alpha <- stable_interp(tab$beta, a_at_b, beta)
  iqr <- stable_interp(tab$beta, stable_table_at_alpha(tab, tab$iqr, alpha), beta)
  med <- stable_interp(tab$beta, stable_table_at_alpha(tab, tab$median, alpha), beta)
  gamma <- (q[4] - q[2]) / iqr
  # the median of S0(alpha, beta, gamma, delta) is delta + gamma * median(beta)
  # and the median is odd in beta
  list(coefficients = c(alpha = alpha, beta = sgn * beta, gamma = gamma,
                        delta = q[3] - gamma * sgn * med))
}

# tan(pi alpha / 2) ((g t)^(1 - alpha) - 1), continuous through alpha = 1
# (where it is (2 / pi) log(g t)).
stable_cf_skew_term <- function(alpha, gt) {
  if (abs(1 - alpha) < 1e-8) return(2 / pi * log(gt))
  tan(pi * alpha / 2) * expm1((1 - alpha) * log(gt))
}

stable_koutrouvelis <- function(x, max_iter = 50L) {
  est <- stable_mcculloch(x)$coefficients
  t <- seq(0.1, 1, by = 0.1)
  iterations <- 0L
  converged <- FALSE
  for (it in seq_len(max_iter)) {
    iterations <- it
    z <- (x - est[["delta"]]) / est[["gamma"]]
    phi_re <- vapply(t, function(s) mean(cos(s * z)), 0)
    phi_im <- vapply(t, function(s) mean(sin(s * z)), 0)
    mod2 <- phi_re^2 + phi_im^2
    ok <- mod2 > 0 & mod2 < 1
    if (sum(ok) < 3L) break
    # log(-log |phi|^2) = log(2 g^alpha) + alpha log t
    fit1 <- stats::lm.fit(cbind(1, log(t[ok])), log(-log(mod2[ok])))$coefficients
    alpha <- min(max(fit1[[2]], 0.1), 2)
    g <- (exp(fit1[[1]]) / 2)^(1 / alpha)
    # arg phi(t) = d t - beta g^alpha t^alpha tan(pi alpha / 2) ((g t)^(1 - alpha) - 1)
    skew <- -g^alpha * t^alpha * vapply(g * t, function(gt) stable_cf_skew_term(alpha, gt), 0)
    arg <- atan2(phi_im, phi_re)
    fit2 <- stats::lm.fit(cbind(t, skew), arg)$coefficients
    beta <- if (alpha == 2 || !is.finite(fit2[[2]])) 0 else min(max(fit2[[2]], -1), 1)
    d <- fit2[[1]]
    # back from the standardized sample
    new <- c(alpha = alpha, beta = beta, gamma = est[["gamma"]] * g,
             delta = est[["delta"]] + est[["gamma"]] * d)
    change <- max(abs(new[1:2] - est[1:2]), abs(log(new[[3]] / est[[3]])),
                  abs(new[[4]] - est[[4]]) / new[[3]])
    # half steps: the plain iteration can circle its fixed point
    est <- if (it == 1L) new else (est + new) / 2
    if (change < 1e-6) {
      converged <- TRUE
      break
    }
  }
  list(coefficients = est, iterations = iterations, converged = converged)
}
