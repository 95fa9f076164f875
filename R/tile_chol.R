#' Tile Cholesky factorization of large positive-definite matrices
#'
#' `tile_chol()` factors a symmetric positive-definite matrix \eqn{A = L
#' L^\top} held as square tiles of its lower triangle. On a GPU the matrix
#' need not fit in device memory: it stays in (page-locked) host memory and
#' the tiles move through a cache in device memory, so the size limit is the
#' host's memory. `matern_spec()` describes a Matérn covariance matrix without
#' building it: its tiles are generated where they are used (in device memory
#' on a GPU), so the \eqn{n \times n} matrix never exists in R.
#'
#' **Algorithm.** A left-looking tile Cholesky (Ren, Ltaief, Abdulah and
#' Keyes' out-of-core design): column \eqn{k} of the factor is computed tile
#' by tile, each tile \eqn{A_{ik}} first updated with \eqn{L_{ij}
#' L_{kj}^\top} for all \eqn{j < k} (SYRK/GEMM), then factored (POTRF, on
#' the diagonal) or solved against \eqn{L_{kk}} (TRSM). The schedule is
#' static: the tile rows below the diagonal are dealt round-robin to four GPU
#' streams and the diagonal tiles, the critical path, go to a fifth of higher
#' priority; events carry the dependencies between streams. The CPU runs the
#' same schedule: each of its operations is a task that a thread takes as soon
#' as the tiles it reads are finished, while the updates of a tile keep the
#' schedule's order, so the factor does not depend on the number of threads. On the GPU the solves
#' multiply by the inverse of the diagonal tile (inverted recursively, nearly
#' all in GEMMs) in a triangular product, since cuBLAS's triangular solve
#' runs at a fraction of the GEMM rate. Out of core the updates of a column
#' are issued before its solves so that they overlap the factorization of
#' the diagonal tile. When the matrix fits in device memory every tile is
#' loaded (or generated) once and the schedule looks a column ahead: the
#' priority stream runs the chain that sets the pace (the diagonal tile, then
#' the tile below it, then the column's other solves), while the other
#' streams run the last update of each tile of column \eqn{k} and then every
#' other update of column \eqn{k + 1}, so they never wait for that chain.
#' Because every tile access is known in advance, the device cache evicts the
#' tile whose next use is furthest away (Belady's rule, which minimises the number of loads); the
#' accumulator of a running update stays resident and each finished tile is
#' copied back to the host while the next ones are computed. Unless the
#' factor stays in device memory, the device memory of the cache is kept for
#' the next factorization with the same tile size that wants at least as
#' many tiles (out of core, where the cache takes the memory there is, every
#' later one), and released by other GPU work that needs the room.
#'
#' **Mixed precision.** With `precision = "mixed"` each tile below the
#' diagonal is stored, moved and multiplied in the lowest precision that
#' keeps the factorization accurate to `accuracy`, by Higham and Mary's
#' adaptive-precision rule: tile \eqn{A_{ij}} is held in a format of unit
#' roundoff \eqn{u} (FP32, \eqn{u = 2^{-24}}; FP16, \eqn{u = 2^{-11}}; or,
#' with `fp8 = TRUE`, FP8 E4M3, \eqn{u = 2^{-4}}) when
#' \eqn{n_t \|A_{ij}\|_F / \|A\|_F \le} `accuracy` \eqn{/ u}, with \eqn{n_t}
#' the number of tile rows, so that rounding all the tiles moves \eqn{A} by
#' at most `accuracy` \eqn{\|A\|_F} in Frobenius norm. The diagonal tiles
#' stay FP64. The tiles of a covariance that decays with distance get smaller
#' away from the diagonal, so weak correlation leaves most of them in FP16
#' (or FP8). FP16 and FP8 tiles carry a power-of-two scale each (from the
#' largest entry of the tile of \eqn{A}), so that small entries do not
#' underflow. On the GPU an update \eqn{A_{ik} - L_{ij} L_{kj}^T} of a tile
#' below the diagonal runs in the lowest precision of its three tiles: on the
#' tensor cores (FP16 products, FP32 sums) when any of them is FP16 or FP8,
#' else in FP32. FP8 tiles are held as FP16 on the GPU (exactly) and
#' multiplied as such: FP8 halves the bytes of the farthest tiles in host
#' memory and on the bus. It is not the default because it did not pay on an
#' H100 (see BENCHMARKS.md): the FP16 products were not what set the time,
#' and FP8 uses the whole error budget of `accuracy`, where FP16 left most of
#' it, so a nearly singular matrix (close locations, no nugget) more often
#' loses positive definiteness and is factored again. A product with a
#' low-precision operand already carries that operand's rounding, which
#' rounding the other one to FP16 at most doubles. An FP64 tile, the diagonal
#' ones included, is updated in FP64, or on the tensor cores when both
#' operands are FP16 or FP8: the product of two FP16 values is exact in FP32,
#' so only the FP32 sums round, by less than the operands' own rounding, and
#' the product is subtracted in FP64. Where FP32 runs no faster than FP64, as
#' on the H100 and H200, FP32 tiles save memory and bus bytes but no compute:
#' in core, a map of mostly FP32 tiles (strong correlation) was factored 5 to
#' 8 % slower than in FP64 on an H100; the speed comes from the FP16 tiles
#' and, out of core, from the bytes. On the CPU the tiles are kept in their
#' formats (less memory) and computed in FP64. If a value does not fit its
#' tile's format, or a diagonal tile is not positive definite while
#' lower-precision tiles feed it, those tiles are promoted one precision and
#' the factorization is run again; `info$attempts` counts the runs.
#'
#' **Several GPUs.** With more than one id in `gpus`, the tile rows are
#' dealt cyclically to the \eqn{g} GPUs given (1-D block-cyclic, as in the
#' static schedule of Ren et al.), from the last row up and in alternating
#' directions (GPUs 1, ..., g, g, ..., 1, 1, ...), since the work of a row
#' grows with its index. Each GPU updates, factors and solves the tiles of
#' its rows with its own streams and tile cache, and reads the finished tiles
#' of the other GPUs' rows that its updates need from host memory, where
#' every finished tile is copied; when they all fit in its memory it reads
#' them a few columns before they are needed. One host thread issues all the
#' work, column by column, the owner of the column's diagonal tile first, so
#' no GPU waits for a tile that has not been scheduled.
#'
#' The factor lives in host memory (about \eqn{4 n^2} bytes in FP64, less in
#' mixed precision), outside R's heap; it is released when the object is
#' garbage-collected, and does not survive saving (`saveRDS()`, `save()`):
#' a reloaded object's methods say so; run `tile_chol()` again.
#'
#' @param A A symmetric positive-definite numeric matrix (only its lower
#'   triangle is read), or a Matérn covariance from `matern_spec()`.
#' @param tile Tile size (rows and columns of a tile); `NULL` chooses one for
#'   the device and the size of the matrix: 1024 or 2048 on a GPU; on the CPU
#'   about `n / 4` up to n = 2048 (a multiple of 32, at least 64), above it
#'   about `n / 16` (a multiple of 32 from 256 to 512), so that the tile
#'   operations keep the threads busy; never from the number of threads, so
#'   that the result does not depend on it.
#' @param precision `"double"` (every tile in FP64) or `"mixed"` (each tile
#'   in the lowest precision that `accuracy` allows; see Details).
#' @param accuracy For `precision = "mixed"`: the relative accuracy, in
#'   Frobenius norm, to which the tiles represent \eqn{A}; from `1e-15` to
#'   `0.1`.
#' @param fp8 For `precision = "mixed"`: `TRUE` lets the tiles that the rule
#'   allows go down to FP8 (E4M3), half the bytes of FP16 in host memory and
#'   on the bus; else FP16 is the lowest format (see Details).
#' @param trace On a GPU, `TRUE` times every tile operation (with CUDA
#'   events, at a small cost) and returns the event trace.
#' @param memory GPU memory, in bytes, that the tile cache of each GPU may
#'   use; `NULL`: all that is free. A smaller value forces the out-of-core
#'   path. Ignored on the CPU.
#' @param gpus The ids of the GPUs to factor on (see [gpu_info()]); by
#'   default the option `gpustats.gpus`, else GPU 0. With several, the tile
#'   rows are dealt cyclically to them (see Details). Ignored on the CPU.
#' @inheritParams matern_cov
#' @return `tile_chol()`: an object of class `tile_chol` with methods
#'   `determinant()` (the log-determinant of \eqn{A}, from the factor),
#'   `solve(a, b)` (\eqn{A^{-1} b}, or \eqn{A^{-1}} without `b`) and
#'   `as.matrix()` (the upper triangular factor \eqn{L^\top}, as [chol()]
#'   returns it). Its element `info` holds the time of the call in seconds
#'   (`seconds`), which includes `host_seconds`, the time the factor's host
#'   memory took on the calling thread: allocating it and, for a GPU,
#'   first-touching and page-locking it. On a GPU that stores the factor as
#'   it goes, background threads touch the memory ahead of the stores and
#'   each store page-locks its piece while the GPU works, so this time
#'   overlaps the factorization; the bytes copied to and from the GPU, the
#'   number of tiles loaded or generated there and the number of tile slots
#'   of the cache. With `trace = TRUE`, element `trace` is a data frame with
#'   one row per operation:
#'   `stream` (four compute streams, the diagonal stream and one copy stream
#'   per direction),
#'   `op` (load, syrk, gemm, potrf, trsm, store), the tile coordinates `i`,
#'   `j` and the column `k` (1-based; loads and stores name the tile moved),
#'   `start` and `end` in seconds from the start of the factorization, and
#'   the `gpu` it ran on (with several GPUs, each GPU's times count from an
#'   event recorded on it just before the factorization starts).
#'   Element `precision` is the precision map: a tile-rows by tile-rows
#'   character matrix of `"double"`, `"single"`, `"half"` and `"fp8"` (`NA`
#'   above the diagonal); `info$attempts` counts the factorizations run.
#'   A matrix that is not positive definite gives an error of class
#'   `gpustats_error_not_pd` that names the order of the first leading minor
#'   that is not positive, as [chol()] does.
#' @seealso [chol()], [gp_loglik()]
#' @examples
#' set.seed(1)
#' X <- matrix(rnorm(300 * 200), 300)
#' A <- crossprod(X) + diag(200)
#' f <- tile_chol(A, tile = 64)
#' all.equal(as.matrix(f), chol(A))
#' determinant(f)$modulus
#' b <- rnorm(200)
#' all.equal(solve(f, b), solve(A, b))
#'
#' locs <- matrix(runif(2000), ncol = 2)
#' f <- tile_chol(matern_spec(locs, range = 0.1, nugget = 0.01))
#' determinant(f)
#' @export
tile_chol <- function(A, tile = NULL, precision = c("double", "mixed"), accuracy = 1e-8, fp8 = FALSE,
                      memory = NULL, trace = FALSE, gpus = getOption("gpustats.gpus", 0L),
                      device = getOption("gpustats.device", "auto")) {
  call <- environment()
  precision <- match_choice(precision, c("double", "mixed"), "precision", call)
  used_accuracy <- mixed_accuracy(precision, accuracy, call) # 0 in FP64
  check_flag(fp8, "fp8", call)
  spec <- inherits(A, "gs_matern_spec")
  if (spec) validate_gs_matern_spec(A, "A", call) else A <- as_spd_matrix(A, call)
  n <- if (spec) A$n else nrow(A)
  dev <- resolve_device(device, as.double(n)^2, "matrix", call)
  devices <- if (dev >= 0) tile_gpus(gpus, call) else -1L
  dev <- devices[[1L]]
  tile <- tile_size(tile, call)
  if (!is.null(memory)) check_scalar(memory, "memory", call, 0, open = TRUE)
  check_flag(trace, "trace", call)
  bar <- gs_progress_bar(as.double(n)^2, "tile_chol", call)
  res <- if (spec) {
    gs_call(.Call(gs_r_tile_chol, NULL, A$locs, A$model, tile, devices, as.double(memory %||% 0),
                  used_accuracy, fp8, gs_threads(call), trace, bar), call)
  } else {
    gs_call(.Call(gs_r_tile_chol, A, NULL, NULL, tile, devices, as.double(memory %||% 0), used_accuracy,
                  fp8, gs_threads(call), trace, bar), call)
  }
  structure(list(ptr = res$ptr, n = n, tile = res$tile, logdet = res$logdet, device = dev, gpus = devices[devices >= 0],
                 precision = tile_precision_map(res$precision), accuracy = if (precision == "mixed") accuracy,
                 fp8 = precision == "mixed" && fp8,
                 dimnames = if (spec) NULL else dimnames(A), info = as.list(res$info),
                 trace = tile_trace(res$trace, devices)),
            class = "tile_chol")
}

