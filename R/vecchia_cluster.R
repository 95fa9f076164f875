# The Vecchia likelihood split over the workers of a cluster of R's
# `parallel` package (any snow-style cluster: PSOCK, FORK, or MPI through
# Rmpi). The sums of an evaluation (gs_vecchia_grad_info: log-determinant,
# quadratic forms, their derivatives, the Fisher information) are sums over
# the blocks (the points, ungrouped), so each worker holds a part of the
# blocks, with the halo of earlier points that their conditioning sets
# read, computes its part's sums on its GPU or cores, and the driver adds
# them and goes on as with one process. An evaluation sends the model out
# and brings a few hundred doubles back.

# The workers' native objects, by key: a worker may serve several engines.
vecchia_workers <- new.env(parent = emptyenv())

# Checks that cl is a cluster of the parallel package: each worker a node
# that parallel can send to (a method of its generic sendData, which snow
# and Rmpi register for their MPI nodes too).
check_cluster <- function(cl, call) {
  can_send <- function(node) {
    any(vapply(class(node), function(cls) {
      !is.null(utils::getS3method("sendData", cls, optional = TRUE, envir = asNamespace("parallel")))
    }, TRUE))
  }
  if (!inherits(cl, "cluster") || length(cl) < 1L || !all(vapply(cl, can_send, TRUE))) {
    abort_arg(c("{.arg cluster} must be a cluster of the {.pkg parallel} package, not {.obj_type_friendly {cl}}.",
                i = "Make one with {.code parallel::makeCluster(2)}, or with {.pkg Rmpi} for MPI."), call)
  }
}

# Opens the engine: `nb` the ordering and conditioning sets (the parts of
# vecchia_neighbors(), blocks where grouped), y and X in the caller's order.
# Returns an object that vecchia_loglik_grad_info() takes in place of a
# native one; vecchia_cluster_close() frees the workers' memory. `label`
# names the progress bar of the grouping after what the user asked for.
vecchia_cluster_open <- function(cl, nb, y, X, group, device, call, label) {
  check_cluster(cl, call)
  check_device(device, call)
  n <- nrow(nb$locs)
  blocks <- if (group) nb$blocks %||% vecchia_group(nb$neighbors, call, label)
  ordered <- nb$locs[nb$order, , drop = FALSE]
  pieces <- vecchia_partition(vecchia_search_points(ordered, nb$distance), nb$neighbors, blocks, length(cl), call)
  setting <- vecchia_worker_settings(cl, call)
  key <- paste0("v", paste(sample(c(letters, 0:9), 16, TRUE), collapse = ""))
  engine <- structure(list(cluster = cl, key = key, n = n, m = nb$m, p = ncol(X), order = nb$order,
                           distance = nb$distance, ordering = nb$ordering, group = group, device = NA_integer_),
                      class = "vecchia_cluster")
  y <- y[nb$order]
  X <- X[nb$order, , drop = FALSE]
  parts <- lapply(seq_along(pieces), function(j) {
    local <- pieces[[j]]$local
    list(key = key, locs = ordered[local, , drop = FALSE], m = nb$m, blocks = pieces[[j]]$blocks,
         halo = pieces[[j]]$halo, y = y[local], X = X[local, , drop = FALSE], distance = nb$distance, device = device,
         threads = setting$threads[j], gpu = setting$gpu[j])
  })
  opened <- vecchia_cluster_answers(parallel::clusterApply(cl, parts, vecchia_worker_open), call)
  if (any(vapply(opened, inherits, TRUE, "condition"))) vecchia_cluster_close(engine) # the workers that opened theirs
  vecchia_cluster_errors(opened, call)
  engine$device <- vapply(opened, function(o) o$device, 0L)
  engine$hosts <- setting$hosts
  engine
}

vecchia_cluster_close <- function(engine) {
  try(parallel::clusterCall(engine$cluster, vecchia_worker_close, engine$key), silent = TRUE)
  invisible(NULL)
}

