# The battery's cases, generated from a table of the exported functions (a
# valid base call and the role of each argument) and the bad values of each
# role (values.R). A case is a list: id, generator, fn, arg, label, setup
# (code run first), args (named character vector of argument code; an empty
# name passes the argument by position), invalid, na, huge, check (the name
# of a plausibility check of the value, in checks.R, or "").

# Objects the cases use, made by a few lines of setup code each; `needs`
# lists what a snippet builds on.
setup_snippets <- list(
  L = "set.seed(1); L <- matrix(runif(40), ncol = 2); y <- sin(6 * L[, 1]) + cos(4 * L[, 2]) + rnorm(20, sd = 0.1)",
  s = "set.seed(2); s <- rstable(200, 1.5, 0.3)",
  A = "set.seed(3); A <- crossprod(matrix(rnorm(600), 30)) + diag(20)",
  fit = "fit <- gp_fit(y, L, nugget = FALSE, fixed = list(range = 0.3, smoothness = 1.5), control = list(trace = FALSE))",
  tc = "tc <- tile_chol(A, tile = 8)",
  gb = "gb <- gbees(lorenz63(), c(-11.5, -10, 9.5), diag(3), 1, 0.05, threshold = 1e-5)",
  mc = "set.seed(4); mc <- gbees_mc(lorenz63(), c(-11.5, -10, 9.5), diag(3), 0.05, n = 200)",
  nb = "nb <- vecchia_neighbors(L, 5)",
  # a fit of an sf object in a projected CRS (UTM 32N, metres) and points and a grid to predict at
  sfit = paste("d <- sf::st_as_sf(data.frame(z = y, x = 5e5 + 1e3 * L[, 1], y = 5e6 + 1e3 * L[, 2]), coords = c('x', 'y'), crs = 32632);",
               "sfit <- gp_fit(z ~ 1, data = d, nugget = FALSE, fixed = list(range = 300, smoothness = 1.5), control = list(trace = FALSE));",
               "pts <- d[1:5, ]; grd <- stars::st_as_stars(sf::st_bbox(d), nx = 4, ny = 3)"),
  cnt = "set.seed(5); cnt <- rpois(20, exp(1 + L[, 1]))",
  pfit = "pfit <- gp_fit(cnt, L, family = poisson(), nugget = FALSE, fixed = list(smoothness = 0.5), control = list(trace = FALSE))",
  mp = "mp <- gp_map(fit, n = 5)",
  plan = "plan <- jwt_plan(n = 4, lmax = 2)",
  sg = "sg <- sht_grid(4)"
)
setup_needs <- list(fit = "L", tc = "A", nb = "L", sfit = "L", cnt = "L", pfit = c("L", "cnt"), mp = c("L", "fit"))

setup_code <- function(names) {
  names <- unique(c(unlist(setup_needs[names]), names))
  names <- names(setup_snippets)[names(setup_snippets) %in% names] # snippet order
  paste(unlist(setup_snippets[names]), collapse = "; ")
}

# One exported function (or S3 method, called through its generic): `base`
# is a valid call, `roles` the role of each argument varied (a function in
# values.R, by name without "role_"), `vectorised` the recycled arguments,
# `valid` the labels of role values that are valid input for this function
# (by argument: 1e5 locations are a fine input where no n x n matrix is made),
# `na_ok` for a value whose documented fields may be NA (not applicable).
# `variant` names a second table of one function, whose base call sets an
# argument that changes what the others mean (approx = "vecchia", a family);
# it goes into the argument part of the case ids.
fspec <- function(fn, base, roles, setup = character(), check = "", vectorised = character(),
                  null_ok = character(), valid = list(), na_ok = FALSE, variant = "") {
  list(fn = fn, base = base, roles = roles, setup = setup, check = check, vectorised = vectorised,
       null_ok = null_ok, valid = valid, na_ok = na_ok, variant = variant)
}

stable_roles <- function(first) {
  c(first, list(alpha = "vec_alpha", beta = "vec_beta", gamma = "vec_pos", delta = "vec_real", pm = "pm"))
}

