#' Covariance models for Gaussian-process fits
#'
#' The `cov` argument of [gp_fit()] names the covariance model: a family and
#' a geometry. Every model is a correlation \eqn{\rho(h)} of a scaled
#' distance \eqn{h} with variance `sigma2` and a nugget,
#' \eqn{C = \sigma^2 \rho(h) + \tau^2 [\textrm{same location}]}.
#'
#' **Families.** `sigma2`, `range` and `nugget` belong to every family; the
#' shape parameters, with their names in `start`, `lower`, `upper`, `fixed`
#' and the results, are listed with each. With \eqn{h = d / \mathrm{range}}:
#'
#' | `cov` | other spellings | \eqn{\rho(h)} | shapes (default search bounds) |
#' |---|---|---|---|
#' | `"matern"` | `"Mat"`, GpGp's `"matern_isotropic"` | Matérn \eqn{M_\nu(h)}, [matern()] | `smoothness` \eqn{\nu > 0} (\[0.05, 5\]) |
#' | `"exponential"` | `"Exp"` | \eqn{e^{-h}} | (`smoothness` 1/2) |
#' | `"matern32"`, `"matern52"` | | \eqn{(1 + h) e^{-h}}, \eqn{(1 + h + h^2/3) e^{-h}} | (`smoothness` 3/2, 5/2) |
#' | `"gaussian"` | `"Gau"`, `"squared_exponential"` | \eqn{e^{-h^2}} | none |
#' | `"spherical"` | `"Sph"` | \eqn{1 - \frac32 h + \frac12 h^3} for \eqn{h < 1}, 0 beyond | none |
#' | `"powexp"` | `"Exc"`, `"powered_exponential"`, `"stable"` | \eqn{e^{-h^\alpha}} | `power` \eqn{\alpha \in (0, 2]} (\[0.05, 2\]) |
#' | `"cauchy"` | `"generalized_cauchy"` | \eqn{(1 + h^\alpha)^{-\beta/\alpha}} | `power` \eqn{\alpha \in (0, 2]} (\[0.05, 2\]), `tail` \eqn{\beta > 0} (\[0.05, 20\]) |
#' | `"wendland"` | `"generalized_wendland"` | \eqn{(1 - h)_+^{\mu+\kappa} P_\kappa(h)} | `kappa` \eqn{\in \{0, 1, 2\}} (held, default 1), `mu` (from its least valid value, 10 above it) |
#'
#' Names match ignoring case (`"SPH"`, `"gau"`). The generalized Wendland
#' (Bevilacqua et al. 2019) has \eqn{P_0 = 1}, \eqn{P_1(h) = 1 + (\mu+1)h},
#' \eqn{P_2(h) = 1 + (\mu+2)h + ((\mu+2)^2 - 1)h^2/3}: Askey's truncated
#' power and Wendland's \eqn{C^2} and \eqn{C^4} functions, positive definite
#' in \eqn{d} dimensions for \eqn{\mu \ge (d+1)/2 + \kappa}. `kappa` is
#' discrete: give it in `fixed` (it is never searched). The spherical is
#' positive definite in up to 3 dimensions. The Gaussian is the powered
#' exponential at `power = 2`; its covariance matrices are close to
#' singular for ranges beyond the spacing of the locations, where a nugget
#' helps.
#'
#' **What `range` means, and gstat's `vgm()`.** `range` scales the distance
#' as in the formulas above, which are gstat's: `gstat::vgm(psill = sigma2,
#' model, range = range, nugget = nugget)` is the same model for `"Sph"`
#' (`range` the support radius: the correlation is 0 from there on),
#' `"Exp"` (\eqn{e^{-d/a}}: the practical range, 5% correlation, is
#' \eqn{3a}), `"Gau"` (\eqn{e^{-(d/a)^2}}: the practical range is
#' \eqn{\sqrt 3 a}), `"Exc"` (`kappa` of `vgm()` is `power`) and `"Mat"`
#' (`kappa` is `smoothness`). Kriging with a fit's estimates in `vgm()`
#' gives what [predict.gp_fit()] gives (gstat's variance is that of a new
#' observation: the nugget added). The Cauchy and the Wendland have no
#' gstat model; the Cauchy is RandomFields'
#' `RMgencauchy(alpha = power, beta = tail, scale = range)`, and the
#' Wendland's `range` is its support radius.
#'
#' **Geometries**, appended with an underscore (`"spherical_aniso"`,
#' `"Gau_spacetime"`):
#'   - none (isotropic): \eqn{h = \|x - x'\| / \mathrm{range}}.
#'   - `"_aniso"` (geometric anisotropy, 2-D or 3-D locations): a range per
#'     principal axis of a rotated frame, \eqn{h = \|D^{-1} Q^\top (x - x')\|}
#'     with \eqn{D} the ranges and \eqn{Q} the rotation. In 2-D the
#'     parameters are `range1`, `range2` and `angle` (radians, from the
#'     first coordinate axis to the axis of `range1`; the model has period
#'     \eqn{\pi} in it, so the search is unbounded and the estimate is
#'     reported in \eqn{[0, \pi)}; [gp_anisotropy()] converts to and from
#'     gstat's degrees clockwise from north and ratio); in 3-D `range1` to `range3` and the angles `angle1`
#'     (about the third axis), `angle2` (about the new second) and `angle3`
#'     (about the new first), \eqn{Q = R_3(a_1) R_2(a_2) R_1(a_3)}.
#'   - `"_spacetime"` (the last coordinate is time):
#'     \eqn{h = \sqrt{\|s - s'\|^2 / \mathrm{range}^2 + (t - t')^2 /
#'     \mathrm{range\_time}^2}}, as GpGp's `matern_spacetime` (the
#'     spherical and the Wendland then count time as a dimension).
#'
#' GpGp's names are accepted too: `"matern_isotropic"`,
#' `"exponential_isotropic"`, `"matern15_isotropic"`, `"matern25_isotropic"`,
#' `"matern_anisotropic2D"`, `"matern_anisotropic3D"`,
#' `"exponential_anisotropic2D"`, `"matern_spacetime"`,
#' `"exponential_spacetime"`.
#'
#' **Great-circle distance** (`distance = "great_circle"`, kilometres on a
#' sphere of radius 6371 km) goes with isotropic models only, and with the
#' families that stay positive definite on the sphere with the distance
#' substituted (Gneiting 2013, *Bernoulli* 19, 1327--1349): the powered
#' exponential and the Cauchy with `power <= 1` (their default upper bound
#' there), the spherical and the Wendland with a support of at most half a
#' great circle, `range` \eqn{\le \pi \cdot 6371} km (the default bound)
#' and, for the Wendland, \eqn{\mu \ge 2 + \kappa} (valid in 3
#' dimensions). The Gaussian is never positive definite there. Breaking
#' these conditions is an error of class `gpustats_error_cov_sphere`; a
#' family not positive definite in the locations' dimension (the spherical
#' beyond 3, the Wendland's `mu` below \eqn{(d+1)/2 + \kappa}) one of class
#' `gpustats_error_cov_dimension`, and shapes outside their domain one of
#' class `gpustats_error_cov_shape`, each also `gpustats_error_argument`
#' and naming the rule. A Matérn covariance of great-circle distance is positive definite
#' on the sphere for every range only when the smoothness is at most 1/2:
#' [gp_fit()] then bounds the smoothness by 1/2 unless `upper` says
#' otherwise, and a smoothness above 1/2 with great-circle distance gives a
#' warning of class `gpustats_warning_great_circle`.
#'
#' Every family runs on the exact and the Vecchia paths, with analytic
#' derivatives in the range and the shapes (for the Fisher information, the
#' analytic gradient and the Vecchia search); the GPU kernels evaluate the
#' same formulas as the CPU.
#'
#' @name gp_covariance_models
#' @seealso [gp_fit()], [matern()], [gp_cov_matrix()]
NULL

