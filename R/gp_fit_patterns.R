# Replicates with missing values (y an n x r matrix with NA, see
# observed_replicates()): each replicate's likelihood is that of its
# observed values, whose covariance is the submatrix of Sigma at their
# locations, and the replicates are independent, so the log-likelihood is
# the sum over the replicates. Replicates observed at the same locations
# share that submatrix: they are grouped by their pattern of observed
# locations, and each pattern's submatrix is factored once per point, all
# its replicates whitened together as columns, by the native calls of
# complete data on the pattern's locations (on the CPU or the GPU alike).
# Complete replicates are one pattern and keep the path of one factor.

# The patterns of observed values of a matrix with missing values: for each
# distinct pattern, `rows` (the locations observed) and `columns` (the
# replicates observed there), the largest first.
missing_patterns <- function(y) {
  observed <- !is.na(y)
  key <- vapply(seq_len(ncol(y)), function(j) paste(as.integer(observed[, j]), collapse = ""), "")
  firsts <- which(!duplicated(key))
  patterns <- lapply(firsts, function(j) list(rows = which(observed[, j]), columns = which(key == key[j])))
  patterns[order(-vapply(patterns, function(pt) length(pt$rows), 1L))]
}

# f(gp, pattern) for each pattern in turn, with a native object of the
# model's distance and core family opened on the pattern's locations (rows of
# `locs`) and closed after it, whatever f does;
# NULL as soon as f returns NULL (a submatrix that is not positive definite),
# else the list of f's values. `done(k)` follows the work, after each pattern.
pattern_apply <- function(patterns, locs, model, device, accuracy, call, f, done = function(k) NULL) {
  out <- vector("list", length(patterns))
  for (k in seq_along(patterns)) {
    out[[k]] <- with_pattern_object(patterns[[k]], locs, model, device, accuracy, call, f)
    if (is.null(out[[k]])) return(NULL)
    done(k)
  }
  out
}

with_pattern_object <- function(pattern, locs, model, device, accuracy, call, f) {
  gp <- gp_open(locs[pattern$rows, , drop = FALSE], model$distance, device, call, accuracy, model$native)
  on.exit(gp_close(gp))
  f(gp, pattern)
}

# How the largest pattern's submatrix is factored: gp_method(), the device
# and whether by the tile Cholesky (which the smaller ones then use only
# where the option gpustats.gp_tiles or mixed precision makes every object
# tiled).
pattern_backend <- function(patterns, locs, model, device, accuracy, call) {
  with_pattern_object(patterns[[1L]], locs, model, device, accuracy, call,
                      function(gp, pattern) list(backend = gp_method(gp), device = gp$device, tiled = gp$tiled))
}

# The GLS quantities of gls_solve() for replicates with missing values, at
# the correlation parameters `params` (sigma2 = 1, range mapped) and the
# mapped locations `locs`; logdet NA where a pattern's submatrix is not
# positive definite. The whitened observed values of every replicate
# stacked, each replicate with its pattern's whitened design rows, are one
# data set of N observed values with whitened design W_s: the pooled GLS
# coefficients and residual quadratic form are its least squares, and
# REML takes log |X_s' Sigma_s^-1 X_s| = log |W_s' W_s| of the stacked model
# (for complete replicates p log r + log |W'W|, as gls_whitened() has it).
pattern_gls <- function(patterns, d, locs, params, model, device, accuracy, call) {
  whitened <- pattern_apply(patterns, locs, model, device, accuracy, call, function(gp, pattern) {
    logdet <- gp_factor(gp, params, locs[pattern$rows, , drop = FALSE], call, not_pd = NA_real_)
    if (is.na(logdet)) return(NULL)
    pattern_whiten(gp, pattern, d$y, d$X, call, logdet)
  })
  if (is.null(whitened)) return(list(logdet = NA_real_))
  z <- unlist(lapply(whitened, function(w) as.vector(w$z)))
  W <- do.call(rbind, lapply(whitened, function(w) w$W[rep(seq_len(nrow(w$W)), ncol(w$z)), , drop = FALSE]))
  logdet <- sum(vapply(whitened, function(w) ncol(w$z) * w$logdet, 1))
  gls_whitened(matrix(z), W, colnames(d$X), logdet)
}

