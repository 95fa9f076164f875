# Data for Gaussian-process fits and predictions: the response, the
# coordinates and the trend's design matrix, from a formula and a data frame,
# an sf, sp, stars or terra object, or from matrices.

# The attributes and coordinates of `data`: a data frame with coordinates
# named by `coords` (a one-sided formula or column names), or an sf, sp or
# stars object whose geometry gives them (then `coords` must be NULL). `longlat`:
# whether the object says its coordinates are longitude and latitude; `crs`:
# its coordinate reference system (NULL where it has none).
spatial_table <- function(data, coords, arg, call) {
  if (inherits(data, "sf")) {
    if (!is.null(coords)) abort_arg("{.arg coords} must be NULL for an sf object: its geometry gives the coordinates.", call)
    geometry <- sf::st_geometry(data)
    if (!all(sf::st_geometry_type(geometry) == "POINT")) {
      abort_arg("{.arg {arg}} must hold POINT geometries; use {.fn sf::st_centroid} for others.", call)
    }
    xy <- sf::st_coordinates(geometry)
    if (!length(geometry)) abort_arg("{.arg {arg}} has no points.", call)
    xy <- sf::st_coordinates(geometry)
    return(list(table = sf::st_drop_geometry(data), locs = unname(xy[, colnames(xy) %in% c("X", "Y", "Z"), drop = FALSE]),
                names = intersect(colnames(xy), c("X", "Y", "Z")), longlat = isTRUE(sf::st_is_longlat(data)),
                crs = spatial_crs(data)))
  }
  if (inherits(data, "Spatial")) {
    if (!is.null(coords)) abort_arg("{.arg coords} must be NULL for an sp object: its coordinates are used.", call)
    if (!inherits(data, c("SpatialPoints", "SpatialPixels", "SpatialGrid"))) {
      abort_arg("{.arg {arg}} must be sp points, pixels or a grid, not {.cls {class(data)[1L]}}; use {.fn sf::st_centroid} for others.",
                call)
    }
    xy <- sp::coordinates(data)
    table <- if (methods::.hasSlot(data, "data")) data@data else data.frame(row.names = seq_len(nrow(xy)))
    return(list(table = table, locs = unname(xy), names = colnames(xy), longlat = isTRUE(sp::is.projected(data) == FALSE),
                crs = spatial_crs(data)))
  }
  if (inherits(data, "stars")) {
    if (!is.null(coords)) abort_arg("{.arg coords} must be NULL for a stars grid: its dimensions give the coordinates.", call)
    return(c(stars_table(data, arg, call), list(crs = spatial_crs(data))))
  }
  if (is_terra(data)) {
    if (!is.null(coords)) abort_arg("{.arg coords} must be NULL for a terra object: its geometry gives the coordinates.", call)
    return(terra_table(data, arg, call))
  }
  if (!is.data.frame(data)) {
    abort_arg("{.arg {arg}} must be a data frame, an sf, sp, stars or terra object, not {.obj_type_friendly {data}}.", call)
  }
  if (is.null(coords)) {
    abort_arg(c("{.arg coords} is missing: which columns of {.arg {arg}} are the coordinates?",
                i = "For example {.code coords = ~ x + y}."), call)
  }
  names <- if (inherits(coords, "formula")) all.vars(coords) else coords
  if (!is.character(names) || !length(names)) abort_arg("{.arg coords} must be a formula such as {.code ~ x + y} or column names.", call)
  missing <- setdiff(names, names(data))
  if (length(missing)) abort_arg("{.arg {arg}} has no column{?s} {.val {missing}} named in {.arg coords}.", call)
  locs <- as.matrix(data[, names, drop = FALSE])
  if (!is.numeric(locs)) abort_arg("The coordinate columns {.val {names}} must be numeric.", call)
  list(table = data, locs = unname(locs), names = names, longlat = FALSE, crs = NULL)
}

# The coordinate reference system of an sf, sp or stars object, NULL where it
# has none.
spatial_crs <- function(data) {
  crs <- sf::st_crs(data)
  if (is.na(crs)) NULL else crs
}

# Points of a CRS other than the fit's would be predicted at the wrong places:
# refused. Either without a CRS is taken as it is.
check_same_crs <- function(fit, crs, call) {
  if (is.null(fit$crs) || is.null(crs) || fit$crs == crs) return(invisible())
  abort_arg(c("{.arg newdata} is in another coordinate reference system ({crs_name(crs)}) than the fit's data ({crs_name(fit$crs)}).",
              i = "Transform it first: {.code sf::st_transform(newdata, sf::st_crs(fit$crs))}, or for a terra object {.code terra::project(newdata, fit$crs$wkt)}."), call)
}

crs_name <- function(crs) if (!is.na(crs$input)) crs$input else "unnamed"

