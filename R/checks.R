# Argument checks shared by the exported functions; `call` is the frame of the
# exported function, so errors name it.

abort_arg <- function(message, call, .envir = parent.frame(), class = NULL) {
  cli::cli_abort(message, class = c(class, "gpustats_error_argument", "gpustats_error"),
                 call = call, .envir = .envir)
}

check_numeric_arg <- function(x, arg, call) {
  if (!(is.numeric(x) || is.logical(x)) || is.object(x) && !is.numeric(unclass(x))) {
    abort_arg("{.arg {arg}} must be numeric, not {.obj_type_friendly {x}}.", call)
  }
}

check_flag <- function(x, arg, call) {
  if (!is.logical(x) || length(x) != 1L || is.na(x)) {
    abort_arg("{.arg {arg}} must be TRUE or FALSE, not {.obj_type_friendly {x}}.", call)
  }
}

# A single finite number within [lower, upper] (lower excluded when open).
check_scalar <- function(x, arg, call, lower = -Inf, open = FALSE) {
  ok <- is.numeric(x) && length(x) == 1L && is.finite(x) && (if (open) x > lower else x >= lower)
  if (!ok) {
    what <- if (open) "a single finite number greater than" else "a single finite number at least"
    abort_arg("{.arg {arg}} must be {what} {lower}, not {.obj_type_friendly {x}}{if (is.numeric(x) && length(x) == 1L) paste0(' (', x, ')') else ''}.", call)
  }
}

# Refuses, before allocating, `bytes` of host memory for `what` (a phrase
# such as "The 1000 x 1000 covariance matrix") when they exceed the memory
# available now: a gpustats_error_memory condition that says how much is
# needed and how much is available.
check_host_memory <- function(bytes, what, call) {
  gs_call(.Call(gs_r_host_memory_check, as.double(bytes), what), call)
}

# One of `choices` (the whole default vector means its first element),
# matched regardless of case, as R users expect of `method = "REML"`: the
# choice equal to `x`, else the only one that begins with it (partial
# matching as in match.arg()). No two choices differ by case alone, so the
# match is the one match.arg() would give for the lower-case value. Anything
# else, a prefix of several choices included, is a classed error.
match_choice <- function(x, choices, arg, call) {
  if (identical(x, choices)) return(choices[[1L]])
  string <- is.character(x) && length(x) == 1L && !is.na(x)
  i <- if (string) pmatch(tolower(x), tolower(choices)) else NA_integer_
  if (is.na(i)) {
    begun <- if (string && nzchar(x)) choices[startsWith(tolower(choices), tolower(x))] else character()
    abort_arg(c("{.arg {arg}} must be one of {.or {.str {choices}}}, not {.obj_type_friendly {x}}{if (is.character(x) && length(x) == 1L) paste0(' (', x, ')') else ''}.",
                i = if (length(begun) > 1L) "{.str {x}} begins {.str {begun}}: write more of the one you mean."),
              call)
  }
  choices[[i]]
}

# ---- objects given to methods ----------------------------------------------

# Checks the object `x`, the argument `arg` of a method, against the rules of
# its class `cls`: every method of a class calls the class's validator,
# which calls this first, so that an object altered or built by hand gets an
# error that names the bad field instead of a failure deep inside the
# method. `fields` is a named list of field_rule()s, checked in order, so a
# rule may rely on the fields checked before it.
check_object <- function(x, cls, fields, arg, call) {
  if (!inherits(x, cls) || !is.list(x)) {
    abort_arg("{.arg {arg}} must be a {.cls {cls}} object, not {.obj_type_friendly {x}}.", call)
  }
  for (name in names(fields)) {
    rule <- fields[[name]]
    if (isTRUE(rule$ok(x[[name]], x))) next
    what <- cli::format_inline(rule$what, .envir = list2env(list(x = x)))
    abort_arg(c("{.arg {arg}} is not a valid {.cls {cls}}: its field {.field {name}} must be {what}, not {describe_value(x[[name]])}.",
                i = "Was it changed after it was made? Make it again with the function that made it."), call)
  }
  invisible(x)
}