# The GPUs of a factorization: distinct ids of this machine's GPUs.
tile_gpus <- function(gpus, call) {
  count <- if (gpu_available()) gs_state$count else 0L
  if (!is.numeric(gpus) || !length(gpus) || anyNA(gpus) || any(gpus != round(gpus)) || anyDuplicated(gpus) ||
      any(gpus < 0 | gpus >= count)) {
    abort_arg("{.arg gpus} must be distinct GPU ids from 0 to {count - 1L} (see {.fn gpu_info}).", call)
  }
  as.integer(gpus)
}

# The precision of every tile, given row by row of the lower triangle, as a
# tile-rows by tile-rows matrix.
tile_precision_map <- function(codes) {
  nt <- as.integer(round((sqrt(8 * length(codes) + 1) - 1) / 2))
  map <- matrix(NA_character_, nt, nt)
  formats <- gs_table("tile_format")
  map[upper.tri(map, diag = TRUE)] <- names(formats)[match(codes, formats)] # the upper triangle by columns
  t(map)
}

# The names of the streams of a GPU factorization by their numbers from 0:
# "compute 1" to "compute 4", "diagonal", "to GPU", "to host".
tile_stream_names <- function() {
  first <- gs_table("tile_stream") # the number of each kind's first stream
  count <- diff(c(first, max(first) + 1L))
  unlist(Map(function(kind, n) if (n > 1L) paste(kind, seq_len(n)) else kind, names(first), count), use.names = FALSE)
}