# The response, locations and design matrix of a formula fit, rows with a
# missing value dropped with a message that says how many. `frame` is the
# model frame of the rows kept, as lm() keeps it (with the rows dropped in
# its attribute `na.action`), for model.frame() and update() of the fit.
# `replicates`: whether a matrix response holds replicates (the Gaussian
# family), each keeping its observed values, rather than a binomial's
# successes and failures, whose rows go whole.
gp_data_formula <- function(formula, data, coords, call, replicates = TRUE) {
  if (missing(data) || is.null(data)) abort_arg("{.arg data} is missing: the data frame, sf or sp object the formula refers to.", call)
  sp <- spatial_table(data, coords, "data", call)
  table <- sp$table
  mf <- tryCatch(stats::model.frame(formula, table, na.action = stats::na.pass),
                 error = function(e) abort_arg(c("The formula cannot be evaluated in {.arg data}.", x = conditionMessage(e)), call))
  y <- stats::model.response(mf)
  if (is.null(y)) abort_arg("The formula has no response: write it as {.code response ~ covariates}.", call)
  if (!(is.numeric(y) || is.logical(y)) || is.object(y)) {
    abort_arg("The response must be numeric, not {.obj_type_friendly {y}}.", call)
  }
  replicates <- replicates && is.matrix(y) && ncol(y) > 1L
  keep <- if (replicates) {
    # replicates: a row stays while any replicate is observed there
    stats::complete.cases(sp$locs) & (ncol(mf) == 1L | stats::complete.cases(mf[-1L])) & rowSums(!is.na(y)) > 0
  } else {
    stats::complete.cases(mf, sp$locs)
  }
  if (!all(keep)) {
    cli::cli_inform("gp_fit: dropped {sum(!keep)} row{?s} with a missing response, covariate or coordinate.")
  }
  check_observations_left(sum(keep), sum(!keep), call)
  # the levels of the rows kept, as lm() keeps them: a level seen only in
  # dropped rows, or in none, would make a column of zeros in the design
  frame <- droplevels(mf[keep, , drop = FALSE])
  if (!all(keep)) attr(frame, "na.action") <- structure(which(!keep), names = rownames(mf)[!keep], class = "omit")
  terms <- attr(mf, "terms")
  X <- stats::model.matrix(terms, frame)
  y <- stats::model.response(frame)
  locs <- sp$locs[keep, , drop = FALSE]
  if (replicates) { # cbind(y1, y2) ~ x
    r <- observed_replicates(unname_rows(y), locs, X)
    y <- r$y
    locs <- r$locs
    X <- r$X
    frame <- frame[r$rows, , drop = FALSE] # fewer only where one replicate is left
  } else {
    y <- if (is.matrix(y) && ncol(y) > 1L) unname_rows(y) else as.double(y)
  }
  list(y = y, locs = locs, X = X, terms = terms, frame = frame,
       xlevels = stats::.getXlevels(terms, frame), contrasts = attr(X, "contrasts"), coords = sp$names,
       longlat = sp$longlat, crs = sp$crs, dropped = sum(!keep), kept = keep)
}

# The matrix form: y, locs and X (NULL: a constant mean; a matrix with no
# columns: mean zero). y may be a matrix, a column per replicate of the field
# at the same locations, each replicate keeping its observed values (see
# observed_replicates()). Missing values of a vector y are dropped with a
# message, and so are rows of a matrix y with any missing value where it is
# not replicates (`replicates` FALSE: a binomial's successes and failures).
gp_data_matrix <- function(y, locs, X, distance, call, replicates = TRUE) {
  crs <- NULL
  if (is_spatial(locs)) {
    sp <- spatial_table(locs, NULL, "locs", call)
    locs <- sp$locs
    crs <- sp$crs
  }
  locs <- as_locations(locs, "locs", distance, call)
  n <- nrow(locs)
  y <- as_replicates(y, n, call)
  X <- if (is.null(X)) matrix(1, n, 1L, dimnames = list(NULL, "(Intercept)")) else as_design(X, n, call)
  if (any(is.infinite(y))) abort_arg("{.arg y} contains infinite values.", call)
  if (is.matrix(y) && replicates) {
    check_observations_left(sum(!is.na(y)), nrow(y), call)
    r <- observed_replicates(y, locs, X)
    return(list(y = r$y, locs = r$locs, X = r$X, terms = NULL, coords = colnames(locs), longlat = FALSE, crs = crs,
                dropped = n - nrow(r$locs)))
  }
  keep <- if (is.matrix(y)) stats::complete.cases(y) else !is.na(y)
  if (!all(keep)) inform_dropped(sum(!keep))
  check_observations_left(sum(keep), sum(!keep), call)
  list(y = drop_rows(y, keep), locs = locs[keep, , drop = FALSE], X = X[keep, , drop = FALSE], terms = NULL,
       coords = colnames(locs), longlat = FALSE, crs = crs, dropped = sum(!keep), kept = keep)
}

