# The native Vecchia object, in the shape of the exact one (gp_open,
# gp_factor, gp_apply, gp_close in gp.R): opened once with the locations, its
# ordering and conditioning sets; factored for given parameters (returns the
# log-determinant of the approximate covariance); applied as W b, W the
# sparse inverse-Cholesky factor (W'W the inverse of the approximate
# covariance), so that quadratic forms, GLS coefficients and REML follow
# from W y and W X as on the exact path. `locs` in the caller's order;
# `neighbors`: the result of vecchia_neighbors() to reuse, or NULL; `latent`:
# the first row of locs (in the ordering) whose point is a value of the
# process without the nugget (prediction), NULL for none; `group`: TRUE for
# the grouped likelihood (the blocks of `neighbors`, computed where it has
# none), which gives no factor. `label`: the label of the progress bars of
# the conditioning sets, after what the user asked for. `halo`: NULL, or a
# logical per location in the ordering, the points with no terms of their
# own (a worker's part of the likelihood, vecchia_cluster.R).
vecchia_open <- function(locs, m, ordering = "maxmin", distance = "euclidean",
                         device = getOption("gpustats.device", "auto"), call = parent.frame(), neighbors = NULL,
                         latent = NULL, group = FALSE, label, halo = NULL) {
  locs <- as_locations(locs, "locs", distance, call)
  n <- nrow(locs)
  check_vecchia_m(m, n, call)
  if (is.null(neighbors)) neighbors <- vecchia_order_and_neighbors(locs, as.integer(m), ordering, distance, call, group, label)
  dev <- resolve_device(device, as.double(n) * (m + 1)^2, "matrix", call)
  ordered <- locs[neighbors$order, , drop = FALSE]
  nn <- neighbors$neighbors
  storage.mode(nn) <- "integer"
  if (is.null(latent)) latent <- n + 1L
  blocks <- if (group) neighbors$blocks %||% vecchia_group(nn, call, label)
  ptr <- gs_call(.Call(gs_r_vecchia_new, ordered, nn, as.integer(latent), blocks, halo, dev, gs_threads(call)), call)
  list(ptr = ptr, n = n, m = as.integer(m), device = dev, order = as.integer(neighbors$order), neighbors = nn, blocks = blocks,
       ordering = neighbors$ordering, distance = distance)
}

vecchia_close <- function(vc) {
  if (inherits(vc, "vecchia_cluster")) return(vecchia_cluster_close(vc))
  invisible(.Call(gs_r_vecchia_free, vc$ptr))
}

# The native object of a structure of vecchia_neighbors() for the grouped
# (`group`) or ungrouped likelihood on `device`: opened at the first call
# and kept for the next ones, so that they skip the grouping and the
# opening (the copies into the native layout; on a GPU, the uploads). It
# lives in a weak reference from the structure's `engine` environment:
# R keeps it while the structure lives (its finalizer frees the native
# memory with it) and does not write it with saveRDS(), so a structure read
# back opens a new one. It is reopened when the structure's parts are no
# longer those it was opened from (identical() compares the pointers first,
# so the check is free while they are), or the device, the threads, the
# grouping or the distance change. Blocks computed for a structure that has
# none are kept with it too. `label` names the progress bar of the grouping
# after what the user asked for.
vecchia_engine_for <- function(nb, group, device, call, label) {
  home <- attr(nb, "engine")
  dev <- resolve_device(device, as.double(nrow(nb$locs)) * (nb$m + 1)^2, "matrix", call)
  key <- list(device = dev, threads = gs_threads(call), group = group, distance = nb$distance)
  parts <- list(locs = nb$locs, order = nb$order, neighbors = nb$neighbors, blocks = nb$blocks)
  held <- .Call(gs_r_weak_value, home$ref)
  same_parts <- !is.null(held) && identical(held$parts, parts)
  if (same_parts && identical(held$key, key)) return(held$vc)
  vecchia_structure_close(nb) # its memory (on a GPU, device memory) before the new one's
  blocks <- nb$blocks %||% if (same_parts) held$blocks
  if (group && is.null(blocks)) blocks <- vecchia_group(nb$neighbors, call, label)
  vc <- vecchia_open(nb$locs, nb$m, distance = nb$distance, device = device, call = call, group = group,
                     neighbors = list(order = nb$order, neighbors = nb$neighbors, blocks = blocks, ordering = nb$ordering))
  # the native object holds its own copies; the structure holds R's
  vc$neighbors <- vc$blocks <- NULL
  home$ref <- .Call(gs_r_weak_new, home, list(vc = vc, key = key, parts = parts, blocks = if (is.null(nb$blocks)) blocks))
  vc
}

