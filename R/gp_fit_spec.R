# What a Gaussian-process fit estimates, on which scale, from where and
# within which bounds; and the standard errors of the covariance parameters.

# The search runs over log ranges, log shapes (smoothness, power, tail,
# mu), angles as they are and the nugget ratio nugget / sigma2 (sigma2 is
# profiled out).
fit_scale_is_log <- function(name) gp_cov_is_range(name) || name %in% c("sigma2", "smoothness", "power", "tail", "mu")

fit_spec <- function(d, model, start, lower, upper, fixed, nugget, call) {
  names_ok <- c("sigma2", model$params, model$shapes, "nugget")
  for (arg in c("start", "lower", "upper", "fixed")) {
    v <- get(arg)
    if (is.null(v) || length(v) == 0L) next
    if (is.null(names(v)) || !all(names(v) %in% names_ok) || !all(vapply(v, is.numeric, TRUE)) ||
        any(lengths(as.list(v)) != 1L) || anyNA(unlist(v))) {
      abort_arg("{.arg {arg}} must be a named list of single numbers for {.or {.val {names_ok}}} (the parameters of {.val {model$name}}).", call)
    }
  }
  fixed <- as.list(fixed)
  start <- as.list(start)
  lower <- as.list(lower)
  upper <- as.list(upper)
  for (arg in c("start", "lower", "upper")) check_fit_values(get(arg), arg, call)
  for (name in names(fixed)) {
    check_scalar(fixed[[name]], paste0("fixed$", name), call, if (startsWith(name, "angle")) -Inf else 0,
                 open = !name %in% c("nugget", "kappa") && !startsWith(name, "angle"))
  }
  for (k in names(model$shape_fixed)) {
    if (!is.null(fixed[[k]]) && fixed[[k]] != model$shape_fixed[[k]]) {
      abort_arg("{.val {model$family}} has {k} {model$shape_fixed[[k]]}; use {.code cov = \"{model$native}\"} to fix another.", call)
    }
    fixed[[k]] <- model$shape_fixed[[k]]
  }
  for (k in intersect(names(gp_cov_shape_held), model$shapes)) {
    if (!is.null(start[[k]]) || !is.null(lower[[k]]) || !is.null(upper[[k]])) {
      abort_arg("{.arg {k}} is not estimated: give it in {.arg fixed} (default {gp_cov_shape_held[[k]]}).", call)
    }
    fixed[[k]] <- fixed[[k]] %||% gp_cov_shape_held[[k]]
  }
  if (!is.null(fixed$nugget) && fixed$nugget > 0 && is.null(fixed$sigma2)) {
    abort_arg("A fixed nugget needs a fixed {.arg sigma2} too (the nugget is profiled as a ratio to sigma2); or fix neither.", call)
  }
  geometry <- gp_cov_defaults(model, d$locs, call)
  y <- d$y[!is.na(d$y)] # replicates' observed values
  vy <- if (length(y) > 1L) stats::var(y) else y^2
  s2_start <- fixed$sigma2 %||% start$sigma2 %||% max(vy, .Machine$double.eps)
  ratio_fixed <- if (!is.null(fixed$nugget)) fixed$nugget / s2_start else if (!nugget) 0 else NULL
  shape <- gp_cov_shape_defaults(model, fixed)
  defaults <- list(
    start = c(stats::setNames(geometry$start, model$params), shape$start, ratio = 0.1),
    lower = c(stats::setNames(geometry$lower, model$params), shape$lower, ratio = 0),
    upper = c(stats::setNames(geometry$upper, model$params), shape$upper, ratio = 10)
  )
  free <- c(setdiff(model$params, names(fixed)), setdiff(model$shapes, names(fixed)),
            if (is.null(ratio_fixed)) "ratio")
  given <- list(start = start, lower = lower, upper = upper)
  pick <- function(what, key) {
    v <- given[[what]][[if (key == "ratio") "nugget" else key]]
    if (is.null(v)) return(defaults[[what]][[key]])
    if (key == "ratio") v / s2_start else v
  }
  to_theta <- function(key, v) if (fit_scale_is_log(key)) log(v) else v
  theta0 <- lo <- hi <- numeric(0)
  for (key in free) {
    lo[key] <- to_theta(key, pick("lower", key))
    hi[key] <- to_theta(key, pick("upper", key))
    theta0[key] <- min(max(to_theta(key, pick("start", key)), lo[key]), hi[key])
    if (!(lo[key] < hi[key])) abort_arg("The bounds for {.val {key}} are empty.", call)
  }
  value <- function(theta, key, fixed_value) {
    if (!key %in% free) return(fixed_value)
    if (fit_scale_is_log(key)) exp(theta[[key]]) else theta[[key]]
  }
  unpack <- function(theta) {
    geom <- vapply(model$params, function(k) value(theta, k, fixed[[k]] %||% NA_real_), numeric(1))
    list(geom = geom, shape = vapply(model$shapes, function(k) value(theta, k, fixed[[k]]), numeric(1)),
         ratio = value(theta, "ratio", ratio_fixed))
  }
  check_fit_shapes(model, lo, hi, unpack, call)
  list(theta0 = theta0, lower = lo, upper = hi, free = free, fixed = fixed, ratio = ratio_fixed, unpack = unpack,
       sigma2_start = s2_start,
       diameter = geometry$diameter, start_given = length(start) > 0)
}

