# Measurements for the Bayesian updates of gbees(): Gaussian noise on states,
# on a function of the state given as C expressions (both evaluated in the
# native code, on the grid's device), or on an R function of the states.

#' Measurements for a GBEES Bayesian update
#'
#' Observations `y_k = h(x(t_k)) + e_k` with Gaussian noise
#' `e_k ~ N(0, cov)`. At each measurement time [gbees()] multiplies the
#' density by the likelihood of the observation at every cell centre,
#' `exp(-|L^-1 (y_k - h(x))|^2 / 2)` with `cov = L L'` (Bayes' rule),
#' renormalizes and prunes.
#'
#' The measurement function `h` takes three forms:
#'
#' - integer indices of the observed states, such as `h = c(1, 3)`;
#' - C expressions, one per observed quantity, such as
#'   `h = c("sqrt(x1*x1 + x2*x2)", "atan2(x2, x1)")`, in the language of
#'   [gbees_model()]: numbers, the states (`x1`, `x2`, ... or the
#'   `state_names`), the measurement's time `t`, `pi`, the constants named
#'   in `par`, `+ - * / ^`, parentheses and the functions `sqrt exp log
#'   log1p expm1 sin cos tan asin acos atan sinh cosh tanh fabs cbrt atan2
#'   pow hypot fmin fmax`. They are compiled at run time with the package's
#'   own arithmetic, as a model's expressions are: on the CPU by R's C
#'   compiler for packages (once per session for the same expressions and
#'   number of states; without that compiler an error of class
#'   `gpustats_error_no_compiler`), on a GPU by NVRTC (once per [gbees()]
#'   call);
#' - an R function of a matrix of states (one per row) and of the time,
#'   returning one row of observed quantities per state.
#'
#' With indices or expressions the likelihood of every cell is computed in
#' compiled code on the device of the grid, and the cells never go to R;
#' with an R function the cell centres are handed to R at each measurement.
#' Indices and expressions observe at most 8 quantities.
#'
#' Where `h` is not finite at a cell centre (`NaN` or infinite, as
#' `sqrt(-1)` or `1/0`), the cell's likelihood is zero, as
#' `dnorm(y, mean = Inf)` is: such a state cannot have produced a finite
#' observation. The three forms of `h` agree on this. If no cell that holds
#' probability is left with a positive likelihood, [gbees()] stops with an
#' error of class `gpustats_error_argument` (the measurement is impossible).
#'
#' @param time Measurement times, increasing.
#' @param y The observations: a matrix with one row per time (or a vector
#'   when one quantity is observed).
#' @param h The measurement function: state indices, C expressions or an R
#'   function (see Details).
#' @param cov The noise covariance: a matrix, or variances (a scalar or one
#'   per observed quantity).
#' @param par Named constants for the expressions, e.g. `c(xs = 1)`.
#' @param state_names Names by which the expressions may call the states, in
#'   the model's order; the model of [gbees()] must have the same. Without
#'   them the expressions call the states `x1`, `x2` and so on.
#' @return An object of class `gbees_measurements`.
#' @examples
#' gbees_measurements(time = 1, y = -8, h = 3, cov = 1)
#' # range and bearing of the first two states from the point (xs, 0)
#' gbees_measurements(time = 0.5, y = c(15, -2.4), cov = c(1, 0.01),
#'                    h = c("hypot(x1 - xs, x2)", "atan2(x2, x1 - xs)"), par = c(xs = 1))
#' \donttest{
#' meas <- gbees_measurements(time = 0.1, y = 16, cov = 1, h = "sqrt(x1*x1 + x2*x2)")
#' fit <- gbees(lorenz63(), x0 = c(-11.5, -10, 9.5), cov = diag(3), dx = 0.5,
#'              times = 0.1, measurements = meas, threshold = 1e-6)
#' summary(fit)
#' }
#' @export
gbees_measurements <- function(time, y, h, cov, par = NULL, state_names = NULL) {
  call <- environment()
  check_numeric_arg(time, "time", call)
  if (!length(time) || anyNA(time) || any(!is.finite(time))) abort_arg("{.arg time} must be finite numbers.", call)
  if (is.unsorted(time, strictly = TRUE)) {
    abort_arg("Measurement times must be strictly increasing (the measurements are out of time order).", call)
  }
  check_numeric_arg(y, "y", call)
  y <- if (is.matrix(y)) y else matrix(y, nrow = length(time))
  if (nrow(y) != length(time)) abort_arg("{.arg y} must have one row per measurement time.", call)
  if (anyNA(y) || any(!is.finite(y))) abort_arg("{.arg y} must be finite.", call)
  m <- ncol(y)
  h_spec <- gbees_measurement_function(h, m, par, state_names, call)
  check_numeric_arg(cov, "cov", call)
  if (!is.matrix(cov) && !length(cov) %in% c(1L, m)) {
    abort_arg("{.arg cov} must be one variance, {m} variances or a {m} x {m} matrix, not {length(cov)} number{?s}.", call)
  }
  cov <- if (is.matrix(cov)) cov else diag(rep_len(as.double(cov), m), m)
  if (!identical(dim(cov), c(m, m))) abort_arg("{.arg cov} must be {m} x {m}.", call)
  if (!all(is.finite(cov))) abort_arg("{.arg cov} must be finite: a noise of infinite variance carries no information.", call)
  R <- tryCatch(chol(cov), error = function(e) NULL)
  if (is.null(R) || !isSymmetric(unname(cov))) abort_arg("{.arg cov} must be symmetric positive definite.", call)
  structure(c(list(time = as.double(time), y = unname(y), cov = cov, cov_chol = R), h_spec),
            class = "gbees_measurements")
}

