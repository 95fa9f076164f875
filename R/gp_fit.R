#' Fit a Gaussian-process model: trend, Matérn covariance, nugget
#'
#' Fits \eqn{y = X\beta + S(x) + \varepsilon}: a linear trend in covariates,
#' a Gaussian process \eqn{S} with a Matérn covariance or another of the menu
#' of [gp_covariance_models] (spherical, Gaussian, powered exponential,
#' generalized Cauchy, generalized Wendland; isotropic, anisotropic or
#' space-time) and a nugget
#' \eqn{\varepsilon} (independent errors, estimated by default, as fields and
#' geoR do), by restricted (`"reml"`, the default) or ordinary (`"ml"`)
#' maximum likelihood of the exact Gaussian likelihood ([gp_loglik()]).
#'
#' The data come either as a formula with a data frame, an sf or an sp
#' object, `gp_fit(log(zinc) ~ sqrt(dist), meuse, coords = ~ x + y)`, or as
#' matrices, `gp_fit(y, locs, X)`. The trend is a constant mean unless the
#' formula or `X` says otherwise; a formula `y ~ 0` or an `X` with no columns
#' fits a zero-mean process (with a warning when the data's mean is far from
#' zero). Rows with a missing response (or, in the formula form, covariate or
#' coordinate) are dropped with a message that says how many.
#'
#' **Profiling.** For given correlation parameters the trend coefficients
#' are the generalized least-squares estimate
#' \eqn{\hat\beta = (X^\top R^{-1} X)^{-1} X^\top R^{-1} y} and the variance
#' `sigma2` its closed-form maximiser \eqn{Q / (n - p)} (REML) or \eqn{Q / n}
#' (ML), \eqn{Q} the GLS residual quadratic form; the search (`nlminb`) runs
#' over the remaining parameters only: log ranges, log smoothness, angles and
#' the nugget as a ratio to `sigma2`. Each evaluation factors the covariance
#' once (on the GPU when one is used) and solves for \eqn{y} and the columns
#' of \eqn{X} together. For 1,000 observations or more and isotropic models
#' the search starts from the Vecchia fit of the same model (`m = 30`, which
#' costs a few exact evaluations) and takes quasi-Newton steps from its
#' Fisher information, with gradients by forward differences (21 evaluations
#' to the exact maximum instead of 79 from the default start for a Matérn
#' with a trend and a nugget at n = 2,000); it falls back to the default
#' start if the Vecchia fit or the steps fail.
#' Anisotropic and space-time models start likewise from the maximum of the
#' Vecchia approximation of the same objective and its Hessian (31
#' evaluations instead of 361 for a 2-D anisotropic Matérn 3/2 at n = 1,000).
#' Given `start` values, the search starts there instead. The restricted log-likelihood is
#' \deqn{-\frac{n-p}{2}\log(2\pi) - \frac12\log|\Sigma| - \frac12\log|X^\top\Sigma^{-1}X| - \frac12 r^\top \Sigma^{-1} r}
#' (Harville's form, without the constant \eqn{\frac12\log|X^\top X|} that
#' some packages add), so REML log-likelihoods are comparable only between
#' fits with the same trend; use `method = "ml"` to compare trends with
#' [anova()] or AIC.
#'
#' **Standard errors.** Those of the covariance parameters come, by
#' default (`control$vcov = "fisher"`), from the expected (Fisher)
#' information at the estimates,
#' \eqn{I_{ij} = \frac12 \mathrm{tr}(P\, \partial_i\Sigma\, P\, \partial_j\Sigma)}
#' with \eqn{P = \Sigma^{-1}} (ML) or, for REML,
#' \eqn{P = \Sigma^{-1} - \Sigma^{-1} X (X^\top\Sigma^{-1}X)^{-1} X^\top\Sigma^{-1}}
#' (the information of the restricted likelihood), computed from the last
#' factor of \eqn{\Sigma} with analytic derivatives of the Matérn covariance
#' (the smoothness's through the derivative of \eqn{K_\nu} in its order, as
#' [bessel_k_deriv()] gives it), on the scale of the search (log
#' `sigma2`, log range, log smoothness, the nugget as a ratio to `sigma2`)
#' and mapped to the reported scale by the delta method. The trend is
#' profiled by GLS, and the information of \eqn{(\beta, \theta)} is block
#' diagonal, so the covariance parameters' block is inverted on its own and
#' the standard errors of \eqn{\beta} are the GLS ones,
#' \eqn{\hat\sigma^2 (X^\top R^{-1} X)^{-1}}. This holds up to four
#' \eqn{n \times n} matrices besides the factor (\eqn{\Sigma^{-1}}, a
#' scratch, and \eqn{P\,\partial_i\Sigma} for the range and the
#' smoothness: \eqn{32 n^2} bytes, 800 MB at \eqn{n = 5{,}000}) and costs
#' about as much as the Hessian's evaluations. It serves isotropic models whose
#' covariance is factored whole (not by the tile Cholesky, so not in mixed
#' precision), and under REML one data set; for the others, or where those
#' matrices do not fit in memory, and with `control$vcov = "hessian"`, the
#' standard errors come from the observed information, a central-difference
#' Hessian of the log-likelihood on the same scale (\eqn{k^2 + k + 1}
#' evaluations for \eqn{k} parameters), as before. `fit$vcov_type` says
#' which, and `vcov(fit, type = )` computes the other at the estimates.
#' [confint()] gives profile-likelihood intervals, which respect the
#' positivity of the ranges and variances where Wald intervals do not.
#'
#' **Replicates.** A matrix `y` with a column per replicate holds \eqn{r}
#' independent replicates of one process at the same locations (repeated
#' surveys of a field, say), i.i.d. given the parameters: they share the
#' covariance parameters, `sigma2`, the nugget and the trend coefficients
#' \eqn{\beta} (a replicate-specific mean needs separate fits, one per
#' column). The log-likelihood is the sum over the replicates, each
#' evaluation factoring the covariance once and whitening all the replicates
#' in one triangular solve with \eqn{r} right-hand sides (on the CPU, from 8
#' columns on, by the package's packed kernels; on a GPU by one `trsm`), so
#' \eqn{r} replicates cost little more than one while \eqn{n} is large
#' against \eqn{r}. The GLS coefficients are pooled,
#' \eqn{\hat\beta = (r X^\top R^{-1} X)^{-1} X^\top R^{-1} \sum_j y_j},
#' and the profiled `sigma2` divides the pooled quadratic form by
#' \eqn{n r - p} (REML) or \eqn{n r} (ML); the REML likelihood is that of the
#' stacked data, with \eqn{\log|r X^\top \Sigma^{-1} X|}. The formula form takes
#' replicates as a matrix response, `cbind(y1, y2) ~ x`. Replicates need
#' `approx = "exact"` (which `"auto"` then chooses at any size): the
#' Vecchia approximation takes one data set, and a replicate fit with
#' `approx = "vecchia"` is an error. See [predict.gp_fit()], [simulate.gp_fit()] and
#' [gp_variogram()] for what the methods give for them.
#'
#' *Missing values in replicates.* Each replicate keeps every value it has
#' (`NA` marks the others): a station missing on one day still counts on the
#' days it reports. The log-likelihood is the sum over the replicates of
#' the Gaussian log-likelihood of each one's observed values, whose
#' covariance is the submatrix of \eqn{\Sigma} at their locations; the
#' trend coefficients are the GLS estimate pooled over all observed values,
#' \eqn{\hat\beta = (\sum_j X_j^\top \Sigma_j^{-1} X_j)^{-1} \sum_j X_j^\top \Sigma_j^{-1} y_j}
#' (\eqn{X_j}, \eqn{\Sigma_j} the rows and submatrix of replicate \eqn{j}'s
#' observed locations), `sigma2` is profiled over the \eqn{N} observed values
#' (\eqn{N - p} under REML), and the REML term is
#' \eqn{\log|\sum_j X_j^\top \Sigma_j^{-1} X_j|}. The replicates are grouped
#' by their pattern of observed locations: each evaluation factors every
#' distinct pattern's submatrix once and whitens all its replicates together,
#' so replicates missing at the same places cost one factorization (the
#' 89 days of `fields::ozone2` have 81 patterns over 153 stations: 81
#' factorizations of about 146 rows each, where complete replicates take one).
#' Values missing at random make every replicate a pattern of its own, so an
#' evaluation costs \eqn{r} factorizations: 11.4 s against 1.3 s for
#' \eqn{n = 2{,}000}, \eqn{r = 10} and 5% missing, on 2 CPU cores
#' (`inst/bench/gp-fit-replicates.R`).
#' Complete replicates remain one pattern, the single factor above. A
#' location where no replicate is observed is dropped, and so is a replicate
#' with no observed value (all `NA`), each with a message (the others keep
#' their names, `rep_1`, ... after their columns when `y` has none); a
#' single replicate left is fitted as one data set. The standard errors
#' come, as for complete replicates, from the Fisher information under ML
#' (summed over the patterns, each pattern's times its replicates) and
#' from the Hessian under REML. `nobs()` counts the observed values, `fitted()`
#' and `residuals()` are `NA` where `y` is (as with [na.exclude]), while
#' `predict()` without `newdata` krigs every replicate at every location;
#' predictions krige each replicate from its own observed values, so their
#' standard errors differ between replicates.
#'
#' **Counts, presences and positive data (non-Gaussian families).** With
#' `family = poisson()` (log link), `binomial()` (logit link: 0/1
#' responses, or successes out of trials as `cbind(successes, failures) ~
#' x`), a negative binomial (log link; counts with variance
#' \eqn{\mu + \mu^2/\theta}) or `Gamma(link = "log")` (positive values with
#' variance \eqn{\mu^2/\mathrm{shape}}; `Gamma` or `"Gamma"` uncalled means
#' the log link, the link of spatial models, and `Gamma()`'s inverse link
#' is not taken) the model is a spatial generalized linear mixed model: the responses are
#' independent given the linear predictor
#' \eqn{\eta = \mathrm{offset} + X\beta + S(x)}, with \eqn{S} a latent
#' Gaussian field with the Matérn covariance (no nugget unless
#' `nugget = TRUE` is given, which adds independent normal effects on the
#' link scale), as `glm` with offsets written `offset(log(pop))` in the
#' formula. The field is integrated out by the Laplace approximation
#' (Rasmussen and Williams 2006, *Gaussian Processes for Machine Learning*,
#' algorithms 3.1 and 5.1): its posterior mode \eqn{\hat f = K a} by
#' Newton's iteration with \eqn{B = I + W^{1/2} K W^{1/2}}
#' (\eqn{W} minus the second derivative of the log density at the mode;
#' \eqn{B}'s eigenvalues are at least 1, so it factors safely where
#' \eqn{K} is numerically singular), and
#' \deqn{\log p(y) \approx -\frac12 a^\top \hat f + \log p(y \mid \hat f) - \frac12 \log|B|,}
#' with the normalising constants of the densities (as `dpois` and
#' `dbinom`), the value glmmTMB's `mat()` random effect gives for the same
#' model and parameters (its `theta` is \eqn{\log\sqrt{\sigma^2}}, log
#' range, log smoothness). Each evaluation factors the dense
#' \eqn{n \times n} matrix \eqn{B} a few times (Newton's steps, each
#' warm-started from the last mode), on the CPU. The trend coefficients,
#' log `sigma2` and the other covariance parameters on the scale of the
#' Gaussian search are estimated jointly by `nlminb` on this log-likelihood
#' (maximum likelihood: `method` is `"ml"`), from the `glm` fit without the
#' field; the standard errors of all of them come from a central-difference
#' Hessian of it. The negative binomial's \eqn{\theta} is held at the value
#' of `MASS::negative.binomial(theta)` and estimated with `mgcv::nb()` (as
#' in mgcv: `nb(theta)` with \eqn{\theta > 0} holds it), and the Gamma's
#' shape is estimated, each on the log scale in the same search, reported
#' as `fit$family_parameter` (with `family_parameter_se`) and counted in
#' `logLik()`'s degrees of freedom where estimated. `weights` are prior
#' weights as [glm()] takes them: the Gamma's shape is multiplied by them
#' (its variance \eqn{\mu^2/(w\,\mathrm{shape})}), and the other families'
#' log densities (a whole number \eqn{w} counts an observation \eqn{w}
#' times). `print()`, `summary()`, `coef()`, `vcov()`, `logLik()`,
#' `AIC()`, `anova()` (likelihood-ratio tests of nested trends, or of a
#' held theta against an estimated one, with one offset) and [gp_map()] of
#' fits of one family serve such fits;
#' `predict()` gives the linear predictor or the mean at new locations from
#' the Laplace approximation (see [predict.gp_fit()]), `fitted()` and
#' `residuals()` the means at the field's mode and glm's residuals there,
#' and `simulate()` new responses or draws of the linear predictor given
#' the data (see [simulate.gp_fit()]) and [confint()] its intervals;
#' variograms do not yet, nor do anisotropic and space-time covariances
#' and a `cluster`: each is an error that says so. The exact Laplace
#' approximation runs on the CPU (with a message where `device = "gpu"`).
#'
#' With `approx = "vecchia"` the field is integrated out by the
#' Vecchia-Laplace approximation (Zilber and Katzfuss 2021, *Computational
#' Statistics and Data Analysis* 153): the field's prior is its Vecchia
#' approximation (each value in the maxmin ordering conditioned on its `m`
#' nearest earlier ones, as for a Gaussian fit), of sparse precision
#' \eqn{Q}, and
#' \deqn{\log p(y) \approx \log p(y \mid \hat f) - \frac12 \hat f^\top Q \hat f + \frac12 \log|Q| - \frac12 \log|Q + W|}
#' at the mode \eqn{\hat f}. Newton's steps solve with the incomplete
#' Cholesky factor of \eqn{Q + W} in the reverse ordering, kept to the
#' pattern of \eqn{Q}'s own factor (accurate in that ordering: Schäfer,
#' Katzfuss and Owhadi 2021), which gives \eqn{\log|Q + W|} too; the
#' gradient is exact, so the mode found is that of the approximate
#' posterior. A step costs \eqn{O(n m^2)} rather than the dense
#' \eqn{O(n^3)}. With `m = n - 1` nothing is approximated and the value is
#' the exact one (the tests hold it to 1e-8); the error falls fast as `m`
#' grows: at `m = 30` and 2,000 points it was 0.01 to 0.45 log-likelihood
#' units (Poisson counts and 0/1 responses; smoothness 0.5 and 1.5, ranges
#' 0.05 and 0.2 of the square), 0.14 to 0.18 at 4,000 points where 30
#' neighbours span a fifth of the range, nearly the same at every
#' parameter value (so the estimates move less), and at `m = 60` at most
#' 0.14.
#' `approx = "auto"` takes it above the exact path's CPU size (10,000).
#' The search and the standard errors are those of the exact Laplace fit.
#' `predict()` krigs each new location from its `m_pred` nearest
#' pseudo-data at the mode (observed with their own variances, as a
#' Gaussian Vecchia fit's predictions), the trend's uncertainty from its
#' coefficients' covariance in the fit; `simulate()` draws new responses
#' from the field's Vecchia law, or the linear predictor at new locations
#' given the pseudo-data (as a Gaussian Vecchia fit's conditional draws,
#' the trend at its estimate). The prior's factorization runs on the GPU
#' where `device` gives one (as for a Gaussian Vecchia fit), the
#' incomplete Cholesky factor on the CPU's threads. Responses outside the family's support (negative or
#' fractional counts, a 0/1 response with other values, Gamma responses
#' at or below 0) and counts all 0 (or all successes) are errors; an inner Newton iteration that does not converge makes that
#' point of the search infeasible, and at the estimates it is an error of
#' class `gpustats_error_not_converged`.
#'
#' A fit needs more observations than estimated parameters, and, without a
#' nugget, distinct locations (for the Gaussian family).
#'
#' @param y A numeric vector of observations at the rows of `locs`, a matrix
#'   with a row per location and a column per replicate (see Replicates), or
#'   a formula `response ~ covariates` evaluated in `data`.
#' @param locs The locations: a matrix or data frame of coordinates, one row
#'   per observation, or an sf/sp object of points. With a formula, the data
#'   (so `gp_fit(formula, data)` works positionally; give them here or as
#'   `data`, not both).
#' @param X For the matrix form: the trend's design matrix (`NULL`: a
#'   constant mean; a matrix with no columns: mean zero).
#' @param cov The covariance model, see [gp_covariance_models]: `"matern"`
#'   (default), `"exponential"`, `"matern32"`, `"matern52"`, `"gaussian"`,
#'   `"spherical"`, `"powexp"` (powered exponential), `"cauchy"`
#'   (generalized Cauchy) or `"wendland"` (generalized Wendland), in
#'   gstat's spellings too (`"Sph"`, `"Gau"`, `"Exp"`, `"Mat"`, `"Exc"`) and
#'   any case, each optionally with `"_aniso"` or `"_spacetime"`, or GpGp's
#'   names.
#' @param method `"reml"` (restricted maximum likelihood) or `"ml"`.
#' @param nugget If `TRUE` (default), estimate a nugget; if `FALSE` it is 0
#'   unless given in `fixed`.
#' @param start Named list or vector of starting values for some of the
#'   parameters (`sigma2`, the model's ranges and angles, its shapes such as
#'   `smoothness`, `power`, `tail` or `mu`, `nugget`); the rest come from
#'   the data: `var(y)`, a tenth of the diameter of the locations, angle
#'   pi/4, smoothness, power and tail 1 (at most 4/5 of their upper bound),
#'   mu 1 above its least valid value, a tenth of `var(y)`.
#' @param lower,upper Named bounds for the ranges, angles, shapes (see
#'   [gp_covariance_models] for their defaults) and `nugget`. The search moves the ratio nugget / sigma2, so nugget bounds
#'   (and a nugget start value) are turned into ratios with the starting
#'   `sigma2`. Defaults: ranges in \[1e-4, 10\] times the diameter of the
#'   locations (of space, and of the time span for `range_time`),
#'   smoothness in \[0.05, 5\] (\[0.05, 0.5\] with great-circle distance),
#'   ratio in \[0, 10\], angles within a half turn.
#' @param fixed Named list of parameters held at given values. For a 2-D
#'   anisotropic model, `as.list(gp_anisotropy(c(range = , angle = , ratio =
#'   ), "radians_x"))` gives gstat's `range` and `anis` here or in `start`
#'   (see [gp_anisotropy()]).
#' @param distance `"euclidean"`, or `"great_circle"` (longitude and latitude
#'   in degrees, distances in km). An sf or sp object in longitude and
#'   latitude gives great-circle distance unless `distance` is set.
#' @param precision,accuracy `"double"` (FP64) or `"mixed"`: every
#'   likelihood evaluation factors the covariance with the tile Cholesky in
#'   mixed precision, accurate to `accuracy` (see [gp_loglik()]). That
#'   likelihood moves in small steps as the parameters change, so the search
#'   takes its gradients from central differences over steps of 0.001 on its
#'   scale, rather than from `nlminb`'s own.
#' @param device `"auto"`, `"cpu"` or `"gpu"`.
#' @param control List: `trace` (default `TRUE`: one progress line per
#'   evaluation, and a progress bar while the standard errors are computed),
#'   `iter.max` (default 200, a whole number from 1), `rel.tol` (default
#'   1e-10, from 2.2e-16 to below 1: `nlminb`'s relative function tolerance),
#'   `loglik.tol` (default 1e-9) and `par.tol` (default 1e-5), both in
#'   \[0, 1): the search also stops once two consecutive points it
#'   evaluates differ by less than `loglik.tol` in the log-likelihood,
#'   relative to its size (at least 1), and by less than `par.tol` in every
#'   parameter on the search's scale (log ranges, log smoothness, the nugget
#'   ratio; log `sigma2` too in a Vecchia fit), relative to its size (at
#'   least 1), so that it ends when the log-likelihood and the parameters
#'   have stopped moving rather than when `nlminb`'s own tests are met,
#'   which gradients by differences and the rounding of large
#'   factorizations delay by several iterations (0 turns this rule off),
#'   `hessian` (default `TRUE`: compute standard
#'   errors), `vcov` (`"fisher"`, the default, or `"hessian"`: which
#'   information gives them, see Standard errors) and `gradient`
#'   (`"differences"`, the default: gradients of the exact search by
#'   forward differences over steps of 1e-6 on its scale, central ones in
#'   mixed precision; `"analytic"`: the gradient of the profiled
#'   log-likelihood, \eqn{-\frac12\mathrm{tr}(P\,\partial_i R) +
#'   \frac{1}{2\hat\sigma^2} u^\top \partial_i R\, u} with
#'   \eqn{u = R^{-1}(y - X\hat\beta)}, from the same derivatives and for the
#'   same models as the Fisher information, so not with the tile Cholesky,
#'   which a GPU uses from n = 32,768: there the search takes differences).
#'   The analytic search takes fewer likelihood evaluations (5 against 17
#'   for a trend, a nugget and the smoothness at n = 2,000) but each of its
#'   gradients costs several factorizations (about 3 on the CPU, 6 on a GPU
#'   at n = 20,000: the smoothness's derivative is an integral per pair), so
#'   it was not faster end to end: 13.7 s against 13.0 s at n = 2,000 on 2
#'   CPU cores, 3.7 s against 3.0 s at n = 20,000 on an H100 (before the
#'   stopping rule, which shortens the search by differences more); see
#'   `inst/bench/gp-exact-grad.R`. Other names are an error.
#' @param data For a formula: a data frame, an sf or sp object of points, a
#'   stars grid, or a `terra::SpatVector` of points or `terra::SpatRaster`
#'   (its layers the response and covariates, its cells with values the
#'   points).
#' @param approx `"exact"` (the exact likelihood), `"vecchia"` (the Vecchia
#'   approximation, see [vecchia_loglik()]: each observation in the maxmin
#'   ordering conditioned on its `m` nearest earlier ones; \eqn{O(n m^3)}
#'   time, so millions of observations fit) or `"auto"` (exact up to 10,000
#'   observations on the CPU, 50,000 on a GPU, where one exact evaluation
#'   takes about a second; Vecchia beyond, with a message). The Vecchia
#'   search takes Fisher-scoring steps on the log scale of every free
#'   parameter (sigma2 included) with the analytic gradient and the Fisher
#'   information of the approximate law, which also gives the standard
#'   errors; it takes isotropic models. `predict()` and `simulate()` of such
#'   a fit condition on nearest neighbours too (their `m_pred`).
#' @param m For `approx = "vecchia"`: the size of the conditioning sets.
#' @param family The distribution of the responses given the field, a
#'   family object as [glm()] takes it (or its function or name):
#'   `gaussian()` (the default: the Gaussian model above), `poisson()` (log
#'   link), `binomial()` (logit link), `MASS::negative.binomial(theta)`
#'   (theta held), `mgcv::nb()` (theta estimated) or `Gamma(link = "log")`;
#'   see Counts, presences and positive data.
#' @param weights For a non-Gaussian family: prior weights, positive
#'   numbers, one per observation (or per row of the data, before rows with
#'   missing values are dropped), as [glm()] takes them; `NULL` for none.
#' @param coords For a formula and a data frame: the coordinate columns, a
#'   one-sided formula such as `~ x + y` (for space-time models the time
#'   last) or their names.
#' @return An object of class `gp_fit` with methods `print()`, `summary()`,
#'   `coef()` (trend coefficients, then covariance parameters), `vcov()`,
#'   `logLik()` (so `AIC()` works), `anova()`, `nobs()`, `fitted()`,
#'   `residuals()`, `confint()`, `predict()`, `simulate()`, `plot()`, and
#'   `update()`, `formula()`, `terms()`, `model.frame()` and `model.matrix()`
#'   as for [lm()] (see [gp_fit-methods]);
#'   components `beta`, `covariance` (the covariance parameters), `loglik`,
#'   `vcov`, `vcov_type` (`"fisher"` or `"hessian"`: the information that
#'   gave `vcov`), `estimated` (names of the estimated covariance parameters),
#'   `model` (the covariance model), `n` (locations), `replicates`, `method`, `iterations`, `evaluations`,
#'   `convergence` (`nlminb`'s code), `converged` (`FALSE` when the search
#'   stopped without converging, which also gives a warning of class
#'   `gpustats_warning_not_converged`), `message`, `seconds`, `device`,
#'   `backend` (the device, and whether the tile Cholesky factored the
#'   covariance, in which precision), `precision`, `accuracy`, `approx`, and
#'   for a Vecchia fit `m` and `group`; `family` and `link`, and for a
#'   non-Gaussian family `trials` (binomial), `offset`, `weights`, `mode`
#'   (the latent field's posterior mode at the data, \eqn{\hat f = K a}),
#'   `mode_a` (its \eqn{a}, which starts the mode's Newton iteration again
#'   where the methods need its factor) and, for the negative
#'   binomial and the Gamma, `family_parameter` (theta or shape),
#'   `family_parameter_se` and `family_parameter_estimated`; `crs`, the coordinate
#'   reference system of data given as an sf, sp, stars or terra object (`NULL`
#'   otherwise; [predict()], [simulate()] and [gp_map()] refuse `newdata` in
#'   another one); `call`, the call that made it; and
#'   in the formula form `terms` and `model_frame`, the model frame of the
#'   rows fitted (as [lm()]'s `model`).
#' @seealso [predict.gp_fit()], [gp_variogram()], [gp_map()], [gp_loglik()]
#' @examples
#' set.seed(2)
#' locs <- matrix(runif(600), ncol = 2)
#' y <- 3 + gp_simulate(locs, sigma2 = 1, range = 0.1, smoothness = 0.8, nugget = 0.05)
#' fit <- gp_fit(y, locs, control = list(trace = FALSE))
#' summary(fit)
#' sqrt(diag(vcov(fit, type = "hessian"))) # the observed information instead
#'
#' if (requireNamespace("sp", quietly = TRUE)) {
#'   data(meuse, package = "sp")
#'   zinc <- gp_fit(log(zinc) ~ sqrt(dist), meuse, coords = ~ x + y, cov = "exponential",
#'                  control = list(trace = FALSE))
#'   zinc
#' }
#' @export
gp_fit <- function(y, locs, X = NULL, cov = "matern", method = c("reml", "ml"), nugget = TRUE, start = NULL,
                   lower = NULL, upper = NULL, fixed = list(), distance = c("euclidean", "great_circle"),
                   precision = c("double", "mixed"), accuracy = 1e-8, device = getOption("gpustats.device", "auto"),
                   control = list(), data = NULL, coords = NULL, approx = c("exact", "vecchia", "auto"), m = 30, group = TRUE,
                   cluster = NULL, family = stats::gaussian(), weights = NULL) {
  call <- environment()
  t0 <- proc.time()[["elapsed"]]
  glmm <- gp_family(family, call) # NULL: Gaussian
  method_given <- !missing(method)
  nugget_given <- !missing(nugget)
  distance_given <- !missing(distance)
  distance <- match_choice(distance, c("euclidean", "great_circle"), "distance", call)
  method <- match_choice(method, c("reml", "ml"), "method", call)
  precision <- match_choice(precision, c("double", "mixed"), "precision", call)
  used_accuracy <- mixed_accuracy(precision, accuracy, call) # 0 in FP64
  check_flag(nugget, "nugget", call)
  ctrl <- fit_control(control, call)
  formula_form <- inherits(y, "formula")
  d <- if (formula_form) {
    if (!missing(locs)) {
      if (!is.null(data)) abort_arg("The data are given twice, as the second argument and as {.arg data}: give them once.", call)
      data <- locs
    }
    if (!is.null(X)) abort_arg("{.arg X} is for the matrix form; put covariates in the formula.", call)
    gp_data_formula(y, data, coords, call, replicates = is.null(glmm))
  } else {
    if (missing(locs)) abort_arg("{.arg locs} is missing: the locations of {.arg y}.", call)
    gp_data_matrix(y, locs, X, distance, call, replicates = is.null(glmm))
  }
  if (d$longlat && !distance_given) {
    distance <- "great_circle"
    cli::cli_inform("gp_fit: the coordinates are longitude and latitude: great-circle distance (km).")
  }
  d$locs <- as_locations(d$locs, "locs", distance, call)
  model <- gp_cov_model(cov, ncol(d$locs), distance, call)
  if (is.null(glmm)) {
    if (!is.null(weights)) abort_arg("{.arg weights} are prior weights of non-Gaussian families; a Gaussian fit takes none.", call)
    check_fit_design(d, call)
  } else {
    check_glmm_options(method_given, method, cluster, precision, model, call)
    d <- glmm_data(d, glmm, weights, call)
    check_design_rank(d$X, call)
    d$glm <- glmm_glm(d, glmm)
    start <- utils::modifyList(list(sigma2 = glmm_sigma2_start(d, glmm)), as.list(start))
    nugget <- nugget_given && nugget # the latent field has no nugget unless asked for
    method <- "ml"
  }
  spec <- fit_spec(d, model, start, lower, upper, fixed, nugget, call)
  check_fit_data(d, spec, call)

  replicates <- gp_replicates(d$y)
  approx <- if (replicates > 1L && identical(approx, "auto")) {
    "exact"
  } else {
    gp_approx(approx, nrow(d$locs), if (is.null(glmm)) device else "cpu", call, cluster) # the exact Laplace runs on the CPU
  }
  if (approx == "vecchia" && replicates > 1L) {
    abort_arg(c("Replicates ({.arg y} with {replicates} columns) need {.code approx = \"exact\"}: the Vecchia approximation takes one data set.",
                i = "Fit a single replicate with {.code approx = \"vecchia\"}, or all of them exactly."), call)
  }
  if (approx == "vecchia" && precision == "mixed") abort_arg("The Vecchia approximation runs in FP64: {.code precision = \"double\"}.", call)
  if (approx == "vecchia") check_vecchia_m(m, length(d$y), call)
  f <- if (is.null(glmm)) {
    fit_estimates(d, model, method, spec, approx, used_accuracy, device, ctrl, m, group, call,
                  bar_label = function(step) paste0("gp_fit: ", step), cluster = cluster)
  } else {
    if (identical(device, "gpu") && approx == "exact") cli::cli_inform("gp_fit: the exact Laplace approximation runs on the CPU for now.")
    glmm_fit(d, glmm, model, spec, ctrl, call, approx, m, if (approx == "vecchia") device else "cpu")
  }
  warn_great_circle(distance, f$covariance["smoothness"], call)
  converged <- fit_converged_or_warn(f$opt, call)
  # the call update() evaluates again: in the formula form the data go by
  # the name `data`, whichever way they were given, so that
  # update(fit, data = other) replaces them
  fit_call <- match.call()
  if (formula_form) names(fit_call)[names(fit_call) == "locs"] <- "data"
  structure(list(
    beta = f$beta, covariance = f$covariance, coefficients = c(f$beta, f$covariance), loglik = f$loglik,
    vcov = structure(f$vcov, type = NULL), vcov_type = f$vcov_type %||% if (approx == "vecchia" && is.null(glmm)) "fisher", vcov_beta = f$vcov_beta, estimated = f$estimated, model = model, method = method,
    approx = approx, m = if (approx == "vecchia") as.integer(m), group = if (approx == "vecchia") f$group,
    n = nrow(d$locs), replicates = replicates, y = d$y, locs = d$locs, X = d$X, terms = d$terms, model_frame = d$frame,
    xlevels = d$xlevels, contrasts = d$contrasts,
    coords = d$coords, crs = d$crs, dropped = d$dropped, distance = distance,
    settings = list(fixed = as.list(fixed), lower = as.list(lower), upper = as.list(upper), nugget = nugget),
    device = f$device, backend = f$backend, precision = precision, accuracy = if (precision == "mixed") accuracy,
    iterations = f$opt$iterations, evaluations = f$evaluations, convergence = f$opt$convergence, converged = converged,
    message = f$opt$message, seconds = proc.time()[["elapsed"]] - t0, call = fit_call,
    family = glmm$family %||% "gaussian", link = glmm$link %||% "identity", trials = d$trials, offset = d$offset,
    weights = d$weights, family_parameter = f$param, family_parameter_se = f$param_se,
    family_parameter_estimated = f$param_estimated, mode = f$mode, mode_a = f$mode_a
  ), class = "gp_fit")
}