# The core's rule (check_cov_rule) at the corners of the search's box: the
# rule bounds each shape and the range by itself, so the box lies within it
# when both corners do (and the fixed values, which every point shares).
check_fit_shapes <- function(model, lo, hi, unpack, call) {
  range_of <- function(geom) if (model$geometry == "isotropic") geom[["range"]] else 1
  for (corner in list(lo, hi)) {
    p <- unpack(corner)
    check_cov_rule(model, gp_cov_params(1, range_of(p$geom), p$shape, 0), call)
  }
}

# Start values and bounds within the parameter space: ranges and smoothness
# finite and > 0, nugget finite and >= 0, angles finite (sigma2 is profiled:
# a start value is allowed, a bound means nothing).
check_fit_values <- function(values, arg, call) {
  for (name in names(values)) {
    v <- values[[name]]
    label <- paste0(arg, "$", name)
    if (name == "sigma2" && arg != "start") {
      abort_arg("{.arg {label}}: {.arg sigma2} has no bounds (its estimate is profiled out); fix it with {.arg fixed} instead.", call)
    }
    if (startsWith(name, "angle")) check_scalar(v, label, call) else check_scalar(v, label, call, 0, open = name != "nugget")
  }
}

# Standard errors of the estimated covariance parameters: the inverse of
# their information on the search's scale (log sigma2, log ranges, log
# smoothness, angles, the nugget ratio), mapped back to the natural scale by
# the delta method. `type` "fisher": the expected information from the
# analytic derivatives (gp_fisher.R), where they serve the fit and their
# n x n matrices fit in memory; else, and for "hessian", the observed
# information (a central-difference Hessian of the log-likelihood with the
# trend profiled by GLS). A nugget estimated at its bound of 0 has no
# curvature to measure: its standard error stays NA and the others are
# conditional on it. Returns the matrix with attribute "type", the
# information used (NULL when none was computed). `bar_label` labels the
# progress bar (see fit_estimates()); NULL shows none.
fit_vcov <- function(covariance, estimated, lik, ctrl, call, type = ctrl$vcov, model = NULL, bar_label = NULL) {
  V <- matrix(NA_real_, length(estimated), length(estimated), dimnames = list(estimated, estimated))
  interior <- setdiff(estimated, if (covariance[["nugget"]] == 0) "nugget")
  if (!isTRUE(ctrl$hessian) || !length(interior)) return(structure(V, type = NULL))
  info <- if (type == "fisher" && !is.null(model) && gp_derivatives_available(lik, model)) {
    # about the work of ten evaluations (P, the pass, two products)
    bar <- if (!is.null(bar_label)) gs_progress_bar(10 * as.double(lik$n)^2, bar_label("standard errors"), call)
    tryCatch(lik_information(lik, covariance, interior, call, bar), gpustats_error_memory = function(e) NULL)
  }
  used <- if (is.null(info)) "hessian" else "fisher"
  if (is.null(info)) info <- -fit_vcov_hessian(covariance, interior, lik, call, bar_label)
  k <- length(interior)
  Vi <- tryCatch(solve(info), error = function(e) matrix(NA_real_, k, k))
  J <- fit_vcov_jacobian(covariance, interior)
  V[interior, interior] <- J %*% Vi %*% t(J)
  structure(V, type = used)
}

