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