# The estimates of a fit of the data `d`, exact or Vecchia, as gp_fit()
# assembles them; the profiles of confint() refit through it too.
# `bar_label` is a function of the name of a step ("likelihood") that gives
# the label of its progress bars after what the user asked for: gp_fit()'s
# "gp_fit: likelihood", or confint()'s "confint: profile of range" for every
# step of a profile's fits.
fit_estimates <- function(d, model, method, spec, approx, accuracy, device, ctrl, m, group, call, bar_label,
                          cluster = NULL, neighbors = NULL) {
  if (approx == "vecchia") {
    return(vecchia_fit(d, model, method, spec, m, device, ctrl, call, group, bar_label, cluster, neighbors))
  }
  exact_fit(d, model, method, spec, accuracy, device, ctrl, call, bar_label)
}

# The exact fit: sigma2 and the trend profiled, nlminb over the correlation
# parameters, standard errors from the observed information.
exact_fit <- function(d, model, method, spec, used_accuracy, device, ctrl, call, bar_label) {
  lik <- gp_likelihood(d, model, method, device, used_accuracy, call)
  on.exit(lik$close())
  progress <- fit_progress(ctrl$trace, call)
  objective <- function(theta) {
    if (!all(is.finite(theta))) return(Inf) # nlminb tries NaN where every point so far was infeasible
    p <- spec$unpack(theta)
    ll <- lik$profile(p, spec$fixed$sigma2)
    progress(lik$factorizations(), ll, p)
    if (is.finite(ll)) -ll else Inf
  }
  warm <- exact_warm_start(d, model, method, spec, device, call, bar_label)
  gradient <- if (ctrl$gradient == "analytic" && gp_derivatives_available(lik, model)) {
    function(theta) -lik_gradient(lik, spec, theta, call)
  }
  opt <- fit_search(objective, spec, ctrl, used_accuracy > 0, warm, gradient)
  evaluations <- lik$factorizations()
  warn_at_bound(spec$free, opt$par, spec$lower, spec$upper, "ratio", call)
  p <- spec$unpack(opt$par)
  p$geom <- gp_cov_reduce_angles(p$geom)
  g <- lik$gls(p)
  if (is.na(g$logdet)) {
    cli::cli_abort("The covariance is not positive definite at any point the search reached; add a nugget or fix the range.",
                   class = c("gpustats_error_not_pd", "gpustats_error"), call = call)
  }
  s2 <- spec$fixed$sigma2 %||% (g$q / lik$n_eff)
  covariance <- c(sigma2 = s2, p$geom, p$shape, nugget = p$ratio * s2)
  estimated <- c(if (is.null(spec$fixed$sigma2)) "sigma2", sub("^ratio$", "nugget", spec$free))
  vcov <- fit_vcov(covariance, estimated, lik, ctrl, call, model = model, bar_label = if (ctrl$trace) bar_label)
  list(covariance = covariance, loglik = lik$full(s2, p), vcov = vcov, vcov_type = attr(vcov, "type"),
       beta = g$beta, vcov_beta = s2 * g$xrx_inverse, estimated = estimated, opt = opt, evaluations = evaluations,
       backend = lik$backend, device = if (lik$device >= 0) "gpu" else "cpu")
}

