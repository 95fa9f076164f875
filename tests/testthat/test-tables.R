# The tables that R shares with the native code (op codes, flags, model
# kinds, formats, streams, status kinds) are written once, in C, and read by
# R when the package loads. These tests fail when R's view of a table differs
# from C's: a name that R code asks for and C does not have, or a choice of
# an exported function that C does not know.

ns <- asNamespace("gpustats")
tables <- .Call(gpustats:::gs_r_tables)

# Every string constant that expression e may evaluate to (the branches of an
# if, not its condition).
string_constants <- function(e) {
  if (is.character(e)) return(e)
  if (is.call(e) && identical(e[[1L]], as.name("if"))) return(unlist(lapply(as.list(e)[-(1:2)], string_constants)))
  if (is.call(e) || is.pairlist(e) || is.expression(e)) return(unlist(lapply(as.list(e), string_constants)))
  character(0)
}

# The (table, name) pairs that the functions of the package ask for: the
# literal arguments of gs_code(), the ops of gs_map() and stable_map() calls
# (every constant of the first argument, e.g. of an if/else), the products
# of gp_apply() calls and the constants assigned to a variable `op`.
requested_codes <- function(e) {
  if (!is.call(e)) return(NULL)
  f <- if (is.symbol(e[[1L]])) as.character(e[[1L]]) else ""
  pairs <- function(table, names) if (length(names)) data.frame(table = table, name = names)
  found <- NULL
  if (f == "gs_code" && length(e) >= 3L && is.character(e[[2L]])) {
    found <- pairs(e[[2L]], string_constants(e[[3L]]))
  } else if (f %in% c("gs_map", "stable_map") && length(e) >= 2L) {
    found <- pairs("map_op", string_constants(e[[2L]]))
  } else if (f == "gp_apply" && length(e) >= 3L) {
    found <- pairs("gp_apply", string_constants(e[[3L]]))
  } else if (f %in% c("<-", "=") && identical(e[[2L]], as.name("op"))) {
    found <- pairs("map_op", string_constants(e[[3L]]))
  }
  rbind(found, do.call(rbind, lapply(as.list(e)[-1L], requested_codes)))
}

test_that("R's copy of the tables is the native code's, and each table is a proper code list", {
  expect_identical(gpustats:::gs_state$tables, tables)
  expect_true(all(c("status", "map_op", "stable_flag", "metric", "gbees_model", "tile_format", "tile_op",
                    "tile_stream", "tile_solve", "gp_apply") %in% names(tables)))
  for (t in names(tables)) {
    codes <- tables[[t]]
    expect_type(codes, "integer")
    expect_false(anyDuplicated(names(codes)) > 0L, info = t)
    if (!endsWith(t, "_mask")) expect_false(anyDuplicated(codes) > 0L, info = t) # masks may repeat
    expect_false(anyNA(codes) || any(names(codes) == ""), info = t)
  }
  # the flags are distinct bits
  flags <- tables$stable_flag
  expect_true(all(flags > 0L & bitwAnd(flags, flags - 1L) == 0L))
  # codes counted from 0 where C's enum counts them (formats and ops index arrays)
  for (t in c("status", "map_op", "metric", "tile_format", "tile_op", "gp_apply")) {
    expect_identical(unname(tables[[t]]), seq_along(tables[[t]]) - 1L, info = t)
  }
})

test_that("every code that the package's R functions ask for exists in the native tables", {
  funs <- Filter(is.function, mget(ls(ns, all.names = TRUE), envir = ns))
  asked <- do.call(rbind, lapply(funs, function(f) requested_codes(body(f))))
  asked <- unique(asked)
  # the scan finds the calls it is meant to find
  expect_true(all(c("map_op", "stable_flag", "gbees_model", "tile_solve", "gp_apply") %in% asked$table))
  expect_true(all(c("bessel_k", "bessel_k_log_scaled", "bessel_k_dnu", "matern", "stable_d", "stable_r") %in%
                    asked$name[asked$table == "map_op"]))
  for (k in seq_len(nrow(asked))) {
    expect_true(asked$name[k] %in% names(tables[[asked$table[k]]]),
                info = paste0(asked$table[k], ": ", asked$name[k]))
  }
  # the ops of the benchmark hooks
  expect_true(all(eval(formals(gpustats:::bench_stable_device)$op) %in% names(tables$map_op)))
  expect_true(formals(gpustats:::bench_bessel_k_device)$op %in% names(tables$map_op))
})

test_that("the choices of the exported functions are the names of the native tables", {
  # distance = c("euclidean", "great_circle") of every function that takes one
  funs <- Filter(function(f) is.function(f) && is.call(formals(f)$distance), mget(getNamespaceExports(ns), envir = ns))
  expect_true(all(c("matern_cov", "matern_spec", "gp_fit") %in% names(funs)))
  for (f in names(funs)) expect_setequal(eval(formals(funs[[f]])$distance), names(tables$metric))
  # a GBEES model's kind is one of the native model kinds
  expect_setequal(names(tables$gbees_model), c("lorenz63", "lorenz96", "pcr3bp", "user"))
  for (model in list(lorenz63(), lorenz96(), pcr3bp())) {
    expect_true(model$kind %in% tables$gbees_model)
  }
  # the names tile_chol() documents for its precision map and trace
  expect_identical(names(tables$tile_format), c("double", "single", "half", "fp8"))
  expect_identical(names(tables$tile_op), c("load", "syrk", "gemm", "potrf", "trsm", "store"))
  expect_identical(gpustats:::tile_stream_names(),
                   c(paste("compute", 1:4), "diagonal", "to GPU", "to host"))
  expect_identical(levels(gpustats:::tile_plan_ops(3L, 6L)$op), NULL)
  expect_true(all(gpustats:::tile_plan_ops(3L, 6L)$op %in% names(tables$tile_op)))
})

test_that("the stable flags R passes are the bits of the native flags", {
  f <- tables$stable_flag
  expect_identical(gpustats:::stable_flags(0, log = TRUE, upper = FALSE), f[["log"]])
  expect_identical(gpustats:::stable_flags(1, log = TRUE, upper = TRUE), f[["log"]] + f[["upper"]] + f[["s1"]])
  expect_identical(gpustats:::stable_flags(0), 0L)
  # the flags reach the native code: the upper tail and the log scale
  expect_equal(pstable(1, 1.5, 0.3, lower.tail = FALSE, log.p = TRUE, device = "cpu"),
               log1p(-pstable(1, 1.5, 0.3, device = "cpu")), tolerance = 1e-12)
})
