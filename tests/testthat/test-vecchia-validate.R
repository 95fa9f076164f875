# Vecchia structures altered after they were made: print(), and the
# likelihoods for a structure given as `locs`, validate it and name the bad
# field.

small_locs <- function() {
  set.seed(71)
  cbind(runif(30, -20, 20), runif(30, -20, 20))
}

nb_methods <- list(
  print = function(x) print(x),
  vecchia_loglik = function(x) vecchia_loglik(rep(0.5, 30), x, 1, 10, 1.5, 0.1, device = "cpu"),
  gp_loglik = function(x) gp_loglik(rep(0.5, 30), x, 1, 10, 1.5, 0.1, approx = "vecchia", device = "cpu")
)

test_that("every kind of structure passes every method", {
  L <- small_locs()
  structures <- list(vecchia_neighbors(L, m = 4), vecchia_neighbors(L, m = 4, group = TRUE),
                     vecchia_neighbors(L, m = 0), vecchia_neighbors(L, m = 3, ordering = "random"),
                     vecchia_neighbors(L, m = 3, ordering = "none"), vecchia_neighbors(L, m = 3, ordering = "maxmin_approx"),
                     vecchia_neighbors(L, m = 3, distance = "great_circle"))
  for (nb in structures) {
    expect_identical(validate_vecchia_neighbors(nb, "x", environment()), nb)
    for (method in nb_methods) expect_no_error(capture.output(method(nb)))
  }
})

test_that("a structure with a field removed or of the wrong type is refused by every method, naming the field", {
  nb <- vecchia_neighbors(small_locs(), m = 4, group = TRUE)
  expect_fields_validated(nb, vecchia_neighbors_fields, nb_methods, optional = "blocks")
  expect_empty_refused("vecchia_neighbors", nb_methods)
  bad <- nb
  bad$order <- rev(bad$order)[c(1, 1:29)]
  expect_error(print(bad), "field order must be a permutation of the 30 locations", class = "gpustats_error_argument")
  bad <- nb
  bad$m <- 5L
  expect_error(vecchia_loglik(rep(0.5, 30), bad, 1, 10, 1.5, 0.1, device = "cpu"),
               "`locs` is not a valid <vecchia_neighbors>: its field neighbors must be .* m \\+ 1 \\(6\\) columns",
               class = "gpustats_error_argument")
  bad <- nb
  attr(bad, "engine") <- NULL
  expect_error(print(bad), "attribute engine must be an environment", class = "gpustats_error_argument")
})

test_that("a structure checked once is checked again after any field changes", {
  nb <- vecchia_neighbors(small_locs(), m = 4)
  expect_no_error(nb_methods$vecchia_loglik(nb)) # checked: its fields are kept
  for (change in list(function(x) { x$order[1:2] <- x$order[c(1, 1)]; x },
                      function(x) { x$neighbors[3, 2] <- 5L; x }, # a later point: refused by the native check
                      function(x) { x$locs[1, 1] <- NA; x },
                      function(x) { x$m <- 3L; x })) {
    bad <- change(nb)
    expect_error(nb_methods$vecchia_loglik(bad), class = "gpustats_error_argument")
    expect_no_error(nb_methods$vecchia_loglik(nb)) # the original is still valid
  }
  nb$order[1:2] <- nb$order[1:2] # changed in place, the same values: checked again and accepted
  expect_no_error(nb_methods$vecchia_loglik(nb))
})
