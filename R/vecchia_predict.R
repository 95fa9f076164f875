# Prediction and conditional simulation by Vecchia conditioning, on the
# Vecchia engine: the observed and the new locations form one set, the new
# points last and marked latent (values of the process, without the
# nugget), each conditioned on its nearest neighbours.

# Kriging: each new location conditioned on its m_pred nearest observed
# locations, on its own, so that the mean and variance are those of that
# conditional law (m_pred = n gives exact kriging). The observed rows of the
# set condition on nothing; a new row of W (w0 on the point itself, w on its
# neighbours: w / w0 = -S^-1 c, 1 / w0^2 the conditional variance) gives,
# for residuals r and covariates X:
#   mean  = -(W [r; 0]) / w0 = c' S^-1 r,
#   var   = 1 / w0^2 = sigma2 - c' S^-1 c (the process, without the nugget),
#   xres  = (W [X; X0]) / w0 = x0 - X' S^-1 c (the universal-kriging term:
#           var + xres' Cov(beta) xres with the GLS covariance of beta).
# `resid` (n) and X (n x p, may be NULL) in the order of `locs`; returns a
# list: mean, var, xres (n0 x p), neighbors (n0 x m_pred, rows of locs).
# `label`: what the user asked for, which names the progress bars. `noise`:
# NULL, or a variance of each observation's own added to the nugget
# (heteroscedastic errors: the pseudo-data of a Vecchia-Laplace fit).
vecchia_krige <- function(locs, resid, newlocs, params, m_pred, X = NULL, X0 = NULL, distance = "euclidean",
                          device = getOption("gpustats.device", "auto"), call = parent.frame(), label = "predict",
                          family = "matern", noise = NULL) {
  n <- nrow(locs)
  n0 <- nrow(newlocs)
  vecchia_check_m_pred(m_pred, n, call)
  all <- rbind(locs, newlocs)
  near <- vecchia_nearest_observed(locs, newlocs, m_pred, distance, call, label)
  nn <- matrix(NA_integer_, n + n0, m_pred + 1L)
  nn[, 1] <- seq_len(n + n0)
  nn[n + seq_len(n0), -1] <- near
  vc <- vecchia_open(all, m_pred, distance = distance, device = device, call = call,
                     neighbors = list(order = seq_len(n + n0), neighbors = nn), latent = n + 1L)
  on.exit(vecchia_close(vc))
  if (!is.null(noise)) gs_call(.Call(gs_r_vecchia_set_noise, vc$ptr, c(as.double(noise), numeric(n0))), call)
  vecchia_factor(vc, params, call, label = paste0(label, ": kriging"), family = family)
  p <- if (is.null(X)) 0L else ncol(X)
  b <- cbind(c(resid, numeric(n0)), c(numeric(n), rep(1, n0)))
  if (p > 0) b <- cbind(b, rbind(X, X0))
  wb <- vecchia_apply(vc, b, call)[n + seq_len(n0), , drop = FALSE]
  w0 <- wb[, 2]
  list(mean = -wb[, 1] / w0, var = 1 / w0^2,
       xres = if (p > 0) wb[, -(1:2), drop = FALSE] / w0 else matrix(0, n0, 0L), neighbors = near)
}

# The m_pred nearest rows of locs to each row of newlocs (n0 x m_pred), the
# nearest first. `label` names the progress bar.
vecchia_nearest_observed <- function(locs, newlocs, m_pred, distance, call, label) {
  bar <- gs_progress_bar(as.double(nrow(newlocs)) * m_pred * 20, paste0(label, ": conditioning sets"), call)
  gs_call(.Call(gs_r_vecchia_nearest, vecchia_search_points(locs, distance), vecchia_search_points(newlocs, distance),
                as.integer(m_pred), gs_threads(call), bar), call)
}

vecchia_check_m_pred <- function(m_pred, n, call) {
  if (!is.numeric(m_pred) || length(m_pred) != 1L || !is.finite(m_pred) || m_pred < 1 || m_pred > n ||
      m_pred != round(m_pred)) {
    abort_arg("{.arg m_pred} must be a whole number from 1 to the number of observations ({n}).", call)
  }
}

# Conditional simulation of the process (without the nugget) at newlocs given
# the residuals `resid` at locs: the observed locations in maxmin order, then
# the new ones in maxmin order, each conditioned on its m_pred nearest
# earlier points (observed, and new ones already drawn), as in GpGp's
# cond_sim. With W = [W_oo 0; W_no W_nn] the joint factor, a draw is
# W_nn^-1 (z - W_no r), z standard normal: the inverse of W applied to
# [W_oo r; z], whose observed rows give back r. `z`: n0 x nsim deviates (for
# tests), NULL to draw them from R's generator. Returns an n0 x nsim matrix
# in the order of newlocs. The progress bars are simulate()'s. `noise`:
# NULL, or a variance of each observation's own (vecchia_krige()).
vecchia_conditional_draws <- function(locs, resid, newlocs, params, m_pred, nsim = 1L, distance = "euclidean",
                                      device = getOption("gpustats.device", "auto"), call = parent.frame(), z = NULL,
                                      family = "matern", noise = NULL) {
  n <- nrow(locs)
  n0 <- nrow(newlocs)
  vecchia_check_m_pred(m_pred, n + n0 - 1, call)
  bar <- gs_progress_bar(as.double(n + n0) * (m_pred + 1) * 20, "simulate: conditioning sets", call)
  order_obs <- c(vecchia_maxmin_order(vecchia_search_points(locs, distance), "maxmin", bar, call))
  order_new <- c(vecchia_maxmin_order(vecchia_search_points(newlocs, distance), "maxmin", bar, call))
  all <- rbind(locs[order_obs, , drop = FALSE], newlocs[order_new, , drop = FALSE])
  nn <- gs_call(.Call(gs_r_vecchia_neighbors, vecchia_search_points(all, distance), as.integer(m_pred),
                      gs_threads(call), bar), call)
  attr(nn, "duplicate") <- NULL
  vc <- vecchia_open(all, m_pred, distance = distance, device = device, call = call,
                     neighbors = list(order = seq_len(n + n0), neighbors = nn), latent = n + 1L)
  on.exit(vecchia_close(vc))
  if (!is.null(noise)) gs_call(.Call(gs_r_vecchia_set_noise, vc$ptr, c(as.double(noise[order_obs]), numeric(n0))), call)
  vecchia_factor(vc, params, call, label = "simulate: drawing", family = family)
  wr <- vecchia_apply(vc, c(resid[order_obs], numeric(n0)), call)[seq_len(n)]
  if (is.null(z)) z <- matrix(stats::rnorm(n0 * nsim), n0, nsim)
  x <- vecchia_apply(vc, rbind(matrix(wr, n, ncol(z)), z), call, what = "inverse")
  out <- matrix(0, n0, ncol(z))
  out[order_new, ] <- x[n + seq_len(n0), , drop = FALSE]
  out
}