# Replicates keep every observed value: a replicate missing at a location
# leaves the others' values there. Only a location where no replicate is
# observed is dropped, and a replicate with no observed value (it adds
# nothing to the likelihood), each with a message; the remaining
# replicates keep their names (unnamed ones are named rep_1, ... after
# their columns in `y`, so that predictions say which they are). A single
# replicate left is a data set of its own, a vector without its missing
# values. `y` (a matrix, at least one value observed), `locs` and `X` have
# a row per location; `rows` says which are kept.
observed_replicates <- function(y, locs, X) {
  observed <- !is.na(y)
  empty_rows <- rowSums(observed) == 0L
  rows <- which(!empty_rows)
  if (any(empty_rows)) {
    cli::cli_inform("gp_fit: dropped {sum(empty_rows)} location{?s} where no replicate is observed.")
    y <- y[!empty_rows, , drop = FALSE]
    observed <- observed[!empty_rows, , drop = FALSE]
    locs <- locs[!empty_rows, , drop = FALSE]
    X <- X[!empty_rows, , drop = FALSE]
  }
  empty_columns <- colSums(observed) == 0L
  if (any(empty_columns)) {
    if (is.null(colnames(y))) colnames(y) <- paste0("rep_", seq_len(ncol(y)))
    cli::cli_inform("gp_fit: dropped {sum(empty_columns)} replicate{?s} with no observed value ({.val {colnames(y)[empty_columns]}}).")
    y <- y[, !empty_columns, drop = FALSE]
    observed <- observed[, !empty_columns, drop = FALSE]
  }
  if (ncol(y) == 1L) {
    keep <- observed[, 1L]
    if (!all(keep)) inform_dropped(sum(!keep))
    return(list(y = y[keep, 1L], locs = locs[keep, , drop = FALSE], X = X[keep, , drop = FALSE], rows = rows[keep]))
  }
  list(y = y, locs = locs, X = X, rows = rows)
}

# The response of a matrix fit: a numeric vector with a value per location,
# or a matrix with a row per location and a column per replicate (one
# column: the vector).
as_replicates <- function(y, n, call) {
  if (!(is.numeric(y) || is.logical(y)) || is.object(y) && !is.numeric(unclass(y))) {
    abort_arg("{.arg y} must be numeric, not {.obj_type_friendly {y}}.", call)
  }
  if (is.matrix(y) && ncol(y) == 0L) abort_arg("{.arg y} has no columns: give a column per replicate.", call)
  if (is.matrix(y) && ncol(y) > 1L) {
    if (nrow(y) != n) abort_arg("{.arg y} has {nrow(y)} row{?s} but {.arg locs} has {n} location{?s}.", call)
    return(unname_rows(y))
  }
  y <- as.vector(y)
  if (length(y) != n) abort_arg("{.arg y} has {length(y)} observation{?s} but {.arg locs} has {n} location{?s}.", call)
  as.double(y)
}

unname_rows <- function(y) {
  storage.mode(y) <- "double"
  rownames(y) <- NULL
  y
}

# A fit needs observations: none given, or none left once the `dropped`
# rows with a missing value are gone, is an error that says which.
check_observations_left <- function(left, dropped, call) {
  if (left > 0L) return(invisible())
  if (!dropped) abort_arg("{.arg y} has no observations.", call)
  abort_arg(c("No observations are left: all {dropped} row{?s} of the data ha{?s/ve} a missing value.",
              i = "A row is dropped when its response (for replicates, that of every replicate), or in the formula form a covariate or coordinate, is missing."),
            call)
}

# The rows `keep` of a response vector or replicate matrix.
drop_rows <- function(y, keep) if (is.matrix(y)) y[keep, , drop = FALSE] else y[keep]

# The number of replicates (columns) of a response.
gp_replicates <- function(y) if (is.matrix(y)) ncol(y) else 1L

# The message for k dropped observations.
inform_dropped <- function(k) cli::cli_inform("gp_fit: dropped {k} observation{?s} with a missing response.")

# A design matrix with n rows, finite, named columns.
as_design <- function(X, n, call) {
  if (is.data.frame(X)) X <- as.matrix(X)
  if (is.null(dim(X))) X <- matrix(X, ncol = 1L)
  if (!is.numeric(X) || nrow(X) != n) {
    abort_arg("{.arg X} must be a numeric matrix with a row per location ({n}), not {.obj_type_friendly {X}}{if (is.matrix(X)) paste0(' with ', nrow(X), ' rows') else ''}.", call)
  }
  if (any(!is.finite(X))) abort_arg("{.arg X} contains missing or infinite values.", call)
  if (ncol(X) && is.null(colnames(X))) colnames(X) <- paste0("X", seq_len(ncol(X)))
  storage.mode(X) <- "double"
  X
}

