# Validators of the Gaussian-process classes: every method of gp_fit,
# summary.gp_fit, gp_map and gp_variogram calls its class's validator first
# (check_object() in checks.R), so that a fit with a field removed, of the
# wrong type or of the wrong shape gets an error naming that field.

# A covariance model as gp_cov_model() makes it.
is_gp_cov_model <- function(v) {
  is.list(v) && is_string(v$name) && is.character(v$params) && length(v$params) >= 1L &&
    is_string(v$geometry) && v$geometry %in% c("isotropic", "aniso", "spacetime") && is_count(v$dim, 1) &&
    is_string(v$native) && v$native %in% names(gs_table("cov_family")) && is.character(v$shapes) &&
    all(v$shapes %in% gp_cov_all_shapes())
}

gp_fit_fields <- list(
  model = field_rule("a covariance model of {.fn gp_fit} (a list with {.field name}, {.field params}, {.field geometry}, {.field dim}, {.field native} and {.field shapes})",
                     function(v, x) is_gp_cov_model(v)),
  method = rule_choice(c("reml", "ml")),
  approx = rule_choice(c("exact", "vecchia"), null_ok = TRUE),
  m = field_rule("a whole number from 1 for a Vecchia fit", function(v, x) !identical(x$approx, "vecchia") || is_count(v, 1)),
  distance = rule_choice(c("euclidean", "great_circle")),
  precision = rule_choice(c("double", "mixed")),
  accuracy = field_rule("NULL in FP64, or a number from 1e-15 to 0.1 in mixed precision", function(v, x) {
    if (x$precision == "double") is.null(v) else is_number(v) && v >= 1e-15 && v <= 0.1
  }),
  n = rule_count(1),
  locs = field_rule("a finite numeric matrix with a row per location ({x$n}) and a column per coordinate ({x$model$dim})",
                    function(v, x) is_finite_matrix(v, x$n, x$model$dim)),
  replicates = rule_count(1, null_ok = TRUE),
  y = field_rule("finite numbers at the {x$n} location{?s}: a vector, or a matrix with a column per replicate ({fit_replicates(x)}), NA where a replicate is missing, each row and column with an observed value",
                 function(v, x) {
                   r <- fit_replicates(x)
                   if (r == 1L) return(is.null(dim(v)) && length(v) == x$n && is_finite_numbers(v))
                   observed <- !is.na(v)
                   is.matrix(v) && is.numeric(v) && identical(dim(v), c(x$n, r)) && all(is.finite(v[observed])) &&
                     all(rowSums(observed) > 0L) && all(colSums(observed) > 0L)
                 }),
  X = field_rule("the trend's design matrix: finite numbers, a row per location ({x$n})", function(v, x) is_finite_matrix(v, x$n)),
  beta = field_rule("finite numbers, one per column of the design matrix ({ncol(x$X)})",
                    function(v, x) is_finite_numbers(v) && length(v) == ncol(x$X)),
  vcov_beta = field_rule("a {ncol(x$X)} x {ncol(x$X)} numeric matrix (the covariance of {.field beta})",
                         function(v, x) is.matrix(v) && is.numeric(v) && identical(dim(v), rep(ncol(x$X), 2L))),
  covariance = field_rule("finite numbers named {.val {c('sigma2', x$model$params, x$model$shapes, 'nugget')}}", function(v, x) {
    is_finite_numbers(v) && setequal(names(v), c("sigma2", x$model$params, x$model$shapes, "nugget"))
  }),
  estimated = field_rule("names of the covariance parameters", function(v, x) is.character(v) && all(v %in% names(x$covariance))),
  vcov = field_rule("a {length(x$estimated)} x {length(x$estimated)} numeric matrix (the covariance of the estimated parameters)",
                    function(v, x) is.matrix(v) && is.numeric(v) && identical(dim(v), rep(length(x$estimated), 2L))),
  vcov_type = rule_choice(c("fisher", "hessian"), null_ok = TRUE),
  loglik = field_rule("one finite number", function(v, x) is_number(v) && is.finite(v)),
  terms = field_rule("NULL (the matrix form) or the terms of the formula", function(v, x) is.null(v) || inherits(v, "terms")),
  model_frame = field_rule("NULL for the matrix form, else the model frame of the formula with a row per location ({x$n})",
                           function(v, x) if (is.null(x$terms)) is.null(v) else is.data.frame(v) && nrow(v) == x$n),
  call = field_rule("the call of {.fn gp_fit} that made the fit", function(v, x) is.call(v)),
  coords = field_rule("NULL or the names of the coordinates", function(v, x) is.null(v) || is.character(v)),
  crs = field_rule("NULL or the coordinate reference system of the data (a {.cls crs})", function(v, x) is.null(v) || inherits(v, "crs")),
  settings = field_rule("a list with {.field fixed}, {.field lower}, {.field upper} and {.field nugget}", function(v, x) {
    is.list(v) && all(c("fixed", "lower", "upper", "nugget") %in% names(v))
  }),
  device = rule_choice(c("cpu", "gpu")),
  backend = rule_string(),
  iterations = rule_count(0),
  evaluations = rule_count(0),
  convergence = rule_number(),
  converged = rule_flag(null_ok = TRUE),
  message = rule_string(),
  seconds = rule_number(),
  family = rule_choice(c("gaussian", names(glmm_families)), null_ok = TRUE),
  link = rule_choice(c("identity", "log", "logit"), null_ok = TRUE),
  trials = field_rule("NULL, or for a binomial fit the numbers of trials at the {x$n} location{?s} (whole numbers, at least the successes)",
                      function(v, x) if (!identical(x$family, "binomial")) is.null(v) else
                        is_finite_numbers(v) && length(v) == x$n && all(v >= x$y & v == round(v))),
  offset = field_rule("NULL, or the offsets at the {x$n} location{?s} (finite numbers)",
                      function(v, x) is.null(v) || is_finite_numbers(v) && length(v) == x$n),
  mode = field_rule("NULL, or for a non-Gaussian fit the latent field's mode at the {x$n} location{?s}",
                    function(v, x) if (fit_is_glmm(x)) is_finite_numbers(v) && length(v) == x$n else is.null(v)),
  mode_a = field_rule("NULL, or for a non-Gaussian fit the mode's a (K^-1 mode) at the {x$n} location{?s}",
                      function(v, x) is.null(v) || fit_is_glmm(x) && is_finite_numbers(v) && length(v) == x$n),
  weights = field_rule("NULL, or the prior weights at the {x$n} location{?s} (positive numbers)",
                       function(v, x) is.null(v) || is_finite_numbers(v) && length(v) == x$n && all(v > 0)),
  family_parameter = field_rule("NULL, or for a negative binomial or Gamma fit its theta or shape (one named positive number)",
                                function(v, x) {
                                  name <- glmm_families[[x$family %||% "gaussian"]]$param
                                  if (is.null(name)) is.null(v) else is_finite_numbers(v) && identical(names(v), name) && v > 0
                                })
)

