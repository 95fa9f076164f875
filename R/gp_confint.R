#' Confidence intervals for the parameters of a Gaussian-process fit
#'
#' Trend coefficients get Wald intervals from their GLS standard errors
#' (exact when the covariance is known). Covariance parameters get, by
#' default, profile-likelihood intervals: the set of values whose profile
#' log-likelihood (every other parameter re-estimated) is within
#' `qchisq(level, 1) / 2` of the maximum, found by root-finding on each
#' side. They stay within the parameter space and follow the skew of the
#' likelihood in the ranges, where Wald intervals on the natural scale
#' reach negative ranges. Each point of a profile is a fit of its own, so
#' profiles cost tens of fits for a large data set. A side that reaches its
#' search bound before the likelihood drops enough is reported as that bound
#' with a warning. The nugget's profile maximises over `sigma2` and the
#' other parameters at each nugget value; its interval may reach 0, the edge
#' of the parameter space (no warning then). `method = "wald"` (and the
#' nugget of a Vecchia fit) use Wald intervals, on the log scale for
#' positive parameters (so they stay positive) and the natural scale for
#' angles and the nugget (truncated at 0).
#'
#' The default, `method = "auto"`, profiles fits of up to 10,000
#' observations and gives Wald intervals above, with a message: a profile
#' side is a root search of about five to ten refits, so the profiles of
#' four covariance parameters cost 40 to 80 fits, while the Wald
#' intervals come from the information the fit already holds (the
#' Fisher information of a Vecchia fit, from the same pass as its
#' likelihood). The profiles of a Vecchia fit share one ordering and
#' one set of conditioning sets (and, on a GPU, their upload), and show one
#' progress bar for all the profiles.
#'
#' For a non-Gaussian fit (`family = poisson()`, ...) the trend's Wald
#' intervals use the standard errors of the observed information of the
#' Laplace log-likelihood, and the covariance parameters' profiles maximise
#' that log-likelihood over the trend, the other covariance parameters and
#' the family's parameter where it is estimated (the nugget of the latent
#' field gets a Wald interval).
#'
#' @param object A `gp_fit`.
#' @param parm Names of parameters (default: all estimated ones).
#' @param level The confidence level.
#' @param method `"auto"`, `"profile"` or `"wald"`; see Details.
#' @param ... Unused.
#' @return A matrix with a row per parameter and columns for the lower and
#'   upper limits.
#' @export
confint.gp_fit <- function(object, parm, level = 0.95, method = c("auto", "profile", "wald"), ...) {
  call <- environment()
  validate_gp_fit(object, "object", call)
  method <- match_choice(method, c("auto", "profile", "wald"), "method", call)
  check_scalar(level, "level", call, 0, open = TRUE)
  if (level >= 1) abort_arg("{.arg level} must be below 1, not {level}.", call)
  all <- c(names(object$beta), object$estimated)
  if (missing(parm)) parm <- all
  if (!is.character(parm) || !length(parm)) {
    abort_arg("{.arg parm} must name one or more estimated parameters ({.val {all}}), not {.obj_type_friendly {parm}}.", call)
  }
  unknown <- setdiff(parm, all)
  if (length(unknown)) abort_arg("{.arg parm} names {.val {unknown}}, not estimated parameters ({.val {all}}).", call)
  # the nugget of a Vecchia fit or of a non-Gaussian fit's field: Wald (its
  # profile would hold sigma2 too)
  wald_nugget <- identical(object$approx, "vecchia") || !identical(object$family %||% "gaussian", "gaussian")
  profiled <- parm[!(parm %in% names(object$beta)) & !(parm == "nugget" & wald_nugget)]
  if (method == "auto") method <- confint_method(object, profiled)
  if (method == "wald") profiled <- character()
  z <- stats::qnorm((1 + level) / 2)
  se <- sqrt(pmax(diag(stats::vcov(object)), 0))
  est <- stats::coef(object)
  profiles <- profile_session(object, length(profiled), call)
  on.exit(profiles$close())
  limits <- t(vapply(parm, function(name) {
    if (!(name %in% profiled)) return(wald_interval(est[[name]], se[[name]], z, name))
    profile_interval(object, name, level, call, profiles)
  }, numeric(2)))
  colnames(limits) <- sprintf("%s %%", format(100 * c(1 - level, 1 + level) / 2, trim = TRUE, digits = 3))
  limits
}