# The search over the free parameters (search_nlminb), or nothing when all
# are fixed. From a warm start (gp_fit_start.R), quasi-Newton steps from its
# Hessian; a search that fails there starts again from the default start.
# `gradient`: the objective's analytic gradient, or NULL for finite
# differences.
fit_search <- function(objective, spec, ctrl, mixed, warm = NULL, gradient = NULL) {
  if (!length(spec$theta0)) return(list(par = numeric(0), iterations = 0L, convergence = 0L, message = "all parameters fixed"))
  # In mixed precision the likelihood is a step function of the parameters
  # at the scale of its rounding (the tiles' roundings and precisions change
  # with them), so finite differences over steps near 1e-8 (nlminb's own) or
  # 1e-6 (the warm start's) measure the steps rather than the slope: central
  # differences over steps well above the rounding instead. The objective
  # at theta is memoised, so the forward differences' f0 costs nothing.
  gradient <- gradient %||% if (mixed) {
    function(theta) fit_gradient(objective, theta, spec$lower, spec$upper)
  } else {
    function(theta) fit_gradient_forward(objective, theta, objective(theta), spec$upper)
  }
  if (!is.null(warm)) {
    newton <- warm_newton(gradient, warm$hessian)
    opt <- tryCatch(search_nlminb(warm$theta, objective, newton$gradient, newton$hessian, spec$lower, spec$upper, ctrl),
                    error = function(e) NULL)
    if (!is.null(opt) && opt$convergence == 0L) return(opt)
  }
  search_nlminb(spec$theta0, objective, gradient, NULL, spec$lower, spec$upper, ctrl)
}

