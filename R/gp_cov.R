#' Covariance models for Gaussian-process fits
#'
#' The `cov` argument of [gp_fit()] names the covariance model: a Matérn
#' family and a geometry. Every model is the Matérn correlation of
#' [matern()] applied to a distance, with variance `sigma2` and a nugget:
#'
#' * Families: `"matern"` (smoothness estimated), `"exponential"`
#'   (smoothness 1/2), `"matern32"` (3/2) and `"matern52"` (5/2), the closed
#'   forms \eqn{e^{-h}}, \eqn{(1 + h) e^{-h}} and
#'   \eqn{(1 + h + h^2/3) e^{-h}}.
#' * Geometries, appended with an underscore:
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
#'     \mathrm{range\_time}^2}}, as GpGp's `matern_spacetime`.
#'
#' So `cov = "exponential_aniso"` is an anisotropic exponential model. GpGp's
#' names are accepted too: `"matern_isotropic"`, `"exponential_isotropic"`,
#' `"matern15_isotropic"`, `"matern25_isotropic"`, `"matern_anisotropic2D"`,
#' `"matern_anisotropic3D"`, `"exponential_anisotropic2D"`,
#' `"matern_spacetime"`, `"exponential_spacetime"`.
#'
#' Great-circle distance (`distance = "great_circle"`) goes with isotropic
#' models only. A Matérn covariance of great-circle distance is positive
#' definite on the sphere for every range only when the smoothness is at
#' most 1/2 (Gneiting 2013): [gp_fit()] then bounds the smoothness by 1/2
#' unless `upper` says otherwise, and a smoothness above 1/2 with
#' great-circle distance gives a warning of class
#' `gpustats_warning_great_circle`.
#'
#' @name gp_covariance_models
#' @seealso [gp_fit()], [matern()]
NULL

# GpGp's model names and the package's equivalents.
gp_cov_aliases <- c(
  matern_isotropic = "matern", exponential_isotropic = "exponential", matern15_isotropic = "matern32",
  matern25_isotropic = "matern52", matern_anisotropic2D = "matern_aniso", matern_anisotropic3D = "matern_aniso",
  exponential_anisotropic2D = "exponential_aniso", exponential_anisotropic3D = "exponential_aniso",
  matern_spacetime = "matern_spacetime", exponential_spacetime = "exponential_spacetime"
)

# The smoothness each family fixes (NA: estimated).
gp_cov_families <- c(matern = NA, exponential = 0.5, matern32 = 1.5, matern52 = 2.5)

# The covariance model named `cov` for locations with `dim` columns: its
# family, fixed smoothness (NA when free), geometry and the names of its
# geometry parameters (ranges on a log scale in a search, angles not).
gp_cov_model <- function(cov, dim, distance, call) {
  if (!is.character(cov) || length(cov) != 1L || is.na(cov)) {
    abort_arg("{.arg cov} must be a model name such as {.val matern}, not {.obj_type_friendly {cov}}.", call)
  }
  name <- if (cov %in% names(gp_cov_aliases)) gp_cov_aliases[[cov]] else cov
  parts <- strsplit(name, "_", fixed = TRUE)[[1L]]
  family <- parts[1L]
  geometry <- if (length(parts) > 1L) paste(parts[-1L], collapse = "_") else "isotropic"
  if (!family %in% names(gp_cov_families) || !geometry %in% c("isotropic", "aniso", "spacetime")) {
    abort_arg(c("{.arg cov} = {.val {cov}} is not a covariance model.",
                i = "Families: {.val {names(gp_cov_families)}}, optionally with {.val _aniso} or {.val _spacetime}; see {.topic gp_covariance_models}."),
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
  params <- switch(geometry,
    isotropic = "range",
    aniso = if (dim == 2L) c("range1", "range2", "angle") else c(paste0("range", 1:3), paste0("angle", 1:3)),
    spacetime = c("range", "range_time")
  )
  list(name = paste0(family, if (geometry != "isotropic") paste0("_", geometry)), family = family,
       smoothness = gp_cov_families[[family]], geometry = geometry, params = params, dim = dim,
       distance = distance)
}

# The default search bounds of the smoothness: at most 1/2 with great-circle
# distance, where only that keeps the Matérn positive definite.
gp_cov_smoothness_bounds <- function(distance) c(0.05, if (distance == "great_circle") 0.5 else 5)

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
  list(start = ifelse(is_range, scale / 10, ifelse(model$params == "angle2", 0, pi / 4)),
       lower = ifelse(is_range, scale * 1e-4, -Inf),
       upper = ifelse(is_range, scale * 10, Inf),
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
  if (distance == "great_circle" && smoothness > 0.5 + 1e-12) {
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