# GpGp's model names and the package's equivalents (matched ignoring case).
gp_cov_aliases <- c(
  matern_isotropic = "matern", exponential_isotropic = "exponential", matern15_isotropic = "matern32",
  matern25_isotropic = "matern52", matern_anisotropic2d = "matern_aniso", matern_anisotropic3d = "matern_aniso",
  exponential_anisotropic2d = "exponential_aniso", exponential_anisotropic3d = "exponential_aniso",
  matern_spacetime = "matern_spacetime", exponential_spacetime = "exponential_spacetime"
)

# The families `cov` names: the core's family of each (gs_table("cov_family"))
# and the shapes the name fixes.
gp_cov_families <- list(
  matern = list(native = "matern"),
  exponential = list(native = "matern", fixed = c(smoothness = 0.5)),
  matern32 = list(native = "matern", fixed = c(smoothness = 1.5)),
  matern52 = list(native = "matern", fixed = c(smoothness = 2.5)),
  gaussian = list(native = "gaussian"),
  spherical = list(native = "spherical"),
  powexp = list(native = "powexp"),
  cauchy = list(native = "cauchy"),
  wendland = list(native = "wendland")
)

# Other spellings of the families (matched ignoring case): gstat's vgm()
# codes and the common names.
gp_cov_family_aliases <- c(
  exp = "exponential", mat = "matern", gau = "gaussian", sph = "spherical", exc = "powexp",
  squared_exponential = "gaussian", powered_exponential = "powexp", stable = "powexp",
  generalized_cauchy = "cauchy", generalized_wendland = "wendland"
)

