# The grouped Vecchia approximation (Guinness 2021): the blocks against the
# grouping rule written out in R and GpGp's group_obs, the likelihood against
# the exact one, derivatives against differences, the information against
# dense algebra and GpGp, the GPU against the CPU.

# GpGp's grouping rule, step by step: slot j's block takes slot k's when the
# squared size of the union of their rows is at most the sum of the squared
# sizes (NA counted once, as unique() does).
group_rule <- function(nn) {
  n <- nrow(nn)
  slots <- as.list(seq_len(n))
  u <- function(rows) length(unique(c(nn[rows, ])))
  for (col in seq_len(ncol(nn))[-1]) {
    for (j in which(!is.na(nn[, col]))) {
      k <- nn[j, col]
      if (length(slots[[k]]) && u(c(slots[[j]], slots[[k]]))^2 <= u(slots[[j]])^2 + u(slots[[k]])^2) {
        slots[[j]] <- c(slots[[j]], slots[[k]])
        slots[[k]] <- integer()
      }
    }
  }
  slots <- slots[lengths(slots) > 0]
  blocks <- integer(n)
  for (b in seq_along(slots)) blocks[slots[[b]]] <- b
  blocks
}

# Per response of each block, the dense covariances of the set before it and
# with it: the grouped law's pieces, for the information below.
block_sets <- function(nb) {
  sets <- list()
  for (pts in split(seq_along(nb$blocks), nb$blocks)) {
    union <- sort(unique(stats::na.omit(c(nb$neighbors[pts, ]))))
    for (i in pts) sets[[length(sets) + 1L]] <- union[union <= i]
  }
  sets
}

test_that("the blocks follow GpGp's grouping rule and partition the points", {
  set.seed(4)
  locs <- matrix(runif(2 * 300), ncol = 2)
  for (m in c(1, 4, 10)) {
    nb <- vecchia_neighbors(locs, m = m, group = TRUE)
    expect_identical(nb$blocks, group_rule(nb$neighbors), info = paste("m =", m))
    expect_identical(nb[c("order", "neighbors", "ordering")], vecchia_neighbors(locs, m = m)[c("order", "neighbors", "ordering")])
  }
  expect_gt(max(tabulate(nb$blocks)), 1)
  expect_null(vecchia_neighbors(locs, m = 4)$blocks)
  expect_error(vecchia_neighbors(locs, m = 4, group = NA), class = "gpustats_error_argument")
  expect_error(vecchia_loglik(rnorm(300), locs, 1, 0.1, 0.5, m = 4, group = "yes"), class = "gpustats_error_argument")
})

test_that("the blocks are the same on one thread and on two", {
  # several threads run the merge tests level by level (vecchia_group.c), one
  # thread in GpGp's order: the blocks must be identical, and the rule's
  blocks <- function(nn, threads) {
    old <- options(gpustats.threads = threads)
    on.exit(options(old))
    gpustats:::vecchia_group(nn, environment(), "blocks")
  }
  set.seed(6)
  locs <- matrix(runif(2 * 4000), ncol = 2)
  nn <- vecchia_neighbors(locs, m = 15)$neighbors
  one <- blocks(nn, 1)
  expect_identical(blocks(nn, 2), one)
  expect_identical(blocks(nn, 3), one)
  expect_gt(max(tabulate(one)), 2)
  small <- vecchia_neighbors(locs[1:600, ], m = 6)$neighbors
  expect_identical(blocks(small, 2), group_rule(small))
  expect_identical(blocks(small, 1), group_rule(small))
})

test_that("the blocks are GpGp's group_obs", {
  skip_if_not_installed("GpGp")
  set.seed(5)
  locs <- matrix(runif(2 * 500), ncol = 2)
  nb <- vecchia_neighbors(locs, m = 12, group = TRUE)
  ref <- GpGp::group_obs(nb$neighbors)
  ours <- split(seq_along(nb$blocks), nb$blocks)
  theirs <- split(ref$global_resp_inds, rep(seq_along(ref$last_resp_of_block), diff(c(0, ref$last_resp_of_block))))
  expect_identical(unname(lapply(ours, as.numeric)), unname(lapply(theirs, as.numeric)))
})

