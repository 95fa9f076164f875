# Element-wise functions: recycling, NaN warnings and attributes as in R's own
# two-argument math functions (besselK, dnorm).

# op: the name of an op of the native code (gs_table("map_op"), GS_MAP_OPS
# in src/core/map/map_ops.h). flags: see gs_table("stable_flag"). n: the output length
# of a random op (its inputs are parameters recycled to n). kind: the entry
# of gs_auto_gpu_min that decides device = "auto". each: per input, the
# number of elements each of its values serves in turn (rep(v, each = )
# without the copy), for groups such as the samples of a batched fit.
gs_map <- function(op, inputs, device, call, flags = 0L, n = NULL, kind = "map",
                   each = rep(1, length(inputs))) {
  lens <- lengths(inputs) * each
  random <- !is.null(n)
  if (!random) n <- if (any(lens == 0L)) 0L else max(lens)
  if (!random) gs_map_check_lengths(n, lens, sys.call(-1L))
  dev <- resolve_device(device, n, kind, call)
  # the core reads doubles and ignores attributes: no copy for double input
  values <- lapply(inputs, function(v) if (is.double(v)) v else as.double(v))
  bar <- gs_progress_bar(n, op, call)
  res <- gs_call(.Call(gs_r_map, gs_code("map_op", op), values, dev, gs_threads(call), bar, as.integer(flags),
                       if (random) as.double(n) else -1, as.double(each)), call)
  nan_produced <- isTRUE(attr(res, "nan_produced"))
  attr(res, "nan_produced") <- NULL
  if (nan_produced) {
    warning(warningCondition(if (random) "NAs produced" else "NaNs produced", call = sys.call(-1L)))
  }
  if (!random) res <- gs_map_attributes(res, inputs, lens)
  res
}

# R's warning where the output length n is not a multiple of an input's.
gs_map_check_lengths <- function(n, lens, call) {
  if (n > 0L && any(n %% lens != 0L)) {
    warning(warningCondition("longer object length is not a multiple of shorter object length",
                             call = call))
  }
}

# res with the attributes of the longest input, the first one on ties.
gs_map_attributes <- function(res, inputs, lens) {
  if (length(res) == 0L) return(res)
  src <- inputs[[which.max(lens)]]
  for (a in c("dim", "dimnames", "names")) {
    if (!is.null(attr(src, a))) attr(res, a) <- attr(src, a)
  }
  res
}