# The names of a core family's shape parameters, from the core's table.
gp_cov_shape_names <- function(native) {
  mask <- gs_table("cov_family_shape_mask")[[native]]
  params <- gs_table("cov_param")
  names(params)[bitwAnd(mask, bitwShiftL(1L, params)) != 0L]
}

# The names of every family's shapes: the core's parameters but sigma2,
# range and nugget.
gp_cov_all_shapes <- function() setdiff(names(gs_table("cov_param")), c("sigma2", "range", "nugget"))

# The correlation of the model at distances h >= 0 with range `range` and
# shapes `shape` (named), from the core on the CPU.
gp_cov_corr <- function(model, h, range, shape) {
  params <- gp_cov_params(1, range, shape, 0)
  drop(.Call(gs_r_matern_cov, matrix(as.double(h)), matrix(0), cov_model(params, "euclidean", model$native), -1L,
             gs_threads(), NULL))
}

# The covariance model named `cov` for locations with `dim` columns: its
# family, the core's family, its shape parameters (and those the name
# fixes), geometry and the names of its geometry parameters (ranges on a
# log scale in a search, angles not).
gp_cov_model <- function(cov, dim, distance, call) {
  if (!is.character(cov) || length(cov) != 1L || is.na(cov)) {
    abort_arg("{.arg cov} must be a model name such as {.val matern}, not {.obj_type_friendly {cov}}.", call)
  }
  name <- tolower(cov)
  if (name %in% names(gp_cov_aliases)) name <- gp_cov_aliases[[name]]
  geometry <- "isotropic"
  for (g in c("aniso", "spacetime")) {
    if (endsWith(name, paste0("_", g))) {
      geometry <- g
      name <- substr(name, 1L, nchar(name) - nchar(g) - 1L)
    }
  }
  family <- if (name %in% names(gp_cov_family_aliases)) gp_cov_family_aliases[[name]] else name
  if (!family %in% names(gp_cov_families)) {
    spellings <- vapply(names(gp_cov_families), function(f) {
      other <- names(gp_cov_family_aliases)[gp_cov_family_aliases == f]
      if (length(other)) paste0(f, " (", paste(other, collapse = ", "), ")") else f
    }, "")
    abort_arg(c("{.arg cov} = {.val {cov}} is not a covariance model.",
                i = "Families (other spellings in parentheses, any case): {paste(spellings, collapse = ', ')}; each optionally with {.val _aniso} or {.val _spacetime}; or GpGp's names {.val {names(gp_cov_aliases)}}. See {.topic gp_covariance_models}."),
              call)
  }
  if (geometry != "isotropic" && distance == "great_circle") {
    abort_arg("Great-circle distance goes with isotropic models only, not {.val {cov}}.", call)
  }
  if (geometry == "aniso" && !dim %in% 2:3) {
    abort_arg("Geometric anisotropy needs 2-D or 3-D locations; these have {dim} column{?s}.", call)
  }
  if (geometry == "spacetime" && dim < 2L) {
    abort_arg("A space-time model needs the coordinates and, last, the time: at least 2 columns, not {dim}.", call)
  }
  native <- gp_cov_families[[family]]$native
  if (native == "gaussian" && distance == "great_circle") {
    abort_arg(c("The Gaussian covariance is not positive definite with great-circle distance.",
                i = "Use a powered exponential or Cauchy with {.code power <= 1}, a spherical or Wendland, or Euclidean distance on projected coordinates."),
              call, class = "gpustats_error_cov_sphere")
  }
  if (native == "spherical" && distance == "euclidean" && dim > 3L) {
    abort_arg("The spherical covariance is positive definite in up to 3 dimensions; these locations have {dim}.",
              call, class = "gpustats_error_cov_dimension")
  }
  params <- switch(geometry,
    isotropic = "range",
    aniso = if (dim == 2L) c("range1", "range2", "angle") else c(paste0("range", 1:3), paste0("angle", 1:3)),
    spacetime = c("range", "range_time")
  )
  list(name = paste0(family, if (geometry != "isotropic") paste0("_", geometry)), family = family, native = native,
       shapes = gp_cov_shape_names(native), shape_fixed = gp_cov_families[[family]]$fixed %||% numeric(0),
       geometry = geometry, params = params, dim = dim, distance = distance)
}

