#' gpustats: GPU-accelerated special functions and statistical models
#'
#' Fast and accurate statistical computing on NVIDIA GPUs, with a multi-core
#' CPU path that gives the same results where no GPU is present.
#'
#' Every compute function takes `device = getOption("gpustats.device", "auto")`:
#' `"auto"` uses a GPU when one is present and the problem is large enough to
#' gain from it, `"gpu"` requires one (an error otherwise) and `"cpu"` forces
#' the CPU path. Options:
#' * `gpustats.device`: the default `device` (`"auto"`, `"cpu"` or `"gpu"`);
#' * `gpustats.gpus`: the GPU ids to use (single-GPU functions use the first;
#'   default `0`);
#' * `gpustats.threads`: CPU threads of the CPU path, a whole number (default
#'   `NULL`: the `OMP_NUM_THREADS` environment variable, else all cores); never
#'   more than the cores or `OMP_THREAD_LIMIT`, and fewer for small problems.
#'
#' Errors are conditions of class `gpustats_error` and of one of
#' `gpustats_error_argument`, `gpustats_error_memory`, `gpustats_error_no_gpu`,
#' `gpustats_error_cuda` and `gpustats_error_not_pd`. An interrupted
#' computation releases its memory and then signals R's own `interrupt`
#' condition, as an interrupt of R code does.
#'
#' @keywords internal
#' @useDynLib gpustats, .registration = TRUE
#' @importFrom stats AIC anova coef confint fitted formula logLik model.frame model.matrix nobs predict residuals
#'   simulate terms update vcov
"_PACKAGE"

.onLoad <- function(libname, pkgname) {
  gs_state$tables <- .Call(gs_r_tables)
}

.onUnload <- function(libpath) {
  .Call(gs_r_gpu_release)
  library.dynam.unload("gpustats", libpath)
}
