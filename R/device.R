gs_state <- new.env(parent = emptyenv())

#' Is a GPU available?
#'
#' `TRUE` when gpustats was built with CUDA and at least one CUDA device is
#' usable.
#'
#' @return A single logical.
#' @seealso [gpu_info()]
#' @examples
#' gpu_available()
#' @export
gpu_available <- function() {
  if (is.null(gs_state$count)) gs_state$count <- .Call(gs_r_gpu_count)
  gs_state$count > 0L
}

#' Describe the GPUs
#'
#' @return A data frame with one row per CUDA device and columns `id`
#'   (the id to use in the `gpustats.gpus` option), `name`, `total_memory`
#'   and `free_memory` (bytes), `compute_capability`, `driver_version`,
#'   `runtime_version` and `multiprocessors`; no rows without a GPU.
#' @seealso [gpu_available()]
#' @examples
#' gpu_info()
#' @export
gpu_info <- function() {
  info <- gs_call(.Call(gs_r_gpu_info), call = environment())
  as.data.frame(info, stringsAsFactors = FALSE)
}

# Problem sizes from which device = "auto" prefers a GPU: below them, moving
# the data costs more than the GPU saves. The stable ops cost about 50 us a
# point on one core (an H100 ran 2.1e6 points/s end to end against 2.5e5 on
# 16 cores), so a GPU pays from far fewer points.
gs_auto_gpu_min <- c(map = 1e5, matrix = 1e6, stable = 1e4)

# The device id to run on, or -1 for the CPU.
resolve_device <- function(device, work, kind, call) {
  if (!is.character(device) || length(device) != 1L || !device %in% c("auto", "cpu", "gpu")) {
    cli::cli_abort(
      "{.arg device} must be {.val auto}, {.val cpu} or {.val gpu}, not {.obj_type_friendly {device}}.",
      class = c("gpustats_error_argument", "gpustats_error"), call = call
    )
  }
  if (device == "cpu") return(-1L)
  id <- as.integer(getOption("gpustats.gpus", 0L)[1L])
  if (device == "gpu") {
    if (!gpu_available()) {
      cli::cli_abort(c("No GPU is available.",
                       i = "Use {.code device = \"cpu\"} or {.code device = \"auto\"}; see {.fn gpu_info}."),
                     class = c("gpustats_error_no_gpu", "gpustats_error"), call = call)
    }
    return(id)
  }
  if (gpu_available() && work >= gs_auto_gpu_min[[kind]]) id else -1L
}

gs_threads <- function() {
  t <- getOption("gpustats.threads", 0L)
  if (!is.numeric(t) || length(t) != 1L || is.na(t) || t < 0) 0L else as.integer(t)
}

# Evaluates a .Call and turns the core's "gpustats[<status>] message" errors
# into classed conditions, reported as coming from `call` (the frame of the
# exported function).
gs_call <- function(expr, call) {
  tryCatch(expr, error = function(e) {
    m <- regmatches(conditionMessage(e), regexec("^gpustats\\[(\\d)\\] (.*)$", conditionMessage(e)))[[1L]]
    if (length(m) == 0L) stop(e)
    kind <- c("argument", "memory", "no_gpu", "cuda", "interrupted", "not_pd")[as.integer(m[2L])]
    text <- m[3L]
    cli::cli_abort("{text}", class = c(paste0("gpustats_error_", kind), "gpustats_error"), call = call)
  })
}

# A cli progress bar for the native code to advance (a function of the
# fraction done), shown if the work lasts more than a couple of seconds and
# closed when the exported function whose frame is `call` returns; NULL for
# work too small to need one.
gs_progress_bar <- function(work, label, call) {
  if (work < 1e6) return(NULL)
  id <- cli::cli_progress_bar(label, total = 100, .envir = call)
  function(done) cli::cli_progress_update(set = floor(100 * done), id = id, .envir = call)
}

#' Number of CPU threads of the CPU path
#' @keywords internal
cpu_threads <- function() .Call(gs_r_cpu_threads, gs_threads())