# h checked, as the fields of a gbees_measurements: h (an R function of
# states and time, or NULL), index (the observed states, or NULL),
# expressions, state_names, source (the C source, or NULL) and states (the
# highest state that h reads; NULL for an R function).
gbees_measurement_function <- function(h, m, par, state_names, call) {
  if (!is.null(par) && !is.character(h)) abort_arg("{.arg par} is for expressions; an R function carries its own constants.", call)
  if (!is.null(state_names) && !is.character(h)) abort_arg("{.arg state_names} is for expressions.", call)
  if ((is.numeric(h) || is.character(h)) && m > gbees_max_dim) {
    abort_arg("Indices or expressions observe at most {gbees_max_dim} quantities; {.arg y} has {m} columns. Give {.arg h} as an R function.", call)
  }
  if (is.numeric(h)) {
    if (length(h) != m || !all(is.finite(h)) || any(h != round(h)) || any(h < 1) || any(h > .Machine$integer.max)) {
      abort_arg("{.arg h} must give {m} state ind{?ex/ices} (whole numbers from 1), one per observed quantity.", call)
    }
    idx <- as.integer(h)
    return(list(h = function(x, t) x[, idx, drop = FALSE], index = idx, states = max(idx)))
  }
  if (is.function(h)) return(list(h = with_time_argument(h), states = NULL))
  if (!is.character(h)) abort_arg("{.arg h} must be state indices, C expressions or an R function.", call)
  if (anyNA(h)) abort_arg("{.arg h} must not hold NA expressions.", call)
  if (length(h) != m) {
    abort_arg("{.arg h} has {length(h)} expression{?s} and {.arg y} {m} column{?s}: give one expression per observed quantity.", call)
  }
  names <- if (is.null(state_names)) paste0("x", seq_len(gbees_max_dim)) else
    gbees_state_names(state_names, min(length(state_names), gbees_max_dim), call)
  exprs <- gbees_expression_parse(h, names, par %||% numeric(), call, arg = "h")
  list(expressions = as.character(h), state_names = state_names, states = gbees_expression_states(exprs, names),
       source = gbees_expression_source(exprs, names, par %||% numeric(), fn = "gbees_user_measurement"))
}

#' @export
print.gbees_measurements <- function(x, ...) {
  validate_gbees_measurements(x, "x", environment())
  cat(sprintf("<gbees_measurements> %d time%s (%s), %d observed quantit%s\n", length(x$time),
              if (length(x$time) == 1L) "" else "s", paste(format(x$time), collapse = ", "), ncol(x$y),
              if (ncol(x$y) == 1L) "y" else "ies"))
  if (!is.null(x$expressions)) cat(sprintf("  h%d = %s\n", seq_along(x$expressions), x$expressions), sep = "")
  invisible(x)
}

# The checks of measurements against the model of a gbees() run.
gbees_check_measurements <- function(meas, model, call) {
  if (!is.null(meas$states) && meas$states > model$dim) {
    abort_arg("The measurement observes state {meas$states}; the model has {model$dim}.", call)
  }
  if (!is.null(meas$state_names) && !identical(meas$state_names, model$state_names)) {
    abort_arg(c("The measurement names the states {.val {meas$state_names}}; the model names them {.val {model$state_names}}.",
                i = "Give {.fn gbees_measurements} the model's {.arg state_names}."), call)
  }
}

# The measurement prepared in the native code for the grids of `model` on
# `device` (a GPU's index, or -1 for the CPU): expressions are compiled
# here. NULL for an R measurement function, whose likelihood R computes.
gbees_measurement_native <- function(meas, device, model, call) {
  if (is.null(meas) || (is.null(meas$index) && is.null(meas$source))) return(NULL)
  compiled <- if (device < 0 && !is.null(meas$source)) {
    gbees_compiled_program(meas$source, meas$expressions, model$dim, call, kind = "measurement")$gbees_user_loglik
  }
  gs_call(.Call(gs_r_gbees_measurement_new, meas$index, t(meas$cov_chol), meas$source, compiled, model$dim, device),
          call)
}

# Log-likelihood of measurement k for each row of the states matrix, for an
# R measurement function: zero likelihood where h is not finite.
gbees_loglik <- function(meas, k, states, call) {
  hx <- tryCatch(meas$h(states, meas$time[k]), error = function(e) {
    abort_arg(c("The measurement function failed.", x = conditionMessage(e)), call)
  })
  m <- ncol(meas$y)
  if (!is.numeric(hx) || length(hx) != nrow(states) * m) {
    abort_arg("The measurement function must return a matrix of {m} column{?s}, one row per state.", call)
  }
  r <- matrix(hx, nrow(states), m) - rep(meas$y[k, ], each = nrow(states))
  z <- forwardsolve(t(meas$cov_chol), t(r))
  ll <- -0.5 * colSums(z * z)
  ll[!is.finite(ll)] <- -Inf
  ll
}
