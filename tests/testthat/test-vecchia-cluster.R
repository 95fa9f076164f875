# The Vecchia likelihood split over the workers of a parallel cluster: the
# one-process values to rounding, the same fit, the workers' failures
# named, the cluster's state kept sound.

# A local PSOCK cluster of k workers that load gpustats from the library
# the tests run on, stopped when the file's tests end.
test_cluster <- function(k) {
  cl <- parallel::makeCluster(k)
  withr::defer(parallel::stopCluster(cl), envir = testthat::teardown_env())
  # evaluated on the workers: base::.libPaths itself would go as a copy, setting
  # the copy's paths only (the workers found gpustats through R_LIBS alone)
  parallel::clusterCall(cl, base::eval, call(".libPaths", .libPaths()))
  cl
}

# R CMD check --as-cran lets the tests start 2 worker processes at most
# (parallel's _R_CHECK_LIMIT_CORES_): the cases of 3 workers then run on 2.
three_workers <- tolower(Sys.getenv("_R_CHECK_LIMIT_CORES_", "")) %in% c("", "false")
cl2 <- test_cluster(2)
cl3 <- if (three_workers) test_cluster(3) else cl2

cluster_sums <- function(case, m, group, cl, deriv = c("sigma2", "range", "smoothness", "nugget")) {
  nb <- vecchia_neighbors(case$locs, m = m, group = group)
  engine <- gpustats:::vecchia_cluster_open(cl, nb, case$y, case$X, group, "cpu", environment())
  on.exit(gpustats:::vecchia_close(engine))
  gpustats:::vecchia_loglik_grad_info(engine, case$params, case$y, case$X, deriv = deriv, label = "test")
}

one_process_sums <- function(case, m, group, deriv = c("sigma2", "range", "smoothness", "nugget")) {
  vc <- gpustats:::vecchia_open(case$locs, m, device = "cpu", group = group, label = "test")
  on.exit(gpustats:::vecchia_close(vc))
  gpustats:::vecchia_loglik_grad_info(vc, case$params, case$y, case$X, deriv = deriv, label = "test")
}

relative <- function(a, b) max(abs(a - b)) / max(abs(b))

test_that("the likelihood, gradient and information over 2 and 3 workers are the one-process ones", {
  case <- vecchia_case(2500, seed = 41)
  for (group in c(TRUE, FALSE)) {
    one <- one_process_sums(case, 15, group)
    for (cl in list(cl2, cl3)) {
      split <- cluster_sums(case, 15, group, cl)
      expect_lt(abs(split$loglik / one$loglik - 1), 1e-10)
      expect_lt(relative(split$grad, one$grad), 1e-10)
      expect_lt(relative(split$info, one$info), 1e-10)
      expect_lt(relative(split$beta, one$beta), 1e-10)
      expect_lt(relative(split$betacov, one$betacov), 1e-10)
    }
  }
  # the public call, with and without covariates
  p <- case$params
  for (X in list(NULL, case$X)) {
    expect_lt(abs(vecchia_loglik(case$y, case$locs, p[1], p[2], p[3], p[4], m = 15, X = X, device = "cpu", cluster = cl3) /
                    vecchia_loglik(case$y, case$locs, p[1], p[2], p[3], p[4], m = 15, X = X, device = "cpu") - 1), 1e-10)
  }
  # great-circle distances: the pieces cut on the sphere, the sets found again there
  set.seed(49)
  lonlat <- cbind(runif(800, -30, 30), runif(800, -20, 20))
  yl <- rnorm(800)
  gc <- function(...) vecchia_loglik(yl, lonlat, 1, 500, 0.5, 0.1, m = 10, distance = "great_circle", device = "cpu", ...)
  expect_lt(abs(gc(cluster = cl3) / gc() - 1), 1e-10)
  # a structure of vecchia_neighbors() as the locations
  nb <- vecchia_neighbors(case$locs, m = 15, group = TRUE)
  expect_lt(abs(vecchia_loglik(case$y, nb, p[1], p[2], p[3], p[4], device = "cpu", cluster = cl2) /
                  vecchia_loglik(case$y, nb, p[1], p[2], p[3], p[4], device = "cpu") - 1), 1e-10)
})

