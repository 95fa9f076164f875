# tile_chol against LAPACK's chol, on the CPU here and on the GPU where there
# is one (in core and, with a small cache, out of core).

random_spd <- function(n, seed) {
  set.seed(seed)
  X <- matrix(rnorm(2 * n * n), 2 * n)
  crossprod(X) / n + diag(0.1, n)
}

# The factor and the log-determinant against chol(); relative to the largest
# entry of the factor.
expect_matches_chol <- function(f, A, tol = 1e-12, R = chol(A)) {
  expect_lte(max(abs(as.matrix(f) - R)) / max(abs(R)), tol)
  ld <- 2 * sum(log(diag(R)))
  expect_lte(abs(determinant(f)$modulus - ld) / max(1, abs(ld)), tol)
}

test_that("the CPU factor equals chol() for any tile size", {
  for (case in list(c(1, 1), c(7, 3), c(50, 1), c(200, 64), c(333, 100), c(600, 256), c(129, 128))) {
    A <- random_spd(case[1], case[1])
    expect_matches_chol(tile_chol(A, tile = case[2], device = "cpu"), A)
  }
})

test_that("the CPU factor is the same on one thread as on several, in FP64 and in mixed precision", {
  old <- options(gpustats.threads = 1L)
  on.exit(options(old))
  A <- random_spd(700, 6)
  set.seed(6)
  locs <- matrix(runif(1400), ncol = 2)
  spec <- matern_spec(locs[morton_order(locs), ], range = 0.05, smoothness = 0.5)
  one <- list(tile_chol(A, tile = 96, device = "cpu"),
              tile_chol(spec, tile = 64, precision = "mixed", accuracy = 1e-6, device = "cpu"))
  options(gpustats.threads = 2L)
  two <- list(tile_chol(A, tile = 96, device = "cpu"),
              tile_chol(spec, tile = 64, precision = "mixed", accuracy = 1e-6, device = "cpu"))
  expect_true(any(one[[2]]$precision != "double", na.rm = TRUE))
  expect_identical(one[[1]]$info$workers, 1)
  for (w in 1:2) expect_identical(as.matrix(two[[w]]), as.matrix(one[[w]]))
  expect_matches_chol(two[[1]], A)
})

test_that("info$host_seconds, the time spent on the factor's host memory, is part of info$seconds", {
  for (precision in c("double", "mixed")) {
    f <- tile_chol(random_spd(300, 7), tile = 64, precision = precision, device = "cpu")
    host <- f$info$host_seconds
    expect_true(is.double(host) && length(host) == 1L && is.finite(host))
    expect_gte(host, 0)
    expect_lte(host, f$info$seconds)
  }
})

test_that("a Matérn spec is factored without building the matrix, as its matrix would be", {
  set.seed(3)
  locs <- matrix(runif(900), ncol = 3)
  for (nu in c(0.5, 1.3, 2.5)) {
    spec <- matern_spec(locs, sigma2 = 2, range = 0.2, smoothness = nu, nugget = 0.05)
    A <- matern_cov(locs, sigma2 = 2, range = 0.2, smoothness = nu, nugget = 0.05, device = "cpu")
    expect_matches_chol(tile_chol(spec, tile = 70, device = "cpu"), A)
  }
  gc_spec <- matern_spec(cbind(runif(40, -20, 20), runif(40, -60, 60)), range = 500, distance = "great_circle",
                         nugget = 0.1)
  A <- matern_cov(gc_spec$locs, range = 500, distance = "great_circle", nugget = 0.1, device = "cpu")
  expect_matches_chol(tile_chol(gc_spec, tile = 16, device = "cpu"), A)
})

test_that("solve and determinant use the factor", {
  A <- random_spd(300, 5)
  f <- tile_chol(A, tile = 64, device = "cpu")
  b <- rnorm(300)
  expect_equal(solve(f, b), solve(A, b), tolerance = 1e-11)
  B <- matrix(rnorm(900), 300)
  expect_equal(solve(f, B), solve(A, B), tolerance = 1e-11)
  expect_equal(solve(f), solve(A), tolerance = 1e-11)
  d <- determinant(f, logarithm = FALSE)
  expect_s3_class(d, "det")
  expect_equal(as.numeric(d$modulus), det(A), tolerance = 1e-11)
  expect_output(print(f), "Tile Cholesky factor of a 300 x 300 matrix")
  dimnames(A) <- list(paste0("r", 1:300), paste0("r", 1:300))
  expect_identical(dimnames(as.matrix(tile_chol(A, device = "cpu"))), dimnames(chol(A)))
})