# The event trace as a data frame (NULL without one); column 8 of m is the
# index of the device in `devices`.
tile_trace <- function(m, devices) {
  if (is.null(m)) return(NULL)
  streams <- tile_stream_names()
  ops <- gs_table("tile_op")
  data.frame(stream = factor(streams[m[, 1L] + 1L], levels = streams),
             op = factor(names(ops)[match(m[, 2L], ops)], levels = names(ops)),
             i = as.integer(m[, 3L]) + 1L, j = as.integer(m[, 4L]) + 1L,
             k = ifelse(m[, 5L] < 0, NA_integer_, as.integer(m[, 5L]) + 1L),
             start = m[, 6L], end = m[, 7L], gpu = devices[m[, 8L] + 1L])
}

#' @rdname tile_chol
#' @param locs Locations, one per row (see [matern_cov()]).
#' @param sigma2,range,smoothness,nugget Matérn covariance parameters (see
#'   [matern()]); the nugget is added to the diagonal.
#' @return `matern_spec()`: an object of class `gs_matern_spec` describing the
#'   `nrow(locs)` by `nrow(locs)` covariance matrix.
#' @export
matern_spec <- function(locs, sigma2 = 1, range = 1, smoothness = 0.5, nugget = 0,
                        distance = c("euclidean", "great_circle")) {
  call <- environment()
  distance <- match_choice(distance, c("euclidean", "great_circle"), "distance", call)
  locs <- as_locations(locs, "locs", distance, call)
  params <- check_covariance(sigma2, range, smoothness, nugget, call)
  structure(list(locs = locs, n = nrow(locs), params = params, model = cov_model(params, distance),
                 distance = distance),
            class = "gs_matern_spec")
}