# Shape parameters held fixed unless `fixed` says otherwise: the Wendland's
# kappa, whose three values are three functions, at 1 (Wendland's C^2).
gp_cov_shape_held <- c(kappa = 1)

# Default start values and search bounds of a family's free shapes (those
# not in `fixed`), within the core's rule (gs_cov_model_problem): smoothness
# in [0.05, 5] (at most 1/2 with great-circle distance), power in
# [0.05, 2] (at most 1 on the sphere), tail in [0.05, 20], and the
# Wendland's mu from its least valid value (dimensions + 1) / 2 + kappa
# (3 dimensions on the sphere) to 10 above it.
gp_cov_shape_defaults <- function(model, fixed) {
  sphere <- model$distance == "great_circle"
  mu_min <- ((if (sphere) 3 else model$dim) + 1) / 2 + (fixed$kappa %||% gp_cov_shape_held[["kappa"]])
  box <- list(smoothness = c(0.05, if (sphere) 0.5 else 5, 1), power = c(0.05, if (sphere) 1 else 2, 1),
              tail = c(0.05, 20, 1), mu = c(mu_min, mu_min + 10, mu_min + 1))
  free <- setdiff(model$shapes, c(names(fixed), names(gp_cov_shape_held)))
  b <- box[free]
  list(lower = vapply(b, `[[`, 0, 1L), upper = vapply(b, `[[`, 0, 2L),
       start = vapply(b, function(v) min(v[[3L]], 0.8 * v[[2L]]), 0))
}

# The model's covariance parameters, native as the core takes them (a named
# vector for cov_model()): sigma2, range, the family's shapes, nugget.
gp_cov_params <- function(sigma2, range, shape, nugget) {
  c(sigma2 = as.double(sigma2), range = as.double(range), shape, nugget = as.double(nugget))
}