# The ML derivatives of lik_derivatives() summed over the patterns at the
# GLS coefficients `beta`: each pattern's trace and information (P its
# submatrix's inverse) times its number of replicates, and the quadratic
# forms of its replicates' residuals.
pattern_derivatives <- function(patterns, d, beta, params, deriv, info, model, device, accuracy, call) {
  each <- pattern_apply(patterns, d$locs, model, device, accuracy, call, function(gp, pattern) {
    gp_factor(gp, params, d$locs[pattern$rows, , drop = FALSE], call)
    X <- d$X[pattern$rows, , drop = FALSE]
    resid <- d$y[pattern$rows, pattern$columns, drop = FALSE] - drop(X %*% beta)
    U <- as.matrix(gp_apply(gp, "solve", resid, call))
    r <- gp_derivatives(gp, params, deriv, matrix(0, length(pattern$rows), 0L), U, info, call)
    reps <- length(pattern$columns)
    list(trace = reps * r$trace, quad = r$quad, info = if (info) reps * r$info)
  })
  total <- function(part) Reduce(`+`, lapply(each, `[[`, part))
  list(trace = total("trace"), quad = total("quad"), info = if (info) total("info"))
}

# The pattern's replicates (columns of y) and design rows whitened by the
# factor of its submatrix, with its log determinant.
pattern_whiten <- function(gp, pattern, y, X, call, logdet = NULL) {
  r <- length(pattern$columns)
  Z <- gp_apply(gp, "forward", cbind(y[pattern$rows, pattern$columns, drop = FALSE], X[pattern$rows, , drop = FALSE]),
                call)
  list(z = Z[, seq_len(r), drop = FALSE], W = Z[, -seq_len(r), drop = FALSE], logdet = logdet)
}

# gp_krige() of data `ys` with missing values, pattern by pattern (each
# replicate kriged from its own observed values), with the fit's covariance
# `params` at the mapped observed locations `obs` and new locations `new`.
# Consecutive groups of `replicates` columns are replicates sharing the
# trend, pooled as in pattern_gls(): each group's GLS coefficients solve
# sum_j W_j' W_j beta = sum_j W_j' z_j over its replicates, and every group
# holds the fit's replicates (so the same information, whose inverse is the
# coefficients' covariance A). Each pattern is factored twice, once for
# the coefficients and once to krige, so that one factor is held at a time.
# `se`: the standard errors of each column (m x k), else NULL.
pattern_krige <- function(fit, obs, new, X0, ys, params, device, call, label, replicates, se) {
  patterns <- missing_patterns(ys)
  open <- function(f, done) pattern_apply(patterns, obs$locs, fit$model, device, fit$accuracy %||% 0, call, f, done)
  sizes <- vapply(patterns, function(pt) length(pt$rows), 1L)
  work <- cumsum(as.double(sizes)^2 + as.double(nrow(new$locs)) * sizes)
  bar <- gs_progress_bar(2 * work[length(work)], paste0(label, ": kriging each pattern of missing values"), call)
  done <- function(pass) function(k) if (!is.null(bar)) bar((work[k] + pass * work[length(work)]) / (2 * work[length(work)]))
  factored <- function(gp, pattern) {
    gp_factor(gp, params, obs$locs[pattern$rows, , drop = FALSE], call)
    pattern_whiten(gp, pattern, ys, fit$X, call)
  }
  moments <- open(function(gp, pattern) {
    w <- factored(gp, pattern)
    list(info = crossprod(w$W), b = crossprod(w$W, w$z))
  }, done(0))
  p <- ncol(fit$X)
  k <- ncol(ys)
  b <- matrix(0, p, k)
  column_pattern <- integer(k)
  for (i in seq_along(patterns)) {
    b[, patterns[[i]]$columns] <- moments[[i]]$b
    column_pattern[patterns[[i]]$columns] <- i
  }
  info <- Reduce(`+`, lapply(column_pattern[seq_len(replicates)], function(i) moments[[i]]$info), matrix(0, p, p))
  A <- if (p) solve(info) else matrix(0, 0, 0)
  group <- rep(seq_len(k %/% replicates), each = replicates)
  B <- if (p) (A %*% t(rowsum(t(b), group)))[, group, drop = FALSE] else b
  storage.mode(X0) <- "double"
  out <- list(fit = matrix(0, nrow(new$locs), k), se = if (se) matrix(0, nrow(new$locs), k))
  open(function(gp, pattern) {
    w <- factored(gp, pattern)
    Bk <- B[, pattern$columns, drop = FALSE]
    kr <- gs_call(.Call(gs_r_gp_krige, gp$ptr, cov_model(params, gp$distance, gp$family), new$locs, X0, w$W, w$z - w$W %*% Bk,
                        Bk, A, se, NULL), call)
    out$fit[, pattern$columns] <<- kr$fit
    if (se) out$se[, pattern$columns] <<- kr$se
    TRUE
  }, done(1))
  out
}
