# The exact search started from the Vecchia fit. Each exact evaluation factors
# the n x n covariance, so the number of evaluations sets the cost of a fit. The Vecchia fit (m = 30) of
# the same model costs a few exact evaluations, lands within a few per cent
# of the exact estimates and brings its Fisher information: on the scale of
# the exact search (sigma2 profiled) that is a close approximation of the
# Hessian there, so quasi-Newton steps from it with exact gradients by
# forward differences converge in about five iterations where a search that
# learns the curvature from gradients alone takes tens (at n = 2,000: 21
# likelihood evaluations instead of 79, to the same maximum).

# Fits of at least this many observations start from the Vecchia fit
# (below, exact evaluations are cheap and the default start serves), unless
# the caller gave start values.
exact_warm_start_min_n <- 1000

# NULL, or list(theta, hessian): the exact search's start and the Hessian of
# its objective (the negative profile log-likelihood) on the search's scale.
# Its progress bars are those of the step "starting values" of `bar_label`
# (see fit_estimates()).
exact_warm_start <- function(d, model, method, spec, device, call, bar_label) {
  r <- gp_replicates(d$y)
  if (r > 1L) {
    # The replicates are independent copies of one process: the Vecchia fit
    # of the most observed one starts the search, and the information of
    # all of them is about their observed values' count over its own times
    # its information (r times for complete replicates).
    observed <- !is.na(d$y)
    j <- which.max(colSums(observed))
    rows <- observed[, j]
    scale <- sum(observed) / sum(rows)
    d$y <- d$y[rows, j]
    d$locs <- d$locs[rows, , drop = FALSE]
    d$X <- d$X[rows, , drop = FALSE]
    warm <- exact_warm_start(d, model, method, spec, device, call, bar_label)
    if (!is.null(warm)) warm$hessian <- scale * warm$hessian
    return(warm)
  }
  n <- length(d$y)
  if (n < exact_warm_start_min_n || !length(spec$free) || spec$start_given) return(NULL)
  start_label <- bar_label("starting values")
  if (model$geometry != "isotropic") return(mapped_warm_start(d, model, method, spec, device, call, start_label))
  quiet <- fit_control(list(trace = FALSE, iter.max = 50L, rel.tol = 1e-8), call)
  # any failure (conditioning sets not positive definite without a nugget,
  # duplicated locations) leaves the default start
  v <- tryCatch(suppressMessages(suppressWarnings(
    vecchia_fit(d, model, method, spec, min(30L, n - 1L), device, quiet, call, group = TRUE,
                bar_label = function(step) start_label)
  )), error = function(e) NULL)
  if (is.null(v) || v$opt$convergence != 0L) return(NULL)
  hessian <- exact_profile_information(v$covariance, v$info, spec$free)
  if (is.null(hessian)) return(NULL)
  cv <- v$covariance
  natural <- c(range = cv[["range"]], cv[model$shapes], ratio = cv[["nugget"]] / cv[["sigma2"]])
  theta <- vapply(spec$free, function(k) if (fit_scale_is_log(k)) log(natural[[k]]) else natural[[k]], numeric(1))
  list(theta = pmin(pmax(theta, spec$lower), spec$upper), hessian = hessian)
}

# Anisotropic and space-time models: the Vecchia engine has no derivatives
# in their angles and ranges, so the warm start searches the Vecchia version
# of the exact objective itself (the same parameters, scale and profiling;
# each evaluation maps the locations and reuses one set of conditioning sets,
# as GpGp does, chosen on the locations mapped by the start values) and takes
# its central-difference Hessian at the maximum. Its evaluations cost
# O(n m^3) against the exact O(n^3), so its many evaluations replace most of
# the exact ones.
mapped_warm_start <- function(d, model, method, spec, device, call, label) {
  objective <- tryCatch(vecchia_profile_objective(d, model, method, spec, device, call, label), error = function(e) NULL)
  if (is.null(objective)) return(NULL)
  opt <- tryCatch(stats::nlminb(spec$theta0, objective, lower = spec$lower, upper = spec$upper,
                                control = list(iter.max = 200L, eval.max = 800L, rel.tol = 1e-8)),
                  error = function(e) NULL)
  if (is.null(opt) || opt$convergence != 0L) return(NULL)
  theta <- stats::setNames(opt$par, spec$free)
  # a maximum on a bound has no curvature across it: no warm Hessian there
  inside <- all(theta - spec$lower > 1e-3 & spec$upper - theta > 1e-3)
  H <- if (inside) tryCatch(fit_hessian(objective, theta), error = function(e) NULL)
  if (!is_positive_definite(H)) return(NULL)
  list(theta = theta, hessian = H)
}