test_that("the halo of a piece holds every point its sets name, and only those, and gives the same sets", {
  case <- vecchia_case(600, seed = 42)
  for (group in c(TRUE, FALSE)) {
    nb <- vecchia_neighbors(case$locs, m = 8, group = group)
    pieces <- gpustats:::vecchia_partition(case$locs[nb$order, ], nb$neighbors, nb$blocks, 3L, environment())
    piece_of_point <- integer(600)
    for (j in seq_along(pieces)) {
      piece <- pieces[[j]]
      own <- piece$local[!piece$halo]
      expect_true(all(piece_of_point[own] == 0L)) # no point in two pieces
      piece_of_point[own] <- j
      rows <- nb$neighbors[own, , drop = FALSE]
      expect_setequal(piece$local, unique(rows[!is.na(rows)]))
      # the sets found again among the piece's points are the driver's
      found <- gpustats:::vecchia_piece_neighbors(case$locs[nb$order[piece$local], ], 8L, "euclidean", piece$halo,
                                                  environment())
      expect_equal(found[!piece$halo, ], matrix(match(rows, piece$local), nrow(rows)))
      expect_true(all(is.na(found[piece$halo, -1L])))
    }
    expect_true(all(piece_of_point > 0L))
    # regions of space: the halo is a small part of a piece, the pieces about even
    expect_lt(max(vapply(pieces, function(piece) mean(piece$halo), 0)), 0.5)
    expect_lt(max(table(piece_of_point)) / min(table(piece_of_point)), 1.5)
    # each block whole in one piece
    if (group) expect_true(all(tapply(piece_of_point, nb$blocks, function(x) length(unique(x))) == 1L))
  }
})

test_that("a fit over a cluster is the one-process fit", {
  case <- vecchia_case(1500, seed = 43)
  quiet <- list(trace = FALSE)
  one <- gp_fit(case$y, case$locs, X = case$X, approx = "vecchia", m = 12, device = "cpu", control = quiet)
  for (cl in list(cl2, cl3)) {
    split <- gp_fit(case$y, case$locs, X = case$X, approx = "vecchia", m = 12, device = "cpu", control = quiet,
                    cluster = cl)
    expect_lt(relative(coef(split), coef(one)), 1e-6)
    expect_lt(relative(sqrt(diag(vcov(split))), sqrt(diag(vcov(one)))), 1e-6)
    expect_lt(abs(logLik(split) / logLik(one) - 1), 1e-10)
    expect_match(split$backend, sprintf("cluster of %d workers \\(cpu\\)", length(cl)))
  }
  # approx = "auto" with a cluster is the Vecchia fit
  auto <- gp_fit(case$y, case$locs, X = case$X, approx = "auto", m = 12, device = "cpu", control = quiet, cluster = cl2)
  expect_identical(auto$approx, "vecchia")
})

test_that("predictions over a cluster are the one-process predictions", {
  case <- vecchia_case(1200, seed = 47)
  quiet <- list(trace = FALSE)
  d <- data.frame(z = as.vector(case$y), x = case$locs[, 1], y = case$locs[, 2], w = case$X[, 3])
  fit <- gp_fit(z ~ w, d, coords = ~ x + y, approx = "vecchia", m = 12, device = "cpu", control = quiet)
  set.seed(48)
  new <- data.frame(x = runif(700), y = runif(700))
  new$w <- sin(3 * new$y)
  one <- predict(fit, new, se.fit = TRUE, interval = "prediction", device = "cpu")
  for (cl in list(cl2, cl3)) {
    split <- predict(fit, new, se.fit = TRUE, interval = "prediction", device = "cpu", cluster = cl)
    expect_lt(relative(split$fit, one$fit), 1e-12)
    expect_lt(relative(split$se.fit, one$se.fit), 1e-12)
  }
  # fewer new locations than workers, and m_pred up to every observation
  expect_equal(predict(fit, new[1, ], m_pred = 1200, device = "cpu", cluster = cl3),
               predict(fit, new[1, ], m_pred = 1200, device = "cpu"), tolerance = 1e-12)
  exact <- gp_fit(z ~ w, d[1:200, ], coords = ~ x + y, device = "cpu", control = quiet)
  expect_error(predict(exact, new, cluster = cl2), "Vecchia fit", class = "gpustats_error_argument")
  expect_error(predict(fit, new, cluster = 2), "cluster of the", class = "gpustats_error_argument")
  # a worker that fails is named
  parallel::clusterCall(cl2, base::options, gpustats.threads = -1)
  on.exit(parallel::clusterCall(cl2, base::options, gpustats.threads = NULL))
  expect_error(predict(fit, new, device = "cpu", cluster = cl2), "Worker 1 of the cluster \\(host")
})

test_that("the workers take their share of a host's cores, or their own setting", {
  set <- gpustats:::vecchia_worker_settings(cl2, environment())
  cores <- max(1L, parallel::detectCores(), na.rm = TRUE)
  expect_equal(set$threads, rep(max(1L, cores %/% 2L), 2))
  parallel::clusterCall(cl2, base::options, gpustats.threads = 1L)
  on.exit(parallel::clusterCall(cl2, base::options, gpustats.threads = NULL))
  expect_equal(gpustats:::vecchia_worker_settings(cl2, environment())$threads, c(1L, 1L))
})