test_that("with m = n - 1 the grouped likelihood is the exact one", {
  case <- vecchia_case(100)
  p <- case$params
  exact <- gp_loglik(case$y, case$locs, p[1], p[2], p[3], p[4], device = "cpu")
  v <- vecchia_loglik(case$y, case$locs, p[1], p[2], p[3], p[4], m = 99, device = "cpu", group = TRUE)
  expect_lt(abs(v - exact), 1e-10 * abs(exact))
  expect_lt(abs(attr(v, "logdet") - attr(exact, "logdet")), 1e-10 * abs(attr(exact, "logdet")))
})

test_that("grouping brings the law closer to the exact one (Guinness 2021)", {
  # each point conditions on a superset of its own neighbours, so no
  # conditional variance grows: the KL divergence from the exact law,
  # (log |S_V| - log |S|) / 2, is not larger than without groups
  case <- vecchia_case(400, seed = 2)
  p <- case$params
  exact <- attr(gp_loglik(case$y, case$locs, p[1], p[2], p[3], p[4], device = "cpu"), "logdet")
  for (m in c(3, 8, 15)) {
    kl <- vapply(c(FALSE, TRUE), function(g) {
      v <- vecchia_loglik(case$y, case$locs, p[1], p[2], p[3], p[4], m = m, device = "cpu", group = g)
      0.5 * (attr(v, "logdet") - exact)
    }, 0)
    expect_gt(kl[2], 0)
    expect_lt(kl[2], if (m >= 8) 0.75 * kl[1] else kl[1])
  }
})

test_that("the grouped gradient matches central differences, for ML and REML", {
  case <- vecchia_case(150, seed = 3)
  p <- case$params
  vc <- gpustats:::vecchia_open(case$locs, 6, device = "cpu", group = TRUE, label = "test")
  on.exit(gpustats:::vecchia_close(vc))
  expect_gt(max(tabulate(vc$blocks)), 1)
  for (method in c("ml", "reml")) {
    ll <- function(q) gpustats:::vecchia_loglik_grad_info(vc, q, case$y, case$X, deriv = character(), method = method, label = "test")$loglik
    r <- gpustats:::vecchia_loglik_grad_info(vc, p, case$y, case$X, method = method, label = "test")
    fd <- vapply(1:4, function(j) {
      h <- 1e-5 * p[j]
      (ll(replace(p, j, p[j] + h)) - ll(replace(p, j, p[j] - h))) / (2 * h)
    }, 0)
    expect_lt(max(abs(r$grad - fd) / pmax(abs(fd), 1)), 1e-6, label = method)
  }
})

test_that("the grouped Fisher information is the expected information of its conditional laws", {
  case <- vecchia_case(60, seed = 6)
  p <- case$params
  nb <- vecchia_neighbors(case$locs, m = 5, group = TRUE)
  vc <- gpustats:::vecchia_open(case$locs, 5, device = "cpu", neighbors = nb, group = TRUE, label = "test")
  on.exit(gpustats:::vecchia_close(vc))
  info <- gpustats:::vecchia_loglik_grad_info(vc, p, case$y, label = "test")$info
  # dense: the information of (set, point) less that of the set, per point,
  # the derivatives of the covariance by central differences
  lo <- case$locs[nb$order, ]
  S <- function(q, idx) matern_cov(lo[idx, , drop = FALSE], sigma2 = q[1], range = q[2], smoothness = q[3], nugget = q[4], device = "cpu")
  dS <- function(idx) lapply(1:4, function(j) {
    h <- 1e-5 * p[j]
    (S(replace(p, j, p[j] + h), idx) - S(replace(p, j, p[j] - h), idx)) / (2 * h)
  })
  law_info <- function(idx) {
    if (!length(idx)) return(matrix(0, 4, 4))
    A <- lapply(dS(idx), function(d) solve(S(p, idx), d))
    outer(1:4, 1:4, Vectorize(function(j, l) 0.5 * sum(A[[j]] * t(A[[l]]))))
  }
  dense <- Reduce(`+`, lapply(block_sets(nb), function(set) law_info(set) - law_info(set[-length(set)])))
  expect_lt(max(abs(info - dense)) / max(abs(dense)), 1e-6)
})