# The likelihood of a fit as functions of the parameters. Complete data are
# factored on one native Gaussian-process object opened here on d$locs;
# replicates with missing values pattern by pattern (gp_fit_patterns.R),
# without one. `close()` frees what it holds; `backend`, `device` and
# `tiled` say how the covariance (for patterns, the largest one's) is
# factored. Each point
# of the correlation parameters (geometry, shapes, nugget ratio) is
# factored once and memoised (the Hessian revisits points): log |R| for
# R = M + ratio I, the GLS coefficients, the GLS residual quadratic form
# Q = r' R^-1 r and log |X' R^-1 X|, over the n observed values.
gp_likelihood <- function(d, model, method, device, accuracy, call) {
  patterns <- if (anyNA(d$y)) missing_patterns(d$y)
  gp <- if (is.null(patterns)) gp_open(d$locs, model$distance, device, call, accuracy, model$native)
  opened <- if (is.null(gp)) pattern_backend(patterns, d$locs, model, device, accuracy, call) else {
    list(backend = gp_method(gp), device = gp$device, tiled = gp$tiled)
  }
  n <- sum(!is.na(d$y))
  p <- ncol(d$X)
  n_eff <- if (method == "reml") n - p else n
  cache <- new.env(parent = emptyenv())
  placed <- NULL # the geometry whose mapped locations the object holds
  current <- NULL # the point whose factor the object holds
  factorizations <- 0L
  point_key <- function(par) paste(format(c(par$geom, par$shape, par$ratio), digits = 17), collapse = " ")
  gls <- function(par) {
    key <- point_key(par)
    hit <- cache[[key]]
    if (!is.null(hit)) return(hit)
    factorizations <<- factorizations + 1L
    current <<- key
    mapped <- gp_cov_map(model, par$geom, d$locs)
    params <- gp_cov_params(1, mapped$range, par$shape, par$ratio)
    # a point outside the family's domain (a Hessian's step past power = 2) is infeasible, as one not positive definite
    if (!cov_rule_holds(model, params)) return(cache[[key]] <- list(logdet = NA_real_))
    if (!is.null(patterns)) {
      return(cache[[key]] <- pattern_gls(patterns, d, mapped$locs, params, model, device, accuracy, call))
    }
    if (model$geometry != "isotropic" && !identical(placed, par$geom)) {
      gs_call(.Call(gs_r_gp_set_locations, gp$ptr, gp_ordered(gp, mapped$locs)), call)
      placed <<- par$geom
    }
    logdet <- gp_factor(gp, params, d$locs, call, not_pd = NA_real_)
    cache[[key]] <- if (is.na(logdet)) list(logdet = NA_real_) else gls_solve(gp, d, logdet, call)
  }
  # the log-likelihood at sigma2 and the correlation parameters
  full <- function(sigma2, par) {
    if (par$ratio < 0) return(-Inf)
    g <- gls(par)
    if (is.na(g$logdet)) return(-Inf)
    -0.5 * (n_eff * log(2 * pi * sigma2) + g$logdet + (if (method == "reml") g$logdet_xrx else 0) + g$q / sigma2)
  }
  # sigma2 profiled out (or fixed)
  profile <- function(par, sigma2 = NULL) {
    g <- gls(par)
    if (is.na(g$logdet)) return(-Inf)
    full(sigma2 %||% (g$q / n_eff), par)
  }
  # the GLS quantities at par with the object holding par's factor (a
  # memoised point is factored again when another factor came since)
  factored <- function(par) {
    key <- point_key(par)
    if (!identical(current, key)) rm(list = intersect(key, ls(cache)), envir = cache)
    gls(par)
  }
  list(gls = gls, full = full, profile = profile, factored = factored, gp = gp, patterns = patterns, d = d,
       method = method, n = n, n_eff = n_eff, factorizations = function() factorizations, backend = opened$backend,
       device = opened$device, tiled = opened$tiled, model = model, device_asked = device, accuracy = accuracy,
       close = function() if (!is.null(gp)) gp_close(gp))
}

