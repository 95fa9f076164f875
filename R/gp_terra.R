# terra objects in and out (gp_spatial_out.R's rule for sf, sp and stars):
# a SpatRaster grid gives its cells (those with a value in some layer, the
# grid's mask; every cell of a grid without values) and gets back a
# SpatRaster of the same geometry with a layer per result, NA outside the
# mask; a SpatVector of points gives its points and gets back a SpatVector
# of those points with the results as attributes.

is_terra <- function(x) inherits(x, c("SpatRaster", "SpatVector"))

# The cells of a SpatRaster: their centres, their layers' values (the
# covariates) and which are points (`keep`).
terra_cells <- function(data) {
  cells <- seq_len(terra::ncell(data))
  values <- if (terra::hasValues(data)) terra::values(data, dataframe = TRUE) else data.frame(row.names = cells)
  list(locs = terra::xyFromCell(data, cells), table = values,
       keep = if (ncol(values)) rowSums(!is.na(values)) > 0 else rep(TRUE, length(cells)))
}

# spatial_table()'s list for a SpatRaster or a SpatVector of points.
terra_table <- function(data, arg, call) {
  if (inherits(data, "SpatRaster")) {
    cells <- terra_cells(data)
    locs <- unname(cells$locs[cells$keep, , drop = FALSE])
    table <- cells$table[cells$keep, , drop = FALSE]
  } else {
    if (!nrow(data)) abort_arg("{.arg {arg}} has no points.", call)
    if (!identical(terra::geomtype(data), "points")) {
      abort_arg("{.arg {arg}} must be a SpatVector of points, not of {terra::geomtype(data)}; use {.fn terra::centroids} for others.",
                call)
    }
    locs <- unname(terra::crds(data))
    if (nrow(locs) != nrow(data)) abort_arg("{.arg {arg}} has multipoint geometries: give one point a row.", call)
    table <- as.data.frame(data)
  }
  if (!nrow(locs)) abort_arg("{.arg {arg}} has no points.", call)
  list(table = table, locs = locs, names = c("x", "y"), longlat = isTRUE(suppressWarnings(terra::is.lonlat(data))),
       crs = terra_crs(data))
}

# The CRS of a terra object as sf's (the one the fit keeps and compares),
# NULL where it has none or sf is not installed.
terra_crs <- function(data) {
  wkt <- terra::crs(data)
  if (!nzchar(wkt) || !requireNamespace("sf", quietly = TRUE)) return(NULL)
  sf::st_crs(wkt)
}

# spatial_result() for terra: `columns` (a row per point of newdata) as
# layers of newdata's grid, or attributes of its points.
terra_result <- function(newdata, columns) {
  if (inherits(newdata, "SpatVector")) {
    terra::values(newdata) <- columns
    return(newdata)
  }
  out <- terra::rast(newdata, nlyrs = ncol(columns))
  layers <- matrix(NA_real_, terra::ncell(newdata), ncol(columns))
  layers[terra_cells(newdata)$keep, ] <- as.matrix(columns)
  terra::values(out) <- layers
  names(out) <- names(columns)
  out
}
