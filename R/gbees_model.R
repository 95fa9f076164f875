# Dynamical models for gbees(): built-in vector fields evaluated natively,
# and user fields given as R functions or as C expressions.


# The most states of a model, and quantities of a measurement computed in
# the native code (GS_GBEES_MAX_DIM).
gbees_max_dim <- 8L

new_gbees_model <- function(kind, dim, par = numeric(), name, state_names, fn = NULL, autonomous = TRUE,
                            expressions = NULL, source = NULL) {
  structure(list(kind = gs_code("gbees_model", kind), dim = as.integer(dim), par = as.double(par), autonomous = autonomous,
                 fn = fn, name = name, state_names = state_names, expressions = expressions, source = source),
            class = "gbees_model")
}

#' Dynamical models for GBEES
#'
#' Vector fields `dx/dt = f(x, t)` for [gbees()] and [gbees_mc()]. The
#' built-in models are evaluated in compiled code; `gbees_model()` takes a
#' field of your own, as C expressions (compiled, CPU and GPU) or as an R
#' function (CPU, called from the native code: general but slow).
#'
#' - `lorenz63()`: the Lorenz '63 system in the form of the GBEES papers,
#'   `f = (sigma (x2 - x1), -x2 - x1 x3, -b x3 + x1 x2 - b r)`.
#' - `lorenz96()`: `dx_i/dt = (x_{i+1} - x_{i-2}) x_{i-1} - x_i + F`, cyclic
#'   in `i`, for `n >= 4` states.
#' - `pcr3bp()`: the planar circular restricted three-body problem in the
#'   rotating frame, states `(x, y, vx, vy)` in units of the primaries'
#'   distance and inverse mean motion; `mu` is the mass ratio (default
#'   Earth-Moon).
#' - `gbees_model()`: a field given as a character vector of C expressions,
#'   one per component, such as `c("x2", "-x1 - 0.1 * x2 + cos(t)")`. They
#'   may use numbers, the states (`x1`, `x2`, ... or the `state_names`), the
#'   time `t`, `pi`, the constants named in `par`, `+ - * / ^`, parentheses
#'   and the functions `sqrt exp log log1p expm1 sin cos tan asin acos atan
#'   sinh cosh tanh fabs cbrt atan2 pow hypot fmin fmax`. Every number is a
#'   double, so `1/2` is 0.5 as in R. The expressions are compiled at run
#'   time with the package's own field arithmetic, so that no model needs
#'   the package rebuilt and both devices run the same code: on a GPU by
#'   NVRTC (a fraction of a second per [gbees()] or [gbees_mc()] call), on
#'   the CPU by the C compiler R uses for packages (`R CMD config CC`, about
#'   a second the first time a model is used in a session; the library is
#'   kept in [tempdir()] and reused for the same expressions). Without that
#'   compiler a CPU run stops with an error of class
#'   `gpustats_error_no_compiler`.
#' - `gbees_model()` with an R function `f`: any field R can compute, on
#'   the CPU.
#'
#' @param sigma,b,r Lorenz '63 parameters.
#' @param n Number of states.
#' @param F Lorenz '96 forcing.
#' @param mu Mass ratio of the smaller primary.
#' @param f The field: a character vector of `n` C expressions (see
#'   above), or an R function of a matrix of states, one state per row, and
#'   of the time: `f(x, t)` (or `f(x)`) returns the matrix of derivatives,
#'   of the same shape. It is called with many states at once, and only for
#'   new cells when the model is autonomous.
#' @param name A label for printing: one string.
#' @param autonomous Whether `f` does not depend on `t` (then the velocities
#'   of a cell are computed once). For expressions, by default, whether they
#'   do not use `t`.
#' @param par Named constants for the expressions, e.g. `c(k = 2)`.
#' @param state_names Names of the states.
#' @return An object of class `gbees_model`.
#' @examples
#' lorenz63()
#' rossler <- gbees_model(function(x, t) cbind(-x[, 2] - x[, 3], x[, 1] + 0.2 * x[, 2],
#'                                             0.2 + x[, 3] * (x[, 1] - 5.7)), n = 3, name = "Rossler")
#' rossler
#' duffing <- gbees_model(c("x2", "-delta * x2 - a * x1 - b * x1^3 + g * cos(w * t)"), n = 2,
#'                        par = c(delta = 0.2, a = -1, b = 1, g = 0.3, w = 1.2), name = "Duffing")
#' duffing
#' @export
lorenz63 <- function(sigma = 4, b = 1, r = 48) {
  call <- environment()
  for (a in c("sigma", "b", "r")) check_scalar(get(a), a, call)
  new_gbees_model("lorenz63", 3L, c(sigma, b, r), sprintf("Lorenz '63 (sigma = %g, b = %g, r = %g)", sigma, b, r),
                  c("x1", "x2", "x3"))
}

#' @rdname lorenz63
#' @export
lorenz96 <- function(n = 6, F = 4) {
  call <- environment()
  check_scalar(n, "n", call, 4)
  check_scalar(F, "F", call)
  if (n != round(n) || n > gbees_max_dim) abort_arg("{.arg n} must be a whole number from 4 to {gbees_max_dim}.", call)
  new_gbees_model("lorenz96", n, F, sprintf("Lorenz '96 (n = %d, F = %g)", as.integer(n), F), paste0("x", seq_len(n)))
}