# The largest fit whose covariance parameters confint() profiles by default.
confint_profile_max_n <- 10000

# "auto": profiles up to confint_profile_max_n observations, Wald above
# (with a message where a profile was due).
confint_method <- function(fit, profiled) {
  if (fit$n <= confint_profile_max_n || !length(profiled)) return("profile")
  cli::cli_inform(c("confint: {format(fit$n, big.mark = ',')} observations: Wald intervals from the {if (identical(fit$vcov_type, 'fisher')) 'Fisher' else 'observed'} information.",
                    i = "{.code method = \"profile\"} profiles the likelihood instead, at 10 to 20 fits a parameter."),
                  class = "gpustats_message_confint_wald")
  "wald"
}

# What the profiles of one confint() call share: one progress bar over all
# their sides (the refits' own bars are not shown), and for a Vecchia fit
# one structure of its ordering and conditioning sets, whose native object
# every refit reuses. close() ends the bar and frees the object.
profile_session <- function(fit, count, call) {
  if (count == 0L) return(list(close = function() invisible(), tick = function(...) invisible(), neighbors = NULL))
  bar <- cli::cli_progress_bar("confint: profiles", total = 2L * count, .envir = call)
  quiet <- gs_state$bars_off
  gs_state$bars_off <- TRUE
  nb <- if (identical(fit$approx, "vecchia")) {
    vecchia_neighbors(fit$locs, fit$m, "maxmin", fit$distance, group = isTRUE(fit$group %||% TRUE))
  }
  list(neighbors = nb,
       tick = function() cli::cli_progress_update(id = bar, .envir = call),
       close = function() {
         gs_state$bars_off <- quiet
         if (!is.null(nb)) vecchia_structure_close(nb)
         cli::cli_progress_done(id = bar, .envir = call)
       })
}

# Wald limits: on the log scale for positive covariance parameters, else natural
# (the nugget truncated at 0).
wald_interval <- function(est, se, z, name) {
  if (!is.finite(se)) return(c(NA_real_, NA_real_))
  if (name != "nugget" && fit_scale_is_log(name)) return(est * exp(c(-1, 1) * z * se / est))
  out <- est + c(-1, 1) * z * se
  if (name == "nugget") out <- pmax(out, 0)
  out
}

# The profile-likelihood limits of one covariance parameter, a side at a
# time (each a tick of the session's bar).
profile_interval <- function(fit, name, level, call, profiles) {
  target <- fit$loglik - stats::qchisq(level, 1) / 2
  log_scale <- fit_scale_is_log(name)
  to <- function(v) if (log_scale) log(v) else v
  from <- function(t) if (log_scale) exp(t) else t
  t0 <- to(fit$covariance[[name]])
  se <- sqrt(fit$vcov[name, name])
  step <- if (is.finite(se) && se > 0) 2 * (if (log_scale) se / fit$covariance[[name]] else se) else 0.5
  if (name == "nugget" && !(is.finite(se) && se > 0)) step <- 0.1 * fit$covariance[["sigma2"]] # on the data's scale
  bounds <- profile_bounds(fit, name)
  g <- function(t) profile_loglik(fit, name, from(t), call, profiles$neighbors) - target
  vapply(c(-1, 1), function(side) {
    on.exit(profiles$tick())
    limit <- to(bounds[[if (side < 0) 1L else 2L]])
    s <- step
    repeat {
      t1 <- t0 + side * s
      if (side * (t1 - limit) >= 0) {
        t1 <- limit
        if (name == "nugget" && side < 0 && limit == 0 && g(0) > 0) return(0) # the edge of the parameter space
        if (g(t1) > 0) {
          cli::cli_warn("The profile of {.val {name}} stays within the interval up to its search bound {signif(from(limit), 4)}.",
                        class = c("gpustats_warning_profile_bound", "gpustats_warning"), call = call)
          return(from(limit))
        }
        break
      }
      if (g(t1) < 0) break
      s <- 2 * s
    }
    from(stats::uniroot(g, sort(c(t0, t1)), tol = 1e-4 * max(1, abs(t0)))$root)
  }, numeric(1))
}

