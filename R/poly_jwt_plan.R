#' Jones-Worland transforms of a whole ball field
#'
#' A plan transforms every harmonic degree \eqn{l = 0, \dots, l_{max}} of a
#' field in a ball in one call: `jwt_plan()` builds, once, what its method
#' reuses, and `jwt_plan_synthesis()` and `jwt_plan_analysis()` apply it.
#' The transforms are those of [jwt_synthesis()] and [jwt_analysis()] (unit
#' Jones-Worland polynomials on the radial grid [jw_grid()]`(nr)`), with the
#' same `n` coefficients for every degree.
#'
#' **Data.** A field is a list of `lmax + 1` elements, element `l + 1`
#' holding the expansions of degree `l`: an `n`-row matrix of coefficients
#' (for a synthesis) or an `nr`-row matrix of grid values (for an analysis),
#' one column per expansion; a vector is one column. Each degree may have its
#' own number of columns, zero included; for a real scalar field with orders
#' \eqn{m = 0, \dots, l} that is typically `2 * (l + 1)` columns (the real
#' and imaginary parts of each order). The result is a list of the same
#' length and names, of `nr`-row (synthesis) or `n`-row (analysis) matrices
#' (vectors for vectors).
#'
#' **What a plan holds.** `"connection"`: the bidiagonals of the chains,
#' one table per parity of `l` that every degree of that parity shares (the
#' entries depend on the index and \eqn{\beta} only), about
#' \eqn{16\, l_{max} (n + l_{max}/2)} bytes. `"quadrature"`: the
#' \eqn{n_r \times n} matrix of polynomial values of every degree,
#' \eqn{8\, n_r\, n\, (l_{max} + 1)} bytes. A plan made for a GPU keeps them
#' in the GPU's memory (`print()` shows how much); a call then uploads the
#' columns of every degree once, runs the chains of all degrees in one
#' kernel launch and each parity's DCT as one cuFFT batch (connection), or
#' one cuBLAS DGEMM per degree (quadrature), and downloads the results
#' once. On the CPU the columns of all degrees are shared among the threads
#' (`getOption("gpustats.threads")`). Working memory beyond the plan: a
#' CPU call takes at most 8 MB of scratch; a GPU call takes device memory for
#' its columns (in chunks when the GPU is short of it) and cuFFT's work area.
#'
#' A plan lives outside R's heap and is released when it is garbage
#' collected; it does not survive [saveRDS()] or the end of the session.
#'
#' @param n Number of coefficients per column, for every degree.
#' @param lmax The highest harmonic degree; the plan transforms `0:lmax`.
#' @param nr Number of radial grid points, at least `n + ceiling(lmax / 2)`.
#' @param method `"connection"` or `"quadrature"` (see [jwt_synthesis()]).
#' @param plan A plan from `jwt_plan()`.
#' @param coef A list of `lmax + 1` coefficient matrices (`n` rows).
#' @param values A list of `lmax + 1` grid-value matrices (`nr` rows).
#' @param x A plan.
#' @param ... Unused.
#' @inheritParams dct
#' @return `jwt_plan()`: an object of class `jwt_plan` with elements `n`,
#'   `lmax`, `nr`, `method`, `device` (`"cpu"` or `"gpu"`), `gpu` (the GPU id,
#'   `NA` on the CPU) and `bytes` (the memory the plan holds).
#'   `jwt_plan_synthesis()`, `jwt_plan_analysis()`: a list, as above.
#' @seealso [jwt_synthesis()] for a single degree.
#' @examples
#' p <- jwt_plan(n = 6, lmax = 4)
#' p
#' coef <- lapply(0:4, function(l) matrix(rnorm(6 * 2 * (l + 1)), 6))
#' v <- jwt_plan_synthesis(p, coef)
#' back <- jwt_plan_analysis(p, v)
#' max(abs(unlist(back) - unlist(coef)))
#' # degree 3 by itself
#' max(abs(v[[4]] - jwt_synthesis(coef[[4]], l = 3, nr = p$nr)))
#' @export
jwt_plan <- function(n, lmax, nr = n + ceiling(lmax / 2), method = c("connection", "quadrature"),
                     device = getOption("gpustats.device", "auto")) {
  call <- environment()
  method <- match_choice(method, c("connection", "quadrature"), "method", call)
  n <- check_count(n, "n", call, lower = 1)
  lmax <- check_count(lmax, "lmax", call)
  nr <- check_count(nr, "nr", call, lower = 1)
  if (nr < n + ceiling(lmax / 2)) {
    abort_arg(c("The grid of {nr} point{?s} is too small for {n} coefficient{?s} up to degree {lmax}.",
                i = "Use {.arg nr} >= n + ceiling(lmax / 2) = {n + ceiling(lmax / 2)}."), call)
  }
  dev <- resolve_device(device, as.double(nr) * n * (lmax + 1), "jwt", call)
  if (method == "connection" && dev < 0L) check_fftw("The connection method", call)
  code <- gs_code("jw_method", method)
  ptr <- gs_call(.Call(gs_r_jwt_plan_new, 0L, lmax, n, nr, code, dev, gs_threads(call)), call)
  jwt_plan_object(ptr)
}

