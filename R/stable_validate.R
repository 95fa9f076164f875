# Validators of the alpha-stable fit classes: every method of stable_fit,
# summary.stable_fit and stable_fit_table calls its class's validator first
# (check_object() in checks.R), so that a fit with a field removed, of the
# wrong type or of the wrong shape gets an error naming that field.

# The names of the four parameters, in order.
stable_params <- names(stable_lower)

# The parameters a fit estimated: those it did not hold fixed.
stable_free <- function(x) setdiff(stable_params, names(x$fixed))

stable_fit_fields <- list(
  method = rule_choice(c("mle", "mcculloch", "koutrouvelis")),
  pm = field_rule("0, 1 or 2", function(v, x) is_number(v) && v %in% 0:2),
  coefficients = field_rule("the four finite parameters {.field {stable_params}}", function(v, x) {
    is.double(v) && identical(names(v), stable_params) && all(is.finite(v))
  }),
  fixed = field_rule("the fixed parameters: finite numbers named by up to three of {.field {stable_params}}", function(v, x) {
    is.numeric(v) && length(v) < 4L && all(is.finite(v)) && (!length(v) || all(names(v) %in% stable_params) && !anyDuplicated(names(v)))
  }),
  vcov = field_rule("NULL unless fitted by maximum likelihood, else the covariance of the estimated parameters (a square numeric matrix over {.field {stable_free(x)}})",
                    function(v, x) {
                      if (x$method != "mle") return(is.null(v))
                      is.matrix(v) && is.numeric(v) && identical(dimnames(v), list(stable_free(x), stable_free(x)))
                    }),
  n = rule_count(1),
  data = field_rule("the finite sample of {x$n} value{?s}", function(v, x) is.double(v) && length(v) == x$n && all(is.finite(v))),
  loglik = rule_number(),
  iterations = rule_count(0),
  converged = rule_flag(),
  information_ok = field_rule("TRUE or FALSE for a maximum-likelihood fit, else NULL",
                              function(v, x) if (x$method == "mle") is_flag(v) else is.null(v)),
  boundary = field_rule("NULL unless fitted by maximum likelihood, else the names of the parameters on a bound",
                        function(v, x) if (x$method == "mle") is.character(v) && all(v %in% stable_params) else is.null(v))
)

# Checks a stable_fit given to a method as argument `arg`.
validate_stable_fit <- function(x, arg, call) check_object(x, "stable_fit", stable_fit_fields, arg, call)

summary_stable_fit_fields <- c(
  list(table = field_rule("a 4 x 2 numeric matrix of the estimates and their standard errors, a row per parameter",
                          function(v, x) is.matrix(v) && is.numeric(v) && identical(dim(v), c(4L, 2L)) &&
                            identical(rownames(v), stable_params)),
       aic = rule_number()),
  stable_fit_fields[c("method", "pm", "fixed", "n", "loglik", "iterations", "converged")]
)

validate_summary_stable_fit <- function(x, arg, call) {
  check_object(x, "summary.stable_fit", summary_stable_fit_fields, arg, call)
}

# The columns of a table of fits that its methods read, and the fits it
# carries (its attribute `fits`, by row name; plot() checks the fit of the
# row it draws).
stable_fit_table_fields <- c(
  lapply(stats::setNames(nm = stable_params), function(p) {
    field_rule(paste0("the estimates of {.field ", p, "}, a finite number per sample"), function(v, x) is_finite_numbers(v))
  }),
  list(loglik = field_rule("a log-likelihood per sample (numbers)", function(v, x) is.numeric(v)),
       n = field_rule("a sample size per sample (whole numbers)", function(v, x) is.numeric(v) && all(v == round(v))),
       iterations = field_rule("an iteration count per sample (whole numbers)", function(v, x) is.numeric(v) && all(v == round(v))),
       converged = field_rule("TRUE or FALSE per sample", function(v, x) is.logical(v) && !anyNA(v)))
)

validate_stable_fit_table <- function(x, arg, call) {
  check_object(x, "stable_fit_table", stable_fit_table_fields, arg, call)
  fits <- attr(x, "fits")
  if (!is.list(fits) || is.null(names(fits)) || !all(vapply(fits, inherits, TRUE, "stable_fit"))) {
    abort_arg(c("{.arg {arg}} is not a valid {.cls stable_fit_table}: its attribute {.field fits} must be a list of {.cls stable_fit} objects named by row, not {describe_value(fits)}.",
                i = "Was it changed after it was made? Make it again with {.fn stable_fit}."), call)
  }
  invisible(x)
}