# The GLS quantities from the whitened data: z = L^-1 y, W = L^-1 X, for y
# a vector or an n x r matrix of replicates, whitened with X in one solve
# against the one factor. The r replicates stacked are one data set of n r
# values with design 1_r (x) X and covariance I_r (x) Sigma, so
#   log |I_r (x) Sigma| = r log |Sigma|,
#   (1_r (x) X)' (I_r (x) Sigma)^-1 (1_r (x) X) = r X' Sigma^-1 X,
# the pooled GLS coefficients beta = (r W'W)^-1 W' sum_j z_j are those of the
# replicates' mean zbar, and the quadratic form of the residuals splits into
# the parts orthogonal to and within the span of W:
#   Q = sum_j |P_W^perp z_j|^2 + sum_j |P_W (z_j - zbar)|^2.
# The REML term log |X_s' Sigma_s^-1 X_s| of the stacked model is then
# p log r + log |W'W| (Harville's form, as for one data set), and profiling
# sigma2 leaves n r - p degrees of freedom (n r under ML).
gls_solve <- function(gp, d, logdet, call) {
  r <- gp_replicates(d$y)
  Z <- gp_apply(gp, "forward", cbind(d$y, d$X), call)
  gls_whitened(Z[, seq_len(r), drop = FALSE], Z[, -seq_len(r), drop = FALSE], colnames(d$X), r * logdet)
}