# The pieces of a partition of the blocks (the points, ungrouped: blocks of
# one) into k, each block whole. Pieces are regions of space (a block goes
# with its first point), not runs of the ordering: a run of the maxmin
# ordering is spread over the whole domain and its sets name earlier points
# everywhere (k = 8 runs of 2e5 points had halos of 0.84 n), while a region
# at all levels of the ordering names only the points near its edges and
# the few of the coarse levels. The regions hold about the same number of
# blocks, so also about the same work. A piece: `local`, its points and
# that halo, in the ordering; `halo`, which of them are the halo's;
# `blocks`, their blocks renumbered (NA for the halo: a halo point has no
# terms). `pts`: the search points of the locations in the ordering
# (vecchia_search_points()).
vecchia_partition <- function(pts, nn, blocks, k, call) {
  n <- nrow(nn)
  label <- blocks %||% seq_len(n)
  units <- max(label)
  if (k > units) {
    abort_arg(c("The cluster has {k} workers but the likelihood has {units} block{?s} to share among them.",
                i = "Use fewer workers for so few locations."), call)
  }
  first <- integer(units)
  first[rev(label)] <- rev(seq_len(n)) # each block's first point
  point_piece <- spatial_cells(pts[first, , drop = FALSE], k)[label]
  lapply(seq_len(k), function(j) {
    piece <- .Call(gs_r_vecchia_piece, nn, point_piece, j)
    if (!is.null(blocks)) {
      b <- blocks[piece$local]
      b[piece$halo] <- NA_integer_
      piece$blocks <- match(b, unique(b[!piece$halo]))
    }
    piece
  })
}

# The cell (1 to k) of each row of pts in k cells of about nrow(pts) / k
# rows each, cut as a k-d tree: each cell in turn split across the
# coordinate of its widest spread, at the quantile that gives its two
# halves their shares of its cells.
spatial_cells <- function(pts, k) {
  cell <- integer(nrow(pts))
  split <- function(rows, first, count) {
    if (count == 1L) {
      cell[rows] <<- first
      return(invisible())
    }
    spread <- apply(pts[rows, , drop = FALSE], 2L, function(v) diff(range(v)))
    along <- pts[rows, which.max(spread)]
    left <- count %/% 2L
    sorted <- rows[order(along)]
    cut <- round(length(rows) * left / count)
    split(sorted[seq_len(cut)], first, left)
    split(sorted[-seq_len(cut)], first + left, count - left)
  }
  split(seq_len(nrow(pts)), 1L, as.integer(k))
  cell
}

# Per worker: its host, and the threads and GPU it uses. Workers keep their
# own gpustats.threads and gpustats.gpus options where they set them; else
# the workers of a host share its cores and take its GPUs in turn.
vecchia_worker_settings <- function(cl, call) {
  info <- vecchia_cluster_call(cl, vecchia_worker_info, call)
  hosts <- vapply(info, function(i) i$host, "")
  rank <- stats::ave(seq_along(hosts), hosts, FUN = seq_along) - 1L
  sharing <- as.vector(table(hosts)[hosts])
  threads <- vapply(seq_along(info), function(j) {
    info[[j]]$threads %||% max(1, info[[j]]$cores %/% sharing[j])
  }, 0)
  gpu <- vapply(seq_along(info), function(j) {
    info[[j]]$gpu %||% if (info[[j]]$gpus > 0L) rank[j] %% info[[j]]$gpus else 0
  }, 0)
  list(hosts = hosts, threads = as.integer(threads), gpu = as.integer(gpu))
}

# The sums of the whole likelihood for the model (cov_model()) and the
# derivative bits: the workers' sums added.
vecchia_cluster_sums <- function(engine, model, bits, call) {
  sums <- vecchia_cluster_call(engine$cluster, vecchia_worker_sums, call, engine$key, model, bits)
  size <- .Call(gs_r_vecchia_sums_size, engine$p, bits)
  if (!all(vapply(sums, function(s) is.double(s) && length(s) == size, TRUE))) {
    cli::cli_abort("The workers of the cluster answered with something other than the sums of this likelihood.",
                   class = c("gpustats_error_cluster", "gpustats_error"), call = call)
  }
  Reduce(`+`, sums)
}