# The core's rule (gs_cov_model_check) for the model at native parameters
# `params`: an error that says which rule they break, of class
# gpustats_error_cov_<problem> (gs_table("cov_problem"): "shape",
# "dimension", "sphere", ...) and gpustats_error_argument.
check_cov_rule <- function(model, params, call) {
  r <- .Call(gs_r_cov_model_check, cov_model(params, model$distance, model$native), as.integer(model$dim))
  if (is.null(r)) return(invisible())
  problem <- names(gs_table("cov_problem"))[match(r$problem, gs_table("cov_problem"))]
  abort_arg("{r$message}", call, class = paste0("gpustats_error_cov_", problem))
}

# Whether the model at `params` keeps the core's rule.
cov_rule_holds <- function(model, params) {
  tryCatch({
    check_cov_rule(model, params, NULL)
    TRUE
  }, gpustats_error_argument = function(e) FALSE)
}

# Whether a geometry parameter is searched on a log scale (ranges) or as is (angles).
gp_cov_is_range <- function(param) startsWith(param, "range")

# The locations mapped so that the model's distance is the Euclidean (or
# great-circle) distance of the result with range 1, and the range handed to
# the covariance code: for an isotropic model the locations stay and the
# range goes to the code.
gp_cov_map <- function(model, geom, locs) {
  switch(model$geometry,
    isotropic = list(locs = locs, range = geom[["range"]]),
    spacetime = {
      d <- ncol(locs)
      list(locs = cbind(locs[, -d, drop = FALSE] / geom[["range"]], locs[, d] / geom[["range_time"]]), range = 1)
    },
    aniso = {
      Q <- gp_cov_rotation(model$dim, geom)
      ranges <- geom[paste0("range", seq_len(model$dim))]
      list(locs = sweep(locs %*% Q, 2L, ranges, "/"), range = 1)
    }
  )
}

# The rotation Q whose columns are the principal axes of the anisotropy.
gp_cov_rotation <- function(dim, geom) {
  rot2 <- function(a) matrix(c(cos(a), sin(a), -sin(a), cos(a)), 2L)
  if (dim == 2L) return(rot2(geom[["angle"]]))
  about <- function(axis, a) {
    R <- diag(3)
    keep <- setdiff(1:3, axis)
    R[keep, keep] <- rot2(if (axis == 2L) -a else a)
    R
  }
  about(3L, geom[["angle1"]]) %*% about(2L, geom[["angle2"]]) %*% about(1L, geom[["angle3"]])
}

# Start values and bounds of the geometry parameters, from the extent of the
# locations: ranges a tenth of the diameter (of space, and of the time span),
# bounded by 1e-4 and 10 times it; angles within a half turn. The extent sets
# the scale, whatever the units (coordinates of 1e-300 fit as those of 1);
# locations that all coincide have none, and give no information on a range.
gp_cov_defaults <- function(model, locs, call = NULL) {
  span <- function(x) {
    if (nrow(x) < 2L) return(1) # no extent to take; the fit refuses so few observations
    w <- apply(x, 2L, max) - apply(x, 2L, min)
    s <- max(w) * sqrt(sum((w / max(w))^2)) # no overflow at coordinates of 1e300
    if (!isTRUE(s > 0)) {
      abort_arg("All locations coincide{if (ncol(x) < ncol(locs)) ' in space or in time' else ''}: there is no distance to estimate a range from.", call)
    }
    s
  }
  d <- ncol(locs)
  space <- if (model$geometry == "spacetime") span(locs[, -d, drop = FALSE]) else span(locs)
  if (model$distance == "great_circle") space <- min(space * 111.2, pi * 6371)
  scale <- vapply(model$params, function(p) {
    if (p == "range_time") span(locs[, d, drop = FALSE]) else if (gp_cov_is_range(p)) space else NA_real_
  }, numeric(1))
  # angles unbounded: the distance has period pi in each, so a box would trap
  # the search at its edges; gp_cov_reduce_angles() reports them in one period
  is_range <- gp_cov_is_range(model$params)
  # compactly supported families on the sphere: a support of at most half
  # the great circle (gs_cov_model_problem)
  longest <- if (model$distance == "great_circle" && model$native %in% c("spherical", "wendland")) pi * 6371 else Inf
  list(start = ifelse(is_range, scale / 10, ifelse(model$params == "angle2", 0, pi / 4)),
       lower = ifelse(is_range, scale * 1e-4, -Inf),
       upper = ifelse(is_range, pmin(scale * 10, longest), Inf),
       diameter = space)
}