test_that("a matrix that is not positive definite names the failing minor as chol() does", {
  A <- random_spd(150, 9)
  e <- eigen(A, symmetric = TRUE)
  A <- e$vectors %*% diag(c(e$values[-150], -1)) %*% t(e$vectors)
  A <- (A + t(A)) / 2
  order <- as.integer(sub(".*order ([0-9]+).*", "\\1", tryCatch(chol(A), error = conditionMessage)))
  err <- expect_error(tile_chol(A, tile = 32, device = "cpu"), class = "gpustats_error_not_pd")
  expect_match(conditionMessage(err), paste0("leading minor of order ", order, " is not positive"))
  dup <- matrix(c(0, 0, 1, 1, 0, 0), ncol = 2, byrow = TRUE)
  expect_error(tile_chol(matern_spec(dup), device = "cpu"), class = "gpustats_error_not_pd")
})

test_that("bad input gives clear errors", {
  expect_error(tile_chol(matrix(1:6, 2)), "square", class = "gpustats_error_argument")
  expect_error(tile_chol("a"), "numeric matrix", class = "gpustats_error_argument")
  expect_error(tile_chol(matrix(c(1, NA, NA, 1), 2)), "missing", class = "gpustats_error_argument")
  expect_error(tile_chol(matrix(c(2, 1, 0, 2), 2)), "not symmetric", class = "gpustats_error_argument")
  expect_error(tile_chol(matrix(c(1, Inf, Inf, 1), 2)), "infinite", class = "gpustats_error_argument")
  # symmetric in the sense of isSymmetric(): rounding-level differences pass
  near <- matrix(c(2, 1, 1 + 1e-15, 2), 2)
  off <- matrix(c(2, 1, 1 + 1e-12, 2), 2)
  expect_true(isSymmetric(near))
  expect_false(isSymmetric(off))
  expect_s3_class(tile_chol(near, device = "cpu"), "tile_chol")
  expect_error(tile_chol(off, device = "cpu"), "not symmetric", class = "gpustats_error_argument")
  expect_error(tile_chol(diag(3), tile = 0), "tile", class = "gpustats_error_argument")
  expect_error(tile_chol(diag(3), memory = -1), "memory", class = "gpustats_error_argument")
  expect_error(matern_spec(matrix(runif(4), 2), range = -1), "range", class = "gpustats_error_argument")
  f <- tile_chol(diag(4), device = "cpu")
  expect_error(solve(f, 1:3), "3 rows", class = "gpustats_error_argument")
})

# The device of 0-based tile row i of nt among g: dealt from the last row
# up, in alternating directions.
row_owner <- function(i, nt, g) {
  r <- nt - 1L - i
  ifelse((r %/% g) %% 2L == 1L, g - 1L - r %% g, r %% g)
}

# What the cache plan of device o of g moves and computes: its loads and
# stores, its compute ops and those that read a tile of another device's
# rows, the loads of such tiles in the column that first reads them, the
# updates with j < k - 1 in their own column k, and the updates of other
# rows issued before the solve of row k + 1 in the columns where the device
# owns row k + 1.
plan_traffic <- function(nt, slots, g = 1L, o = 0L) {
  p <- gpustats:::tile_plan_ops(nt, slots, g, o)
  compute <- p$op %in% c("syrk", "gemm", "potrf", "trsm")
  ahead <- vapply(split(p, p$column), function(s) {
    c1 <- s$column[1] + 1L
    solve <- which(s$op == "trsm" & s$i == c1)
    if (c1 >= nt || row_owner(c1, nt, g) != o) return(0L)
    sum(s$op[seq_len(solve - 1L)] == "gemm" & s$i[seq_len(solve - 1L)] != c1)
  }, 1L)
  0 + c(loads = sum(p$op == "load"), stores = sum(p$op == "store"), compute = sum(compute),
    foreign = sum(p$op %in% c("gemm", "trsm") & row_owner(p$i, nt, g) != row_owner(p$k, nt, g)),
    late_loads = sum(p$op == "load" & row_owner(p$i, nt, g) != o & p$column == p$i),
    late_updates = sum(p$op %in% c("syrk", "gemm") & p$k == p$column & p$j < p$column - 1L),
    ahead_of_solve = sum(ahead))
}

