# Validators of the GBEES classes: every method of gbees, gbees_mc,
# gbees_model, gbees_measurements, gbees_bhattacharyya and summary.gbees,
# and gbees(), gbees_mc() and bhattacharyya() for the objects they take,
# call its class's validator first (check_object() in checks.R), so that an
# object with a field removed, of the wrong type or of the wrong shape gets
# an error naming that field, never a read past an array in the native code.

# The parameters and states of each built-in model (NA: any number of
# states up to gbees_max_dim); a user model has none.
gbees_model_shapes <- list(lorenz63 = c(par = 3L, dim = 3L), lorenz96 = c(par = 1L, dim = NA),
                           pcr3bp = c(par = 1L, dim = 4L), user = c(par = 0L, dim = NA))

# The name of a model's kind, or NA for a code no kind has.
gbees_model_kind <- function(model) {
  codes <- gs_table("gbees_model")
  if (!is_count(model$kind)) NA_character_ else names(codes)[match(model$kind, codes)]
}

gbees_model_fields <- list(
  kind = field_rule("the code of a model kind ({.val {names(gs_table('gbees_model'))}})",
                    function(v, x) !is.na(gbees_model_kind(x))),
  dim = field_rule("a whole number of states from 1 to {gbees_max_dim}, as many as the model kind has",
                   function(v, x) {
                     want <- gbees_model_shapes[[gbees_model_kind(x)]][["dim"]]
                     is_count(v, 1) && v <= gbees_max_dim && (is.na(want) || v == want)
                   }),
  par = field_rule("{gbees_model_shapes[[gbees_model_kind(x)]][['par']]} finite number{?s}, the model's parameters",
                   function(v, x) is_finite_numbers(v) && length(v) == gbees_model_shapes[[gbees_model_kind(x)]][["par"]]),
  autonomous = rule_flag(),
  fn = field_rule("NULL, or the R function of a model given as one", function(v, x) is.null(v) || is.function(v)),
  source = field_rule("NULL, or the C source of a model given as expressions", function(v, x) is.null(v) || is_string(v)),
  expressions = field_rule("NULL, or the model's {x$dim} expression{?s}",
                           function(v, x) is.null(v) || is.character(v) && length(v) == x$dim),
  name = rule_string(),
  state_names = field_rule("{x$dim} state name{?s}", function(v, x) is.character(v) && length(v) == x$dim)
)

# Checks a gbees_model given as argument `arg`; a user model needs its field
# (an R function, or expressions compiled from their source).
validate_gbees_model <- function(x, arg, call) {
  check_object(x, "gbees_model", gbees_model_fields, arg, call)
  if (gbees_model_kind(x) == "user" && is.null(x$fn) && (is.null(x$source) || is.null(x$expressions))) {
    abort_arg(c("{.arg {arg}} is not a valid {.cls gbees_model}: a user model needs its field, {.field fn} (an R function) or {.field expressions} with their {.field source}.",
                i = "Make it again with {.fn gbees_model}."), call)
  }
  invisible(x)
}

gbees_measurements_fields <- list(
  time = field_rule("strictly increasing finite times", function(v, x) {
    is_finite_numbers(v) && length(v) >= 1L && !is.unsorted(v, strictly = TRUE)
  }),
  y = field_rule("a finite numeric matrix with a row per time ({length(x$time)})",
                 function(v, x) is_finite_matrix(v, length(x$time)) && ncol(v) >= 1L),
  cov = field_rule("the {ncol(x$y)} x {ncol(x$y)} noise covariance", function(v, x) is_finite_matrix(v, ncol(x$y), ncol(x$y))),
  cov_chol = field_rule("the {ncol(x$y)} x {ncol(x$y)} Cholesky factor of {.field cov}",
                        function(v, x) is_finite_matrix(v, ncol(x$y), ncol(x$y))),
  h = field_rule("NULL, or the measurement as an R function", function(v, x) is.null(v) || is.function(v)),
  expressions = field_rule("the {ncol(x$y)} measurement expression{?s}, or NULL when {.field h} is an R function", function(v, x) {
    if (is.null(v)) is.function(x$h) else is.character(v) && length(v) == ncol(x$y) && is_string(x$source)
  }),
  states = field_rule("NULL, or the highest state the measurement reads (a whole number from 1 to {gbees_max_dim})",
                      function(v, x) is.null(v) || is_count(v, 1) && v <= gbees_max_dim)
)

validate_gbees_measurements <- function(x, arg, call) {
  check_object(x, "gbees_measurements", gbees_measurements_fields, arg, call)
}

# One recorded density of a gbees result with `dim` states.
is_gbees_snapshot <- function(s, dim) {
  is.list(s) && is_number(s$time) && is_flag(s$posterior) && is.matrix(s$keys) && is.numeric(s$keys) &&
    ncol(s$keys) == dim && is.numeric(s$prob) && length(s$prob) == nrow(s$keys)
}

gbees_info_fields <- c("steps", "cell_updates", "cells", "peak_cells", "memory_bytes", "peak_memory_bytes",
                       "mass_error", "clipped_mass", "pruned_mass")