# A rule for one field of an object: `ok(value, object)` says whether the
# value is valid; `what` says what it must be (a cli template that may use
# `x`, the object).
field_rule <- function(what, ok) list(what = what, ok = ok)

# The shape and type of a value, for an error message.
describe_value <- function(v) {
  if (is.null(v)) return("absent (NULL)")
  if (is.matrix(v)) return(sprintf("a %d x %d %s matrix", nrow(v), ncol(v), typeof(v)))
  if (is.atomic(v) && length(v) > 1L) return(sprintf("a %s vector of length %d", typeof(v), length(v)))
  type <- cli::format_inline("{.obj_type_friendly {v}}")
  if (is.atomic(v) && length(v) == 1L) paste0(type, " (", format(v), ")") else type
}

# Predicates that field rules share.
is_number <- function(v) is.numeric(v) && length(v) == 1L && !is.na(v)
is_count <- function(v, min = 0) is_number(v) && is.finite(v) && v >= min && v == round(v)
is_string <- function(v) is.character(v) && length(v) == 1L && !is.na(v)
is_flag <- function(v) is.logical(v) && length(v) == 1L && !is.na(v)
is_finite_numbers <- function(v) is.numeric(v) && all(is.finite(v))
is_finite_matrix <- function(v, rows, cols = ncol(v)) {
  is.matrix(v) && is.numeric(v) && nrow(v) == rows && ncol(v) == cols && all(is.finite(v))
}
rule_choice <- function(choices, null_ok = FALSE) {
  field_rule(paste0(if (null_ok) "NULL or ", "one of ", paste0('"', choices, '"', collapse = ", ")),
             function(v, x) null_ok && is.null(v) || is_string(v) && v %in% choices)
}
rule_number <- function(null_ok = FALSE) {
  field_rule(if (null_ok) "NULL or one number" else "one number", function(v, x) null_ok && is.null(v) || is_number(v))
}
rule_count <- function(min = 0, null_ok = FALSE) {
  field_rule(sprintf("%sa whole number from %d", if (null_ok) "NULL or " else "", min),
             function(v, x) null_ok && is.null(v) || is_count(v, min))
}
rule_flag <- function(null_ok = FALSE) {
  field_rule(if (null_ok) "NULL, TRUE or FALSE" else "TRUE or FALSE", function(v, x) null_ok && is.null(v) || is_flag(v))
}
rule_string <- function(null_ok = FALSE) {
  field_rule(if (null_ok) "NULL or one string" else "one string", function(v, x) null_ok && is.null(v) || is_string(v))
}

# Arguments that reached the `...` of a method and that it does not take:
# an error naming them (a misspelt argument would otherwise be dropped in
# silence, `predict(fit, newlocs = X)` returning the fitted values). `fn`
# names the method's generic, `known` its own arguments (for the hint) and
# `allowed` the names that its `...` takes (graphical parameters of a plot),
# `hint` what it takes, already formatted.
check_dots_unused <- function(fn, known, call, ..., allowed = character(),
                              hint = cli::format_inline("Its arguments are {.arg {known}}.")) {
  if (!...length()) return(invisible())
  # the names as written, without evaluating the arguments
  labels <- names(as.list(substitute(list(...))))[-1L] %||% rep("", ...length())
  unknown <- labels[nzchar(labels) & !labels %in% allowed]
  unnamed <- sum(!nzchar(labels))
  if (!length(unknown) && !unnamed) return(invisible())
  what <- c(if (length(unknown)) cli::format_inline("unknown argument{?s} {.arg {unknown}}"),
            if (unnamed) sprintf("%d unnamed argument%s too many", unnamed, if (unnamed == 1L) "" else "s"))
  abort_arg(c("{.fn {fn}} got {paste(what, collapse = ' and ')}.", i = "{hint}"), call)
}