test_that("the cache plan loads each tile once in core and never more with more slots", {
  nt <- 12
  tiles <- nt * (nt + 1) / 2
  expect_identical(unname(plan_traffic(nt, tiles)[1:2]), c(tiles, tiles))
  loads <- vapply(c(3, 5, 10, 20, 40, 60, tiles - 1), function(s) plan_traffic(nt, s)[["loads"]], 1)
  expect_true(all(diff(loads) <= 0))
  expect_gt(loads[1], tiles)
  # streaming every operand would load about nt^3 / 3 tiles; the plan with a
  # third of the matrix in the cache loads far fewer
  expect_lt(plan_traffic(nt, 26)[["loads"]], nt^3 / 6)
})

test_that("the plans of several devices split the work by tile rows", {
  nt <- 13
  tiles <- nt * (nt + 1) / 2
  one <- plan_traffic(nt, tiles)
  expect_identical(one[["foreign"]], 0)
  for (g in 2:4) {
    parts <- sapply(seq_len(g) - 1L, function(o) plan_traffic(nt, tiles, g, o))
    # every task once, every tile stored once by the device of its row
    expect_identical(sum(parts["compute", ]), one[["compute"]])
    expect_identical(parts["stores", ], as.numeric(sapply(seq_len(g) - 1L, function(o) {
      rows <- which(row_owner(seq_len(nt) - 1L, nt, g) == o)
      sum(rows) # tile row i (1-based) has i tiles
    })))
    # the GEMMs and TRSMs read row k's tiles, which other devices own
    expect_true(all(parts["foreign", ] > 0))
    # a device loads its own tiles once and the others' tiles it reads
    expect_true(all(parts["loads", ] >= parts["stores", ]))
  }
  expect_error(plan_traffic(nt, tiles, 2L, 2L), "owner")
  # the dealing balances the work: 49 tile rows on 4 devices
  work <- sapply(0:3, function(o) plan_traffic(49, 2000, 4L, o)[["compute"]])
  expect_lt(max(work) / mean(work), 1.01)
  # in core a task's updates but the last run a column early and the solve
  # of row k + 1 comes first in column k; out of core all wait for column k,
  # and row k + 1's solve follows the round's updates. Another device's row
  # k is loaded before column k but for L_k,k-1 and L_kk.
  one_out <- plan_traffic(nt, 6)
  expect_identical(one[["late_updates"]], 0)
  expect_identical(one[["ahead_of_solve"]], 0)
  expect_identical(one_out[["late_updates"]], sum(choose(seq_len(nt) - 1, 2)))
  expect_gt(one_out[["ahead_of_solve"]], 0)
  for (g in 2:4) for (o in seq_len(g) - 1L) {
    rows <- which(row_owner(seq_len(nt) - 1L, nt, g) == o) - 1L
    read <- setdiff(seq_len(max(rows)) - 1L, rows)
    inc <- plan_traffic(nt, tiles, g, o)
    out <- plan_traffic(nt, 6, g, o)
    expect_identical(inc[["late_updates"]], 0)
    expect_identical(inc[["ahead_of_solve"]], 0)
    # task (i, k) has k updates, max(k - 1, 0) of them with j < k - 1
    expect_identical(out[["late_updates"]], sum(choose(rows, 2)))
    expect_lte(inc[["late_loads"]], 2 * length(read))
    expect_gte(out[["late_loads"]], sum(read + 1))
  }
})

# The ops of the g devices' plans in the order the host issues them: column
# by column, the owner of row k first, each device's section in plan order.
issue_order <- function(nt, slots, g) {
  plans <- lapply(seq_len(g) - 1L, function(o) cbind(gpustats:::tile_plan_ops(nt, slots, g, o), device = o))
  do.call(rbind, lapply(seq_len(nt) - 1L, function(k) {
    first <- row_owner(k, nt, g)
    do.call(rbind, lapply((first + seq_len(g) - 1L) %% g, function(o) {
      p <- plans[[o + 1L]]
      p[p$column == k, ]
    }))
  }))
}