# Angles in one period: angle2 in [-pi/2, pi/2), the others in [0, pi).
gp_cov_reduce_angles <- function(geom) {
  for (k in names(geom)[startsWith(names(geom), "angle")]) {
    shift <- if (k == "angle2") pi / 2 else 0
    geom[[k]] <- (geom[[k]] + shift) %% pi - shift
  }
  geom
}

# A Matérn of great-circle distance is positive definite only for smoothness <= 1/2.
warn_great_circle <- function(distance, smoothness, call) {
  if (distance == "great_circle" && isTRUE(smoothness > 0.5 + 1e-12)) {
    cli::cli_warn(c("A Mat\u00e9rn covariance of great-circle distance with smoothness {signif(smoothness, 4)} > 1/2 need not be positive definite on the sphere.",
                    i = "Keep the smoothness at most 1/2, or use Euclidean distance on projected coordinates."),
                  class = c("gpustats_warning_great_circle", "gpustats_warning"), call = call)
  }
}

#' Geometric anisotropy in the package's convention and in gstat's
#'
#' A 2-D anisotropic model (`cov = "..._aniso"`, see
#' [gp_covariance_models]) has two conventions for the same ellipse of
#' equal correlation:
#'
#' * `"radians_x"`, the package's own (its coefficients, `start`, `fixed`,
#'   `lower` and `upper` of [gp_fit()]): `range1`, `range2` and `angle`, in
#'   radians counterclockwise from the x axis to the axis of `range1`, in
#'   \eqn{[0, \pi)}; either range may be the larger.
#' * `"gstat"`, that of `gstat::vgm(psill, model, range, nugget, anis =
#'   c(angle, ratio))`: `range` the major (longer) range, `angle` the
#'   direction of the major axis in degrees clockwise from north (the y
#'   axis), in \eqn{[0, 180)}, and `ratio` the minor range over the major,
#'   in \eqn{(0, 1]}.
#'
#' With \eqn{a} the package's angle in degrees, where
#' \eqn{\mathrm{range1} \ge \mathrm{range2}}: `range = range1`,
#' `ratio = range2 / range1` and `angle` = \eqn{(90 - a) \bmod 180}; where
#' `range2` is the longer, `range = range2`, `ratio = range1 / range2` and
#' `angle` = \eqn{(180 - a) \bmod 180}. Back: `range1 = range`,
#' `range2 = ratio * range` and the package's angle
#' \eqn{((90 - \mathrm{angle}) \bmod 180)\,\pi / 180}. So an angle of 69.1
#' degrees from the x axis is 20.9 clockwise from north. The sill and
#' nugget are the same in both (gstat's `psill` is `sigma2`), and so is the
#' range of the exponential and Matérn families (gstat's `"Exp"` and
#' `"Mat"`, `kappa` the smoothness). 3-D anisotropy has the package's
#' convention only.
#'
#' @param x A [gp_fit()] of a 2-D anisotropic model, or its parameters in
#'   either convention: a named numeric vector or list holding `range1`,
#'   `range2` and `angle` (as `coef()` gives them), or `range`, `angle` and
#'   `ratio` (gstat's). Other elements are ignored.
#' @param convention The convention of the result: `"gstat"` or
#'   `"radians_x"`.
#' @return A named numeric vector: `c(range, angle, ratio)` for `"gstat"`,
#'   `c(range1, range2, angle)` for `"radians_x"`, so that
#'   `gstat::vgm(..., range = a[["range"]], anis = a[c("angle", "ratio")])`
#'   builds gstat's model of a fit, and `as.list()` of the other passes
#'   gstat's values to [gp_fit()] as `start` or `fixed`.
#' @seealso [gp_covariance_models], [gp_fit()]
#' @examples
#' gp_anisotropy(c(range1 = 1200, range2 = 500, angle = 69.1 * pi / 180), "gstat")
#' gp_anisotropy(c(range = 1200, angle = 20.9, ratio = 0.5), "radians_x")
#' @export
gp_anisotropy <- function(x, convention = c("gstat", "radians_x")) {
  call <- environment()
  convention <- match_choice(convention, c("gstat", "radians_x"), "convention", call)
  p <- gp_anisotropy_params(x, call)
  if (all(c("range1", "range2", "angle") %in% names(p))) {
    if (convention == "radians_x") return(p[c("range1", "range2", "angle")])
    a <- p[["angle"]] * 180 / pi
    major1 <- p[["range1"]] >= p[["range2"]]
    return(c(range = max(p[["range1"]], p[["range2"]]), angle = ((if (major1) 90 else 180) - a) %% 180,
             ratio = min(p[["range1"]], p[["range2"]]) / max(p[["range1"]], p[["range2"]])))
  }
  if (p[["ratio"]] > 1) abort_arg("gstat's {.arg ratio} is the minor range over the major, at most 1, not {p[['ratio']]}.", call)
  if (convention == "gstat") return(p[c("range", "angle", "ratio")])
  c(range1 = p[["range"]], range2 = p[["ratio"]] * p[["range"]], angle = ((90 - p[["angle"]]) %% 180) * pi / 180)
}

