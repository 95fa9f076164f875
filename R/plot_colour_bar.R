# Colour bars beside image panels, for the package's maps (gp_map, gbees):
# each image gets a narrow panel to its right with its colour scale.

# Lays out nr x nc images, each followed by its colour bar's panel, filled
# by row (image, bar, image, bar, ...); the caller restores par(). A bar's
# panel has a fixed width (room for its axis labels however small the
# figure), the images share the rest.
colour_bar_layout <- function(nr, nc) {
  panels <- matrix(seq_len(2L * nr * nc), nr, 2L * nc, byrow = TRUE)
  graphics::layout(panels, widths = rep(c(1, graphics::lcm(2.4)), nc))
}

# The values a colour scale spans: the range of z's finite values, widened
# by half the value either side where they are all equal (a flat surface
# still needs a scale to show its one colour against). An error where z has
# no finite value, `what` naming it.
colour_range <- function(z, what, call) {
  if (!any(is.finite(z))) abort_arg("{.field {what}} has no finite values to draw.", call)
  r <- range(z, finite = TRUE)
  if (r[1L] == r[2L]) r <- r + c(-1, 1) * (if (r[1L] == 0) 1 else abs(r[1L]) / 2)
  r
}

# A vertical colour bar in the next panel, its axis labelled with the values
# of the colours, which span `range` evenly.
colour_bar <- function(colours, range) {
  graphics::par(mar = c(4, 0.5, 2.5, 3.5))
  at <- seq(range[1L], range[2L], length.out = length(colours) + 1L)
  graphics::image(1, (at[-1L] + at[-length(at)]) / 2, matrix(seq_along(colours), 1L), col = colours, axes = FALSE,
                  xlab = "", ylab = "", useRaster = TRUE)
  graphics::axis(4, las = 1, cex.axis = 0.8)
  graphics::box()
}