#' @export
print.gs_matern_spec <- function(x, ...) {
  validate_gs_matern_spec(x, "x", environment())
  p <- x$params
  cat(sprintf("Matern covariance of %d locations (%s distance): sigma2 = %g, range = %g, smoothness = %g, nugget = %g\n",
              x$n, x$distance, p[["sigma2"]], p[["range"]], p[["smoothness"]], p[["nugget"]]))
  invisible(x)
}

#' @export
print.tile_chol <- function(x, ...) {
  validate_tile_chol(x, "x", environment())
  nt <- ceiling(x$n / x$tile)
  where <- if (x$device < 0) {
    sprintf("the CPU (%d threads)", x$info$workers)
  } else {
    sprintf("GPU%s %s", if (length(x$gpus) > 1L) "s" else "", paste(x$gpus, collapse = ", "))
  }
  cat(sprintf("Tile Cholesky factor of a %d x %d matrix: %d x %d tiles of %d, on %s in %.3g s\n",
              x$n, x$n, nt, nt, x$tile, where, x$info$seconds))
  cat(sprintf("log det = %.10g\n", x$logdet))
  if (!is.null(x$accuracy)) {
    map <- x$precision[lower.tri(x$precision, diag = TRUE)]
    counts <- table(factor(map, levels = setdiff(names(gs_table("tile_format")), if (!isTRUE(x$fp8)) "fp8")))
    cat(sprintf("mixed precision, accuracy %g: tiles %s%s\n", x$accuracy,
                paste(sprintf("%s %.1f%%", names(counts), 100 * counts / sum(counts)), collapse = ", "),
                if (x$info$attempts > 1) sprintf(" (after %d runs)", as.integer(x$info$attempts)) else ""))
  }
  if (x$device >= 0) {
    cat(sprintf("cache: %d tile slots; %d tiles loaded or generated; %s to the GPU, %s back\n",
                as.integer(x$info$cache_tiles), as.integer(x$info$tile_loads), format_bytes(x$info$bytes_to_gpu),
                format_bytes(x$info$bytes_from_gpu)))
  }
  invisible(x)
}

