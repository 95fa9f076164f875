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
# the data costs more than the GPU saves (the crossovers as measured in
# BENCHMARKS.md). The stable ops are slow per point on a core, so a GPU pays
# from far fewer points; the DCTs are bound by the host copies and gain only
# on large batches; the Jones-Worland transforms ran slower on a GPU than on
# 16 cores, so "auto" keeps them on the CPU, and so the Legendre-Chebyshev
# conversions until inst/bench/poly-legcheb.R has measured their crossover.
gs_auto_gpu_min <- c(map = 1e5, matrix = 1e6, stable = 1e4, dct = 4e6, jwt = Inf, legcheb = Inf)

# The first id of the gpustats.gpus option (0 without it), checked: a
# character or fractional id used to reach as.integer with R's coercion
# warning, or a huge one the CUDA runtime.
gpu_option_id <- function(call) {
  g <- getOption("gpustats.gpus", 0L)
  if (!is.numeric(g) || is.object(g) || length(g) < 1L || !is.finite(g[1L]) || g[1L] < 0 || g[1L] != trunc(g[1L]) ||
      g[1L] > 1e4) {
    what <- if (is.numeric(g) && length(g) >= 1L) format(g[1L]) else cli::format_inline("{.obj_type_friendly {g}}")
    cli::cli_abort(c("Option {.code gpustats.gpus} must hold whole-number GPU ids from 0, not {what}.",
                     i = "See {.fn gpu_info} for the ids; {.code options(gpustats.gpus = NULL)} uses GPU 0."),
                   class = c("gpustats_error_argument", "gpustats_error"), call = call)
  }
  as.integer(g[1L])
}

# The device argument, checked where it is taken (also by functions that
# may not need a device for the method chosen, so that a bad option is never
# silently ignored).
check_device <- function(device, call) {
  if (!is.character(device) || length(device) != 1L || !device %in% c("auto", "cpu", "gpu")) {
    cli::cli_abort(
      "{.arg device} must be {.val auto}, {.val cpu} or {.val gpu}, not {.obj_type_friendly {device}}.",
      class = c("gpustats_error_argument", "gpustats_error"), call = call
    )
  }
}

# The device id to run on, or -1 for the CPU.
resolve_device <- function(device, work, kind, call) {
  check_device(device, call)
  if (device == "cpu") return(-1L)
  id <- gpu_option_id(call)
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

# The gpustats.threads option, checked: NULL or 0 for the default
# (OMP_NUM_THREADS, else every core), else a whole number of threads, which
# the core caps at the cores and OMP_THREAD_LIMIT. Recorded in the core, for
# the parallel regions that are given no thread count. Errors name the frame
# `call` (by default, that of the exported function whose argument this is).
gs_threads <- function(call = parent.frame()) {
  t <- getOption("gpustats.threads")
  if (is.null(t)) t <- 0L
  if (!is.numeric(t) || is.object(t) || length(t) != 1L || !is.finite(t) || t < 0 || t != trunc(t)) {
    what <- if (is.numeric(t) && length(t) == 1L) format(t) else cli::format_inline("{.obj_type_friendly {t}}")
    cli::cli_abort(c("Option {.code gpustats.threads} must be a single whole number of threads, not {what}.",
                     i = "Use {.code options(gpustats.threads = 4)}, or {.code options(gpustats.threads = NULL)} for the default (all cores)."),
                   class = c("gpustats_error_argument", "gpustats_error"), call = call)
  }
  t <- as.integer(min(t, .Machine$integer.max))
  .Call(gs_r_cpu_threads, t)
  t
}

# The tables that the core shares with R (src/r_tables.c: status kinds, map
# ops, stable flags, metrics, GBEES model kinds, tile formats, ops, streams
# and solves, the products and solves of a Gaussian process), read from C when the package loads (.onLoad): gs_table("map_op")
# is c(bessel_k = 0L, ...), each written once, in C.
gs_table <- function(table) {
  codes <- gs_state$tables[[table]]
  if (is.null(codes)) stop("internal error: no table ", table, " in the native code")
  codes
}

# The codes of `names` in `table`; an internal error for a name the native
# code does not know.
gs_code <- function(table, names) {
  codes <- gs_table(table)[names]
  if (anyNA(codes)) stop("internal error: no ", paste(names[is.na(codes)], collapse = ", "), " in table ", table)
  unname(codes)
}

# Evaluates a .Call and turns the condition a failed core call raises (class
# gpustats_status, with the status code) into the condition of its kind:
# gpustats_error_<kind>, reported as coming from `call` (the frame of the
# exported function); for an interrupt, R's own interrupt condition.
gs_call <- function(expr, call) {
  tryCatch(expr, gpustats_status = function(e) gs_status_signal(e$status, conditionMessage(e), call))
}

gs_status_signal <- function(status, text, call) {
  kinds <- gs_table("status")
  kind <- names(kinds)[match(status, kinds)]
  if (identical(kind, "interrupted")) gs_interrupt()
  cli::cli_abort("{text}", class = c(paste0("gpustats_error_", kind), "gpustats_error"), call = call)
}

# Signals R's interrupt condition, as when the user interrupts R code (the
# core has stopped and released its memory): a tryCatch(interrupt = ) or
# withCallingHandlers(interrupt = ) handler sees it; without one, R returns
# to the top level as after any interrupt.
gs_interrupt <- function() {
  signalCondition(structure(list(), class = c("interrupt", "condition")))
  invokeRestart("abort")
}

# A cli progress bar for the native code to advance (a function of the
# fraction done), shown if the work lasts more than a couple of seconds and
# closed when it is complete or when the exported function whose frame is
# `call` returns; NULL for work too small to need one. It is not the frame's
# current bar: cli closes a frame's current bar when the next one starts, and
# a fit's status line and the bar of each of its evaluations share a frame.
# Where the output cannot be redrawn in place (a log file, a non-interactive
# run), each update is a new line, so the bar moves only in steps of 10 %.
# None while gs_state$bars_off is TRUE (a caller that shows one bar for
# many such steps, as confint() does for its refits).
gs_progress_bar <- function(work, label, call) {
  if (work < 1e6 || isTRUE(gs_state$bars_off)) return(NULL)
  id <- cli::cli_progress_bar(label, total = 100, current = FALSE, .envir = call)
  step <- if (cli::is_dynamic_tty()) 1 else 10
  shown <- 0
  function(done) {
    percent <- step * floor(100 * done / step)
    if (percent > shown) {
      shown <<- percent
      if (percent >= 100) cli::cli_progress_done(id = id, .envir = call)
      else cli::cli_progress_update(set = percent, id = id, .envir = call)
    }
  }
}

#' Number of CPU threads of the CPU path
#'
#' The threads a parallel computation may use: the `gpustats.threads`
#' option (default: the `OMP_NUM_THREADS` environment variable, else all
#' cores), at most the number of cores and `OMP_THREAD_LIMIT`. Small
#' problems use fewer.
#' @return A single integer.
#' @export
cpu_threads <- function() .Call(gs_r_cpu_threads, gs_threads())