# What the workers answer to `send` (a clusterCall() or clusterApply() on
# the cluster), its failure (a worker that stopped) an R error. An
# interrupt waits for the answers: one left unread on a connection would be
# read as the answer of the cluster's next call.
vecchia_cluster_answers <- function(send, call) {
  tryCatch(suspendInterrupts(send), error = function(e) {
    cli::cli_abort(c("A worker of the cluster failed: {conditionMessage(e)}",
                     i = "A worker that has stopped must be replaced: make the cluster again."),
                   class = c("gpustats_error_cluster", "gpustats_error"), call = call)
  })
}

# clusterCall() of fun(...) on every worker, with the workers' errors as
# R errors that name the worker and its host (vecchia_cluster_errors()).
vecchia_cluster_call <- function(cl, fun, call, ...) {
  out <- vecchia_cluster_answers(parallel::clusterCall(cl, fun, ...), call)
  vecchia_cluster_errors(out, call)
  out
}

# The workers' errors as R errors that name the worker and its host; a
# worker's conditioning set that is not positive definite comes back as
# that condition.
vecchia_cluster_errors <- function(out, call) {
  failed <- which(vapply(out, inherits, TRUE, "condition"))
  if (!length(failed)) return(invisible())
  e <- out[[failed[1L]]]
  if (inherits(e, "gpustats_error_not_pd")) {
    cli::cli_abort(conditionMessage(e), class = c("gpustats_error_not_pd", "gpustats_error"), call = call)
  }
  cli::cli_abort(c("Worker {failed[1L]} of the cluster (host {.val {attr(e, 'host')}}) failed: {conditionMessage(e)}",
                   if (length(failed) > 1L) c(i = "{length(failed) - 1L} other worker{?s} failed too.")),
                 class = c(setdiff(class(e), c("rlang_error", "error", "condition")), "gpustats_error_cluster"),
                 call = call)
}

# On a worker: what runs there, its errors returned as conditions with its
# host, so that the driver can name it.
vecchia_worker_run <- function(expr) {
  tryCatch(expr, error = function(e) {
    attr(e, "host") <- Sys.info()[["nodename"]]
    e
  })
}

# A worker's host, cores and GPUs, and its own gpustats.threads and
# gpustats.gpus options (checked there) where it has them.
vecchia_worker_info <- function() {
  vecchia_worker_run({
    call <- environment()
    list(host = Sys.info()[["nodename"]], cores = max(1L, parallel::detectCores(), na.rm = TRUE),
         gpus = if (gpu_available()) gs_state$count else 0L,
         threads = if (!is.null(getOption("gpustats.threads"))) gs_threads(call),
         gpu = if (!is.null(getOption("gpustats.gpus"))) gpu_option_id(call))
  })
}

vecchia_worker_open <- function(part) {
  vecchia_worker_run({
    old <- options(gpustats.threads = part$threads, gpustats.gpus = part$gpu)
    on.exit(options(old))
    n <- nrow(part$locs)
    nn <- vecchia_piece_neighbors(part$locs, part$m, part$distance, part$halo, environment())
    vc <- vecchia_open(part$locs, ncol(nn) - 1L, distance = part$distance, device = part$device, call = environment(),
                       group = !is.null(part$blocks), halo = part$halo,
                       neighbors = list(order = seq_len(n), neighbors = nn, blocks = part$blocks, ordering = "none"))
    vc$neighbors <- vc$blocks <- NULL
    X <- part$X
    storage.mode(X) <- "double"
    assign(part$key, list(vc = vc, y = as.double(part$y), X = X, threads = part$threads, gpu = part$gpu),
           envir = vecchia_workers)
    list(device = vc$device)
  })
}