#' @export
determinant.tile_chol <- function(x, logarithm = TRUE, ...) {
  call <- environment()
  validate_tile_chol(x, "x", call)
  check_flag(logarithm, "logarithm", call)
  modulus <- if (logarithm) x$logdet else exp(x$logdet)
  attr(modulus, "logarithm") <- logarithm
  structure(list(modulus = modulus, sign = 1L), class = "det")
}

#' @export
solve.tile_chol <- function(a, b, ...) {
  call <- environment()
  validate_tile_chol(a, "a", call)
  if (missing(b)) b <- diag(a$n)
  check_numeric_arg(b, "b", call)
  rows <- if (is.matrix(b)) nrow(b) else length(b)
  if (rows != a$n) abort_arg("{.arg b} has {rows} row{?s} but the matrix has {a$n}.", call)
  if (anyNA(b)) abort_arg("{.arg b} contains missing values.", call)
  if (!all(is.finite(b))) abort_arg("{.arg b} contains infinite values: the solution would be NaN.", call)
  storage.mode(b) <- "double"
  gs_call(.Call(gs_r_tile_solve, a$ptr, gs_code("tile_solve", "solve"), b, gs_threads(call)), call)
}

#' @export
as.matrix.tile_chol <- function(x, ...) {
  call <- environment()
  validate_tile_chol(x, "x", call)
  r <- gs_call(.Call(gs_r_tile_upper, x$ptr, gs_threads()), call)
  dimnames(r) <- x$dimnames
  r
}

