# Argument checks shared by the polynomial transforms; `call` is the frame of
# the exported function, so errors name it.

# Stops with a gpustats_error_no_fftw condition where the package was built
# without FFTW3, which `what` needs.
check_fftw <- function(what, call) {
  if (.Call(gs_r_poly_have_fftw)) return(invisible())
  cli::cli_abort(c("{what} needs FFTW3, and gpustats was built without it.",
                   i = "Install FFTW3 (Debian/Ubuntu: {.code apt-get install libfftw3-dev}; Fedora: {.code fftw-devel}) and reinstall gpustats."),
                 class = c("gpustats_error_no_fftw", "gpustats_error"), call = call)
}

# A finite double matrix from a numeric matrix or vector (one column).
as_finite_matrix <- function(x, arg, call) {
  x <- as_finite_values(x, arg, call)
  if (is.null(dim(x))) matrix(x, ncol = 1L) else x
}

# A numeric vector or matrix as double (no copy where it is one), checked
# to be finite on `threads` (those of the gpustats.threads option, which a
# caller that reads them once passes).
as_finite_values <- function(x, arg, call, threads = gs_threads(call)) {
  if (!(is.numeric(x) || is.logical(x)) || is.object(x) && !is.numeric(unclass(x)) ||
      !is.null(dim(x)) && length(dim(x)) != 2L) {
    abort_arg("{.arg {arg}} must be a numeric vector or matrix, not {.obj_type_friendly {x}}.", call)
  }
  if (!is.double(x)) storage.mode(x) <- "double"
  if (!all_finite(x, call, threads)) {
    abort_arg(c("{.arg {arg}} contains missing or infinite values.",
                i = "The transforms need finite values everywhere."), call)
  }
  x
}

# Whether every element of the double vector x is finite (one pass in C, no
# temporary as long as x).
all_finite <- function(x, call, threads = gs_threads(call)) .Call(gs_r_all_finite, x, threads)

# A single whole number >= lower.
check_count <- function(x, arg, call, lower = 0) {
  ok <- is.numeric(x) && length(x) == 1L && is.finite(x) && x == trunc(x) && x >= lower && x <= .Machine$integer.max
  if (!ok) {
    abort_arg("{.arg {arg}} must be a single whole number at least {lower}, not {.obj_type_friendly {x}}{if (is.numeric(x) && length(x) == 1L) paste0(' (', x, ')') else ''}.", call)
  }
  as.integer(x)
}

# The result in the shape of the input: a vector for a vector.
as_input_shape <- function(out, x) if (is.null(dim(x))) drop(out) else out
