# The checks of anova() for Gaussian-process fits: the same data, nested
# models, and likelihoods that rise with the parameters.

# A likelihood-ratio test compares models of one data set: the same
# responses at the same locations.
check_same_data <- function(fits, call) {
  # replicates' missing values must fall in the same places
  same <- function(a, b) {
    if (is.null(a) || is.null(b)) return(is.null(a) && is.null(b))
    a <- as.matrix(a)
    b <- as.matrix(b)
    identical(dim(a), dim(b)) && identical(is.na(a), is.na(b)) && all(a == b, na.rm = TRUE)
  }
  what <- c(y = "the responses", locs = "the locations", trials = "the numbers of trials", weights = "the prior weights")
  for (k in seq_along(fits)[-1L]) {
    for (field in names(what)) {
      if (same(fits[[1L]][[field]], fits[[k]][[field]])) next
      abort_arg(c("Model {k} is a fit to other data than model 1: their {.field {field}} differ ({what[[field]]}).",
                  i = "A likelihood-ratio test compares models of the same observations at the same locations."), call)
    }
  }
}

# Model i (the fewer parameters) must be nested in model j: an error that
# says why not.
check_nested <- function(fits, i, j, method, call) {
  why <- gp_fit_nesting(fits[[i]], fits[[j]], method)
  if (is.null(why)) return(invisible())
  abort_arg(c("Model {i} is not nested in model {j}: {why}.",
              i = "{.fn anova} tests nested models: the smaller one the larger with some parameters held (the same data, trend within the trend, the covariance a special case)."),
            call)
}

# NULL when fit `a` is the fit `b` with parameters held, else why not. The
# trend of `a` must lie within that of `b` (its columns in their span; the
# same span under REML, whose likelihoods of different trends are not
# comparable), both use one distance, one offset and one core covariance
# family (the Matérn's members nest by their smoothness), the geometry is
# the same or `a`'s is isotropic (equal ranges of an anisotropic or
# space-time model), and each parameter that `b` holds (the family's theta
# too) `a` holds at the same value.
gp_fit_nesting <- function(a, b, method) {
  if (attr(stats::logLik(a), "df") == attr(stats::logLik(b), "df")) return("both have as many parameters")
  if (a$distance != b$distance) return("they use different distances")
  if (!isTRUE(all.equal(a$offset %||% 0, b$offset %||% 0))) return("their offsets differ")
  if (a$model$native != b$model$native) {
    return(sprintf("its covariance family (%s) is not the larger model's (%s)", a$model$family, b$model$family))
  }
  if (!is.null(b$family_parameter) && !isTRUE(b$family_parameter_estimated)) {
    held_alike <- !isTRUE(a$family_parameter_estimated) &&
      isTRUE(all.equal(a$family_parameter[[1]], b$family_parameter[[1]], tolerance = 1e-12))
    if (!held_alike) return(sprintf("the larger model holds %s at %s, where the smaller does not", names(b$family_parameter), format(b$family_parameter[[1]])))
  }
  if (!span_within(a$X, b$X)) return("its trend is not within the larger model's")
  if (method == "reml" && !span_within(b$X, a$X)) {
    return("under REML the trends must be the same, since REML likelihoods of different trends are not comparable (refit with method = \"ml\")")
  }
  same_geometry <- identical(a$model$params, b$model$params)
  if (!same_geometry && a$model$geometry != "isotropic") {
    return(sprintf("its covariance (%s) is not a special case of the larger model's (%s)", a$model$name, b$model$name))
  }
  if (!same_geometry && !all(b$model$params %in% b$estimated)) {
    return("the larger model holds some of its ranges or angles, so the smaller model's isotropic range is not a special case")
  }
  for (p in c("sigma2", if (same_geometry) a$model$params, intersect(a$model$shapes, b$model$shapes), "nugget")) {
    if (p %in% b$estimated) next
    held_alike <- !p %in% a$estimated && isTRUE(all.equal(a$covariance[[p]], b$covariance[[p]], tolerance = 1e-12))
    if (!held_alike) {
      return(sprintf("the larger model holds %s at %s, where the smaller %s", p, format(b$covariance[[p]]),
                     if (p %in% a$estimated) "estimates it" else paste("holds it at", format(a$covariance[[p]]))))
    }
  }
  NULL
}

# Whether the columns of A lie in the span of the columns of B.
span_within <- function(A, B) {
  if (!ncol(A)) return(TRUE)
  if (!ncol(B)) return(FALSE)
  all(abs(qr.resid(qr(B), A)) <= 1e-8 * max(1, abs(A)))
}

# Each larger model of the sequence (log-likelihoods `ll` by increasing
# parameters, models `o`) contains the smaller one, so its maximum is at
# least as high. A drop beyond the search's tolerance means its search
# stopped short of the maximum, and the test would be meaningless; a
# smaller drop is two equal maxima (the extra parameters at the values that
# give the smaller model, such as a nugget of 0), found to that tolerance.
check_larger_fits_higher <- function(ll, o, call) {
  drop <- -diff(ll)
  short <- which(drop > 1e-6 * pmax(1, abs(ll[-1L])))
  if (!length(short)) return(invisible())
  k <- short[1L]
  i <- o[k]
  j <- o[k + 1L]
  abort_arg(c("Model {j} has a lower log-likelihood ({signif(ll[k + 1L], 8)}) than model {i} ({signif(ll[k], 8)}), which is nested in it: the search of model {j} stopped short of its maximum.",
              i = "Refit model {j} from the estimates of model {i} ({.arg start}), then compare."), call)
}