test_that("every plan runs each task once, after the tasks it reads", {
  nt <- 11
  tiles <- nt * (nt + 1) / 2
  for (g in 1:4) for (slots in c(tiles, 7)) {
    ops <- issue_order(nt, slots, g)
    key <- function(i, k) i * nt + k # tile (i, k)
    finished <- loaded <- matrix(FALSE, nt * nt, g)
    updates <- integer(nt * nt)
    ok <- TRUE
    for (r in seq_len(nrow(ops))) {
      o <- ops[r, ]
      d <- o$device + 1L
      readable <- function(i, k) finished[key(i, k) + 1L, 1L] && loaded[key(i, k) + 1L, d]
      ok <- ok && switch(o$op,
        load = {
          loaded[key(o$i, o$j) + 1L, d] <- TRUE
          row_owner(o$i, nt, g) == o$device || finished[key(o$i, o$j) + 1L, 1L]
        },
        syrk = , gemm = {
          updates[key(o$i, o$k) + 1L] <- updates[key(o$i, o$k) + 1L] + 1L
          row_owner(o$i, nt, g) == o$device && !finished[key(o$i, o$k) + 1L, 1L] &&
            readable(o$i, o$j) && readable(o$k, o$j)
        },
        potrf = , trsm = {
          done <- updates[key(o$i, o$k) + 1L] == o$k && (o$op == "potrf" || readable(o$k, o$k))
          finished[key(o$i, o$k) + 1L, ] <- TRUE
          loaded[key(o$i, o$k) + 1L, d] <- TRUE
          done && row_owner(o$i, nt, g) == o$device
        },
        store = finished[key(o$i, o$k) + 1L, 1L])
    }
    expect_true(ok)
    lower <- outer(seq_len(nt) - 1L, seq_len(nt) - 1L, ">=")
    expect_true(all(finished[key(row(lower)[lower] - 1L, col(lower)[lower] - 1L) + 1L, 1L]))
    expect_equal(sum(updates), sum(choose(seq_len(nt), 2)))
  }
})

test_that("factors on several GPUs equal the CPU's, in core, out of core and in mixed precision", {
  skip_without_gpu()
  expect_error(tile_chol(diag(3), gpus = c(0, 0), device = "gpu"), "distinct", class = "gpustats_error_argument")
  expect_error(tile_chol(diag(3), gpus = nrow(gpu_info()), device = "gpu"), "GPU ids",
               class = "gpustats_error_argument")
  gpus <- gpu_info()$id
  if (length(gpus) < 2L) skip("one GPU")
  A <- random_spd(1500, 13)
  cpu <- tile_chol(A, tile = 200, device = "cpu")
  for (g in unique(c(2L, length(gpus)))) {
    for (memory in list(NULL, 8 * 200^2 * 5)) {
      f <- tile_chol(A, tile = 200, memory = memory, gpus = gpus[seq_len(g)], device = "gpu")
      expect_identical(f$gpus, gpus[seq_len(g)])
      expect_lte(max(abs(as.matrix(f) - as.matrix(cpu))) / max(abs(as.matrix(cpu))), 1e-12)
      expect_equal(determinant(f)$modulus, determinant(cpu)$modulus, tolerance = 1e-12)
    }
  }
  expect_output(print(f), "GPUs 0, 1")
  # the trace of two GPUs: every op once, on the GPU of its tile row
  tr <- tile_chol(A, tile = 200, trace = TRUE, gpus = gpus[1:2], device = "gpu")$trace
  nt <- 8
  expect_setequal(unique(tr$gpu), gpus[1:2])
  expect_true(all(tr$end >= tr$start & tr$start >= 0))
  own <- tr[tr$op != "load", ]
  expect_equal(own$gpu, gpus[row_owner(own$i - 1L, nt, 2L) + 1L])
  expect_equal(as.vector(table(tr$op)[c("potrf", "trsm", "gemm", "store")]),
               c(nt, nt * (nt - 1) / 2, nt * (nt - 1) * (nt - 2) / 6, nt * (nt + 1) / 2))
  # a failed leading minor is reported by the GPU that owns its tile row
  bad <- A
  bad[700, 700] <- -1
  err <- expect_error(tile_chol(bad, tile = 200, gpus = gpus[1:2], device = "gpu"), class = "gpustats_error_not_pd")
  expect_match(conditionMessage(err), "order 700")
  set.seed(4)
  locs <- matrix(runif(8000), ncol = 2)
  locs <- locs[morton_order(locs), ]
  spec <- matern_spec(locs, range = 0.03, smoothness = 0.5)
  for (fp8 in c(FALSE, TRUE)) { # FP8 tiles cross between the GPUs through host memory in FP8
    one <- tile_chol(spec, tile = 256, precision = "mixed", accuracy = 1e-5, fp8 = fp8, device = "gpu")
    two <- tile_chol(spec, tile = 256, precision = "mixed", accuracy = 1e-5, fp8 = fp8, gpus = gpus[1:2],
                     device = "gpu")
    expect_identical(two$precision, one$precision)
    expect_identical(any(one$precision == "fp8", na.rm = TRUE), fp8)
    expect_lte(max(abs(as.matrix(two) - as.matrix(one))) / max(abs(as.matrix(one))), 1e-6)
    expect_equal(determinant(two)$modulus, determinant(one)$modulus, tolerance = 1e-10)
  }
})

