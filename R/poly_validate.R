# Validators of the classes of the polynomial transforms: every method of
# sht, sht_grid and jwt_plan, and sht_analysis(), sht_synthesis(),
# jwt_plan_synthesis() and jwt_plan_analysis() for the objects they take,
# call its class's validator first (check_object() in checks.R), so that an
# object with a field removed, of the wrong type or of the wrong shape gets
# an error naming that field, never a read past an array in the native code.

# Finite doubles, one per latitude of the grid x.
is_per_latitude <- function(v, x) is.double(v) && length(v) == x$nlat && all(is.finite(v))

sht_grid_fields <- list(
  kind = rule_choice(c("gauss", "equiangular")),
  lmax = rule_count(0),
  nlat = rule_count(1),
  nlon = field_rule("a whole number above 2 lmax ({2 * x$lmax})", function(v, x) is_count(v, 2 * x$lmax + 1)),
  cos_colat = field_rule("the cosines of the {x$nlat} colatitude{?s} (finite, from -1 to 1)",
                         function(v, x) is_per_latitude(v, x) && all(abs(v) <= 1)),
  cos_colat_lo = field_rule("the rounding errors of {.field cos_colat} ({x$nlat} finite number{?s}) on a Gauss grid, NULL on an equiangular one",
                            function(v, x) if (x$kind == "gauss") is_per_latitude(v, x) else is.null(v)),
  weights = field_rule("the quadrature weights of the {x$nlat} latitude{?s} (finite numbers)", is_per_latitude),
  lat = field_rule("the {x$nlat} latitude{?s} in degrees", function(v, x) is.numeric(v) && length(v) == x$nlat),
  lon = field_rule("the {x$nlon} longitude{?s} in degrees", function(v, x) is.numeric(v) && length(v) == x$nlon)
)

# Checks an sht_grid given as argument `arg`.
validate_sht_grid <- function(x, arg, call) check_object(x, "sht_grid", sht_grid_fields, arg, call)

# An (lmax + 1) x (lmax + 1) x nfield numeric array of the coefficients of x.
is_sht_coefficients <- function(v, x) {
  d <- dim(v)
  is.numeric(v) && length(d) == 3L && d[1L] == x$lmax + 1L && d[2L] == x$lmax + 1L && d[3L] >= 1L
}

sht_fields <- list(
  lmax = rule_count(0),
  cos = field_rule("an {x$lmax + 1} x {x$lmax + 1} x nfield numeric array of coefficients", is_sht_coefficients),
  sin = field_rule("an {x$lmax + 1} x {x$lmax + 1} x {dim(x$cos)[3]} numeric array of coefficients, the shape of {.field cos}",
                   function(v, x) is_sht_coefficients(v, x) && identical(dim(v), dim(x$cos))),
  grid = field_rule("an {.cls sht_grid}", function(v, x) inherits(v, "sht_grid"))
)

# An sht, and the grid it carries.
validate_sht <- function(x, arg, call) {
  check_object(x, "sht", sht_fields, arg, call)
  validate_sht_grid(x$grid, paste0(arg, "$grid"), call)
  invisible(x)
}

jwt_plan_fields <- list(
  # Only its type is checked here: a plan saved and read back keeps a
  # pointer to nothing, which print() still shows and which the transforms
  # refuse in the native code, saying why.
  ptr = field_rule("the external pointer to the plan", function(v, x) typeof(v) == "externalptr"),
  n = rule_count(1),
  lmax = rule_count(0),
  nr = field_rule("a whole number of radial points, at least n + ceiling(lmax / 2) ({x$n + ceiling(x$lmax / 2)})",
                  function(v, x) is_count(v, x$n + ceiling(x$lmax / 2))),
  method = rule_choice(c("connection", "quadrature")),
  device = rule_choice(c("cpu", "gpu")),
  gpu = field_rule("NA on the CPU, else the id of the plan's GPU",
                   function(v, x) if (x$device == "cpu") identical(v, NA_integer_) else is_count(v, 0)),
  bytes = field_rule("the number of bytes the plan holds", function(v, x) is_count(v, 0))
)

# Checks a jwt_plan given as argument `arg`.
validate_jwt_plan <- function(x, arg, call) check_object(x, "jwt_plan", jwt_plan_fields, arg, call)