function_specs <- function() {
  # one rule for every covariance (gs_cov_model_valid): sigma2 = 0 is valid
  cov_params <- list(sigma2 = "scalar_nonneg", range = "scalar_pos", smoothness = "scalar_pos", nugget = "scalar_nonneg")
  gb_base <- c(model = "lorenz63()", x0 = "c(-11.5, -10, 9.5)", cov = "diag(3)")
  list(
    fspec("bessel_k", c(x = "c(0.5, 2)", nu = "1.5"),
          list(x = "vec_nonneg", nu = "vec_real", expon_scaled = "flag", log = "flag", device = "device"),
          check = "bessel_k", vectorised = c("x", "nu")),
    fspec("bessel_k_deriv", c(x = "c(0.5, 2)", nu = "1.5"),
          list(x = "vec_nonneg", nu = "vec_real", wrt = "choice", device = "device"), vectorised = c("x", "nu")),
    fspec("matern", c(d = "c(0, 0.5, 2)"),
          list(d = "vec_nonneg", sigma2 = "vec_nonneg", range = "vec_pos", smoothness = "vec_pos",
               nugget = "vec_nonneg", device = "device"),
          check = "matern", vectorised = c("d", "range")),
    fspec("matern_cov", c(locs = "L"),
          c(list(locs = "locs", locs2 = "locs_or_null"), cov_params, list(distance = "choice", device = "device")),
          setup = "L", check = "matern_cov"),
    fspec("dstable", c(x = "c(-1, 0, 2)", alpha = "1.5", beta = "0.3"),
          c(stable_roles(list(x = "vec_real")), list(log = "flag", device = "device")),
          check = "dstable", vectorised = c("x", "alpha")),
    fspec("pstable", c(q = "c(-1, 0, 2)", alpha = "1.5", beta = "0.3"),
          c(stable_roles(list(q = "vec_real")), list(lower.tail = "flag", log.p = "flag", device = "device")),
          check = "pstable", vectorised = c("q", "beta")),
    fspec("qstable", c(p = "c(0.1, 0.5, 0.9)", alpha = "1.5", beta = "0.3"),
          c(stable_roles(list(p = "vec_prob")), list(lower.tail = "flag", log.p = "flag", device = "device")),
          vectorised = c("p", "gamma")),
    fspec("rstable", c(n = "5", alpha = "1.5", beta = "0.3"),
          c(list(n = "count", alpha = "vec_alpha", beta = "vec_beta", gamma = "vec_pos", delta = "vec_real",
                 pm = "pm", device = "device")),
          check = "rstable", vectorised = c("alpha", "beta")),
    fspec("stable_mode", c(alpha = "c(0.7, 1.5)", beta = "0.3"), stable_roles(list()),
          vectorised = c("alpha", "beta")),
    fspec("stable_fit", c(x = "s"), list(x = "sample", method = "choice", pm = "pm", device = "device"),
          setup = "s", check = "stable_fit"),
    fspec("gp_loglik", c(y = "y", locs = "L", sigma2 = "1", range = "0.3", smoothness = "1"),
          c(list(y = "obs", locs = "locs_gp"), cov_params,
            list(distance = "choice", precision = "choice", accuracy = "accuracy", device = "device")),
          setup = "L"),
    fspec("gp_simulate", c(locs = "L", sigma2 = "1", range = "0.3", smoothness = "1"),
          c(list(locs = "locs_gp"), cov_params,
            list(nsim = "count_pos", distance = "choice", precision = "choice", accuracy = "accuracy",
                 device = "device")),
          setup = "L", check = "finite"),
    fspec("gp_simulate", c(locs = "L", sigma2 = "1", range = "0.3", smoothness = "1", approx = "'vecchia'", m = "5"),
          list(locs = "locs_vecchia", m = "count_pos", nsim = "count_pos"),
          setup = c("L", "nb"), check = "finite", variant = "vecchia", valid = list(locs = "1e5 rows", m = "0")),
    fspec("gp_fit", c(y = "y", locs = "L", control = "list(trace = FALSE)"),
          list(y = "obs_fit", locs = "locs_gp", start = "parlist", lower = "parlist", upper = "parlist",
               fixed = "parlist", nugget = "flag", distance = "choice", precision = "choice",
               accuracy = "accuracy", device = "device", control = "control", cov = "choice", method = "choice",
               approx = "choice", m = "count_pos"),
          setup = "L", check = "gp_fit", na_ok = TRUE), # model$smoothness NA: left free
    fspec("gp_fit", c(y = "cnt", locs = "L", family = "poisson()", nugget = "FALSE",
                      fixed = "list(smoothness = 0.5)", control = "list(trace = FALSE)"),
          list(y = "counts", family = "family"), setup = "cnt", check = "gp_fit", na_ok = TRUE, variant = "poisson"),
    fspec("gp_fit", c(y = "as.integer(cnt > 3)", locs = "L", family = "binomial()", nugget = "FALSE",
                      fixed = "list(smoothness = 0.5)", control = "list(trace = FALSE)"),
          list(y = "binary"), setup = "cnt", check = "gp_fit", na_ok = TRUE, variant = "binomial"),
    fspec("tile_chol", c(A = "A"),
          list(A = "spd", tile = "count_pos", precision = "choice", accuracy = "accuracy", fp8 = "flag",
               memory = "scalar_pos", trace = "flag", gpus = "gpus", device = "device"),
          setup = c("A", "L"), check = "tile_chol", null_ok = c("tile", "memory")),
    fspec("matern_spec", c(locs = "L"), c(list(locs = "locs"), cov_params, list(distance = "choice")), setup = "L",
          valid = list(locs = "1e5 rows")),
    fspec("morton_order", c(locs = "L"), list(locs = "locs"), setup = "L", check = "morton_order",
          valid = list(locs = "1e5 rows")),
    fspec("lorenz63", character(), list(sigma = "scalar_real", b = "scalar_real", r = "scalar_real")),
    fspec("lorenz96", character(), list(n = "count_pos", F = "scalar_real")),
    fspec("pcr3bp", character(), list(mu = "scalar_pos")),
    fspec("gbees_model", c(f = "c('x2', 'x3', '-x1')", n = "3"),
          list(f = "field", n = "count_pos", name = "name", autonomous = "flag", state_names = "state_names",
               par = "par")),
    fspec("gbees_measurements", c(time = "1", y = "-8", h = "3", cov = "1"),
          list(time = "mtime", y = "my", h = "hfun", cov = "mcov")),
    fspec("gbees", c(gb_base, dx = "1", times = "0.05", threshold = "1e-5"),
          list(model = "model", x0 = "x0", cov = "gcov", dx = "scalar_pos", times = "gtimes",
               measurements = "measurements", threshold = "scalar_pos", cfl = "scalar_pos",
               prune_every = "count_pos", t0 = "scalar_real", device = "device"),
          valid = list(threshold = "0")), # no pruning
    fspec("gbees_mc", c(gb_base, times = "0.05", n = "200"),
          list(model = "model", x0 = "x0", cov = "gcov", times = "gtimes", n = "count_pos", step = "scalar_pos",
               t0 = "scalar_real", device = "device"),
          check = "gbees_mc"),
    fspec("bhattacharyya", c(object = "gb", samples = "mc"),
          list(object = "gbees_object", samples = "samples", time = "time_select", posterior = "flag",
               bin = "count_pos"),
          setup = c("gb", "mc", "L", "fit"), check = "bhattacharyya", na_ok = TRUE),
    fspec("marginal", c(object = "gb"),
          list(object = "gbees_object", dims = "dims", time = "time_select", posterior = "flag"),
          setup = c("gb", "L", "fit")),
    fspec("plot", c("gb"), list(dims = "dims", times = "time_select"), setup = "gb",
          valid = list(times = "c(0.05, 0.05)")),
    fspec("predict", c("fit", newdata = "L"),
          list(newdata = "locs", se.fit = "flag", interval = "choice", level = "scalar_pos", device = "device"),
          setup = c("L", "fit"), check = "finite", valid = list(newdata = "1e5 rows")),
    fspec("predict", c("sfit", newdata = "pts"), list(newdata = "spatial_newdata", se.fit = "flag"),
          setup = "sfit", variant = "sf fit"),
    fspec("simulate", c("sfit", nsim = "2", seed = "1", newdata = "pts"), list(newdata = "spatial_newdata"),
          setup = "sfit", variant = "sf fit"),
    fspec("gp_map", c(fit = "sfit", newdata = "grd"), list(newdata = "spatial_newdata"), setup = "sfit",
          variant = "sf fit"),
    fspec("confint", c("fit"), list(level = "scalar_pos", method = "choice"), setup = c("L", "fit")),
    fspec("confint", c("fit", method = "'profile'"), list(level = "scalar_pos", parm = "parm"), setup = c("L", "fit"),
          variant = "profile"),
    fspec("gp_variogram", c(x = "y", locs = "L"),
          list(x = "obs", locs = "locs_gp", bins = "count_pos", cutoff = "scalar_pos", distance = "choice",
               max_points = "count_pos"),
          setup = "L", null_ok = "cutoff", valid = list(locs = "duplicated row")),
    fspec("gp_map", c(fit = "fit", n = "5"), list(n = "count_pos", device = "device"), setup = c("L", "fit")),
    fspec("vecchia_neighbors", c(locs = "L", m = "5"),
          list(locs = "locs_gp", m = "count_pos", ordering = "choice", distance = "choice"), setup = "L",
          valid = list(locs = "1e5 rows", m = "0")),
    fspec("vecchia_loglik", c(y = "y", locs = "L", sigma2 = "1", range = "0.3", smoothness = "1", m = "5"),
          c(list(y = "obs", locs = "locs_gp"), cov_params,
            list(m = "count_pos", ordering = "choice", distance = "choice", device = "device", cluster = "cluster")),
          setup = "L", valid = list(m = "0"), null_ok = "cluster"),
    fspec("dct", c(x = "c(1, 2, 3, 4)"), list(x = "vec_real", type = "count_pos", normalized = "flag", device = "device")),
    fspec("jw_grid", c(nr = "8"), list(nr = "count_pos")),
    fspec("jw_eval", c(n = "2", l = "1", r = "c(0.1, 0.5)"), list(n = "count", l = "count", r = "vec_prob", norm = "choice"),
          valid = list(n = "numeric(0)", l = "numeric(0)")),
    fspec("sht_grid", c(lmax = "4"), list(lmax = "count", kind = "choice")),
    fspec("simulate", c("fit"), list(nsim = "count_pos", seed = "seed"), setup = c("L", "fit")),
    # covariance families, by name and with their shapes
    fspec("gp_cov_matrix", c(locs = "L", cov = "'Sph'"),
          c(list(locs = "locs", locs2 = "locs_or_null", cov = "cov_name"), cov_params[c("sigma2", "range", "nugget")],
            list(distance = "choice", device = "device")),
          setup = "L", check = "finite"),
    fspec("gp_cov_matrix", c(locs = "L", cov = "'powexp'", power = "1"), list(power = "cov_power"), setup = "L",
          check = "finite", variant = "powexp"),
    fspec("gp_cov_matrix", c(locs = "L", cov = "'cauchy'", power = "1", tail = "2"),
          list(power = "cov_power", tail = "scalar_pos"), setup = "L", check = "finite", variant = "cauchy"),
    fspec("gp_cov_matrix", c(locs = "L", cov = "'wendland'", mu = "2.5"), list(kappa = "cov_kappa", mu = "cov_mu"),
          setup = "L", check = "finite", variant = "wendland"),
    fspec("gp_loglik", c(y = "y", locs = "L", sigma2 = "1", range = "0.3", cov = "'Gau'", nugget = "0.01"),
          list(cov = "cov_name", range = "scalar_pos"), setup = "L", variant = "families"),
    fspec("gp_loglik", c(y = "y", locs = "L", sigma2 = "1", range = "0.3", cov = "'wendland'", mu = "2.5"),
          list(kappa = "cov_kappa", mu = "cov_mu"), setup = "L", variant = "wendland"),
    fspec("vecchia_loglik", c(y = "y", locs = "L", sigma2 = "1", range = "0.3", cov = "'Sph'", m = "5"),
          list(cov = "cov_name"), setup = "L", variant = "families"),
    fspec("vecchia_loglik", c(y = "y", locs = "L", sigma2 = "1", range = "0.3", cov = "'cauchy'", tail = "2", m = "5"),
          list(power = "cov_power"), setup = "L", variant = "cauchy"),
    fspec("gp_fit", c(y = "y", locs = "L", cov = "'Sph'", control = "list(trace = FALSE)"), list(cov = "cov_name"),
          setup = "L", check = "gp_fit", na_ok = TRUE, variant = "families",
          valid = list(cov = c("'powexp'", "'cauchy'", "'wendland'", "'matern'", "'matern_aniso'"))),
    fspec("gp_fit", c(y = "y", locs = "L", cov = "'cauchy'", nugget = "FALSE", control = "list(trace = FALSE)"),
          list(start = "cov_shape_list", fixed = "cov_shape_list"), setup = "L", check = "gp_fit", na_ok = TRUE,
          variant = "cauchy"),
    # the families of spatial GLMMs and the methods of their fits
    fspec("gp_fit", c(y = "exp(y)", locs = "L", family = "Gamma(link = 'log')", nugget = "FALSE",
                      fixed = "list(smoothness = 0.5)", control = "list(trace = FALSE)"),
          list(y = "positive", weights = "weights"), setup = "L", check = "gp_fit", na_ok = TRUE, variant = "Gamma"),
    fspec("gp_fit", c(y = "cnt", locs = "L", family = "MASS::negative.binomial(2)", nugget = "FALSE",
                      fixed = "list(smoothness = 0.5)", control = "list(trace = FALSE)"),
          list(y = "counts", weights = "weights"), setup = "cnt", check = "gp_fit", na_ok = TRUE,
          variant = "negative binomial"),
    fspec("predict", c("pfit", newdata = "L[1:3, ]"),
          list(newdata = "locs", type = "choice", se.fit = "flag", interval = "choice", level = "scalar_pos"),
          setup = "pfit", check = "finite", variant = "poisson fit", valid = list(newdata = "1e5 rows")),
    fspec("simulate", c("pfit", nsim = "2", seed = "1"), list(nsim = "count_pos", seed = "seed", type = "choice"),
          setup = "pfit", variant = "poisson fit"),
    fspec("residuals", c("pfit"), list(type = "choice"), setup = "pfit", variant = "poisson fit"),
    fspec("residuals", c("fit"), list(type = "choice"), setup = c("L", "fit")),
    fspec("vcov", c("pfit"), list(type = "choice"), setup = "pfit", variant = "poisson fit"),
    fspec("summary", c("pfit"), list(type = "choice"), setup = "pfit", variant = "poisson fit"),
    fspec("gp_map", c(fit = "pfit", n = "5"), list(type = "choice", n = "count_pos"), setup = "pfit",
          variant = "poisson fit"),
    fspec("plot", c("mp"), list(what = "choice", points = "flag", contours = "flag", coastlines = "flag"),
          setup = "mp", variant = "gp_map"),
    fspec("gp_anisotropy", c(x = "c(range1 = 1, range2 = 0.5, angle = 0.3)"),
          list(x = "anisotropy", convention = "choice"), setup = c("L", "fit")),
    # polynomial transforms
    fspec("banded_solve", c(lower = "rep(-1, 4)", diag = "rep(4, 5)", upper = "rep(-1, 4)", b = "rep(1, 5)"),
          list(lower = "band", diag = "band_diag", upper = "band", b = "band_rhs", device = "device")),
    fspec("legendre_to_chebyshev", c(x = "c(0, 0, 1)"),
          list(x = "coefficients", method = "choice", device = "device")),
    fspec("chebyshev_to_legendre", c(x = "c(0, 0, 1)"),
          list(x = "coefficients", method = "choice", device = "device")),
    fspec("jwt_synthesis", c(coef = "c(1, 0.5, -0.25)", l = "4", nr = "8"),
          list(coef = "coefficients", l = "degree", nr = "degree", method = "choice", device = "device"),
          valid = list(nr = "1e6")), # a fine grid of few coefficients
    fspec("jwt_analysis", c(values = "rep(1, 8)", l = "4", n = "3"),
          list(values = "coefficients", l = "degree", n = "degree", method = "choice", device = "device")),
    fspec("jwt_plan", c(n = "4", lmax = "2"), list(n = "degree", lmax = "degree", nr = "degree", method = "choice",
                                                  device = "device"),
          na_ok = TRUE, valid = list(n = "1e6", nr = "1e6")), # the plan's gpu is NA on the CPU
    fspec("jwt_plan_synthesis", c(plan = "plan", coef = "rep(list(matrix(1, 4, 1)), 3)"),
          list(plan = "plan", coef = "plan_coef"), setup = "plan"),
    fspec("jwt_plan_analysis", c(plan = "plan", values = "rep(list(matrix(1, 5, 1)), 3)"),
          list(plan = "plan", values = "plan_values"), setup = "plan"),
    fspec("sht_analysis", c(values = "matrix(1, sg$nlat, sg$nlon)", grid = "sg"),
          list(values = "sht_values", lmax = "degree", grid = "sht_grid", device = "device"), setup = "sg",
          null_ok = "lmax"),
    fspec("sht_synthesis", c(coef = "sht_analysis(matrix(1, sg$nlat, sg$nlon), grid = sg)"),
          list(grid = "sht_grid", device = "device"), setup = "sg"),
    fspec("solve", c("tc", b = "rep(1, 20)"), list(b = "rhs"), setup = "tc"),
    fspec("determinant", c("tc"), list(logarithm = "flag"), setup = "tc")
  )
}