test_that("whole tiles of 1024 rows, whose products run through cuBLASLt, match chol()", {
  skip_without_gpu()
  set.seed(14)
  locs <- matrix(runif(2 * 3472), ncol = 2)
  A <- matern_cov(locs, range = 0.1, smoothness = 1.3, nugget = 0.1, device = "cpu")
  R <- chol(A)
  # tile rows 0 to 2 whole, row 3 partial: update (2, 1) is a whole-tile product
  for (memory in list(NULL, 8 * 1024^2 * 5)) {
    expect_matches_chol(tile_chol(A, tile = 1024, memory = memory, device = "gpu"), A, R = R)
  }
  gpus <- gpu_info()$id
  if (length(gpus) >= 2L) expect_matches_chol(tile_chol(A, tile = 1024, gpus = gpus[1:2], device = "gpu"), A, R = R)
})

test_that("GPU and CPU factors agree, in core and out of core", {
  skip_without_gpu()
  A <- random_spd(1500, 11)
  cpu <- tile_chol(A, tile = 200, device = "cpu")
  for (memory in list(NULL, 8 * 200^2 * 5)) {
    g <- tile_chol(A, tile = 200, memory = memory, device = "gpu")
    expect_lte(max(abs(as.matrix(g) - as.matrix(cpu))) / max(abs(as.matrix(cpu))), 1e-12)
    expect_equal(determinant(g)$modulus, determinant(cpu)$modulus, tolerance = 1e-12)
    if (!is.null(memory)) expect_gt(g$info$tile_loads, 8 * 9 / 2)
  }
  expect_matches_chol(g, A)
  # tiles above 512 rows have their diagonal blocks inverted recursively
  A <- random_spd(1400, 12)
  expect_matches_chol(tile_chol(A, tile = 1300, device = "gpu"), A)
  A <- random_spd(1500, 11)
  tr <- tile_chol(A, tile = 200, trace = TRUE, device = "gpu")$trace
  nt <- 8
  expect_identical(sum(tr$op == "gemm"), as.integer(nt * (nt - 1) * (nt - 2) / 6))
  expect_identical(sum(tr$op == "store"), as.integer(nt * (nt + 1) / 2))
  expect_true(all(tr$end >= tr$start))
  set.seed(2)
  locs <- matrix(runif(6000), ncol = 2)
  spec <- matern_spec(locs, range = 0.1, smoothness = 1.3, nugget = 0.01)
  cpu <- tile_chol(spec, tile = 512, device = "cpu")
  for (memory in list(NULL, 8 * 512^2 * 4)) {
    g <- tile_chol(spec, tile = 512, memory = memory, device = "gpu")
    expect_lte(max(abs(as.matrix(g) - as.matrix(cpu))) / max(abs(as.matrix(cpu))), 1e-12)
    expect_equal(determinant(g)$modulus, determinant(cpu)$modulus, tolerance = 1e-12)
    b <- rnorm(3000)
    expect_equal(solve(g, b), solve(cpu, b), tolerance = 1e-10)
  }
})

test_that("a factor whose host memory is page-locked in several pieces is right, with tiles across their ends", {
  skip_without_gpu()
  # 110 MB of tiles of 3.9 MB: the host memory takes two pieces of 64 MB and a tile crosses between them,
  # which a single copy could not (its part in each piece is copied on its own)
  set.seed(15)
  locs <- matrix(runif(2 * 5000), ncol = 2)
  spec <- matern_spec(locs, range = 0.1, smoothness = 0.5, nugget = 0.01)
  in_core <- tile_chol(spec, tile = 700, device = "gpu")
  b <- rnorm(5000)
  x <- solve(in_core, b)
  for (source in list(spec, matern_cov(locs, range = 0.1, smoothness = 0.5, nugget = 0.01, device = "cpu"))) {
    g <- tile_chol(source, tile = 700, memory = 8 * 700^2 * 6, device = "gpu")
    expect_gt(g$info$bytes_from_gpu, 64 * 2^20)
    expect_equal(determinant(g)$modulus, determinant(in_core)$modulus, tolerance = 1e-12)
    expect_equal(solve(g, b), x, tolerance = 1e-10)
  }
})

