# The likelihood search of gp_fit(), shared by the exact and the Vecchia fit:
# nlminb with a stopping rule of its own.
#
# nlminb's relative function convergence (rel.tol) compares the decrease its
# quadratic model predicts with the objective. With gradients by forward
# differences, or from a likelihood whose rounding is not smooth (large
# factorizations), the predicted decrease stays above rel.tol long after the
# likelihood has stopped moving, and its X-convergence needs steps near 1e-8:
# at n = 2,000 the search went on for 3 iterations (12 evaluations of 25)
# after the log-likelihood had settled to 1e-9 and the parameters to 1e-7.
# So the search also stops once two consecutive points that nlminb
# evaluates differ by less than control$loglik.tol in the log-likelihood
# (relative to its size, at least 1) and control$par.tol in every parameter
# (relative to its size, at least 1; on the search's scales, where a log
# parameter's change is already relative). Tolerances of 0 turn the rule
# off: nlminb alone decides, as before the rule.

# nlminb from `start` on `objective` (to minimise), with `gradient` (never
# NULL: nlminb's own finite differences would be evaluations of the
# objective that the rule cannot tell from its steps) and `hessian` (or
# NULL), within `lower` and `upper`; `ctrl` as fit_control() gives it.
# nlminb's answer, or where the rule stopped it one of the same form at the
# best point evaluated (convergence 0).
search_nlminb <- function(start, objective, gradient, hessian = NULL, lower, upper, ctrl) {
  previous <- NULL # the point nlminb evaluated last
  best <- NULL
  iterations <- 0L # nlminb asks for the gradient once per iteration
  evaluations <- 0L
  watched <- function(theta) {
    f <- objective(theta)
    evaluations <<- evaluations + 1L
    if (is.null(best) || isTRUE(f < best$objective)) best <<- list(par = theta, objective = f)
    if (search_settled(previous, theta, f, ctrl)) {
      stop(structure(class = c("gpustats_search_settled", "condition"), list(message = "settled", call = NULL)))
    }
    previous <<- list(par = theta, objective = f)
    f
  }
  counted <- function(theta) {
    iterations <<- iterations + 1L
    gradient(theta)
  }
  control <- list(iter.max = ctrl$iter.max, eval.max = 4L * ctrl$iter.max, rel.tol = ctrl$rel.tol)
  tryCatch(
    stats::nlminb(start, watched, counted, hessian, lower = lower, upper = upper, control = control),
    gpustats_search_settled = function(cnd) {
      list(par = best$par, objective = best$objective, convergence = 0L, iterations = iterations,
           evaluations = c("function" = evaluations, gradient = iterations),
           message = "relative changes of the log-likelihood and the parameters below loglik.tol and par.tol")
    }
  )
}

# Whether the point theta, with objective f, and the point evaluated before
# it differ by less than the tolerances (see above). A point evaluated again
# says nothing: nlminb evaluates its last iterate once more before it
# returns, also when it stops on iter.max.
search_settled <- function(previous, theta, f, ctrl) {
  if (is.null(previous) || identical(unname(theta), unname(previous$par))) return(FALSE)
  if (!is.finite(f) || !is.finite(previous$objective)) return(FALSE)
  abs(f - previous$objective) < ctrl$loglik.tol * max(abs(f), 1) &&
    all(abs(theta - previous$par) < ctrl$par.tol * pmax(abs(theta), 1))
}