# Role names that are variants of a role in values.R.
role_values <- function(role) {
  switch(role,
    locs_or_null = role_locs(second = TRUE),
    locs_gp = role_locs(gp = TRUE),
    locs_vecchia = rbind(role_locs(gp = TRUE), role_vecchia_structure()),
    obs_fit = role_obs(fit = TRUE),
    plan_coef = role_plan_list(4L),
    plan_values = role_plan_list(5L),
    get(paste0("role_", role))()
  )
}

make_case <- function(generator, fn, arg, label, setup, args, invalid = FALSE, na = FALSE, huge = FALSE,
                      check = "", variant = "") {
  if (nzchar(variant)) arg <- sprintf("%s [%s]", arg, variant)
  id <- paste(fn, arg, label, sep = " | ")
  list(id = id, generator = generator, fn = fn, arg = arg, label = label, setup = setup_code(setup),
       extra_setup = "", args = args, invalid = invalid, na = na, huge = huge, check = check)
}

# Generator 1: every argument of every function, replaced by each bad value of its role.
gen_substitute <- function(spec) {
  out <- list()
  for (arg in names(spec$roles)) {
    vals <- role_values(spec$roles[[arg]])
    if (arg %in% spec$null_ok) vals$invalid[vals$code == "NULL"] <- FALSE # NULL is the default
    vals$invalid[vals$label %in% spec$valid[[arg]]] <- FALSE
    for (i in seq_len(nrow(vals))) {
      args <- spec$base
      args[[arg]] <- vals$code[i]
      out[[length(out) + 1L]] <- make_case("substitute", spec$fn, arg, vals$label[i], spec$setup, args,
                                           vals$invalid[i], vals$na[i] || spec$na_ok, vals$huge[i], spec$check,
                                           spec$variant)
    }
  }
  out
}