test_that("the GPU reports a matrix that is not positive definite", {
  skip_without_gpu()
  A <- random_spd(700, 4)
  A[500, 500] <- -1
  order <- as.integer(sub(".*order ([0-9]+).*", "\\1", tryCatch(chol(A), error = conditionMessage)))
  err <- expect_error(tile_chol(A, tile = 64, device = "gpu"), class = "gpustats_error_not_pd")
  expect_match(conditionMessage(err), paste0("order ", order, " "))
  expect_error(tile_chol(A, tile = 64, memory = 8 * 64^2 * 6, device = "gpu"), class = "gpustats_error_not_pd")
  expect_matches_chol(tile_chol(random_spd(300, 1), tile = 64, device = "gpu"), random_spd(300, 1))
  expect_error(tile_chol(diag(3), memory = 10, device = "gpu"), "three", class = "gpustats_error_argument")
})

# Mixed precision: ||A - L L'||_F / ||A||_F of a factor.
backward_error <- function(f, A) {
  R <- as.matrix(f)
  norm(A - crossprod(R), "F") / norm(A, "F")
}

# The precision every tile should get by the rule tile_chol() states.
expected_map <- function(A, tile, accuracy, fp8 = FALSE) {
  nt <- ceiling(nrow(A) / tile)
  rows <- split(seq_len(nrow(A)), (seq_len(nrow(A)) - 1) %/% tile)
  total <- norm(A, "F")
  map <- matrix(NA_character_, nt, nt)
  for (i in 1:nt) for (j in 1:i) {
    ratio <- nt * norm(A[rows[[i]], rows[[j]], drop = FALSE], "F") / total
    map[i, j] <- if (i == j) "double" else if (fp8 && ratio * 2^-4 <= accuracy) "fp8" else
      if (ratio * 2^-11 <= accuracy) "half" else if (ratio * 2^-24 <= accuracy) "single" else "double"
  }
  map
}

# The entries of every FP16 and FP8 tile of the factor are on the format's
# grid times a power of two (the tile's scale): at most 11 and 4
# significant bits.
expect_format_grid <- function(f, tile, with_fp8) {
  L <- t(as.matrix(f))
  rows <- split(seq_len(f$n), (seq_len(f$n) - 1) %/% tile)
  bits <- c(half = 11, fp8 = 4)
  for (format in names(bits)) {
    where <- which(f$precision == format, arr.ind = TRUE)
    if (format == "fp8") expect_identical(nrow(where) > 0, with_fp8)
    for (w in seq_len(nrow(where))) {
      v <- L[rows[[where[w, 1]]], rows[[where[w, 2]]]]
      v <- abs(v[v != 0])
      mantissa <- v / 2^floor(log2(v)) * 2^(bits[[format]] - 1)
      expect_identical(mantissa, round(mantissa))
    }
  }
}

morton_matern <- function(n, range, seed) {
  set.seed(seed)
  locs <- matrix(runif(2 * n), ncol = 2)
  locs[morton_order(locs), ]
}

test_that("the Morton order keeps nearby points together", {
  locs <- as.matrix(expand.grid(0:7, 0:7))[sample(64), ]
  z <- locs[morton_order(locs), ]
  expect_setequal(paste(z[, 1], z[, 2]), paste(locs[, 1], locs[, 2]))
  # each run of 4 is one 2 x 2 cell of the grid, each run of 16 one 4 x 4 cell
  for (size in c(2, 4)) {
    cell <- paste(z[, 1] %/% size, z[, 2] %/% size)
    expect_identical(length(rle(cell)$lengths), as.integer(64 / size^2))
  }
  expect_identical(morton_order(matrix(5, 3, 2)), 1:3)
  expect_error(morton_order("a"), class = "gpustats_error_argument")
})

