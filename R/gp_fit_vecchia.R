# gp_fit(approx = "vecchia"): the search on the Vecchia likelihood, whose
# gradient and Fisher information come with each evaluation (one pass over
# the conditioning sets), so that nlminb takes Fisher-scoring steps on the
# log scale of every free covariance parameter (sigma2 is not profiled
# here: its derivatives are as cheap as the others'), stopped by the same
# rule as the exact search (search_nlminb).

#' @rdname gp_fit
#' @param group For `approx = "vecchia"`: `TRUE` (the default, on every
#'   device) for the grouped approximation, `FALSE` for each observation
#'   conditioned on its own `m` neighbours only; see [vecchia_loglik()].
#' @param cluster For `approx = "vecchia"` (which it implies where `approx`
#'   is `"auto"`): `NULL` for one process, or a cluster of the
#'   \pkg{parallel} package (made by [parallel::makeCluster()]: PSOCK
#'   workers on this or other hosts, FORK, or MPI through \pkg{Rmpi}) over
#'   whose workers each evaluation of the likelihood is split; see the
#'   section Clusters of [vecchia_loglik()].
#' @name gp_fit
NULL

# Which approximation a fit of n observations uses: "auto" takes the exact
# likelihood while one evaluation of it costs about a second (n up to 10,000
# on the CPU, 50,000 on a GPU) and the Vecchia approximation beyond, and says so.
gp_approx <- function(approx, n, device, call, cluster = NULL) {
  approx <- match_choice(approx, c("exact", "vecchia", "auto"), "approx", call)
  if (!is.null(cluster)) {
    check_cluster(cluster, call)
    if (approx == "exact") abort_arg("{.arg cluster} splits the Vecchia likelihood: use {.code approx = \"vecchia\"}.", call)
    return("vecchia")
  }
  if (approx != "auto") return(approx)
  gpu <- !identical(device, "cpu") && isTRUE(tryCatch(gpu_available(), error = function(e) FALSE))
  if (n <= if (gpu) 5e4 else 1e4) return("exact")
  cli::cli_inform("gp_fit: {format(n, big.mark = ',')} observations: the Vecchia approximation (m = 30 nearest earlier neighbours) rather than the exact likelihood.")
  "vecchia"
}

# The Vecchia fit: the estimates, the log-likelihood, the inverse Fisher
# information of the free covariance parameters (natural scale) and the GLS
# trend, as gp_fit's list needs them. `bar_label` labels its progress bars
# (see fit_estimates()).
vecchia_fit <- function(d, model, method, spec, m, device, ctrl, call, group, bar_label, cluster = NULL,
                        neighbors = NULL) {
  check_flag(group, "group", call)
  if (model$geometry != "isotropic") {
    abort_arg("The Vecchia approximation takes isotropic models; {.val {model$name}} needs {.code approx = \"exact\"}.", call)
  }
  vc <- if (!is.null(neighbors)) {
    vecchia_engine_for(neighbors, group, device, call, bar_label("conditioning sets"))
  } else if (is.null(cluster)) {
    vecchia_open(d$locs, m, "maxmin", model$distance, device, call, group = group, label = bar_label("conditioning sets"))
  } else {
    nb <- vecchia_structure(d$locs, m, "maxmin", model$distance, group, call, bar_label("conditioning sets"))
    vecchia_cluster_open(cluster, nb, d$y, d$X, group, device, call, bar_label("conditioning sets"))
  }
  if (is.null(neighbors)) on.exit(vecchia_close(vc)) # else the structure's, kept for the next fit
  # the native object holds what it needs (its own neighbour array, or the
  # blocks' sets): R's n x (m + 1) one, 4 (m + 1) bytes a point, can go
  vc$neighbors <- NULL
  s2 <- spec$fixed$sigma2 %||% max(stats::var(d$y), .Machine$double.eps)
  p0 <- spec$unpack(spec$theta0)
  natural <- c(sigma2 = s2, range = p0$geom[["range"]], p0$shape, nugget = p0$ratio * s2)
  free <- c(if (is.null(spec$fixed$sigma2)) "sigma2", intersect(c("range", model$shapes), spec$free),
            if ("ratio" %in% spec$free) "nugget")
  bounds <- vecchia_bounds(spec, s2, free)
  phi0 <- pmin(pmax(log(pmax(natural[free], bounds$lower_natural)), bounds$lower), bounds$upper)
  last <- NULL
  evaluate <- function(phi) {
    if (!is.null(last) && identical(last$phi, phi)) return(last)
    p <- natural
    p[free] <- exp(phi)
    r <- vecchia_loglik_grad_info(vc, p, d$y, d$X, deriv = free, method = method, call = call, not_pd = NULL,
                                  label = bar_label("likelihood"), family = model$native)
    last <<- c(r, list(phi = phi, p = p))
    last
  }
  # a conditioning set that is not positive definite: an infeasible point
  safe <- function(f, value = NA) function(phi) tryCatch(f(phi), gpustats_error_not_pd = function(e) value)
  progress <- fit_progress(ctrl$trace, call)
  evaluations <- 0L
  objective <- safe(function(phi) {
    r <- evaluate(phi)
    evaluations <<- evaluations + 1L
    progress(evaluations, r$loglik, list(geom = r$p["range"], shape = r$p[model$shapes],
                                         ratio = r$p[["nugget"]] / r$p[["sigma2"]]))
    -r$loglik
  }, Inf)
  # the chain rule to the log scale: d/d log p = p d/dp
  gradient <- safe(function(phi) -evaluate(phi)$grad[free] * exp(phi))
  hessian <- safe(function(phi) {
    r <- evaluate(phi)
    r$info[free, free, drop = FALSE] * tcrossprod(exp(phi))
  })
  opt <- if (length(free)) {
    search_nlminb(phi0, objective, gradient, hessian, bounds$lower, bounds$upper, ctrl)
  } else {
    list(par = numeric(0), iterations = 0L, convergence = 0L, message = "all parameters fixed")
  }
  if (length(free)) warn_at_bound(free, opt$par, bounds$lower, bounds$upper, "nugget", call)
  r <- evaluate(stats::setNames(opt$par, free))
  V <- tryCatch(solve(r$info[free, free, drop = FALSE]), error = function(e) matrix(NA_real_, length(free), length(free)))
  dimnames(V) <- list(free, free)
  list(covariance = c(sigma2 = r$p[["sigma2"]], range = r$p[["range"]], r$p[model$shapes], nugget = r$p[["nugget"]]),
       loglik = r$loglik, vcov = V, info = r$info[free, free, drop = FALSE], beta = stats::setNames(r$beta, colnames(d$X)),
       vcov_beta = if (ncol(d$X)) r$betacov else matrix(0, 0, 0), estimated = free, opt = opt,
       evaluations = evaluations, group = group, backend = vecchia_backend(vc, group), device = vecchia_device_name(vc))
}