# The negative profile log-likelihood of the exact search (gp_likelihood's
# `profile`: sigma2 and the trend profiled, REML or ML) under the Vecchia
# approximation with m = 30; `label` names its progress bars.
vecchia_profile_objective <- function(d, model, method, spec, device, call, label, m = 30L) {
  n <- length(d$y)
  m <- min(m, n - 1L)
  n_eff <- if (method == "reml") n - ncol(d$X) else n
  start <- gp_cov_map(model, spec$unpack(spec$theta0)$geom, d$locs)$locs
  neighbors <- vecchia_order_and_neighbors(start, m, "maxmin", model$distance, call, label = label)
  function(theta) {
    if (!all(is.finite(theta))) return(Inf)
    p <- spec$unpack(theta)
    mapped <- gp_cov_map(model, p$geom, d$locs)
    vc <- vecchia_open(mapped$locs, m, distance = model$distance, device = device, call = call, neighbors = neighbors)
    on.exit(vecchia_close(vc))
    r <- vecchia_loglik_grad_info(vc, gp_cov_params(1, mapped$range, p$shape, p$ratio), d$y, d$X, deriv = character(0),
                                  call = call, not_pd = FALSE, label = label, family = model$native)
    if (isFALSE(r)) return(Inf)
    logdet_xrx <- if (method == "reml" && ncol(d$X)) -as.numeric(determinant(r$betacov)$modulus) else 0
    0.5 * (n_eff * log(2 * pi * r$quadform / n_eff) + r$logdet + logdet_xrx + n_eff)
  }
}

# The Fisher information of the natural parameters (sigma2, range, the
# shapes, nugget: those in `info`'s names) carried to the search's scale
# u = (log sigma2, the log of the parameters searched on that scale
# (fit_scale_is_log), the others as they are, ratio = nugget / sigma2) by
# the Jacobian d natural / d u, named by the search's names.
search_scale_information <- function(covariance, info) {
  natural <- rownames(info)
  s2 <- covariance[["sigma2"]]
  J <- diag(vapply(natural, function(k) if (k == "nugget") s2 else if (fit_scale_is_log(k)) covariance[[k]] else 1,
                   numeric(1)), length(natural))
  if (all(c("sigma2", "nugget") %in% natural)) J[match("nugget", natural), match("sigma2", natural)] <- covariance[["nugget"]]
  I <- crossprod(J, info %*% J)
  search <- sub("^nugget$", "ratio", natural)
  dimnames(I) <- list(search, search)
  I
}

# The information on the search's scale (search_scale_information) with
# sigma2 profiled out (the Schur complement of its entry), for the
# parameters `free`. NULL unless positive definite.
exact_profile_information <- function(covariance, info, free) {
  I <- search_scale_information(covariance, info)
  search <- rownames(I)
  if (!setequal(setdiff(search, "sigma2"), free)) return(NULL)
  keep <- free
  H <- I[keep, keep, drop = FALSE]
  if ("sigma2" %in% search) H <- H - I[keep, "sigma2", drop = FALSE] %*% I["sigma2", keep, drop = FALSE] / I[["sigma2", "sigma2"]]
  if (is_positive_definite(H)) H else NULL
}

# Whether H (or NULL) is a finite, positive definite matrix: a Hessian a
# Newton search can start from.
is_positive_definite <- function(H) {
  !is.null(H) && all(is.finite(H)) && !is.null(tryCatch(chol(H), error = function(e) NULL))
}

# Gradient and Hessian functions for nlminb from a warm start: the
# gradient by `gradient` (finite differences of the exact likelihood), the
# Hessian the warm start's, updated by BFGS with each new gradient (it is
# close, not exact: the updates make the steps superlinear rather than
# linear near the maximum).
warm_newton <- function(gradient, hessian) {
  last <- NULL # theta and gradient of the latest evaluation
  grad <- function(theta) {
    if (!is.null(last) && identical(last$theta, theta)) return(last$g)
    g <- gradient(theta)
    if (!is.null(last)) hessian <<- bfgs_update(hessian, theta - last$theta, g - last$g)
    last <<- list(theta = theta, g = g)
    g
  }
  list(gradient = grad, hessian = function(theta) {
    grad(theta)
    hessian
  })
}

# The BFGS update of H with step s and gradient change y, skipped where the
# curvature y's is not safely positive (H stays positive definite).
bfgs_update <- function(H, s, y) {
  sy <- sum(s * y)
  if (!is.finite(sy) || sy <= 1e-10 * sqrt(sum(s^2) * sum(y^2))) return(H)
  Hs <- H %*% s
  H - tcrossprod(Hs) / drop(crossprod(s, Hs)) + tcrossprod(y) / sy
}