test_that("the grouped likelihood, gradient and information equal GpGp's", {
  skip_if_not_installed("GpGp")
  case <- vecchia_case(400, seed = 10)
  p <- case$params
  vc <- gpustats:::vecchia_open(case$locs, 15, device = "cpu", group = TRUE, label = "test")
  on.exit(gpustats:::vecchia_close(vc))
  lo <- case$locs[vc$order, ]
  yo <- case$y[vc$order]
  gp <- c(p[1:3], p[4] / p[1]) # GpGp's matern_isotropic: nugget / sigma2
  groups <- GpGp::group_obs(vc$neighbors)
  ref <- GpGp::vecchia_grouped_profbeta_loglik_grad_info(gp, "matern_isotropic", yo, case$X[vc$order, ], lo, groups)
  r <- gpustats:::vecchia_loglik_grad_info(vc, p, case$y, case$X, label = "test")
  expect_lt(abs(r$loglik / ref$loglik - 1), 1e-10)
  expect_lt(max(abs(r$beta / ref$betahat - 1)), 1e-10)
  J <- diag(4) # the chain rule to GpGp's parameters: nugget = sigma2 * ratio
  J[4, 1] <- gp[4]
  J[4, 4] <- p[1]
  grad <- drop(crossprod(J, r$grad))
  info <- crossprod(J, r$info %*% J)
  # GpGp differences the smoothness forward with step 1e-8
  analytic <- c(1, 2, 4)
  expect_lt(max(abs(grad[analytic] / ref$grad[analytic] - 1)), 1e-8)
  expect_lt(abs(grad[3] / ref$grad[3] - 1), 1e-5)
  expect_lt(max(abs(info - ref$info)[analytic, analytic] / abs(ref$info[analytic, analytic])), 1e-8)
  expect_lt(max(abs(info - ref$info) / abs(ref$info)), 1e-5)
})

test_that("the grouped approximation gives no factor, and gp_fit takes group", {
  case <- vecchia_case(200, seed = 7)
  vc <- gpustats:::vecchia_open(case$locs, 5, device = "cpu", group = TRUE, label = "test")
  on.exit(gpustats:::vecchia_close(vc))
  expect_error(gpustats:::vecchia_factor(vc, case$params), class = "gpustats_error_argument")
  fits <- lapply(c(TRUE, FALSE), function(g) {
    gp_fit(case$y, case$locs, approx = "vecchia", m = 10, group = g, device = "cpu", control = list(trace = FALSE))
  })
  expect_match(fits[[1]]$backend, "grouped")
  expect_true(all(is.finite(fits[[1]]$covariance)))
  expect_lt(max(abs(log(fits[[1]]$covariance / fits[[2]]$covariance))), 0.5)
  expect_error(gp_fit(case$y, case$locs, approx = "vecchia", m = 10, group = 1, device = "cpu"), class = "gpustats_error_argument")
})