# The device of a fit: "gpu" or "cpu" (a cluster's when all its workers
# used one kind, else "gpu and cpu").
vecchia_device_name <- function(vc) paste(unique(ifelse(vc$device >= 0, "gpu", "cpu")), collapse = " and ")

vecchia_backend <- function(vc, group) {
  where <- vecchia_device_name(vc)
  if (inherits(vc, "vecchia_cluster")) where <- sprintf("cluster of %d workers (%s)", length(vc$cluster), where)
  sprintf("%s, Vecchia m = %d%s, %s ordering", where, vc$m, if (group) ", grouped" else "", sub("_", " ", vc$ordering))
}

# Log-scale bounds of the free parameters: those of the exact search for the
# range and the shapes (all searched on a log scale); sigma2 within 1e-6 to
# 1e6 times its start; the nugget from 1e-8 times sigma2's start (a nugget
# of 0 is at the log scale's edge) to 10 times it.
vecchia_bounds <- function(spec, s2, free) {
  at <- function(v, key, default) if (key %in% names(v)) v[[key]] else default
  corr <- setdiff(free, c("sigma2", "nugget"))
  lower <- c(sigma2 = log(s2 * 1e-6), vapply(corr, function(k) at(spec$lower, k, -Inf), 0),
             nugget = log(s2 * max(at(spec$lower, "ratio", 0), 1e-8)))
  upper <- c(sigma2 = log(s2 * 1e6), vapply(corr, function(k) at(spec$upper, k, Inf), 0),
             nugget = log(s2 * at(spec$upper, "ratio", 10)))
  list(lower = lower[free], upper = upper[free], lower_natural = exp(lower[free]))
}

# The covariance parameters of a fit, named as cov_model() takes them.
vecchia_params_of <- function(fit) fit$covariance[intersect(names(gs_table("cov_param")), names(fit$covariance))]

# Conditioning sets for prediction: larger than the fit's (GpGp predicts with
# 60), at most the observations.
vecchia_m_pred <- function(fit, m_pred, call) {
  m_pred <- m_pred %||% min(fit$n, max(60L, 2L * fit$m))
  vecchia_check_m_pred(m_pred, fit$n, call)
  as.integer(m_pred)
}

# Universal kriging from a Vecchia fit: each new location conditioned on its
# m_pred nearest observations; the trend's uncertainty added through the GLS
# covariance of its coefficients. `label`: what the user asked for
# ("predict", "fitted"), which names the progress bars; `cluster`: NULL, or
# a cluster whose workers share the new locations.
vecchia_predict_fit <- function(fit, locs, X0, m_pred, device, call, label, cluster = NULL) {
  resid <- fit$y - drop(fit$X %*% fit$beta)
  m_pred <- vecchia_m_pred(fit, m_pred, call)
  k <- if (is.null(cluster)) {
    vecchia_krige(fit$locs, resid, locs, vecchia_params_of(fit), m_pred, X = fit$X, X0 = X0, distance = fit$distance,
                  device = device, call = call, label = label, family = fit$model$native)
  } else {
    vecchia_cluster_krige(cluster, fit$locs, resid, locs, vecchia_params_of(fit), m_pred, fit$X, X0, fit$distance, device,
                          call, label, fit$model$native)
  }
  trend <- if (ncol(X0)) rowSums((k$xres %*% fit$vcov_beta) * k$xres) else 0
  list(fit = matrix(drop(X0 %*% fit$beta) + k$mean), se = sqrt(pmax(k$var + trend, 0)))
}

# Draws from a Vecchia fit: at the observed locations, of the response from
# the approximate law (W^-1 z); at new locations, conditional draws of the
# noise-free field given the data (the trend at its estimate).
vecchia_draws_fit <- function(fit, new, nsim, m_pred, device, call) {
  if (is.null(new)) {
    vc <- vecchia_open(fit$locs, fit$m, "maxmin", fit$distance, device, call, label = "simulate: conditioning sets")
    on.exit(vecchia_close(vc))
    vecchia_factor(vc, vecchia_params_of(fit), call, label = "simulate: drawing", family = fit$model$native)
    z <- matrix(stats::rnorm(fit$n * nsim), fit$n, nsim)
    return(drop(fit$X %*% fit$beta) + vecchia_apply(vc, z, call, what = "inverse"))
  }
  resid <- fit$y - drop(fit$X %*% fit$beta)
  drop(new$X %*% fit$beta) + vecchia_conditional_draws(fit$locs, resid, new$locs, vecchia_params_of(fit),
                                                       vecchia_m_pred(fit, m_pred, call), nsim, fit$distance, device, call,
                                                       family = fit$model$native)
}