# The R object of a native plan, its fields read back from the core.
jwt_plan_object <- function(ptr) {
  info <- .Call(gs_r_jwt_plan_info, ptr)
  structure(list(ptr = ptr, n = info$n, lmax = info$lmax, nr = info$nr,
                 method = names(gs_table("jw_method"))[match(info$method, gs_table("jw_method"))],
                 device = if (info$device < 0L) "cpu" else "gpu",
                 gpu = if (info$device < 0L) NA_integer_ else info$device, bytes = info$bytes),
            class = "jwt_plan")
}

#' @rdname jwt_plan
#' @export
jwt_plan_synthesis <- function(plan, coef) {
  call <- environment()
  plan <- check_jwt_plan(plan, call)
  x <- jwt_plan_input(coef, plan, plan$n, "coef", call)
  jwt_plan_run(plan, x, coef, analysis = FALSE, "jwt_plan_synthesis", call)
}

#' @rdname jwt_plan
#' @export
jwt_plan_analysis <- function(plan, values) {
  call <- environment()
  plan <- check_jwt_plan(plan, call)
  x <- jwt_plan_input(values, plan, plan$nr, "values", call)
  jwt_plan_run(plan, x, values, analysis = TRUE, "jwt_plan_analysis", call)
}

#' @rdname jwt_plan
#' @export
print.jwt_plan <- function(x, ...) {
  validate_jwt_plan(x, "x", environment())
  where <- if (x$device == "cpu") "the CPU" else sprintf("GPU %d", x$gpu)
  cat(sprintf("Jones-Worland transform plan: degrees l = 0..%d, %d coefficients per column, a radial grid of %d points\n",
              x$lmax, x$n, x$nr))
  cat(sprintf("method: %s, on %s; its %s take %s of %s memory\n", x$method, where,
              if (x$method == "connection") "bidiagonals (a table per parity of l)" else "quadrature matrices",
              format_bytes(x$bytes), if (x$device == "cpu") "host" else "GPU"))
  invisible(x)
}

# The plan, checked, with its fields as the core holds them: an object whose
# native plan is gone (saved and read back, or a new session) is an error.
check_jwt_plan <- function(plan, call) {
  validate_jwt_plan(plan, "plan", call)
  plan <- gs_call(jwt_plan_object(plan$ptr), call)
  if (plan$device == "gpu" && !(gpu_available() && plan$gpu < gs_state$count)) {
    cli::cli_abort(c("The plan was made for GPU {plan$gpu}, which this session does not have.",
                     i = "Make the plan again with {.fn jwt_plan}."),
                   class = c("gpustats_error_no_gpu", "gpustats_error"), call = call)
  }
  plan
}

# The list of double matrices (or vectors) of a call, `rows` rows each.
jwt_plan_input <- function(x, plan, rows, arg, call) {
  if (!is.list(x) || is.object(x)) {
    abort_arg("{.arg {arg}} must be a list with a matrix per degree l = 0..{plan$lmax}, not {.obj_type_friendly {x}}.", call)
  }
  if (length(x) != plan$lmax + 1L) {
    abort_arg(c("{.arg {arg}} has {length(x)} element{?s}; the plan needs {plan$lmax + 1}, one per degree l = 0..{plan$lmax}.",
                i = "Element {.code l + 1} holds the expansions of degree {.code l}."), call)
  }
  for (k in seq_along(x)) {
    e <- x[[k]]
    d <- dim(e)
    ok_type <- (is.numeric(e) || is.logical(e)) && !(is.object(e) && !is.numeric(unclass(e)))
    if (!ok_type || length(d) > 2L || (if (is.null(d)) length(e) else d[1L]) != rows) {
      abort_arg(c("{.arg {arg}[[{k}]]} (degree l = {k - 1}) must be a numeric matrix with {rows} rows, or a vector of length {rows}.",
                  x = "It is {.obj_type_friendly {e}}{if (ok_type) paste0(' with ', if (is.null(d)) length(e) else d[1L], ' rows') else ''}."),
                call)
    }
    if (!is.double(e)) {
      storage.mode(e) <- "double"
      x[[k]] <- e
    }
  }
  x
}

jwt_plan_run <- function(plan, x, input, analysis, name, call) {
  ncol <- vapply(x, length, numeric(1)) / if (analysis) plan$nr else plan$n
  per_col <- if (plan$method == "connection") 4 * (plan$n + seq_along(x) / 2) * seq_along(x) else 2 * plan$n * plan$nr
  bar <- gs_progress_bar(sum(ncol * per_col), name, call)
  out <- gs_call(.Call(gs_r_jwt_plan_execute, plan$ptr, unname(x), analysis, gs_threads(call), bar), call)
  for (k in seq_along(out)) if (is.null(dim(input[[k]]))) out[[k]] <- drop(out[[k]])
  names(out) <- names(input)
  out
}