# Frees the native object a structure of vecchia_neighbors() holds, now
# rather than when the structure is garbage collected.
vecchia_structure_close <- function(nb) {
  home <- attr(nb, "engine")
  held <- .Call(gs_r_weak_value, home$ref)
  if (!is.null(held)) vecchia_close(held$vc)
  .Call(gs_r_weak_clear, home$ref)
  invisible(NULL)
}

vecchia_progress_bar <- function(vc, label, call) gs_progress_bar(as.double(vc$n) * (vc$m + 1)^2, label, call)

# Factors the approximation for params (named as cov_model() takes them);
# returns log |Sigma_V|. A conditioning set whose covariance is not
# positive definite gets an error of class gpustats_error_not_pd, or
# `not_pd` where given. `label` names the progress bar after what the user
# asked for. `family`: the core's covariance family (gp_cov_model()'s
# `native`).
vecchia_factor <- function(vc, params, call = parent.frame(), not_pd = NULL, label, family = "matern") {
  bar <- vecchia_progress_bar(vc, label, call)
  tryCatch(gs_call(.Call(gs_r_vecchia_factor, vc$ptr, cov_model(params, vc$distance, family), bar), call),
           gpustats_error_not_pd = function(e) if (is.null(not_pd)) vecchia_abort_not_pd(e, call) else not_pd)
}

# The error of a conditioning set that is not positive definite, or
# numerically singular, with what to do about it.
vecchia_abort_not_pd <- function(e, call) {
  cli::cli_abort(c("{conditionMessage(e)}",
                   i = "A very smooth or long-range covariance makes nearby points nearly determine each other; a small nugget makes the sets positive definite."),
                 class = c("gpustats_error_not_pd", "gpustats_error"), call = call)
}

# W b ("forward") or W^-1 b ("inverse") for b with a row per location. The
# forward product is in the Vecchia order: a whitening, whose sums of
# squares and cross-products are those of the approximate law. The inverse
# takes b in the Vecchia order (standard normal deviates, say) and returns
# rows in the caller's order: W^-1 z is a draw of the approximate law.
vecchia_apply <- function(vc, b, call = parent.frame(), what = c("forward", "inverse")) {
  what <- match.arg(what)
  storage.mode(b) <- "double"
  if (what == "forward") {
    b <- if (is.matrix(b)) b[vc$order, , drop = FALSE] else b[vc$order]
    return(gs_call(.Call(gs_r_vecchia_apply, vc$ptr, 0L, b), call))
  }
  out <- gs_call(.Call(gs_r_vecchia_apply, vc$ptr, 1L, b), call)
  if (is.matrix(out)) out[vc$order, ] <- out else out[vc$order] <- out
  out
}