# The anisotropy parameters of gp_anisotropy()'s `x`: a fit's estimates, or
# the values given, checked (ranges and gstat's ratio > 0, angles finite).
gp_anisotropy_params <- function(x, call) {
  if (inherits(x, "gp_fit")) {
    validate_gp_fit(x, "x", call)
    if (x$model$geometry != "aniso" || x$model$dim != 2L) {
      abort_arg("{.arg x} is a fit of {.val {x$model$name}} on {x$model$dim}-D locations; gstat's convention is for 2-D geometric anisotropy.", call)
    }
    return(x$covariance[c("range1", "range2", "angle")])
  }
  keys <- list(c("range1", "range2", "angle"), c("range", "angle", "ratio"))
  have <- vapply(keys, function(k) all(k %in% names(x)), TRUE)
  if (!(is.numeric(x) || is.list(x)) || sum(have) != 1L) {
    abort_arg("{.arg x} must be a 2-D anisotropic {.cls gp_fit}, or named values of {.val {keys[[1]]}} (the package's) or {.val {keys[[2]]}} (gstat's).", call)
  }
  k <- keys[[which(have)]]
  for (name in k) check_scalar(x[[name]], name, call, if (name == "angle") -Inf else 0, open = name != "angle")
  vapply(k, function(name) as.double(x[[name]]), numeric(1))
}

