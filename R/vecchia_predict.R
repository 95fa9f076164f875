# Kriging by Vecchia conditioning: each new location conditioned on its
# m_pred nearest observed locations (on its own, so that the mean and
# variance are those of that conditional law; m_pred = n gives the exact
# kriging). It runs on the Vecchia engine: the observed and new locations
# form one set whose observed rows condition on nothing and whose new rows
# condition on their neighbours, so that the new rows of W (w0 on the point
# itself, w on its neighbours; w / w0 = -S^-1 c, 1 / w0^2 the conditional
# variance of an observation there) give, for residuals r and covariates X:
#   mean  = -(W [r; 0]) / w0 = c' S^-1 r,
#   var   = 1 / w0^2 - nugget (of the process, without the nugget),
#   xres  = (W [X; X0]) / w0 = x0 - X' S^-1 c (the universal-kriging term:
#           var + xres' Cov(beta) xres with the GLS covariance of beta).
# `resid` (n) and X (n x p, may be NULL) in the order of `locs`; returns a
# list: mean, var, xres (n0 x p), neighbors (n0 x m_pred, rows of locs).
vecchia_krige <- function(locs, resid, newlocs, params, m_pred, X = NULL, X0 = NULL, distance = "euclidean",
                          device = getOption("gpustats.device", "auto"), call = parent.frame()) {
  n <- nrow(locs)
  n0 <- nrow(newlocs)
  if (m_pred < 1 || m_pred > n) abort_arg("{.arg m_pred} ({m_pred}) must be from 1 to the number of observations ({n}).", call)
  all <- rbind(locs, newlocs)
  pts <- vecchia_search_points(all, distance)
  bar <- gs_progress_bar(as.double(n0) * m_pred * 20, "vecchia_krige", call)
  near <- gs_call(.Call(gs_r_vecchia_nearest, pts[seq_len(n), , drop = FALSE], pts[n + seq_len(n0), , drop = FALSE],
                        as.integer(m_pred), gs_threads(call), bar), call)
  nn <- matrix(NA_integer_, n + n0, m_pred + 1L)
  nn[, 1] <- seq_len(n + n0)
  nn[n + seq_len(n0), -1] <- near
  vc <- vecchia_open(all, m_pred, distance = distance, device = device, call = call,
                     neighbors = list(order = seq_len(n + n0), neighbors = nn))
  on.exit(vecchia_close(vc))
  vecchia_factor(vc, params, call)
  p <- if (is.null(X)) 0L else ncol(X)
  b <- cbind(c(resid, numeric(n0)), c(numeric(n), rep(1, n0)))
  if (p > 0) b <- cbind(b, rbind(X, X0))
  wb <- vecchia_apply(vc, b, call)[n + seq_len(n0), , drop = FALSE]
  w0 <- wb[, 2]
  list(mean = -wb[, 1] / w0, var = 1 / w0^2 - params[[4]],
       xres = if (p > 0) wb[, -(1:2), drop = FALSE] / w0 else matrix(0, n0, 0L), neighbors = near)
}