# The log-likelihood of y (a vector in the caller's order) with the
# coefficients of X (n x p, p >= 0) profiled out, by maximum likelihood
# (method "ml", GpGp's vecchia_profbeta_loglik_grad_info) or restricted
# maximum likelihood ("reml"); its gradient in the covariance parameters
# named in `deriv` and their Fisher information (that of the approximate
# law, Guinness 2021; the same for both methods), in one pass over the
# conditioning sets. Returns a list: loglik, grad, info (named by `deriv`),
# beta, betacov (the GLS covariance of beta), logdet, quadform. A
# conditioning set whose covariance is not positive definite gets an error
# of class gpustats_error_not_pd, or `not_pd` where given. `label` names the
# progress bar after what the user asked for. `vc` may be a cluster engine
# (vecchia_cluster_open()), which holds y and X (those it was opened with).
# `family`: the core's covariance family, as for vecchia_factor().
vecchia_loglik_grad_info <- function(vc, params, y, X = NULL, deriv = names(params),
                                     method = c("ml", "reml"), call = parent.frame(), not_pd = NULL,
                                     label, family = "matern") {
  method <- match.arg(method)
  X <- if (is.null(X)) matrix(0, vc$n, 0L) else as.matrix(X)
  storage.mode(X) <- "double"
  bits <- as.integer(sum(2L^gs_code("cov_param", deriv)))
  model <- cov_model(params, vc$distance, family)
  sums <- tryCatch(vecchia_sums(vc, model, bits, y, X, label, call),
                   gpustats_error_not_pd = function(e) if (is.null(not_pd)) vecchia_abort_not_pd(e, call) else e)
  if (inherits(sums, "gpustats_error_not_pd")) return(not_pd)
  all <- names(gs_table("cov_param"))
  vecchia_profile(sums, vc$n, ncol(X), all[all %in% deriv], method)
}

# The sums of gs_vecchia_grad_info (gs_vecchia.h) for the model
# (cov_model()) and the derivative bits: from the native object, or added
# over the workers of a cluster engine.
vecchia_sums <- function(vc, model, bits, y, X, label, call) {
  if (inherits(vc, "vecchia_cluster")) return(vecchia_cluster_sums(vc, model, bits, call))
  bar <- vecchia_progress_bar(vc, label, call)
  gs_call(.Call(gs_r_vecchia_grad_info, vc$ptr, model, bits, as.double(y), X, vc$order, bar), call)
}

# The log-likelihood, gradient and information from the sums of the native
# call (see gs_vecchia_grad_info in gs_vecchia.h for their layout).
vecchia_profile <- function(sums, n, p, deriv, method) {
  q <- length(deriv)
  at <- 0L
  take <- function(len) {
    at <<- at + len
    sums[at - len + seq_len(len)]
  }
  logdet <- take(1L)
  ysy <- take(1L)
  ysx <- take(p)
  xsx <- matrix(take(p * p), p, p)
  dlogdet <- take(q)
  dysy <- take(q)
  dysx <- matrix(take(p * q), p, q)
  dxsx <- array(take(p * p * q), c(p, p, q))
  info <- matrix(take(q * q), q, q, dimnames = list(deriv, deriv))
  dx <- function(j) matrix(dxsx[, , j], p, p) # a p x p slice, also for p = 1
  beta <- if (p > 0) solve(xsx, ysx) else numeric()
  quadform <- ysy - sum(ysx * beta)
  grad <- vapply(seq_len(q), function(j) {
    dquad <- dysy[j] - 2 * sum(beta * dysx[, j]) + sum(beta * (dx(j) %*% beta))
    -0.5 * (dlogdet[j] + dquad)
  }, 0)
  ll <- -0.5 * (n * log(2 * pi) + logdet + quadform)
  if (method == "reml" && p > 0) {
    ll <- ll + 0.5 * p * log(2 * pi) - 0.5 * as.numeric(determinant(xsx)$modulus)
    grad <- grad - 0.5 * vapply(seq_len(q), function(j) sum(diag(solve(xsx, dx(j)))), 0)
  }
  names(grad) <- deriv
  list(loglik = ll, grad = grad, info = info, beta = beta, betacov = if (p > 0) solve(xsx),
       logdet = logdet, quadform = quadform)
}