# The GLS quantities of whitened replicates z (a column each) sharing the
# whitened design W, whose columns are the trend's `names`; `logdet` is
# log |Sigma| of all of them.
gls_whitened <- function(z, W, names, logdet) {
  p <- ncol(W)
  r <- ncol(z)
  if (p == 0L) {
    return(list(logdet = logdet, q = sum(z^2), beta = stats::setNames(numeric(0), character(0)), logdet_xrx = 0,
                xrx_inverse = matrix(0, 0, 0)))
  }
  qrW <- qr(W)
  if (r == 1L) z <- z[, 1L] # one data set: as it always was
  zbar <- if (r == 1L) z else rowMeans(z)
  beta <- qr.coef(qrW, zbar)
  names(beta) <- names
  Rq <- qr.R(qrW)
  xrx_inverse <- chol2inv(Rq)
  xrx_inverse[qrW$pivot, qrW$pivot] <- xrx_inverse
  dimnames(xrx_inverse) <- list(names, names)
  q <- sum(qr.resid(qrW, z)^2)
  logdet_xrx <- 2 * sum(log(abs(diag(Rq))))
  if (r > 1L) {
    q <- q + sum(qr.fitted(qrW, z - zbar)^2)
    logdet_xrx <- logdet_xrx + p * log(r)
    xrx_inverse <- xrx_inverse / r
  }
  list(logdet = logdet, q = q, beta = beta, logdet_xrx = logdet_xrx, xrx_inverse = xrx_inverse)
}

