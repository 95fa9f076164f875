# A vector field or a measurement function given as C expressions, one per
# component: checked against a small arithmetic language that C and R read
# alike, then turned into one C function that is compiled at run time with
# the package's own field arithmetic (gbees_field_math.h), by the C compiler
# for the CPU (gbees_compile.R) and by NVRTC for a GPU, so that both devices
# evaluate the same formulas with the same code.

# Functions the expressions may call: name -> number of arguments.
gbees_expression_functions <- c(
  sqrt = 1L, exp = 1L, log = 1L, log1p = 1L, expm1 = 1L, sin = 1L, cos = 1L, tan = 1L, asin = 1L, acos = 1L,
  atan = 1L, sinh = 1L, cosh = 1L, tanh = 1L, fabs = 1L, cbrt = 1L, atan2 = 2L, pow = 2L, hypot = 2L,
  fmin = 2L, fmax = 2L
)

# The parsed component expressions of `f` (the argument `arg`), checked;
# names: the states' (x1, x2, ... and state_names), t, pi and the constants
# in `par`.
gbees_expression_parse <- function(f, state_names, par, call, arg = "f") {
  if (length(par) && (!is.numeric(par) || is.null(names(par)) || any(!nzchar(names(par))) || any(!is.finite(par)))) {
    abort_arg("{.arg par} must be a named vector of finite numbers.", call)
  }
  states <- gbees_state_symbols(state_names)
  if (anyDuplicated(names(states))) {
    abort_arg("A state name such as {.val {names(states)[anyDuplicated(names(states))]}} would name two states.", call)
  }
  known <- c(names(states), "t", "pi", names(par))
  dup <- known[duplicated(known)]
  if (length(dup)) abort_arg("The name {.val {dup[1L]}} is given twice (states, {.arg par}, t and pi).", call)
  lapply(seq_along(f), function(i) {
    e <- tryCatch(str2lang(f[[i]]), error = function(err) {
      abort_arg(c("Component {i} of {.arg {arg}} does not parse: {.code {f[[i]]}}.", x = conditionMessage(err)), call)
    })
    problem <- gbees_expression_check(e, known)
    if (!is.null(problem)) abort_arg(c("Component {i} of {.arg {arg}}, {.code {f[[i]]}}: {problem}", i = paste(
      "Expressions may use numbers, the states, t, pi, the names in {.arg par}, + - * / ^, parentheses and",
      paste(names(gbees_expression_functions), collapse = ", "))), call)
    e
  })
}

# NULL, or what is wrong with the expression e.
gbees_expression_check <- function(e, known) {
  if (is.numeric(e)) return(if (length(e) == 1L && is.finite(e)) NULL else "numbers must be finite.")
  if (is.symbol(e)) {
    name <- as.character(e)
    return(if (name %in% known) NULL else sprintf("unknown name '%s'.", name))
  }
  if (!is.call(e) || !is.symbol(e[[1L]])) return("only arithmetic is allowed.")
  fn <- as.character(e[[1L]])
  args <- as.list(e)[-1L]
  arity <- if (fn %in% c("+", "-")) 1:2 else if (fn %in% c("*", "/", "^")) 2L else if (fn == "(") 1L else
    gbees_expression_functions[fn]
  if (is.na(arity[1L])) return(sprintf("'%s' is not an allowed function or operator.", fn))
  if (!length(args) %in% arity || !is.null(names(args))) {
    return(sprintf("'%s' takes %s unnamed argument%s.", fn, paste(arity, collapse = " or "),
                   if (max(arity) == 1L) "" else "s"))
  }
  for (a in args) {
    problem <- gbees_expression_check(a, known)
    if (!is.null(problem)) return(problem)
  }
  NULL
}

# CUDA C of a checked expression: every number a double literal (so that 1/2
# is 0.5, as in R), every operation parenthesized, x^2 as x * x (R's rule).
gbees_expression_c <- function(e, symbols) {
  if (is.numeric(e)) return(gbees_double_literal(e))
  if (is.symbol(e)) return(symbols[[as.character(e)]])
  fn <- as.character(e[[1L]])
  args <- vapply(as.list(e)[-1L], gbees_expression_c, "", symbols = symbols)
  if (fn == "(") return(args)
  if (length(args) == 1L && fn %in% c("+", "-")) return(sprintf("(%s%s)", fn, args))
  if (fn == "^") {
    if (is.numeric(e[[3L]]) && e[[3L]] == 2) return(sprintf("(%s * %s)", args[1L], args[1L]))
    return(sprintf("pow(%s, %s)", args[1L], args[2L]))
  }
  if (fn %in% c("+", "-", "*", "/")) return(sprintf("(%s %s %s)", args[1L], fn, args[2L]))
  sprintf("%s(%s)", fn, paste(args, collapse = ", "))
}

gbees_double_literal <- function(v) {
  s <- sprintf("%.17g", as.double(v))
  if (!grepl("[.eE]", s)) s <- paste0(s, ".0")
  sprintf("(%s)", s)
}

# The names of the states, x1, x2, ... and the state names (where they
# differ), each with the state's index.
gbees_state_symbols <- function(state_names) {
  n <- length(state_names)
  index <- c(seq_len(n), seq_len(n))
  names(index) <- c(paste0("x", seq_len(n)), state_names)
  index[!duplicated(paste(names(index), index))]
}

# The highest index of a state that the expressions use (0 if none).
gbees_expression_states <- function(exprs, state_names) {
  states <- gbees_state_symbols(state_names)
  max(0L, states[names(states) %in% unlist(lapply(exprs, all.names))])
}

# The source of the component function `fn` (gs_gbees.h: device_source of a
# field, gbees_user_field, or of a measurement, gbees_user_measurement):
# component i at the state x, one line per component, each marked so that a
# compiler's message can be traced to its expression.
gbees_expression_source <- function(exprs, state_names, par, fn = "gbees_user_field") {
  n <- length(exprs)
  states <- gbees_state_symbols(state_names)
  symbols <- c(stats::setNames(sprintf("x[%d]", states - 1L), names(states)), t = "t", pi = gbees_double_literal(pi),
               stats::setNames(vapply(par, gbees_double_literal, ""), names(par)))
  code <- vapply(exprs, gbees_expression_c, "", symbols = symbols)
  test <- ifelse(seq_len(n) < n, sprintf("if (i == %d) ", seq_len(n) - 1L), "")
  body <- sprintf("  %sreturn %s; %s", test, code, gbees_component_marker(seq_len(n)))
  paste(c(sprintf("static inline GS_HD double %s(const void *ctx, double t, const double *x, int i)", fn), "{",
          "  (void)ctx;", "  (void)t;", body, "}"), collapse = "\n")
}

# The comment that ends the line of component k in the field's source.
gbees_component_marker <- function(k) sprintf("/* component %d */", k)

gbees_expression_uses_time <- function(exprs) {
  "t" %in% unlist(lapply(exprs, all.names))
}