# A covariance family named `cov` at given parameter values, for the
# functions that take them directly (gp_cov_matrix(), gp_loglik(),
# gp_simulate()): its model (isotropic: anisotropy is a fit's) and its
# native parameters, checked by the core's rule. `shape`: a named list of
# the family's shape parameters (those its name fixes may be left out, the
# Wendland's kappa is 1 unless given).
cov_family_params <- function(cov, sigma2, range, nugget, shape, dim, distance, call) {
  model <- gp_cov_model(cov, dim, distance, call)
  if (model$geometry != "isotropic") {
    abort_arg("{.arg cov} must be an isotropic family here, not {.val {cov}}; anisotropic and space-time models are fitted by {.fn gp_fit}.", call)
  }
  check_scalar(sigma2, "sigma2", call, 0)
  check_scalar(range, "range", call, 0, open = TRUE)
  check_scalar(nugget, "nugget", call, 0)
  if (length(shape) && (is.null(names(shape)) || any(!nzchar(names(shape))) || anyDuplicated(names(shape)))) {
    abort_arg("Shape parameters must be named, once each: {.or {.arg {model$shapes}}}.", call)
  }
  unknown <- setdiff(names(shape), model$shapes)
  if (length(unknown)) {
    abort_arg(c("{.val {model$family}} has no parameter{?s} {.arg {unknown}}.",
                i = if (length(model$shapes)) "Its shape parameters: {.arg {model$shapes}}." else "It has no shape parameters."), call)
  }
  for (k in names(model$shape_fixed)) {
    if (!is.null(shape[[k]]) && !identical(as.double(shape[[k]]), model$shape_fixed[[k]])) {
      abort_arg("{.val {model$family}} has {k} {model$shape_fixed[[k]]}; use {.code cov = \"{model$native}\"} for another.", call)
    }
    shape[[k]] <- model$shape_fixed[[k]]
  }
  for (k in intersect(names(gp_cov_shape_held), model$shapes)) shape[[k]] <- shape[[k]] %||% gp_cov_shape_held[[k]]
  absent <- setdiff(model$shapes, names(shape))
  if (length(absent)) abort_arg("{.val {model$family}} needs {.arg {absent}}.", call)
  for (k in model$shapes) check_scalar(shape[[k]], k, call)
  params <- gp_cov_params(sigma2, range, vapply(model$shapes, function(k) as.double(shape[[k]]), numeric(1)), nugget)
  check_cov_rule(model, params, call)
  list(model = model, params = params)
}

#' Covariance matrices of every covariance family
#'
#' `gp_cov_matrix()` builds the covariance matrix of a family of
#' [gp_covariance_models] between sets of locations, as [matern_cov()] does
#' for the Matérn: \eqn{\sigma^2 \rho(d / \mathrm{range})}, plus the nugget
#' on the diagonal of the covariance of `locs` with itself.
#'
#' @inheritParams matern_cov
#' @param cov An isotropic family of [gp_covariance_models], in any of its
#'   spellings (`"spherical"`, `"Sph"`, `"gaussian"`, ...).
#' @param sigma2,range,nugget As for [matern_cov()]; `range` as each family
#'   defines it (see [gp_covariance_models]).
#' @param ... The family's shape parameters by name: `smoothness`
#'   (`"matern"`), `power` (`"powexp"`, `"cauchy"`), `tail` (`"cauchy"`),
#'   `kappa` (0, 1 or 2; default 1) and `mu` (`"wendland"`).
#' @return An `nrow(locs)` by `nrow(locs2)` matrix. Parameters outside a
#'   family's domain, or a family that is not positive definite for these
#'   locations (the dimension, or great-circle distance), are errors that
#'   say which rule they break, of the classes listed in
#'   [gp_covariance_models].
#' @seealso [gp_covariance_models], [matern_cov()]
#' @examples
#' locs <- matrix(runif(20), ncol = 2)
#' S <- gp_cov_matrix(locs, cov = "Sph", sigma2 = 2, range = 0.5, nugget = 0.1)
#' W <- gp_cov_matrix(locs, cov = "wendland", range = 0.8, kappa = 1, mu = 3)
#' @export
gp_cov_matrix <- function(locs, locs2 = NULL, cov = "matern", sigma2 = 1, range = 1, nugget = 0, ...,
                          distance = c("euclidean", "great_circle"), device = getOption("gpustats.device", "auto")) {
  call <- environment()
  distance <- match_choice(distance, c("euclidean", "great_circle"), "distance", call)
  l <- covariance_locations(locs, locs2, distance, call)
  f <- cov_family_params(cov, sigma2, range, nugget, list(...), ncol(l$locs), distance, call)
  covariance_matrix(l$locs, l$locs2, cov_model(f$params, distance, f$model$native), device, "gp_cov_matrix", call)
}
