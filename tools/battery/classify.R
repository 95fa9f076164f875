# The outcome classes of a case, from the child's record (child.R), or from
# how the child ended when it sent none.
#
#   clean_error      an error of the package's classes (gpustats_error)
#   r_error          a clear error of R's own argument matching (match.arg,
#                    a missing or unused argument, no S3 method)
#   value_warning    a value with a warning (but a warning that comes from
#                    R's internals on input the package did not check, such
#                    as "no non-missing arguments to max", makes the value
#                    suspicious)
#   value            a value without a warning that passes the checks
#   suspicious_value a value without a warning that is NA/NaN (for input
#                    without NA), finite for invalid input, fails its
#                    plausibility check, or reports non-convergence silently
#   obscure_error    any other error (not raised by the package's checks)
#   crash            the process died (signal, abort)
#   hang             killed at the time limit
#   memory           the process hit the memory limit
#   setup_error      the case's own setup failed (a battery problem)

outcome_classes <- c("clean_error", "r_error", "value_warning", "value", "suspicious_value", "obscure_error",
                     "crash", "hang", "memory", "setup_error")
failing_classes <- c("crash", "hang", "memory", "obscure_error")

r_error_patterns <- c(
  "'arg' should be one of", "'arg' must be of length 1", "'arg' must be NULL or a character vector",
  "unused argument", "is missing, with no default", "no applicable method"
)
memory_patterns <- c("cannot allocate", "bad_alloc", "out of memory", "Cannot allocate memory")
obscure_warning_patterns <- c("no non-missing arguments to", "NAs introduced by coercion", "number of items to replace",
                              "the condition has length", "data length .* is not a sub-multiple")

# Outcomes of the table refined by the rules that read only the table (so
# that a summary of an earlier run, --reuse, applies them too).
reclass_table <- function(tab) {
  obscure <- tab$outcome == "value_warning" & grepl(paste(obscure_warning_patterns, collapse = "|"), tab$detail)
  tab$outcome[obscure] <- "suspicious_value"
  tab$detail[obscure] <- paste("obscure warning:", tab$detail[obscure])
  tab
}

classify_record <- function(rec, case) {
  if (rec$status == "setup_error") {
    if (grepl(paste(memory_patterns, collapse = "|"), rec$message)) return("memory")
    return("setup_error")
  }
  if (rec$status == "error") {
    if (grepl("(^| )gpustats_error( |$)", rec$error_class)) return("clean_error")
    if (grepl(paste(memory_patterns, collapse = "|"), rec$message)) return("memory")
    if (grepl(paste(r_error_patterns, collapse = "|"), rec$message)) return("r_error")
    return("obscure_error")
  }
  if (length(rec$warnings)) return("value_warning")
  if (isFALSE(rec$check_ok)) return("suspicious_value")
  if (isFALSE(rec$converged)) return("suspicious_value")
  if ((rec$n_nan > 0 || rec$n_na > 0) && !case$na) return("suspicious_value")
  if (case$invalid) return("suspicious_value")
  "value"
}

# Why a value is suspicious, for the table.
suspicion <- function(rec, case) {
  why <- c(if (isFALSE(rec$check_ok)) "fails its plausibility check",
           if (isFALSE(rec$converged)) "not converged, no warning",
           if ((rec$n_nan > 0 || rec$n_na > 0) && !case$na) sprintf("%d NaN, %d NA without a warning", rec$n_nan, rec$n_na),
           if (case$invalid) "a value for invalid input, no warning")
  paste(why, collapse = "; ")
}

# The detail column: what was raised or returned.
outcome_detail <- function(rec, outcome, case) {
  one_line <- function(x) substr(gsub("[\r\n]+", " ", paste(x, collapse = " / ")), 1L, 300L)
  switch(outcome,
    value = sprintf("%s numbers, %g NaN, %g NA, %g Inf", rec$n_values, rec$n_nan, rec$n_na, rec$n_inf),
    value_warning = one_line(unique(rec$warnings)),
    suspicious_value = one_line(c(suspicion(rec, case),
                                  sprintf("%s numbers, %g NaN, %g NA, %g Inf", rec$n_values, rec$n_nan, rec$n_na,
                                          rec$n_inf))),
    one_line(c(if (nzchar(rec$error_class)) paste0("[", rec$error_class, "]"), rec$message))
  )
}