test_that("bad clusters and failing workers give clear errors, and the cluster stays usable", {
  case <- vecchia_case(400, seed = 44)
  p <- case$params
  ll <- function(...) vecchia_loglik(case$y, case$locs, p[1], p[2], p[3], p[4], m = 10, device = "cpu", ...)
  expect_error(ll(cluster = 2), class = "gpustats_error_argument")
  expect_error(ll(cluster = list()), "cluster of the")
  # a list that says it is a cluster but holds no workers parallel can reach
  fake <- structure(list(1), class = c("SOCKcluster", "cluster"))
  expect_error(ll(cluster = fake), "cluster of the", class = "gpustats_error_argument")
  expect_error(gp_fit(case$y, case$locs, approx = "exact", cluster = cl2), class = "gpustats_error_argument")
  # more workers than blocks
  tiny <- vecchia_case(2, seed = 45)
  if (three_workers) {
    expect_error(vecchia_loglik(tiny$y, tiny$locs, 1, 0.1, 0.5, 0.1, m = 1, group = FALSE, device = "cpu", cluster = cl3),
                 "3 workers")
  }
  # a piece with fewer points than m + 1
  few <- vecchia_case(5, seed = 46)
  for (group in c(TRUE, FALSE)) {
    cl <- if (group) cl2 else cl3 # 5 points make 2 blocks
    expect_lt(abs(vecchia_loglik(few$y, few$locs, 1, 0.1, 0.5, 0.1, m = 4, group = group, device = "cpu", cluster = cl) /
                    vecchia_loglik(few$y, few$locs, 1, 0.1, 0.5, 0.1, m = 4, group = group, device = "cpu") - 1), 1e-12)
  }
  # a worker whose session cannot run the call: named with its host
  parallel::clusterCall(cl2, base::options, gpustats.threads = -1)
  expect_error(ll(cluster = cl2), "Worker 1 of the cluster \\(host")
  parallel::clusterCall(cl2, base::options, gpustats.threads = NULL)
  # a conditioning set that is not positive definite: the same condition as
  # with one process
  expect_error(vecchia_loglik(case$y, case$locs, 1, 5, 50, 0, m = 30, device = "cpu", cluster = cl2),
               class = "gpustats_error_not_pd")
  # the cluster still serves, and the workers hold nothing after the calls
  expect_lt(abs(ll(cluster = cl2) / ll() - 1), 1e-10)
  held <- parallel::clusterEvalQ(cl2, length(ls(gpustats:::vecchia_workers)))
  expect_equal(unlist(held), c(0L, 0L))
})

test_that("workers on a GPU give the one-process GPU and CPU sums", {
  skip_without_gpu()
  case <- vecchia_case(20000, seed = 48)
  for (group in c(TRUE, FALSE)) {
    nb <- vecchia_neighbors(case$locs, m = 30, group = group)
    vc <- gpustats:::vecchia_open(case$locs, 30, device = "gpu", group = group, neighbors = nb, label = "test")
    gpu <- gpustats:::vecchia_loglik_grad_info(vc, case$params, case$y, case$X, label = "test")
    gpustats:::vecchia_close(vc)
    cpu <- one_process_sums(case, 30, group)
    engine <- gpustats:::vecchia_cluster_open(cl2, nb, case$y, case$X, group, "gpu", environment())
    expect_true(all(engine$device >= 0L))
    split <- gpustats:::vecchia_loglik_grad_info(engine, case$params, case$y, case$X, label = "test")
    gpustats:::vecchia_close(engine)
    expect_lt(abs(split$loglik / gpu$loglik - 1), 1e-10)
    expect_lt(relative(split$grad, gpu$grad), 1e-10)
    expect_lt(relative(split$info, gpu$info), 1e-10)
    expect_lt(abs(split$loglik / cpu$loglik - 1), 1e-8)
    expect_lt(relative(split$info, cpu$info), 1e-8)
  }
})

test_that("an MPI cluster (Rmpi) gives the one-process likelihood and fit", {
  skip_if_not_installed("Rmpi")
  skip_if_not_installed("snow")
  script <- test_path("..", "..", "tools", "cluster", "mpi-check.R")
  skip_if_not(file.exists(script), "tools/cluster/mpi-check.R is not at hand")
  # its own process: the MPI run time ends the session that starts it
  out <- suppressWarnings(system2(file.path(R.home("bin"), "Rscript"), c(shQuote(script), "2"), stdout = TRUE,
                                  stderr = TRUE, timeout = 120,
                                  env = c("OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1",
                                          "OMPI_MCA_rmaps_base_oversubscribe=1",
                                          paste0("R_LIBS=", shQuote(paste(.libPaths(), collapse = .Platform$path.sep))))))
  line <- grep("^MPI cluster of", out, value = TRUE)
  skip_if(!length(line) && any(grepl("spawn|MPI_Init|libmpi", out)), "MPI workers could not be started here")
  expect_length(line, 1L)
  expect_match(line, "within the bars$")
})

test_that("the test workers load gpustats from the library the tests run on", {
  # base::.libPaths sent by clusterCall() set a copy's paths, so workers
  # without R_LIBS (the sanitizer runs) found no gpustats or another one
  expect_identical(unlist(parallel::clusterEvalQ(cl2, .libPaths()[1])), rep(.libPaths()[1], 2))
  expect_identical(unlist(parallel::clusterEvalQ(cl2, find.package("gpustats"))), rep(find.package("gpustats"), 2))
})