test_that("mixed precision follows the stated rule and reaches the accuracy asked for (CPU)", {
  locs <- morton_matern(1500, 0.02627, 21)
  for (range in c(0.02627, 0.210158)) {
    spec <- matern_spec(locs, range = range, smoothness = 0.5)
    A <- matern_cov(locs, range = range, smoothness = 0.5, device = "cpu")
    full <- tile_chol(spec, tile = 100, device = "cpu")
    for (accuracy in c(1e-4, 1e-8)) for (fp8 in c(FALSE, TRUE)) {
      f <- tile_chol(spec, tile = 100, precision = "mixed", accuracy = accuracy, fp8 = fp8, device = "cpu")
      expect_identical(f$precision, expected_map(A, 100, accuracy, fp8))
      expect_lte(backward_error(f, A), accuracy)
      expect_lte(abs(determinant(f)$modulus - determinant(full)$modulus), 1500 * accuracy)
      expect_identical(f$info$attempts, 1)
      if (range < 0.1) expect_format_grid(f, tile = 100, with_fp8 = fp8)
    }
    expect_true(any(f$precision == "half", na.rm = TRUE) || range > 0.1)
  }
  expect_output(print(f), "mixed precision, accuracy 1e-08: tiles double.*fp8") # f allowed FP8
  half <- tile_chol(spec, tile = 100, precision = "mixed", accuracy = 1e-4, device = "cpu")
  expect_output(print(half), "half")
  expect_no_match(capture.output(print(half)), "fp8")
  # a dense matrix, and an accuracy that leaves every tile in FP64
  A <- random_spd(300, 2)
  f <- tile_chol(A, tile = 64, precision = "mixed", accuracy = 1e-3, device = "cpu")
  expect_identical(f$precision, expected_map(A, 64, 1e-3))
  expect_lte(backward_error(f, A), 1e-3)
  b <- rnorm(300)
  expect_lte(max(abs(A %*% solve(f, b) - b)) / max(abs(b)), 1e-3 * kappa(A))
  exact <- tile_chol(A, tile = 64, precision = "mixed", accuracy = 1e-15, device = "cpu")
  expect_true(all(exact$precision == "double", na.rm = TRUE))
  expect_identical(as.matrix(exact), as.matrix(tile_chol(A, tile = 64, device = "cpu")))
  expect_error(tile_chol(A, precision = "mixed", accuracy = 0.5), "at most 0.1", class = "gpustats_error_argument")
  expect_error(tile_chol(A, precision = "mixed", accuracy = 0), "accuracy", class = "gpustats_error_argument")
  expect_error(tile_chol(A, precision = "quad"), "must be one of", class = "gpustats_error_argument")
  expect_error(tile_chol(A, precision = "mixed", fp8 = NA), "fp8", class = "gpustats_error_argument")
})

# A matrix whose FP16 tile (3, 1) of the factor outgrows its tile of A: the
# small eigenvalue of the first diagonal tile amplifies it 1e4 times.
overflow_matrix <- function() {
  A <- diag(12)
  A[4, 4] <- 1e-8
  A[9:12, 4] <- A[4, 9:12] <- 1e-6
  A
}

# A matrix with an eigenvalue far below the FP16 rounding of its tiles.
nearly_singular <- function() {
  e <- eigen(random_spd(40, 3), symmetric = TRUE)
  A <- e$vectors %*% diag(c(e$values[-40], 1e-9)) %*% t(e$vectors)
  (A + t(A)) / 2
}

test_that("mixed precision promotes tiles that overflow or break positive definiteness", {
  for (device in c("cpu", if (gpu_available()) "gpu")) {
    A <- overflow_matrix()
    f <- tile_chol(A, tile = 4, precision = "mixed", accuracy = 0.1, device = device)
    expect_gt(f$info$attempts, 1)
    expect_identical(f$precision[3, 1], "single")
    expect_lte(backward_error(f, A), 1e-6)
    A <- nearly_singular()
    f <- tile_chol(A, tile = 10, precision = "mixed", accuracy = 0.1, device = device)
    expect_gt(f$info$attempts, 1)
    expect_lte(backward_error(f, A), 1e-6)
  }
})

