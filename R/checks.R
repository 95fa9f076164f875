# Argument checks shared by the exported functions; `call` is the frame of the
# exported function, so errors name it.

abort_arg <- function(message, call, .envir = parent.frame()) {
  cli::cli_abort(message, class = c("gpustats_error_argument", "gpustats_error"),
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

# One of `choices` (partial matching as in match.arg(); the whole default
# vector means its first element), or a classed error.
match_choice <- function(x, choices, arg, call) {
  if (identical(x, choices)) return(choices[[1L]])
  i <- if (is.character(x) && length(x) == 1L && !is.na(x)) pmatch(x, choices) else NA_integer_
  if (is.na(i)) {
    abort_arg("{.arg {arg}} must be one of {.or {.str {choices}}}, not {.obj_type_friendly {x}}{if (is.character(x) && length(x) == 1L) paste0(' (', x, ')') else ''}.", call)
  }
  choices[[i]]
}
