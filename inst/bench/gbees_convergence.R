# GBEES grid convergence on the Lorenz '63 case (x0 = (-11.5, -10, 9.5), sd 1,
# threshold 1e-7, t = 1), as in the published study: two tables.
#   Time step: at cells 0.5, the step factor cfl 1, 0.5, 0.2, 0.1 against a
#     reference at cfl 0.01; the 1-norm of the difference of the densities
#     (the grids share their cells, so it is the sum of |P - P_ref| over the
#     union of the cells).
#   Cell width: widths 0.5, 0.35, 0.25 against a finer reference grid; the
#     1-norm of the difference of the piecewise-constant densities, by the
#     midpoint rule on the reference cells (plus the mass the coarse density
#     puts outside them), and the Bhattacharyya coefficients against Monte
#     Carlo samples, binned on the grid's own cells and kernel-smoothed.
#
#   Rscript inst/bench/gbees_convergence.R [--option=value ...]   (from the package source root)
#
# Options (or environment GPUSTATS_BENCH_<OPTION>):
#   gbees_conv_device     device (default "auto")
#   gbees_conv_cfl        step factors (default 1,0.5,0.2,0.1)
#   gbees_conv_cfl_ref    the reference's step factor (default 0.01)
#   gbees_conv_dx         cell widths (default 0.5,0.35,0.25)
#   gbees_conv_dx_ref     the reference's cell width (default 0.15)
#   gbees_mc_n            Monte Carlo samples (default 1e5)
#   gbees_conv_t          the time compared (default 1)
#   gbees_conv_kde        1: also the kernel-smoothed coefficient of each width (default 1;
#                         0 skips it, which on a CPU takes minutes for the finer grids)
# GPUSTATS_BENCH_QUICK=1 runs a small version (coarse cells, t = 0.3) that
# ends in a few minutes on two cores.

if (!exists("bench_opt", mode = "function")) source(file.path("inst", "bench", "common.R"))

gbees_conv_fit <- function(dx, cfl, t, device) {
  t0 <- proc.time()[["elapsed"]]
  fit <- gbees(lorenz63(), x0 = c(-11.5, -10, 9.5), cov = diag(3), dx = dx, times = t, threshold = 1e-7, cfl = cfl,
               device = device)
  s <- fit$snapshots[[1]]
  list(fit = fit, keys = s$keys, prob = s$prob / sum(s$prob), dx = dx, center = fit$center,
       seconds = proc.time()[["elapsed"]] - t0)
}

key_strings <- function(keys) do.call(paste, c(as.data.frame(keys), sep = ","))

# Same cells: sum |P - P_ref| over the union of the cells.
l1_same_cells <- function(a, ref) {
  ka <- key_strings(a$keys)
  kr <- key_strings(ref$keys)
  at <- match(kr, ka)
  sum(abs(ref$prob - ifelse(is.na(at), 0, a$prob[at]))) + sum(a$prob[!ka %in% kr])
}

# Different cells: the coarse density at the reference's cell centres times
# their volume against the reference's masses, plus the coarse mass left out.
l1_other_cells <- function(a, ref) {
  n <- nrow(ref$keys)
  x <- ref$keys * ref$dx + rep(ref$center, each = n)
  cell <- round((x - rep(a$center, each = n)) / a$dx)
  at <- match(key_strings(cell), key_strings(a$keys))
  coarse <- ifelse(is.na(at), 0, a$prob[at]) * (ref$dx / a$dx)^3
  sum(abs(coarse - ref$prob)) + max(0, 1 - sum(coarse))
}

bench_gbees_convergence <- function(device = bench_opt("gbees_conv_device", "auto"),
                                    cfls = bench_opt("gbees_conv_cfl", c(1, 0.5, 0.2, 0.1), c(1, 0.5, 0.2)),
                                    cfl_ref = bench_opt("gbees_conv_cfl_ref", 0.01, 0.05),
                                    dxs = bench_opt("gbees_conv_dx", c(0.5, 0.35, 0.25), c(1, 0.7, 0.5)),
                                    dx_ref = bench_opt("gbees_conv_dx_ref", 0.15, 0.35),
                                    n = bench_opt("gbees_mc_n", 1e5, 2e4), t = bench_opt("gbees_conv_t", 1, 0.3),
                                    kde = bench_opt("gbees_conv_kde", 1) > 0) {
  step_dx <- dxs[1]
  ref <- gbees_conv_fit(step_dx, cfl_ref, t, device)
  message(sprintf("time-step reference: cells %g, cfl %g, %.1f s", step_dx, cfl_ref, ref$seconds))
  steps <- do.call(rbind, lapply(cfls, function(cfl) {
    a <- gbees_conv_fit(step_dx, cfl, t, device)
    data.frame(dx = step_dx, cfl = cfl, steps = a$fit$info$steps, cells = length(a$prob), L1 = l1_same_cells(a, ref),
               seconds = a$seconds)
  }))
  set.seed(1)
  mc <- gbees_mc(lorenz63(), x0 = c(-11.5, -10, 9.5), cov = diag(3), times = t, n = n, device = device)
  fine <- gbees_conv_fit(dx_ref, 1, t, device)
  message(sprintf("cell-width reference: cells %g, %.1f s", dx_ref, fine$seconds))
  widths <- do.call(rbind, lapply(c(dxs, dx_ref), function(dx) {
    a <- if (dx == dx_ref) fine else gbees_conv_fit(dx, 1, t, device)
    set.seed(2)
    smoothed <- if (kde) bhattacharyya(a$fit, mc, time = t, reference = FALSE, device = device)$coefficient else NA
    data.frame(dx = dx, cfl = 1, steps = a$fit$info$steps, cells = length(a$prob),
               L1 = if (dx == dx_ref) NA else l1_other_cells(a, fine),
               bc_bins = bhattacharyya(a$fit, mc, time = t, method = "bins", reference = FALSE)$coefficient,
               bc_kde = smoothed, seconds = a$seconds)
  }))
  list(steps = steps, widths = widths, cfl_ref = cfl_ref, dx_ref = dx_ref, t = t, n = n)
}

gbees_convergence_tables <- function(res) {
  s <- res$steps
  w <- res$widths
  c("## GBEES convergence (Lorenz '63)", "",
    sprintf("Time step, cells %g, t = %g: 1-norm against cfl %g.", s$dx[1], res$t, res$cfl_ref), "",
    md_table(data.frame(cfl = s$cfl, steps = s$steps, cells = fmt_n(s$cells), `1-norm` = fmt_g(s$L1, 3),
                        seconds = fmt_sec(s$seconds), check.names = FALSE), "rrrrr"), "",
    sprintf(paste("Cell width, cfl 1, t = %g: 1-norm against cells %g; Bhattacharyya coefficients against %s",
                  "Monte Carlo samples."), res$t, res$dx_ref, fmt_n(res$n)), "",
    md_table(data.frame(cells = w$dx, steps = w$steps, `grid cells` = fmt_n(w$cells),
                        `1-norm` = ifelse(is.na(w$L1), "(reference)", fmt_g(w$L1, 3)),
                        `BC binned on its cells` = sprintf("%.4f", w$bc_bins),
                        `BC kde` = ifelse(is.na(w$bc_kde), "-", sprintf("%.4f", w$bc_kde)),
                        seconds = fmt_sec(w$seconds), check.names = FALSE), "rrrrrrr"))
}

if (sys.nframe() == 0L) {
  res <- bench_gbees_convergence()
  cat(gbees_convergence_tables(res), sep = "\n")
}