# A square, symmetric, finite double matrix.
as_spd_matrix <- function(A, call) {
  if (!is.matrix(A) || !(is.numeric(A) || is.logical(A))) {
    abort_arg("{.arg A} must be a numeric matrix or a {.fn matern_spec}, not {.obj_type_friendly {A}}.", call)
  }
  if (nrow(A) != ncol(A)) abort_arg("{.arg A} must be square, not {nrow(A)} x {ncol(A)}.", call)
  if (nrow(A) == 0L) abort_arg("{.arg A} is empty.", call)
  storage.mode(A) <- "double" # finiteness and symmetry are checked natively, without n x n temporaries
  A
}

tile_size <- function(tile, call) {
  if (is.null(tile)) return(0L) # the native code chooses
  if (!is.numeric(tile) || length(tile) != 1L || !is.finite(tile) || tile < 1 || tile != round(tile) || tile > 46340) {
    abort_arg("{.arg tile} must be a whole number from 1 to 46340.", call)
  }
  as.integer(tile) # the native code caps it at n
}

# The cache plan of device `owner` of `owners` for nt tile rows and `slots`
# device tile slots, one row per op in issue order: the op, its tile
# indices (0-based; a load: the loaded tile's i and j, k = NA), its worker
# and the column whose section holds it (for tests).
tile_plan_ops <- function(nt, slots, owners = 1L, owner = 0L) {
  v <- .Call(gs_r_tile_plan, as.integer(nt), as.integer(slots), as.integer(owners), as.integer(owner))
  ops <- gs_table("tile_op")
  data.frame(op = names(ops)[match(v[, 1], ops)], i = v[, 2], j = v[, 3], k = ifelse(v[, 4] < 0L, NA_integer_, v[, 4]),
             worker = v[, 5], column = v[, 6])
}

#' Order locations along a Z-order (Morton) curve
#'
#' Returns the permutation that sorts the rows of `locs` along a Z-order
#' curve: each coordinate is scaled to a grid of \eqn{2^b} cells (\eqn{b =
#' \lfloor 52 / d \rfloor} bits, at most 20, for \eqn{d} coordinates) and
#' the bits of the cell numbers are interleaved. Nearby points then get
#' nearby indices, so the tiles of a covariance matrix far from the diagonal
#' hold distant pairs, small covariances, which the mixed-precision
#' factorization of [tile_chol()] stores in low precision. The log-determinant
#' does not depend on the order; solves must use the same permutation.
#'
#' @param locs Locations, one per row.
#' @return An integer vector: `locs[morton_order(locs), ]` is in Z-order.
#' @examples
#' locs <- matrix(runif(2000), ncol = 2)
#' locs <- locs[morton_order(locs), ]
#' f <- tile_chol(matern_spec(locs, range = 0.05), tile = 100, precision = "mixed", accuracy = 1e-6)
#' table(f$precision)
#' @export
morton_order <- function(locs) {
  call <- environment()
  locs <- as_locations(locs, "locs", "euclidean", call)
  if (!nrow(locs)) return(integer(0))
  bits <- min(20L, 52L %/% ncol(locs))
  cells <- apply(locs, 2L, function(x) {
    width <- max(x) - min(x)
    if (width > 0) pmin(floor((x - min(x)) / width * 2^bits), 2^bits - 1) else numeric(length(x))
  })
  cells <- matrix(cells, nrow(locs))
  key <- numeric(nrow(locs))
  for (b in (bits - 1L):0L) for (d in seq_len(ncol(cells))) key <- key * 2 + (cells[, d] %/% 2^b) %% 2
  order(key)
}