# The locations and design matrix at which to predict from `fit`: `newdata`
# as the fit's data were given (a data frame with the coordinate and
# covariate columns, an sf, sp, stars or terra object; for a matrix fit, a matrix of
# coordinates and `X` for the covariates); `offset`, the formula's offset()
# terms there (NULL without).
gp_newdata <- function(fit, newdata, X, call) {
  formula_fit <- !is.null(fit$terms)
  if (formula_fit) {
    if (!is.null(X)) abort_arg("{.arg X} is for fits of the matrix form; give the covariates as columns of {.arg newdata}.", call)
    sp <- spatial_table(newdata, if (is_spatial(newdata)) NULL else fit$coords, "newdata", call)
    check_same_crs(fit, sp$crs, call)
    terms <- stats::delete.response(fit$terms)
    needed <- setdiff(all.vars(terms), names(sp$table))
    if (length(needed)) abort_arg("{.arg newdata} has no column{?s} {.val {needed}} for the trend.", call)
    mf <- tryCatch(stats::model.frame(terms, sp$table, na.action = stats::na.pass, xlev = fit$xlevels),
                   error = function(e) abort_arg(c("{.arg newdata} lacks covariates of the trend.", x = conditionMessage(e)), call))
    X0 <- stats::model.matrix(terms, mf, contrasts.arg = fit$contrasts)
    locs <- sp$locs
    if (ncol(locs) != ncol(fit$locs)) {
      abort_arg("{.arg newdata} has {ncol(locs)}-D coordinates; the fit used {ncol(fit$locs)}.", call)
    }
  } else {
    if (is_spatial(newdata)) {
      sp <- spatial_table(newdata, NULL, "newdata", call)
      check_same_crs(fit, sp$crs, call)
      newdata <- sp$locs
    }
    if (is.data.frame(newdata) && !is.null(fit$coords) && all(fit$coords %in% names(newdata))) {
      newdata <- newdata[, fit$coords, drop = FALSE] # columns matched by name
    }
    locs <- as_locations(newdata, "newdata", fit$distance, call)
    if (ncol(locs) != ncol(fit$locs)) {
      abort_arg("{.arg newdata} has {ncol(locs)} column{?s}; the fit used {ncol(fit$locs)}.", call)
    }
    X0 <- gp_new_design(fit, X, nrow(locs), call)
  }
  if (anyNA(locs) || anyNA(X0)) abort_arg("{.arg newdata} has missing coordinates or covariates.", call)
  locs <- as_locations(locs, "newdata", fit$distance, call)
  check_coordinate_range(fit, locs, call)
  offset <- if (formula_fit) stats::model.offset(mf)
  if (!is.null(offset) && anyNA(offset)) abort_arg("{.arg newdata} has missing values of the offset.", call)
  list(locs = locs, X = X0, offset = if (!is.null(offset)) as.double(offset))
}

# The covariates at new locations for a matrix fit: none needed for a zero or
# constant mean.
gp_new_design <- function(fit, X, m, call) {
  p <- ncol(fit$X)
  intercept_only <- p == 1L && identical(colnames(fit$X), "(Intercept)")
  if (is.null(X)) {
    if (p == 0L) return(matrix(0, m, 0L))
    if (intercept_only) return(matrix(1, m, 1L, dimnames = list(NULL, "(Intercept)")))
    abort_arg("The fit has covariates: give their values at {.arg newdata} as {.arg X} ({p} column{?s}).", call)
  }
  X <- as_design(X, m, call)
  if (ncol(X) != p) abort_arg("{.arg X} has {ncol(X)} column{?s}; the fit's trend has {p}.", call)
  X
}

# Coordinates far outside the fitted ones usually mean swapped or mislabelled
# columns: say so rather than return predictions of the mean alone.
check_coordinate_range <- function(fit, locs, call) {
  if (nrow(locs) == 0L) return(invisible())
  lo <- apply(fit$locs, 2L, min)
  hi <- apply(fit$locs, 2L, max)
  width <- pmax(hi - lo, .Machine$double.eps)
  outside <- colMeans(sweep(locs, 2L, lo - 2 * width, "<") | sweep(locs, 2L, hi + 2 * width, ">")) > 0.5
  if (any(outside)) {
    cli::cli_warn(c("Most of {.arg newdata} lies far outside the fitted locations in coordinate{?s} {.val {fit$coords[outside]}}.",
                    i = "Check that the coordinate columns are the fit's, in the same units and order."),
                  class = c("gpustats_warning_extrapolation", "gpustats_warning"), call = call)
  }
}
