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
#' * `gpustats.threads`: CPU threads of the CPU path (default: all cores).
#'
#' @keywords internal
#' @useDynLib gpustats, .registration = TRUE
#' @importFrom stats AIC coef logLik nobs predict simulate vcov
"_PACKAGE"

.onUnload <- function(libpath) {
  .Call(gs_r_gpu_release)
  library.dynam.unload("gpustats", libpath)
}
