# Runs one case in the current (child) process and returns a small record of
# what happened; the parent classes it (classify.R).

# Numbers in a value: the value itself when numeric, else the numeric leaves
# of a list (a fit object, a list of matrices), for the NA/NaN/Inf counts.
value_numbers <- function(v) {
  if (is.numeric(v)) return(as.vector(unclass(v)))
  if (is.list(v)) {
    return(unlist(rapply(unclass(v), function(z) as.vector(unclass(z)), classes = c("numeric", "integer"),
                         how = "unlist"), use.names = FALSE))
  }
  numeric()
}

case_record <- function(status, ...) {
  rec <- list(status = status, error_class = "", message = "", warnings = character(), n_values = NA_real_,
              n_na = 0, n_nan = 0, n_inf = 0, converged = NA, check_ok = NA, pid = Sys.getpid(), seconds = NA_real_)
  given <- list(...)
  rec[names(given)] <- given
  rec
}

run_case <- function(case) {
  # under the sanitizers, whose reports go to stderr, a marker says which case follows
  if (nzchar(Sys.getenv("GPUSTATS_BATTERY_MARK"))) cat(sprintf("[battery case] %s\n", case$id), file = stderr())
  env <- new.env(parent = globalenv())
  started <- proc.time()[["elapsed"]]
  warnings <- character()
  quiet <- function(expr) {
    withCallingHandlers(expr,
      warning = function(w) {
        warnings <<- c(warnings, conditionMessage(w))
        invokeRestart("muffleWarning")
      },
      message = function(m) invokeRestart("muffleMessage"))
  }
  pre <- c(case$setup, case$extra_setup)
  pre <- pre[nzchar(pre)]
  setup <- tryCatch({ # the evaluated arguments
    for (code in pre) quiet(eval(parse(text = code), env))
    args <- lapply(case$args, function(code) quiet(eval(parse(text = code), env)))
    names(args) <- names(case$args)
    args
  }, error = function(e) e)
  if (inherits(setup, "error")) {
    return(case_record("setup_error", message = conditionMessage(setup), error_class = class(setup)[1L]))
  }
  warnings <- character() # warnings of the setup are not the function's
  if (identical(case$fn, "plot")) grDevices::pdf(NULL)
  # the arguments go in as symbols, so that a traceback does not print the data
  symbols <- sprintf(".arg%d", seq_along(setup))
  for (k in seq_along(setup)) assign(symbols[k], setup[[k]], envir = env)
  call <- as.call(c(as.name(case$fn), lapply(symbols, as.name)))
  if (length(setup)) names(call) <- c("", names(setup) %||% rep("", length(setup)))
  result <- tryCatch(list(value = quiet(eval(call, env))), error = function(e) e)
  seconds <- proc.time()[["elapsed"]] - started
  if (inherits(result, "error")) {
    return(case_record("error", error_class = paste(class(result), collapse = " "),
                       message = paste(conditionMessage(result), collapse = " "), warnings = warnings,
                       seconds = seconds))
  }
  v <- result$value
  x <- value_numbers(v)
  check <- if (nzchar(case$check)) {
    isTRUE(tryCatch(value_checks[[case$check]](v, setup), error = function(e) TRUE))
  } else NA
  conv <- if (is.list(v) && is.logical(v$converged)) all(v$converged) else NA
  case_record("value", warnings = warnings, n_values = length(x), n_na = sum(is.na(x) & !is.nan(x)),
              n_nan = sum(is.nan(x)), n_inf = sum(is.infinite(x)), converged = conv, check_ok = check,
              seconds = seconds)
}