# d coefficient / d phi for the `interior` covariance parameters: exp(phi)
# on the log scale, 1 for angles; nugget = ratio * sigma2.
fit_vcov_jacobian <- function(covariance, interior) {
  s2 <- covariance[["sigma2"]]
  J <- diag(vapply(interior, function(n) {
    if (n == "nugget") s2 else if (fit_scale_is_log(n)) covariance[[n]] else 1
  }, numeric(1)), length(interior))
  dimnames(J) <- list(interior, interior)
  if ("nugget" %in% interior && "sigma2" %in% interior) J["nugget", "sigma2"] <- covariance[["nugget"]]
  J
}

# The central-difference Hessian of the log-likelihood at the estimates on
# the scale of fit_vcov (k^2 + k + 1 evaluations for k parameters, with a
# progress bar).
fit_vcov_hessian <- function(covariance, interior, lik, call, bar_label) {
  s2 <- covariance[["sigma2"]]
  phi <- vapply(interior, function(k) {
    if (k == "nugget") covariance[["nugget"]] / s2 else if (fit_scale_is_log(k)) log(covariance[[k]]) else covariance[[k]]
  }, numeric(1))
  shapes <- intersect(names(covariance), gp_cov_all_shapes())
  geometry <- setdiff(names(covariance), c("sigma2", shapes, "nugget"))
  at_phi <- function(v) {
    nat <- function(k) if (!k %in% interior) covariance[[k]] else if (fit_scale_is_log(k)) exp(v[[k]]) else v[[k]]
    sigma2 <- nat("sigma2")
    ratio <- if ("nugget" %in% interior) v[["nugget"]] else covariance[["nugget"]] / sigma2
    lik$full(sigma2, list(geom = vapply(geometry, nat, numeric(1)), shape = vapply(shapes, nat, numeric(1)), ratio = ratio))
  }
  k <- length(interior)
  evaluations <- k^2 + k + 1
  bar <- if (!is.null(bar_label)) gs_progress_bar(evaluations * as.double(lik$n)^2, bar_label("standard errors"), call)
  done <- 0
  fit_hessian(function(v) {
    done <<- done + 1
    if (!is.null(bar)) bar(done / evaluations)
    at_phi(v)
  }, phi)
}

# The central-difference Hessian of f at phi, steps of 1e-3: the diagonal
# from f(phi +- h e_i), each cross term from the diagonal's points and
# f(phi +- h (e_i + e_j)), second-order accurate like the four-point rule
# with half its evaluations (k^2 + k + 1 in all).
fit_hessian <- function(f, phi, h = 1e-3) {
  k <- length(phi)
  H <- matrix(0, k, k, dimnames = list(names(phi), names(phi)))
  f0 <- f(phi)
  at <- function(s, i, j = NULL) {
    v <- phi
    v[c(i, j)] <- v[c(i, j)] + s * h
    f(v)
  }
  axis <- vapply(seq_len(k), function(i) at(1, i) + at(-1, i), numeric(1)) # f(+h e_i) + f(-h e_i)
  diag(H) <- (axis - 2 * f0) / h^2
  for (i in seq_len(k)) {
    for (j in seq_len(i - 1L)) {
      H[i, j] <- H[j, i] <- (at(1, i, j) + at(-1, i, j) - axis[i] - axis[j] + 2 * f0) / (2 * h^2)
    }
  }
  H
}
