# Spatial objects in and out: predict(), simulate() and gp_map() given an
# sf, sp, stars or terra object return one of the same class, their results
# as its columns (attributes of a stars grid, layers of a SpatRaster),
# geometry and CRS carried over, as gstat's predict() does.

# Whether `x` is an sf, sp, stars or terra object (else a data frame or
# matrix).
is_spatial <- function(x) inherits(x, c("sf", "Spatial", "stars", "SpatRaster", "SpatVector"))

# The cells of a stars grid that are points: those with a value in some
# attribute (the grid's mask, as stars' st_as_sf() drops the others), all of
# them when it has no attributes. The grid must have two dimensions, x and y.
stars_cells <- function(data, arg, call) {
  dims <- names(dim(data))
  xy <- attr(stars::st_dimensions(data), "raster")$dimensions
  if (length(dims) != 2L || !setequal(dims, xy)) {
    abort_arg(c("{.arg {arg}} must be a stars grid of two dimensions, x and y; it has {.val {dims}}.",
                i = "Select one band or time, for example with {.code [}."), call)
  }
  cells <- as.data.frame(data) # a row per cell, the first dimension fastest
  values <- cells[, setdiff(names(cells), dims), drop = FALSE]
  list(locs = as.matrix(cells[, xy]), table = values, names = xy,
       keep = if (ncol(values)) rowSums(!is.na(values)) > 0 else rep(TRUE, nrow(cells)))
}

# The attributes and coordinates of the points of a stars grid, as
# spatial_table() gives those of an sf or sp object.
stars_table <- function(data, arg, call) {
  cells <- stars_cells(data, arg, call)
  list(table = cells$table[cells$keep, , drop = FALSE], locs = unname(cells$locs[cells$keep, , drop = FALSE]),
       names = cells$names, longlat = isTRUE(sf::st_is_longlat(data)))
}

# `columns` (a data frame with a row per point of `newdata`) as an object of
# newdata's class: an sf with newdata's geometry, an sp object with its
# geometry (points, pixels or grid), or a stars grid with its dimensions and
# a value in the cells that are points, NA in the others; terra objects as
# terra_result() makes them.
spatial_result <- function(newdata, columns) {
  if (is_terra(newdata)) return(terra_result(newdata, columns))
  if (inherits(newdata, "sf")) return(sf::st_sf(columns, geometry = sf::st_geometry(newdata)))
  if (inherits(newdata, "Spatial")) return(sp::addAttrToGeom(sp::geometry(newdata), columns, match.ID = FALSE))
  keep <- stars_cells(newdata, "newdata", parent.frame())$keep
  layers <- lapply(columns, function(v) {
    layer <- array(NA_real_, dim(newdata))
    layer[keep] <- v
    layer
  })
  stars::st_as_stars(layers, dimensions = stars::st_dimensions(newdata))
}

# predict()'s result as a data frame with a row per location: `fit` (or
# `fit`, `lwr`, `upr`) and `se.fit`; for a fit of replicates `fit.<replicate>`,
# ... for each of those and one `se.fit` (with missing values, whose
# standard errors differ, `se.fit.<replicate>`).
prediction_columns <- function(object, out) {
  parts <- if (is.list(out)) out else list(fit = out)
  fit <- parts$fit
  if (fit_replicates(object) == 1L) {
    columns <- if (is.matrix(fit)) as.data.frame(fit) else data.frame(fit = fit)
  } else {
    reps <- replicate_names(object)
    stat <- if (length(dim(fit)) == 3L) dimnames(fit)[[3L]] else "fit"
    columns <- as.data.frame(matrix(fit, nrow(fit)))
    names(columns) <- paste0(rep(stat, each = length(reps)), ".", reps)
  }
  se <- parts$se.fit
  if (is.matrix(se)) {
    columns[paste0("se.fit.", replicate_names(object))] <- as.data.frame(se)
  } else if (!is.null(se)) {
    columns$se.fit <- se
  }
  columns
}

# The names of a fit's replicates: the response's column names, else rep_1, ...
replicate_names <- function(fit) colnames(fit$y) %||% paste0("rep_", seq_len(fit_replicates(fit)))