# Checks a gp_fit given to a method as argument `arg`.
validate_gp_fit <- function(x, arg, call) check_object(x, "gp_fit", gp_fit_fields, arg, call)

summary_gp_fit_fields <- list(
  trend = field_rule("a numeric matrix of the trend's estimates", function(v, x) is.matrix(v) && is.numeric(v)),
  covariance = field_rule("a numeric matrix of the covariance parameters' estimates", function(v, x) is.matrix(v) && is.numeric(v)),
  status = field_rule("a label per covariance parameter", function(v, x) is.character(v) && length(v) == nrow(x$covariance)),
  loglik = rule_number(),
  aic = rule_number(),
  n = rule_count(1),
  model = rule_string(),
  method = rule_choice(c("reml", "ml")),
  iterations = rule_count(0),
  evaluations = rule_count(0),
  converged = rule_flag(),
  message = rule_string(),
  seconds = rule_number(),
  device = rule_choice(c("cpu", "gpu"))
)

validate_summary_gp_fit <- function(x, arg, call) check_object(x, "summary.gp_fit", summary_gp_fit_fields, arg, call)

gp_map_fields <- list(
  x = field_rule("the grid's first coordinates (increasing numbers)", function(v, x) is_finite_numbers(v) && !is.unsorted(v)),
  y = field_rule("the grid's second coordinates (increasing numbers)", function(v, x) is_finite_numbers(v) && !is.unsorted(v)),
  fit = field_rule("a {length(x$x)} x {length(x$y)} numeric matrix of predictions",
                   function(v, x) is.matrix(v) && is.numeric(v) && identical(dim(v), c(length(x$x), length(x$y)))),
  se = field_rule("a {length(x$x)} x {length(x$y)} numeric matrix of standard errors",
                  function(v, x) is.matrix(v) && is.numeric(v) && identical(dim(v), c(length(x$x), length(x$y)))),
  points = field_rule("a data frame with columns {.field x}, {.field y}, {.field fit} and {.field se}",
                      function(v, x) is.data.frame(v) && all(c("x", "y", "fit", "se") %in% names(v))),
  locs = field_rule("the fit's locations (a numeric matrix of 2 columns)", function(v, x) is_finite_matrix(v, nrow(v), 2L)),
  coords = field_rule("the names of the 2 coordinates", function(v, x) is.character(v) && length(v) == 2L),
  lonlat = field_rule("NULL, or whether the coordinates are longitude and latitude (a flag)",
                      function(v, x) is.null(v) || is.logical(v) && length(v) == 1L && !is.na(v))
)

validate_gp_map <- function(x, arg, call) check_object(x, "gp_map", gp_map_fields, arg, call)

gp_variogram_fields <- list(
  dist = field_rule("the mean distance of each bin's pairs (numbers)", function(v, x) is_finite_numbers(v)),
  gamma = field_rule("a semivariance per bin (numbers)", function(v, x) is.numeric(v) && length(v) == length(x$dist)),
  np = field_rule("the number of pairs per bin", function(v, x) is.numeric(v) && length(v) == length(x$dist)),
  dir.hor = field_rule("NULL, or a direction per bin", function(v, x) is.null(v) || is_finite_numbers(v) && length(v) == length(x$dist))
)

# A gp_variogram, and the fit it may carry (its attribute `fit`).
validate_gp_variogram <- function(x, arg, call) {
  check_object(x, "gp_variogram", gp_variogram_fields, arg, call)
  fit <- attr(x, "fit")
  if (!is.null(fit)) validate_gp_fit(fit, paste0("attr(", arg, ", \"fit\")"), call)
  invisible(x)
}