test_that("the grouped approximation is the default of every Vecchia likelihood", {
  case <- vecchia_case(300, seed = 8)
  p <- case$params
  expect_identical(vecchia_loglik(case$y, case$locs, p[1], p[2], p[3], p[4], m = 8, device = "cpu"),
                   vecchia_loglik(case$y, case$locs, p[1], p[2], p[3], p[4], m = 8, device = "cpu", group = TRUE))
  quiet <- list(trace = FALSE)
  fit <- gp_fit(case$y, case$locs, approx = "vecchia", m = 8, method = "ml", device = "cpu", control = quiet)
  expect_true(fit$group)
  expect_match(fit$backend, "grouped")
  expect_identical(fit$loglik, gp_fit(case$y, case$locs, approx = "vecchia", m = 8, method = "ml", group = TRUE,
                                      device = "cpu", control = quiet)$loglik)
  # the fit's log-likelihood is the grouped one at its estimates
  cv <- fit$covariance
  ll <- vecchia_loglik(case$y, case$locs, cv[["sigma2"]], cv[["range"]], cv[["smoothness"]], cv[["nugget"]], m = 8,
                       X = matrix(1, 300, 1), device = "cpu")
  expect_equal(fit$loglik, as.numeric(ll), tolerance = 1e-10)
  # a profile refits with the fit's own approximation: at the estimate it is the maximum
  ungrouped <- gp_fit(case$y, case$locs, approx = "vecchia", m = 8, method = "ml", group = FALSE, device = "cpu",
                      control = quiet)
  expect_false(ungrouped$group)
  at_estimate <- gpustats:::profile_loglik(ungrouped, "range", ungrouped$covariance[["range"]])
  expect_lt(abs(at_estimate - ungrouped$loglik), 1e-3)
})

test_that("the same gp_fit() call fits the same approximation on the CPU and a GPU", {
  skip_without_gpu()
  set.seed(21)
  n <- 20000
  locs <- matrix(runif(2 * n), ncol = 2)
  y <- 1 + gp_simulate(locs, sigma2 = 1, range = 0.05, smoothness = 0.8, nugget = 0.1, device = "gpu")
  fits <- lapply(c("cpu", "gpu"), function(dev) {
    gp_fit(y, locs, approx = "vecchia", m = 30, method = "ml", device = dev, control = list(trace = FALSE))
  })
  expect_true(fits[[2]]$group)
  expect_lt(abs(fits[[2]]$loglik / fits[[1]]$loglik - 1), 1e-8)
  expect_lt(max(abs(fits[[2]]$covariance / fits[[1]]$covariance - 1)), 1e-6)
  se <- lapply(fits, function(f) sqrt(diag(vcov(f))))
  expect_lt(max(abs(se[[2]] / se[[1]] - 1)), 1e-6)
})

test_that("the GPU gives the CPU's grouped likelihood, gradient and information", {
  skip_without_gpu()
  p <- c(sigma2 = 1.1, range = 0.05, smoothness = 1.3, nugget = 0.2)
  # m = 120: blocks beyond the shared memory, from global memory
  for (m in c(30, 120)) {
    set.seed(12)
    n <- if (m == 30) 20000 else 3000
    locs <- matrix(runif(2 * n), ncol = 2)
    y <- rnorm(n)
    X <- cbind(1, locs)
    nb <- vecchia_neighbors(locs, m = m, group = TRUE)
    open <- function(device) gpustats:::vecchia_open(locs, m, device = device, neighbors = nb, group = TRUE, label = "test")
    cpu <- open("cpu")
    gpu <- open("gpu")
    rc <- gpustats:::vecchia_loglik_grad_info(cpu, p, y, X, label = "test")
    rg <- gpustats:::vecchia_loglik_grad_info(gpu, p, y, X, label = "test")
    gpustats:::vecchia_close(cpu)
    gpustats:::vecchia_close(gpu)
    expect_lt(abs(rg$loglik / rc$loglik - 1), 1e-12, label = paste("m =", m))
    expect_lt(max(abs(rg$grad - rc$grad) / abs(rc$grad)), 1e-10)
    expect_lt(max(abs(rg$info - rc$info) / abs(rc$info)), 1e-10)
  }
})