# Locations in the order the native object holds them (Z-order in mixed precision).
gp_ordered <- function(gp, locs) if (is.null(gp$order)) locs else locs[gp$order, , drop = FALSE]

# A trend the data can estimate: full column rank, fewer columns than rows;
# and a warning when a zero-mean model meets data far from zero.
check_fit_design <- function(d, call) {
  y <- d$y[!is.na(d$y)] # replicates' observed values
  # variances of y's scale squared must stay within doubles (sigma2, the nugget, their ratio)
  s <- if (length(y) > 1L) stats::sd(y) else abs(y)
  if (length(y) > 1L && all(y == y[1L])) abort_arg("{.arg y} is constant: there is no variation to fit.", call)
  if (!is.finite(s) || s > 1e150 || s < 1e-150) {
    abort_arg(c("{.arg y} has a spread of {signif(s, 3)}, beyond what the variances of the fit can hold in doubles.",
                i = "Rescale {.arg y} (divide it by a power of 10) and scale the fitted variances back."), call)
  }
  p <- ncol(d$X)
  if (p > 0L) return(check_design_rank(d$X, call))
  m <- mean(y)
  if (length(y) > 1L && is.finite(s) && abs(m) > s) {
    cli::cli_warn(c("The model has mean zero but the data's mean is {signif(m, 3)}, {signif(abs(m) / s, 2)} standard deviations from zero.",
                    i = "Fit a mean: drop {.code X} with no columns, or use a formula with an intercept."),
                  class = c("gpustats_warning_zero_mean", "gpustats_warning"), call = call)
  }
}

# A trend of full column rank.
check_design_rank <- function(X, call) {
  p <- ncol(X)
  if (p > 0L && qr(X)$rank < p) {
    abort_arg("The trend's design matrix has rank {qr(X)$rank} < {p} columns: some covariates are collinear (or constant besides the intercept).", call)
  }
}