# Generator 2: recycled arguments of mismatched lengths (R warns, except
# for random numbers, whose parameters R recycles silently) or one empty.
gen_mismatch <- function(spec) {
  a <- spec$vectorised
  if (length(a) < 2L) return(list())
  one <- c(x = "0.5", nu = "1.5", d = "0.5", q = "0.5", p = "0.3", alpha = "1.5", beta = "0.3", range = "1", gamma = "1")
  shapes <- list(
    list(label = "lengths 3 and 2", first = sprintf("rep(%s, 3)", one[[a[1]]]), invalid = spec$fn != "rstable"),
    list(label = "lengths 0 and 2", first = "numeric(0)", invalid = spec$fn == "rstable")
  )
  lapply(shapes, function(s) {
    args <- spec$base
    args[[a[1]]] <- s$first
    args[[a[2]]] <- sprintf("rep(%s, 2)", one[[a[2]]])
    make_case("mismatch", spec$fn, paste(a, collapse = ","), s$label, spec$setup, args, s$invalid,
              check = spec$check)
  })
}

# Generator 3: the package's options set to bad values before typical calls.
option_targets <- function() {
  list(
    list(fn = "bessel_k", args = c(x = "seq(0.1, 10, length.out = 1000)", nu = "1.5"), setup = character()),
    list(fn = "dstable", args = c(x = "seq(-5, 5, length.out = 200)", alpha = "1.5", beta = "0.3"), setup = character()),
    list(fn = "rstable", args = c(n = "1000", alpha = "1.5", beta = "0"), setup = character()),
    list(fn = "matern_cov", args = c(locs = "L"), setup = "L"),
    list(fn = "gp_loglik", args = c(y = "y", locs = "L", sigma2 = "1", range = "0.3", smoothness = "1"), setup = "L"),
    list(fn = "tile_chol", args = c(A = "A", tile = "8"), setup = "A"),
    list(fn = "gbees_mc", args = c(model = "lorenz63()", x0 = "c(-11.5, -10, 9.5)", cov = "diag(3)",
                                   times = "0.05", n = "200"), setup = character()),
    list(fn = "stable_fit", args = c(x = "s", method = "'mcculloch'"), setup = "s")
  )
}

