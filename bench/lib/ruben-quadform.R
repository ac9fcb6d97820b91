# Reference distribution of Q = sum(lambda_j * chi2_1), lambda_j > 0, for the metafor side of the GENQM /
# generalised Q-profile checks when the R package CompQuadForm (which metafor calls) is not installed.
# Method: Ruben's (1962) mixture-of-chi-square series with beta = min(lambda), the algorithm of
# Farebrother (1984, AS 204) that CompQuadForm::farebrother implements (mode = 1):
#   P(Q <= q) = sum_k a_k P(chi2_{m+2k} <= q/beta), a_0 = prod sqrt(beta/lambda_j),
#   a_k = (1/k) sum_{r<k} g_{k-r} a_r, g_n = 1/2 sum_j (1 - beta/lambda_j)^n  (all a_k >= 0, sum a_k = 1).
# Truncated when (1 - sum a) * P(chi2_{m+2K+2} <= q/beta) < 1e-14. Independent of the engine's Imhof integration.
ruben_upper <- function(q, lambda, maxit = 200000L) {
  lambda <- lambda[lambda > 0]; m <- length(lambda)
  if (q <= 0) return(1)
  beta <- min(lambda); x <- q / beta; gam <- 1 - beta / lambda
  a <- numeric(maxit + 1); g <- numeric(maxit); gp <- rep(1, m)
  a[1] <- exp(0.5 * sum(log(beta / lambda)))
  lower <- a[1] * pchisq(x, m); A <- a[1]
  for (k in seq_len(maxit)) {
    gp <- gp * gam; g[k] <- 0.5 * sum(gp)
    a[k + 1] <- sum(g[k:1] * a[1:k]) / k
    A <- A + a[k + 1]
    lower <- lower + a[k + 1] * pchisq(x, m + 2 * k)
    if ((1 - A) * pchisq(x, m + 2 * k + 2) < 1e-14) break
  }
  1 - lower
}
# Installs a minimal package 'CompQuadForm' exporting farebrother(q, lambda, ...) -> list(Qq) backed by
# ruben_upper into a temporary library, so that metafor's own GENQM and confint(type = "GENQ") code runs.
install_quadform_shim <- function() {
  if (requireNamespace("CompQuadForm", quietly = TRUE)) return(invisible(FALSE))
  src <- file.path(tempdir(), "CompQuadForm"); dir.create(file.path(src, "R"), recursive = TRUE, showWarnings = FALSE)
  writeLines(c("Package: CompQuadForm", "Version: 0.0.0", "Title: Ruben series shim for tests", "Description: Test shim.",
               "License: GPL-2", "Author: test", "Maintainer: test <test@example.org>"), file.path(src, "DESCRIPTION"))
  writeLines("export(farebrother)", file.path(src, "NAMESPACE"))
  code <- c(deparse(ruben_upper), "")
  writeLines(c(paste("ruben_upper <-", paste(deparse(ruben_upper), collapse = "\n")),
               "farebrother <- function(q, lambda, h = rep(1, length(lambda)), delta = rep(0, length(lambda)), maxit = 100000, eps = 10^(-10), mode = 1) list(Qq = ruben_upper(q, lambda), ifault = 0)"),
             file.path(src, "R", "farebrother.R"))
  lib <- file.path(tempdir(), "lib"); dir.create(lib, showWarnings = FALSE)
  system2(file.path(R.home("bin"), "R"), c("CMD", "INSTALL", "--no-test-load", paste0("--library=", lib), src), stdout = FALSE, stderr = FALSE)
  .libPaths(c(lib, .libPaths()))
  invisible(requireNamespace("CompQuadForm", quietly = TRUE))
}