# Estimates that end on a bound of the search (within 1e-6 on its scale) are
# where the bound put them, not maxima: a classed warning names them. A
# parameter in `legitimate` may rest on its lower bound (a nugget of 0).
warn_at_bound <- function(free, par, lower, upper, legitimate, call) {
  at_lower <- par - lower < 1e-6 & !free %in% legitimate
  hit <- free[at_lower | upper - par < 1e-6]
  if (!length(hit)) return(invisible())
  hit <- sub("^ratio$", "nugget", hit)
  cli::cli_warn(c("The estimate{?s} of {.val {hit}} stopped at {?its/their} search bound{?s}: the likelihood rises beyond.",
                  i = "Widen {.arg lower}/{.arg upper}, hold such parameters with {.arg fixed}, or simplify the model (a range beyond the study area often means a trend is missing)."),
                class = c("gpustats_warning_at_bound", "gpustats_warning"), call = call)
}

# Whether nlminb converged; a classed warning when it did not, so that a
# search that stopped early is never taken for an estimate.
fit_converged_or_warn <- function(opt, call) {
  if (opt$convergence == 0L) return(TRUE)
  cli::cli_warn(c("The likelihood search did not converge: {opt$message}.",
                  i = "The estimates are where it stopped. Try other {.arg start} values, {.arg lower}/{.arg upper} bounds, a larger {.code control$iter.max}, or {.code nugget = TRUE}."),
                class = c("gpustats_warning_not_converged", "gpustats_warning"), call = call)
  FALSE
}

# The control list, checked, with its defaults filled in.
fit_control <- function(control, call) {
  defaults <- list(trace = TRUE, iter.max = 200L, rel.tol = 1e-10, loglik.tol = 1e-9, par.tol = 1e-5, hessian = TRUE,
                   vcov = "fisher", gradient = "differences")
  if (!is.list(control) || length(control) && (is.null(names(control)) || any(!nzchar(names(control))))) {
    abort_arg("{.arg control} must be a named list, not {.obj_type_friendly {control}}.", call)
  }
  unknown <- setdiff(names(control), names(defaults))
  if (length(unknown)) {
    abort_arg(c("{.arg control} has unknown element{?s} {.val {unknown}}.", i = "Known: {.val {names(defaults)}}."), call)
  }
  ctrl <- utils::modifyList(defaults, control)
  check_flag(ctrl$trace, "control$trace", call)
  check_flag(ctrl$hessian, "control$hessian", call)
  ctrl$vcov <- match_choice(ctrl$vcov, c("fisher", "hessian"), "control$vcov", call)
  ctrl$gradient <- match_choice(ctrl$gradient, c("differences", "analytic"), "control$gradient", call)
  check_scalar(ctrl$iter.max, "control$iter.max", call, 1)
  if (ctrl$iter.max != round(ctrl$iter.max) || ctrl$iter.max > 1e6) {
    abort_arg("{.arg control$iter.max} must be a whole number from 1 to 1e6, not {ctrl$iter.max}.", call)
  }
  check_scalar(ctrl$rel.tol, "control$rel.tol", call, 0, open = TRUE)
  # nlminb's own range: from the double's precision to below 1
  if (ctrl$rel.tol < .Machine$double.eps || ctrl$rel.tol >= 1) {
    abort_arg("{.arg control$rel.tol} must be from 2.2e-16 (the precision of a double) to below 1, not {ctrl$rel.tol}.", call)
  }
  for (tol in c("loglik.tol", "par.tol")) {
    check_scalar(ctrl[[tol]], paste0("control$", tol), call, 0)
    if (ctrl[[tol]] >= 1) abort_arg("{.arg control${tol}} must be below 1, not {ctrl[[tol]]}.", call)
  }
  ctrl$iter.max <- as.integer(ctrl$iter.max)
  ctrl
}

# Data a fit can learn from: more observations than estimated parameters
# (trend coefficients included; with as many or fewer the likelihood has no
# isolated maximum), and no duplicated locations without a nugget (the
# covariance is then singular at every parameter).
check_fit_data <- function(d, spec, call) {
  n <- sum(!is.na(d$y))
  k <- length(spec$free) + is.null(spec$fixed$sigma2) + ncol(d$X)
  if (n <= k) {
    abort_arg(c("{.fn gp_fit} needs more observations than estimated parameters: {k} need at least {k + 1L}, not {n}.",
                i = "With as many parameters as observations or more, the likelihood has no isolated maximum. Fix some parameters with {.arg fixed}, or use more data."),
              call)
  }
  gaussian <- is.null(d$glm) # a latent field without a nugget is fine at repeated locations
  if (gaussian && !"ratio" %in% spec$free && spec$ratio == 0 && anyDuplicated(d$locs)) {
    abort_arg(c("{.arg locs} has duplicated rows, so the covariance without a nugget is singular at any parameters.",
                i = "Use {.code nugget = TRUE}, or average the observations at each location."), call)
  }
}

# The gradient of f at theta by central differences over h (the step of
# fit_vcov), one-sided where a bound is nearer than h.
fit_gradient <- function(f, theta, lower, upper, h = 1e-3) {
  vapply(seq_along(theta), function(i) {
    up <- down <- theta
    up[i] <- min(theta[i] + h, upper[i])
    down[i] <- max(theta[i] - h, lower[i])
    (f(up) - f(down)) / (up[i] - down[i])
  }, numeric(1))
}

# The gradient of f at theta by forward differences over h (backward where
# the upper bound is nearer), f0 = f(theta) already known; the gradient of
# the warm-started search (gp_fit_start.R). Steps of 1e-6 on the search's
# scale (log ranges and smoothness, the nugget ratio): the truncation error,
# h/2 times the curvature, moves the maximum by about h/2 (at n = 2,000 steps
# of 1e-5 stopped 7e-7 below the maximum, 1e-6 reached it).
fit_gradient_forward <- function(f, theta, f0, upper, h = 1e-6) {
  vapply(seq_along(theta), function(i) {
    step <- if (theta[i] + h <= upper[i]) h else -h
    v <- theta
    v[i] <- v[i] + step
    (f(v) - f0) / step
  }, numeric(1))
}

# One cli status line per likelihood evaluation, or nothing.
fit_progress <- function(trace, call) {
  if (!isTRUE(trace)) return(function(...) invisible())
  id <- cli::cli_progress_bar(type = "custom", format = "gp_fit {cli::pb_extra$text}",
                              extra = list(text = "starting"), total = NA, current = FALSE,
                              .envir = call)
  function(k, ll, p) {
    values <- c(p$geom, p$shape, ratio = p$ratio)
    text <- sprintf("eval %d: loglik %.6g  %s", k, ll, paste(names(values), signif(values, 4), collapse = "  "))
    cli::cli_progress_update(id = id, extra = list(text = text), .envir = call)
  }
}