#' @rdname lorenz63
#' @export
pcr3bp <- function(mu = 0.012150584269940356) {
  call <- environment()
  check_scalar(mu, "mu", call, 0, open = TRUE)
  if (mu >= 1) abort_arg("{.arg mu} must be below 1.", call)
  new_gbees_model("pcr3bp", 4L, mu, sprintf("planar circular restricted three-body problem (mu = %g)", mu),
                  c("x", "y", "vx", "vy"))
}

#' @rdname lorenz63
#' @export
gbees_model <- function(f, n, name = "user model", autonomous = TRUE, state_names = NULL, par = NULL) {
  call <- environment()
  if (!is.function(f) && !is.character(f)) {
    abort_arg("{.arg f} must be C expressions (a character vector) or an R function of a matrix of states.", call)
  }
  check_scalar(n, "n", call, 1)
  if (n != round(n) || n > gbees_max_dim) abort_arg("{.arg n} must be a whole number from 1 to {gbees_max_dim}.", call)
  if (!is_string(name)) abort_arg("{.arg name} must be one string, a label for printing, not {.obj_type_friendly {name}}.", call)
  check_flag(autonomous, "autonomous", call)
  state_names <- gbees_state_names(state_names %||% paste0("x", seq_len(n)), n, call)
  if (is.function(f) && !length(formals(f))) {
    abort_arg("{.arg f} must take the states (a matrix, one row per state vector), and optionally the time: {.code function(x)} or {.code function(x, t)}.", call)
  }
  if (is.function(f)) {
    if (!is.null(par)) abort_arg("{.arg par} is for expressions; an R function carries its own constants.", call)
    return(new_gbees_model("user", n, numeric(), name, state_names,
                           fn = gbees_field_wrapper(f, as.integer(n)), autonomous = autonomous))
  }
  par <- par %||% numeric()
  if (length(f) != n || anyNA(f)) abort_arg("{.arg f} must have one expression per state ({n}).", call)
  exprs <- gbees_expression_parse(f, state_names, par, call)
  uses_time <- gbees_expression_uses_time(exprs)
  if (missing(autonomous)) autonomous <- !uses_time
  if (autonomous && uses_time) abort_arg("The expressions use {.code t}, so the model is not autonomous.", call)
  new_gbees_model("user", n, numeric(), name, state_names, autonomous = autonomous,
                  expressions = as.character(f),
                  source = gbees_expression_source(exprs, state_names, par))
}

# The names of n states, checked.
gbees_state_names <- function(state_names, n, call) {
  state_names <- as.character(state_names)
  if (length(state_names) != n || anyNA(state_names) || anyDuplicated(state_names) || !all(nzchar(state_names))) {
    abort_arg("{.arg state_names} must be {n} distinct, non-empty name{?s}.", call)
  }
  state_names
}

# The user's function as the native code calls it: a numeric matrix of the
# states' shape, or one string saying what went wrong (never an R error,
# which must not unwind through the native code).
gbees_field_wrapper <- function(f, n) {
  f <- with_time_argument(f)
  function(x, t) {
    tryCatch({
      v <- f(x, t)
      if (!is.numeric(v) || length(v) != length(x) || (!is.null(dim(v)) && !identical(dim(v), dim(x)))) {
        return(sprintf("the model function must return a %d x %d numeric matrix (one row per state), not %s",
                       nrow(x), n, paste(class(v), collapse = "/")))
      }
      bad <- which(!is.finite(v))
      if (length(bad)) {
        row <- (bad[1L] - 1L) %% nrow(x) + 1L
        return(sprintf("the model function returned a non-finite value at the state (%s)",
                       paste(signif(x[row, ], 6), collapse = ", ")))
      }
      v <- matrix(as.double(v), nrow(x), n)
      v
    }, error = function(e) paste("the model function failed:", conditionMessage(e)))
  }
}

# f as a function of (states, time), whether or not it takes the time.
with_time_argument <- function(f) {
  if (length(formals(f)) >= 2L || "..." %in% names(formals(f))) f else function(x, t) f(x)
}

# The list the native code reads for a run on `device` (a GPU's index, or
# -1 for the CPU): kind, dim, par, autonomous, fn, source and, for
# expressions on the CPU, their compiled functions (gbees_compile.R).
gbees_model_native <- function(model, device, call) {
  compiled <- if (device < 0 && !is.null(model$source)) gbees_compiled_program(model$source, model$expressions, model$dim, call)
  list(kind = model$kind, dim = model$dim, par = model$par, autonomous = model$autonomous, fn = model$fn,
       source = model$source, compiled = compiled)
}

#' @export
print.gbees_model <- function(x, ...) {
  validate_gbees_model(x, "x", environment())
  cat(sprintf("<gbees_model> %s: %d states (%s)%s\n", x$name, x$dim, paste(x$state_names, collapse = ", "),
              if (x$autonomous) "" else ", time-dependent"))
  if (!is.null(x$expressions)) cat(sprintf("  d%s/dt = %s\n", x$state_names, x$expressions), sep = "")
  invisible(x)
}