test_that("GPU and CPU mixed-precision factors agree, in core and out of core", {
  skip_without_gpu()
  locs <- morton_matern(6000, 0.02627, 22)
  for (range in c(0.02627, 0.078809)) {
    spec <- matern_spec(locs, range = range, smoothness = 0.5)
    A <- matern_cov(locs, range = range, smoothness = 0.5, device = "cpu")
    for (accuracy in c(1e-5, 1e-8)) for (fp8 in c(FALSE, TRUE)) {
      cpu <- tile_chol(spec, tile = 512, precision = "mixed", accuracy = accuracy, fp8 = fp8, device = "cpu")
      # with FP16 tiles, the GPU updates the FP64 tiles whose operands are
      # both FP16 (every diagonal tile with an FP16 tile in its row) on the
      # tensor cores; the CPU computes in FP64
      expect_true(any(cpu$precision %in% (if (range < 0.05) c("half", "fp8") else "single")))
      if (!fp8 || range < 0.05) expect_identical(any(cpu$precision == "fp8", na.rm = TRUE), fp8)
      for (memory in list(NULL, 8 * 512^2 * 5)) {
        g <- tile_chol(spec, tile = 512, precision = "mixed", accuracy = accuracy, fp8 = fp8, memory = memory,
                       device = "gpu")
        expect_identical(g$precision, cpu$precision)
        expect_lte(backward_error(g, A), accuracy)
        expect_lte(abs(determinant(g)$modulus - determinant(cpu)$modulus), 6000 * accuracy)
      }
      dense <- tile_chol(A, tile = 512, precision = "mixed", accuracy = accuracy, fp8 = fp8, device = "gpu")
      expect_identical(dense$precision, cpu$precision)
      expect_lte(backward_error(dense, A), accuracy)
    }
  }
})

test_that("a factor read back from a file says that it was not saved and how to recompute it", {
  A <- random_spd(20, 11)
  f <- tile_chol(A, device = "cpu")
  path <- tempfile(fileext = ".rds")
  on.exit(unlink(path))
  saveRDS(f, path)
  g <- readRDS(path)
  expect_equal(determinant(g)$modulus, determinant(f)$modulus) # kept in the object
  # it said "the tile_chol factor has been released"
  expect_error(solve(g, rnorm(20)), "does\\s+not\\s+survive\\s+saving.*run\\s+tile_chol\\(\\)", class = "gpustats_error_argument")
  expect_error(as.matrix(g), "does\\s+not\\s+survive\\s+saving", class = "gpustats_error_argument")
})

test_that("bad input to tile_chol gets clear errors, never a crash", {
  bad <- list(NULL, numeric(0), matrix(numeric(0), 0, 0), NA, matrix(NA_real_, 2, 2), matrix(c(1, NaN, NaN, 1), 2),
              matrix(c(1, -Inf, -Inf, 1), 2), "a", list(1), factor("a"), matrix(1i, 2, 2), data.frame(a = 1:2, b = 1:2),
              matrix(1:6, 2))
  for (A in bad) expect_error(tile_chol(A, device = "cpu"), class = "gpustats_error_argument")
  expect_error(tile_chol(matrix(c(1, 2, 2, 1), 2), device = "cpu"), "leading\\s+minor\\s+of\\s+order\\s+2",
               class = "gpustats_error_not_pd")
  for (tile in list(NA, NaN, Inf, -1, 1.5, "a", c(2, 3), 1e6)) {
    expect_error(tile_chol(diag(3), tile = tile, device = "cpu"), class = "gpustats_error_argument")
  }
  for (v in list(NA, "a", c(TRUE, FALSE))) {
    expect_error(tile_chol(diag(3), trace = v, device = "cpu"), class = "gpustats_error_argument")
    expect_error(tile_chol(diag(3), fp8 = v, device = "cpu"), class = "gpustats_error_argument")
  }
  f <- tile_chol(diag(3), device = "cpu")
  for (b in list(NA_real_ + 1:3, "a", list(1, 2, 3), 1:2, NULL)) {
    expect_error(solve(f, b), class = "gpustats_error_argument")
  }
  expect_error(matern_spec(matrix(c(0, NA), 1), range = 1), class = "gpustats_error_argument")
  expect_error(matern_spec(matrix(runif(4), 2), smoothness = Inf), class = "gpustats_error_argument")
})

test_that("a plan for a matrix of one tile needs one slot, and more tiles three", {
  # a GPU tile factorization of n <= the tile size asked for three slots and failed
  p <- gpustats:::tile_plan_ops(1L, 1L)
  expect_identical(p$op, c("load", "potrf", "store"))
  expect_error(gpustats:::tile_plan_ops(2L, 2L), "3 tile slots")
})