# The search bounds of a parameter in a profile: those of gp_fit's defaults
# (or the fit's own lower/upper), widened to contain the estimate.
profile_bounds <- function(fit, name) {
  model <- fit$model
  geometry <- gp_cov_defaults(model, fit$locs)
  shape <- gp_cov_shape_defaults(model, as.list(fit$covariance[intersect(names(gp_cov_shape_held), model$shapes)]))
  s2 <- fit$covariance[["sigma2"]]
  # the nugget up to gp_fit's default bound on its ratio to sigma2
  lower <- c(stats::setNames(geometry$lower, model$params), sigma2 = s2 * 1e-3, shape$lower, nugget = 0)
  upper <- c(stats::setNames(geometry$upper, model$params), sigma2 = s2 * 1e3, shape$upper, nugget = 10 * s2)
  if (startsWith(name, "angle")) return(fit$covariance[[name]] + c(-1, 1) * pi / 2) # one period
  lo <- fit$settings$lower[[name]] %||% lower[[name]]
  hi <- fit$settings$upper[[name]] %||% upper[[name]]
  c(min(lo, fit$covariance[[name]]), max(hi, fit$covariance[[name]]))
}

# The maximum log-likelihood with `name` held at `value`, the others
# re-estimated from the fit's estimates: a fit of the same data, model and
# likelihood; a Vecchia fit's with the structure `neighbors` of the profiles.
profile_loglik <- function(fit, name, value, call, neighbors = NULL) {
  s <- fit$settings
  gaussian <- identical(fit$family %||% "gaussian", "gaussian")
  if (gaussian && name == "nugget" && value > 0 && is.null(s$fixed$sigma2)) return(nugget_profile_loglik(fit, value))
  fixed <- utils::modifyList(s$fixed, stats::setNames(list(value), name))
  held <- intersect(names(gp_cov_shape_held), fit$model$shapes) # never searched: at the fit's value
  fixed[held] <- as.list(fit$covariance[held])
  free <- setdiff(c("sigma2", fit$model$params, fit$model$shapes, "nugget"), names(fixed))
  start <- as.list(fit$covariance[intersect(free, names(fit$covariance))])
  if (name == "sigma2" && "nugget" %in% free) start$nugget <- fit$covariance[["nugget"]] / fit$covariance[["sigma2"]] * value
  if (!gaussian) return(glmm_profile_loglik(fit, fixed, start, call))
  d <- list(y = fit$y, locs = fit$locs, X = fit$X)
  spec <- fit_spec(d, fit$model, start, s$lower, s$upper, fixed, s$nugget, call)
  ctrl <- fit_control(list(trace = FALSE, hessian = FALSE), call)
  refit <- suppressWarnings(fit_estimates(d, fit$model, fit$method, spec, fit$approx %||% "exact", fit$accuracy %||% 0,
                                          fit$device, ctrl, fit$m, fit$group %||% TRUE, call,
                                          bar_label = function(step) paste("confint: profile of", name),
                                          neighbors = neighbors))
  refit$loglik
}

# The maximum log-likelihood of an exact fit with the nugget held at
# `value` > 0: gp_fit searches the nugget as a ratio to a profiled sigma2,
# so here sigma2 is searched with the other free correlation parameters
# (from the fit's estimates, within the profile bounds), each point one
# factorization.
nugget_profile_loglik <- function(fit, value) {
  call <- environment()
  lik <- gp_likelihood(list(y = fit$y, X = fit$X, locs = fit$locs), fit$model, fit$method, fit$device,
                       fit$accuracy %||% 0, call)
  on.exit(lik$close())
  names <- c("sigma2", intersect(c(fit$model$params, fit$model$shapes), fit$estimated))
  to <- function(v, k) if (fit_scale_is_log(k)) log(v) else v
  from <- function(t, k) if (fit_scale_is_log(k)) exp(t) else t
  bounds <- vapply(names, function(k) to(profile_bounds(fit, k), k), numeric(2))
  start <- vapply(names, function(k) to(fit$covariance[[k]], k), numeric(1))
  objective <- function(theta) {
    v <- stats::setNames(mapply(from, theta, names), names)
    geom <- fit$covariance[fit$model$params]
    geom[intersect(names, names(geom))] <- v[intersect(names, names(geom))]
    shape <- fit$covariance[fit$model$shapes]
    shape[intersect(names, names(shape))] <- v[intersect(names, names(shape))]
    par <- list(geom = geom, shape = shape, ratio = value / v[["sigma2"]])
    ll <- lik$full(v[["sigma2"]], par)
    if (is.finite(ll)) -ll else Inf
  }
  -stats::nlminb(start, objective, lower = bounds[1L, ], upper = bounds[2L, ])$objective
}