# The conditioning sets of a piece's points (locs in the ordering), found
# again where the piece is opened rather than sent: the m nearest earlier
# points of an own point are all local (the halo holds them), and the
# local points keep the ordering's order, so the search among them gives
# the sets the driver found (ties to the lower index alike). A piece is 40
# bytes a point of locations, data and labels instead of 164 with the
# sets, and the search is threaded. The halo's rows hold the point alone.
vecchia_piece_neighbors <- function(locs, m, distance, halo, call) {
  width <- min(m, nrow(locs) - 1L)
  nn <- gs_call(.Call(gs_r_vecchia_neighbors, vecchia_search_points(locs, distance), as.integer(width), gs_threads(call),
                      NULL), call)
  attr(nn, "duplicate") <- NULL
  nn[halo, -1L] <- NA_integer_
  nn
}

vecchia_worker_sums <- function(key, model, bits) {
  vecchia_worker_run({
    w <- get(key, envir = vecchia_workers)
    old <- options(gpustats.threads = w$threads, gpustats.gpus = w$gpu)
    on.exit(options(old))
    gs_threads(environment())
    gs_call(.Call(gs_r_vecchia_grad_info, w$vc$ptr, model, bits, w$y, w$X, w$vc$order, NULL), environment())
  })
}

vecchia_worker_close <- function(key) {
  w <- get0(key, envir = vecchia_workers)
  if (!is.null(w)) {
    vecchia_close(w$vc)
    rm(list = key, envir = vecchia_workers)
  }
  invisible(NULL)
}


# Kriging over the workers of a cluster (predict(cluster =) of a Vecchia
# fit). Each new location is conditioned on its m_pred nearest
# observations alone, so the new locations split into regions
# (spatial_cells()) and a worker gets its region's locations with the
# observations their sets name; it finds the same sets among them (the
# observations keep their order, so ties go to the lower index alike) and
# returns its part of vecchia_krige()'s list, which the driver puts back in
# the order of newlocs. Arguments as vecchia_krige()'s; X and X0 matrices.
vecchia_cluster_krige <- function(cl, locs, resid, newlocs, params, m_pred, X, X0, distance, device, call, label,
                                  family) {
  n0 <- nrow(newlocs)
  vecchia_check_m_pred(m_pred, nrow(locs), call)
  near <- vecchia_nearest_observed(locs, newlocs, m_pred, distance, call, label)
  k <- min(length(cl), n0)
  cell <- spatial_cells(vecchia_search_points(newlocs, distance), k)
  setting <- vecchia_worker_settings(cl, call)
  parts <- lapply(seq_len(k), function(j) {
    rows <- which(cell == j)
    obs <- sort(unique(as.vector(near[rows, , drop = FALSE])))
    list(locs = locs[obs, , drop = FALSE], resid = resid[obs], X = X[obs, , drop = FALSE],
         newlocs = newlocs[rows, , drop = FALSE], X0 = X0[rows, , drop = FALSE], params = params, m_pred = m_pred,
         distance = distance, device = device, family = family, label = label, threads = setting$threads[j],
         gpu = setting$gpu[j])
  })
  answers <- vecchia_cluster_answers(parallel::clusterApply(cl[seq_len(k)], parts, vecchia_worker_krige), call)
  vecchia_cluster_errors(answers, call)
  out <- list(mean = numeric(n0), var = numeric(n0), xres = matrix(0, n0, ncol(X)), neighbors = near)
  for (j in seq_len(k)) {
    rows <- cell == j
    out$mean[rows] <- answers[[j]]$mean
    out$var[rows] <- answers[[j]]$var
    out$xres[rows, ] <- answers[[j]]$xres
  }
  out
}

vecchia_worker_krige <- function(part) {
  vecchia_worker_run({
    old <- options(gpustats.threads = part$threads, gpustats.gpus = part$gpu)
    on.exit(options(old))
    k <- vecchia_krige(part$locs, part$resid, part$newlocs, part$params, part$m_pred, part$X, part$X0, part$distance,
                       part$device, environment(), part$label, part$family)
    k[c("mean", "var", "xres")]
  })
}