gbees_fields <- list(
  model = field_rule("a {.cls gbees_model}", function(v, x) inherits(v, "gbees_model") && is.list(v) && is_count(v$dim, 1)),
  dim = field_rule("the model's number of states ({x$model$dim})", function(v, x) is_count(v, 1) && v == x$model$dim),
  x0 = field_rule("{x$dim} finite number{?s}", function(v, x) is_finite_numbers(v) && length(v) == x$dim),
  center = field_rule("{x$dim} finite number{?s}", function(v, x) is_finite_numbers(v) && length(v) == x$dim),
  cov = field_rule("a finite {x$dim} x {x$dim} matrix", function(v, x) is_finite_matrix(v, x$dim, x$dim)),
  dx = field_rule("{x$dim} positive cell width{?s}", function(v, x) is_finite_numbers(v) && length(v) == x$dim && all(v > 0)),
  threshold = rule_number(),
  cfl = rule_number(),
  prune_every = rule_count(1),
  t0 = rule_number(),
  times = field_rule("finite times", function(v, x) is_finite_numbers(v) && length(v) >= 1L),
  measurements = field_rule("NULL or a {.cls gbees_measurements}", function(v, x) is.null(v) || inherits(v, "gbees_measurements")),
  snapshots = field_rule("a list of the recorded densities (each with {.field time}, {.field posterior}, {.field keys} of {x$dim} column{?s} and {.field prob}, a value per key row)",
                         function(v, x) is.list(v) && length(v) >= 1L && all(vapply(v, is_gbees_snapshot, TRUE, x$dim))),
  info = field_rule("a list of the run's counts ({.field {gbees_info_fields}})", function(v, x) {
    is.list(v) && all(vapply(gbees_info_fields, function(k) is_number(v[[k]]), TRUE))
  }),
  seconds = rule_number(),
  device = rule_choice(c("cpu", "gpu"))
)

validate_gbees <- function(x, arg, call) {
  check_object(x, "gbees", gbees_fields, arg, call)
  validate_gbees_model(x$model, paste0(arg, "$model"), call)
  if (!is.null(x$measurements)) validate_gbees_measurements(x$measurements, paste0(arg, "$measurements"), call)
  invisible(x)
}

gbees_mc_fields <- list(
  model = field_rule("a {.cls gbees_model}", function(v, x) inherits(v, "gbees_model") && is.list(v) && is_count(v$dim, 1)),
  times = field_rule("finite times", function(v, x) is_finite_numbers(v) && length(v) >= 1L),
  n = rule_count(1),
  samples = field_rule("a list of {length(x$times)} numeric matri{?x/ces} of {x$n} row{?s} and {x$model$dim} column{?s}, one per time",
                       function(v, x) {
                         is.list(v) && length(v) == length(x$times) &&
                           all(vapply(v, function(s) is.matrix(s) && is.numeric(s) && identical(dim(s), c(as.integer(x$n), as.integer(x$model$dim))), TRUE))
                       }),
  step = field_rule("a positive number", function(v, x) is_number(v) && v > 0)
)

validate_gbees_mc <- function(x, arg, call) {
  check_object(x, "gbees_mc", gbees_mc_fields, arg, call)
  validate_gbees_model(x$model, paste0(arg, "$model"), call)
}

# A number that may be NA (a quantity the method does not give).
rule_number_or_na <- function() {
  field_rule("one number (or NA)", function(v, x) is.numeric(v) && length(v) == 1L || identical(v, NA))
}

gbees_bhattacharyya_fields <- list(
  method = rule_choice(c("kde", "bins")),
  coefficient = rule_number(),
  coefficient_se = rule_number(),
  reference = rule_number_or_na(),
  reference_se = rule_number_or_na(),
  one_sided = rule_number_or_na(),
  one_sided_se = rule_number_or_na(),
  time = rule_number(),
  posterior = rule_flag(),
  cells = rule_count(0),
  evaluated = rule_count(0),
  samples = rule_count(0),
  cutoff = rule_number_or_na(),
  bin = rule_number_or_na(),
  exact = rule_flag()
)

validate_gbees_bhattacharyya <- function(x, arg, call) {
  check_object(x, "gbees_bhattacharyya", gbees_bhattacharyya_fields, arg, call)
}

summary_gbees_fields <- list(
  model = rule_string(),
  table = field_rule("a data frame, a row per recorded density", function(v, x) is.data.frame(v)),
  cov = field_rule("a list of covariance matrices, one per recorded density",
                   function(v, x) is.list(v) && length(v) == nrow(x$table)),
  info = field_rule("a list of the run's counts ({.field {gbees_info_fields}})", function(v, x) {
    is.list(v) && all(vapply(gbees_info_fields, function(k) is_number(v[[k]]), TRUE))
  }),
  seconds = rule_number()
)

validate_summary_gbees <- function(x, arg, call) check_object(x, "summary.gbees", summary_gbees_fields, arg, call)