gen_options <- function() {
  out <- list()
  for (opt in c("threads", "device", "gpus")) {
    vals <- role_values(paste0(opt, "_option"))
    for (t in option_targets()) {
      for (i in seq_len(nrow(vals))) {
        case <- make_case("options", t$fn, paste0("option gpustats.", opt), vals$label[i], t$setup, t$args,
                          vals$invalid[i], vals$na[i], vals$huge[i])
        case$extra_setup <- sprintf("options(gpustats.%s = %s)", opt, vals$code[i])
        out[[length(out) + 1L]] <- case
      }
    }
  }
  out
}

# Generator 4: calls that need two arguments changed together, functions
# without arguments, methods on saved objects, and the degenerate fits.
gen_special <- function() {
  gb_args <- c(model = "lorenz63()", x0 = "c(-11.5, -10, 9.5)", cov = "diag(3)")
  sp <- list(
    list("gpu_available", "-", "no arguments", character(), character()),
    list("gpu_info", "-", "no arguments", character(), character()),
    list("gp_fit", "y,locs", "n = 1", "L", c(y = "y[1]", locs = "L[1, , drop = FALSE]",
                                            control = "list(trace = FALSE)"), TRUE),
    list("gp_fit", "y,locs", "n = 2", "L", c(y = "y[1:2]", locs = "L[1:2, ]", control = "list(trace = FALSE)"), TRUE),
    list("gp_fit", "y,locs", "n = 3", "L", c(y = "y[1:3]", locs = "L[1:3, ]", control = "list(trace = FALSE)"), TRUE),
    list("gp_fit", "y,locs", "n = 30, constant y", "L",
         c(y = "rep(2, 30)", locs = "rbind(L, L[1:10, ] + 0.01)", control = "list(trace = FALSE)"), TRUE),
    list("gp_loglik", "y,locs", "1e5 locations", character(),
         c(y = "rnorm(1e5)", locs = "matrix(runif(2e5), ncol = 2)", sigma2 = "1", range = "0.1", smoothness = "1"),
         TRUE, FALSE, TRUE),
    list("gp_loglik", "locs,precision", "duplicated rows, mixed precision", "L",
         c(y = "y", locs = "rbind(L[1:19, ], L[1, ])", sigma2 = "1", range = "0.3", smoothness = "1",
           precision = "'mixed'"), TRUE),
    list("gp_loglik", "range,smoothness", "numerically singular", "L",
         c(y = "y", locs = "L", sigma2 = "1", range = "1e3", smoothness = "5"), TRUE),
    list("gp_loglik", "range,smoothness", "numerically singular, mixed precision", "L",
         c(y = "y", locs = "L", sigma2 = "1", range = "1e3", smoothness = "5", precision = "'mixed'"), TRUE),
    list("matern_cov", "locs,range", "1e-200 apart, range 1e-200", character(),
         c(locs = "matrix(c(0, 1e-200), 2)", range = "1e-200"), FALSE, FALSE, FALSE, "matern_cov_distinct"),
    list("matern", "d,range", "d / range 1.6e9", character(), c(d = "0.5", sigma2 = "2", range = "1e-308",
                                                              smoothness = "1.2"), FALSE, FALSE, FALSE, "matern"),
    list("gbees", "times,t0", "t0 1e15", character(), c(gb_args, dx = "1", times = "1e15 + 0.05", t0 = "1e15", threshold = "1e-5"), TRUE),
    list("gbees_mc", "times,n", "times 1e6, n 10", character(), c(gb_args, times = "1e6", n = "10", step = "1e-3")),
    list("stable_fit", "x", "rstable(2000, 0.3, 0.9)", character(),
         c(x = "{set.seed(5); rstable(2000, 0.3, 0.9)}"), FALSE, FALSE, FALSE, "stable_fit"),
    list("solve", "a", "reloaded factor", "tc", c("unserialize(serialize(tc, NULL))", b = "rep(1, 20)"), TRUE),
    list("determinant", "x", "reloaded factor", "tc", c("unserialize(serialize(tc, NULL))")),
    list("as.matrix", "x", "reloaded factor", "tc", c("unserialize(serialize(tc, NULL))"), TRUE),
    list("as.matrix", "x", "factor", "tc", c("tc")),
    list("as.data.frame", "x", "gbees result", "gb", c("gb")),
    list("print", "x", "gbees result", "gb", c("gb")),
    list("summary", "object", "gbees result", "gb", c("gb")),
    list("print", "x", "gbees_mc", "mc", c("mc")),
    # a fit's model$smoothness is NA where the family leaves it free
    list("print", "x", "gp_fit", c("L", "fit"), c("fit"), FALSE, TRUE),
    list("summary", "object", "gp_fit", c("L", "fit"), c("fit"), FALSE, TRUE),
    list("print", "x", "tile_chol", "tc", c("tc")),
    list("print", "x", "stable_fit", "s", c("stable_fit(s)")),
    list("summary", "object", "stable_fit", "s", c("stable_fit(s)")),
    list("print", "x", "matern_spec", "L", c("matern_spec(L)")),
    list("print", "x", "gbees_model", character(), c("lorenz63()")),
    list("print", "x", "gbees_measurements", character(), c("gbees_measurements(1, -8, 3, 1)")),
    list("predict", "object", "a stable_fit", "s", c("stable_fit(s)", newlocs = "1"), TRUE),
    # data without observations, or none left once missing ones are dropped
    list("gp_fit", "y,locs", "no observations", character(),
         c(y = "numeric(0)", locs = "matrix(numeric(0), 0, 2)", control = "list(trace = FALSE)"), TRUE),
    list("gp_fit", "y", "all NA", "L", c(y = "rep(NA_real_, 20)", locs = "L", control = "list(trace = FALSE)"), TRUE, TRUE),
    list("gp_fit", "y", "an all-NA replicate", "L", c(y = "cbind(y, NA)", locs = "L", control = "list(trace = FALSE)"),
         TRUE, TRUE),
    list("gp_fit", "y", "a character response in a formula", "L",
         c(y = "z ~ 1", locs = "data.frame(z = letters[1:20], a = L[, 1], b = L[, 2])", coords = "~ a + b",
           control = "list(trace = FALSE)"), TRUE),
    list("gp_variogram", "x,locs", "one location", character(), c(x = "1", locs = "matrix(0, 1, 2)"), TRUE),
    # nonsense the methods of a fit used to accept
    list("anova", "...", "a fit of other data", c("L", "fit"),
         c("fit", "gp_fit(rev(y), L, nugget = FALSE, fixed = list(range = 0.3, smoothness = 1.5), control = list(trace = FALSE))"),
         TRUE),
    list("anova", "...", "the same fit", c("L", "fit"), c("fit", "fit"), TRUE),
    list("gp_map", "n", "2.5", c("L", "fit"), c(fit = "fit", n = "2.5"), TRUE),
    list("plot", "which", "7", c("L", "fit"), c("fit", which = "7"), TRUE),
    list("predict", "...", "newlocs", c("L", "fit"), c("fit", newlocs = "L"), TRUE),
    list("simulate", "...", "newlocs", c("L", "fit"), c("fit", 1, newlocs = "L"), TRUE),
    list("plot", "...", "wich", c("L", "fit"), c("fit", wich = "1"), TRUE),
    list("cpu_threads", "-", "no arguments", character(), character()),
    # replicates with their own missing values (the Gaussian path only)
    list("gp_fit", "y", "replicates with NA in other rows", "L",
         c(y = "cbind(y, local({z <- rev(y); z[c(2, 5)] <- NA; z}))", locs = "L", control = "list(trace = FALSE)"),
         FALSE, TRUE, FALSE, "gp_fit"),
    list("gp_fit", "y", "a replicate of one value", "L",
         c(y = "cbind(y, c(1, rep(NA, 19)))", locs = "L", control = "list(trace = FALSE)"), FALSE, TRUE, FALSE, "gp_fit"),
    list("gp_fit", "y", "replicates with NA and Inf", "L",
         c(y = "cbind(y, local({z <- rev(y); z[2] <- NA; z[3] <- Inf; z}))", locs = "L", control = "list(trace = FALSE)"),
         TRUE, TRUE),
    list("gp_fit", "y,approx", "replicates with NA, Vecchia", "L",
         c(y = "cbind(y, local({z <- rev(y); z[c(2, 5)] <- NA; z}))", locs = "L", approx = "'vecchia'", m = "5",
           control = "list(trace = FALSE)"), FALSE, TRUE, FALSE, "gp_fit"),
    list("gp_fit", "y,cov", "replicates with NA, spherical", "L",
         c(y = "cbind(y, local({z <- rev(y); z[c(2, 5)] <- NA; z}))", locs = "L", cov = "'Sph'",
           control = "list(trace = FALSE)"), FALSE, TRUE, FALSE, "gp_fit"),
    list("gp_fit", "y,family", "replicates with NA, Poisson", "cnt",
         c(y = "cbind(cnt, local({z <- rev(cnt); z[2] <- NA; z}))", locs = "L", family = "poisson()",
           control = "list(trace = FALSE)"), TRUE, TRUE),
    list("predict", "object", "a fit of replicates with NA", "L",
         c("gp_fit(cbind(y, local({z <- rev(y); z[c(2, 5)] <- NA; z})), L, nugget = FALSE, fixed = list(range = 0.3, smoothness = 1.5), control = list(trace = FALSE))",
           "L[1:3, ]"), FALSE, TRUE, FALSE, "finite"),
    # spatial GLMM fits against each other and Gaussian ones
    list("anova", "...", "a Poisson and a Gaussian fit", c("pfit", "fit"), c("pfit", "fit"), TRUE),
    list("anova", "...", "the same Poisson fit", "pfit", c("pfit", "pfit"), TRUE),
    list("anova", "...", "nested Poisson fits", "pfit",
         c("pfit", "gp_fit(cnt, L, X = L[, 1], family = poisson(), nugget = FALSE, fixed = list(smoothness = 0.5), control = list(trace = FALSE))")),
    list("fitted", "object", "a Poisson fit", "pfit", c("pfit")),
    list("residuals", "object", "a Poisson fit", "pfit", c("pfit")),
    list("print", "x", "a Poisson fit", "pfit", c("pfit"), FALSE, TRUE),
    list("simulate", "newdata", "a Poisson fit at new locations", "pfit", c("pfit", 2, newdata = "L[1:3, ]", type = "'response'")),
    # maps whose surface is flat or missing
    list("plot", "x", "gp_map of a constant surface", "mp", c("{m <- mp; m$fit[] <- 1; m}")),
    list("plot", "x", "gp_map of a missing surface", "mp", c("{m <- mp; m$fit[] <- NA; m}"), TRUE, TRUE),
    list("plot", "x", "gp_map of an infinite standard error", "mp", c("{m <- mp; m$se[] <- Inf; m}", what = "'se'"), TRUE),
    list("as.data.frame", "x", "gp_map", "mp", c("mp")),
    # methods of the objects of the transforms and of other fits
    list("print", "x", "jwt_plan", "plan", c("plan"), FALSE, TRUE),
    list("print", "x", "sht_grid", "sg", c("sg")),
    list("print", "x", "sht", "sg", c("sht_analysis(matrix(1, sg$nlat, sg$nlon), grid = sg)")),
    list("as.data.frame", "x", "sht", "sg", c("sht_analysis(matrix(1, sg$nlat, sg$nlon), grid = sg)")),
    list("plot", "x", "sht", "sg", c("sht_analysis(matrix(1, sg$nlat, sg$nlon), grid = sg)")),
    list("print", "x", "vecchia_neighbors", "nb", c("nb")),
    list("plot", "x", "gp_variogram", "L", c("gp_variogram(y, L)")),
    list("plot", "x", "stable_fit", "s", c("stable_fit(s)")),
    list("update", "object", "a fit", c("L", "fit"), c("fit", nugget = "TRUE")),
    list("model.matrix", "object", "a fit", c("L", "fit"), c("fit")),
    # a fixed step through a primary of the three-body problem
    list("gbees_mc", "x0", "through a primary", character(),
         c(model = "pcr3bp()", x0 = "c(-pcr3bp()$par + 0.1, 0, -1, 0)", cov = "diag(1e-4, 4)", times = "0.3", n = "200"),
         TRUE, TRUE)
  )
  lapply(sp, function(p) {
    get_or <- function(i, default) if (length(p) >= i) p[[i]] else default
    make_case("special", p[[1]], p[[2]], p[[3]], p[[4]], p[[5]], get_or(6, FALSE), get_or(7, FALSE),
              get_or(8, FALSE), get_or(9, ""))
  })
}

