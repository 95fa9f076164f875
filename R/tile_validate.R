# Validators of the tile Cholesky classes: every method of tile_chol and
# gs_matern_spec, and tile_chol() for a Matérn covariance from matern_spec(),
# call its class's validator first (check_object() in checks.R), so that an
# object with a field removed, of the wrong type or of the wrong shape gets
# an error naming that field, never a read past an array in the native code.

# The numbers of a factorization's field `info` (tile_info_numbers() in
# r_tile.c), which print() reads.
tile_info_fields <- c("seconds", "host_seconds", "bytes_to_gpu", "bytes_from_gpu", "tile_loads", "cache_tiles",
                      "workers", "attempts")

tile_chol_fields <- list(
  # Only its type is checked here: a factor saved and read back keeps a
  # pointer to nothing, which leaves print() and determinant() working, and
  # which as.matrix() and solve() refuse in the native code, saying why.
  ptr = field_rule("the external pointer to the factor", function(v, x) typeof(v) == "externalptr"),
  n = rule_count(1),
  tile = rule_count(1),
  logdet = field_rule("one finite number", function(v, x) is_number(v) && is.finite(v)),
  device = field_rule("-1 (the CPU) or the id of a GPU", function(v, x) is_count(v, -1)),
  gpus = field_rule("the ids of the GPUs of the factorization, the first the field {.field device} ({x$device}); none on the CPU",
                    function(v, x) {
                      is.numeric(v) && all(v >= 0 & v == round(v)) && if (x$device < 0) !length(v) else isTRUE(v[1L] == x$device)
                    }),
  precision = field_rule("the {ceiling(x$n / x$tile)} x {ceiling(x$n / x$tile)} character matrix of the tiles' formats",
                         function(v, x) is.matrix(v) && is.character(v) && identical(dim(v), rep(as.integer(ceiling(x$n / x$tile)), 2L))),
  accuracy = field_rule("NULL in FP64, or a number from 1e-15 to 0.1 in mixed precision",
                        function(v, x) is.null(v) || is_number(v) && v >= 1e-15 && v <= 0.1),
  fp8 = field_rule("TRUE or FALSE (TRUE in mixed precision only)", function(v, x) is_flag(v) && !(v && is.null(x$accuracy))),
  dimnames = field_rule("NULL or the dimnames of the matrix (a list of 2)", function(v, x) is.null(v) || is.list(v) && length(v) == 2L),
  info = field_rule("a list of the run's numbers ({.field {tile_info_fields}})", function(v, x) {
    is.list(v) && all(vapply(tile_info_fields, function(k) is_number(v[[k]]), TRUE))
  }),
  trace = field_rule("NULL or the event trace (a data frame)", function(v, x) is.null(v) || is.data.frame(v))
)

# Checks a tile_chol given to a method as argument `arg`.
validate_tile_chol <- function(x, arg, call) check_object(x, "tile_chol", tile_chol_fields, arg, call)

gs_matern_spec_fields <- list(
  n = rule_count(1),
  distance = rule_choice(c("euclidean", "great_circle")),
  locs = field_rule("a finite numeric matrix with a row per location ({x$n}){if (identical(x$distance, 'great_circle')) ' and 2 columns (longitude, latitude)' else ''}",
                    function(v, x) {
                      is.double(v) && is_finite_matrix(v, x$n) && ncol(v) >= 1L && (x$distance == "euclidean" || ncol(v) == 2L)
                    }),
  params = field_rule("the Matern parameters {.field sigma2} and {.field nugget} (at least 0), {.field range} and {.field smoothness} (positive)",
                      function(v, x) {
                        is.double(v) && setequal(names(v), c("sigma2", "range", "smoothness", "nugget")) && length(v) == 4L &&
                          all(is.finite(v)) && v[["sigma2"]] >= 0 && v[["nugget"]] >= 0 && v[["range"]] > 0 && v[["smoothness"]] > 0
                      }),
  model = field_rule("the native model of the fields {.field params} and {.field distance}",
                     function(v, x) identical(v, cov_model(x$params, x$distance)))
)

# Checks a Matérn covariance of matern_spec() given as argument `arg`.
validate_gs_matern_spec <- function(x, arg, call) check_object(x, "gs_matern_spec", gs_matern_spec_fields, arg, call)