# Generator 5: objects altered after they were made, given to every method
# of their class: each must be an error that names the field.
gen_altered <- function() {
  fit_variants <- c(`locs removed` = "{f <- fit; f$locs <- NULL; f}", `locs transposed` = "{f <- fit; f$locs <- t(f$locs); f}",
                    `covariance 'a'` = "{f <- fit; f$covariance <- 'a'; f}", empty = "structure(list(), class = 'gp_fit')")
  fit_calls <- list(print = "x", summary = "x", coef = "x", vcov = "x", logLik = "x", nobs = "x", fitted = "x",
                    residuals = "x", confint = c("x", method = "'wald'"), predict = c("x", "L[1:3, ]"),
                    simulate = c("x", "1"), plot = "x", gp_map = c(fit = "x", n = "5"), gp_variogram = "x",
                    anova = c("x", "fit"))
  gb_variants <- c(`snapshots removed` = "{g <- gb; g$snapshots <- NULL; g}",
                   `model with 1 parameter` = "{g <- gb; g$model$par <- 1; g}")
  gb_calls <- list(print = "x", summary = "x", as.data.frame = "x", marginal = "x", plot = "x",
                   bhattacharyya = c("x", "mc"))
  model_variants <- c(`lorenz63 with 1 parameter` = "{m <- lorenz63(); m$par <- 4; m}",
                      `lorenz63 with 4 states` = "{m <- lorenz63(); m$dim <- 4L; m}")
  cases <- function(variants, calls, setup, class) {
    unlist(lapply(names(calls), function(fn) lapply(names(variants), function(v) {
      args <- calls[[fn]]
      arg <- names(args)[args == "x"] # the object's argument where it is named
      args[args == "x"] <- variants[[v]]
      make_case("altered", fn, if (length(arg) && nzchar(arg)) arg else "object", paste(class, v), setup, args,
                invalid = TRUE)
    })), recursive = FALSE)
  }
  c(cases(fit_variants, fit_calls, c("L", "fit"), "gp_fit"),
    cases(gb_variants, gb_calls, c("gb", "mc"), "gbees"),
    cases(model_variants, list(print = "x", gbees_mc = c(model = "x", x0 = "c(-11.5, -10, 9.5)", cov = "diag(3)",
                                                          times = "0.05", n = "10")), character(), "gbees_model"),
    cases(c(`samples of 2 columns` = "{k <- mc; k$samples[[1]] <- k$samples[[1]][, 1:2]; k}"),
          list(print = "x", bhattacharyya = c("gb", "x")), c("gb", "mc"), "gbees_mc"))
}

# The order of a run: the cases most likely to find something first, wrong
# types (nearly always a clean error, and slow to format) last, functions in
# turn, so that a run cut short has covered the most.
case_priority <- function(case) {
  if (case$generator %in% c("special", "altered")) return(1L)
  if (case$generator == "options") return(2L)
  if (case$label %in% wrong_types()$label) return(5L)
  if (case$generator == "mismatch") return(3L)
  4L
}

battery_cases <- function() {
  specs <- function_specs()
  cases <- c(unlist(lapply(specs, gen_substitute), recursive = FALSE),
             unlist(lapply(specs, gen_mismatch), recursive = FALSE),
             gen_options(), gen_special(), gen_altered())
  # within a priority, functions take turns
  priority <- vapply(cases, case_priority, 1L)
  fn <- vapply(cases, `[[`, "", "fn")
  turn <- stats::ave(seq_along(cases), priority, fn, FUN = seq_along)
  cases <- cases[order(priority, turn)] # order() is stable
  ids <- vapply(cases, `[[`, "", "id")
  dup <- duplicated(ids)
  if (any(dup)) stop("duplicated case ids: ", paste(unique(ids[dup]), collapse = "; "))
  cases
}

# The call of a case as R code.
case_call <- function(case) {
  a <- case$args
  nm <- names(a) %||% rep("", length(a))
  paste0(case$fn, "(", paste(ifelse(nm == "", a, paste(nm, "=", a)), collapse = ", "), ")")
}

# The whole case as one line of R code, setup included.
case_code <- function(case) {
  pre <- c(case$setup, case$extra_setup)
  pre <- pre[nzchar(pre)]
  paste(c(pre, case_call(case)), collapse = "; ")
}

`%||%` <- function(a, b) if (is.null(a)) b else a
