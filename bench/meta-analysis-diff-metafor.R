# metafor side of the issue-29 differential check: reads the same IN.json as
# bench/meta-analysis-diff.mjs and writes metafor's values in the same OUT.json layout.
#   Rscript bench/meta-analysis-diff-metafor.R IN.json OUT.json
# Needs the R packages metafor and jsonlite. `mods` rows are studies (mods[[i]] = moderators of study i).
suppressMessages({ library(metafor); library(jsonlite) })
args <- commandArgs(trailingOnly = TRUE)
local({
  shim <- file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1])), "lib", "ruben-quadform.R")
  if (file.exists(shim)) { source(shim); install_quadform_shim() }
})
input <- fromJSON(args[1], simplifyVector = FALSE)
num <- function(x) as.numeric(unlist(x))
# rma() with weights only when there are some (metafor refuses weights = NULL given through a variable)
rw <- function(y, v, w, ...) if (is.null(w)) rma(y, v, ...) else rma(y, v, weights = w, ...)
guard <- function(expr) tryCatch(suppressWarnings(expr), error = function(e) list(error = conditionMessage(e)))
results <- lapply(input$cases, function(cs) {
  yi <- num(cs$yi); vi <- num(cs$vi); method <- cs$method; test <- if (is.null(cs$test)) "z" else cs$test
  # GENQ / GENQM weights a (case field `weights`, default 1/v), carried into every refit; NULL for other methods
  wts <- if (method %in% c("GENQ", "GENQM")) { if (is.null(cs$weights)) 1 / vi else num(cs$weights) } else NULL
  analyses <- unlist(cs$analyses)
  out <- list(id = cs$id)
  # two-step estimators (DerSimonian & Kacker 2007, metafor's dersimonian2007 example): τ² from GENQ / SJ with
  # tau2.init, then the model with that τ² fixed (so only the 'rma' analysis is meaningful for them)
  fit <- function() {
    if (method %in% c("DL2", "CA2")) {
      t1 <- rma(yi, vi, method = if (method == "DL2") "DL" else "HE")$tau2
      g <- rma(yi, vi, method = "GENQ", weights = 1 / (vi + t1))
      return(rma(yi, vi, tau2 = g$tau2, test = test))
    }
    if (method == "SJ2") {
      t1 <- rma(yi, vi, method = "HE")$tau2
      return(rma(yi, vi, method = "SJ", test = test, control = list(tau2.init = t1)))
    }
    # GENQ / GENQM: weights a (default 1/v, the engine's default), pooled with them as metafor does; needs
    # CompQuadForm (or the Ruben-series shim of bench/lib/ruben-quadform.R when it is not installed)
    if (method %in% c("GENQ", "GENQM")) return(rw(yi, vi, wts, method = method, test = test))
    rma(yi, vi, method = method, test = test)
  }
  if ("rma" %in% analyses) out$rma <- guard({
    r <- fit(); pr <- predict(r, pi.type = if (is.null(cs$piType)) "default" else cs$piType)
    # confint() refuses a model with τ² fixed; the Q-profile interval does not depend on the estimator
    ci <- confint(if (method %in% c("DL2", "CA2")) rma(yi, vi, method = "DL", test = test) else r)$random
    list(b = c(r$b), se = r$se, ci_lb = r$ci.lb, ci_ub = r$ci.ub, pval = r$pval, tau2 = r$tau2,
         tau2_ci_lb = ci["tau^2", 2], tau2_ci_ub = ci["tau^2", 3], I2 = r$I2,
         I2_ci_lb = ci["I^2(%)", 2], I2_ci_ub = ci["I^2(%)", 3], H2 = r$H2, QE = r$QE, QEp = r$QEp,
         pi_lb = pr$pi.lb, pi_ub = pr$pi.ub)
  })
  if ("subgroup" %in% analyses) out$subgroup <- guard({
    g <- as.character(unlist(cs$subgroup)); lv <- unique(g)
    groups <- lapply(lv, function(l) {
      s <- g == l; r <- rw(yi[s], vi[s], wts[s], method = method, test = test)
      list(level = l, k = sum(s), b = c(r$b), se = r$se, ci_lb = r$ci.lb, ci_ub = r$ci.ub, tau2 = r$tau2, I2 = r$I2)
    })
    b <- sapply(groups, `[[`, "b"); se <- sapply(groups, `[[`, "se")
    Q <- if (length(lv) > 1) rma(b, sei = se, method = "EE")$QE else 0
    df <- length(lv) - 1
    mixed <- tryCatch({
      G <- model.matrix(~ factor(g, levels = lv))[, -1, drop = FALSE] # the dummies of mods = ~ factor(g)
      m <- rw(yi, vi, wts, mods = G, method = method, test = test)
      list(QM = m$QM, QMp = m$QMp, tau2 = m$tau2)
    }, error = function(e) NULL)
    list(groups = groups, Q = Q, df = df, p = if (df > 0) pchisq(Q, df, lower.tail = FALSE) else NA,
         I2 = if (Q > 0) max(0, 100 * (Q - df) / Q) else 0, mixed = mixed)
  })
  if ("metareg" %in% analyses) out$metareg <- guard({
    rows <- cs$mods
    X <- if (all(sapply(rows, length) == 1)) matrix(num(rows), ncol = 1) else do.call(rbind, lapply(rows, num))
    m <- rw(yi, vi, wts, mods = X, method = method, test = test)
    list(b = I(c(m$b)), se = I(m$se), ci_lb = I(m$ci.lb), ci_ub = I(m$ci.ub), pval = I(m$pval), QM = m$QM, QMp = m$QMp,
         QE = m$QE, QEp = m$QEp, tau2 = m$tau2, R2 = m$R2)
  })
  if ("leave1out" %in% analyses) out$leave1out <- guard({
    l <- leave1out(fit())
    list(estimate = I(l$estimate), se = I(l$se), ci_lb = I(l$ci.lb), ci_ub = I(l$ci.ub), tau2 = I(l$tau2), I2 = I(l$I2), QE = I(l$Q))
  })
  if ("influence" %in% analyses) out$influence <- guard({
    f <- influence(fit())$inf
    list(rstudent = I(f$rstudent), dffits = I(f$dffits), cook_d = I(f$cook.d), cov_r = I(f$cov.r), tau2_del = I(f$tau2.del),
         QE_del = I(f$QE.del), hat = I(f$hat), weight = I(f$weight), inf = I(f$inf == "*"))
  })
  if ("cumul" %in% analyses) out$cumul <- guard({
    cu <- cumul(fit())
    list(estimate = I(cu$estimate), se = I(cu$se), ci_lb = I(cu$ci.lb), ci_ub = I(cu$ci.ub), tau2 = I(cu$tau2), I2 = I(cu$I2))
  })
  out
})
writeLines(toJSON(list(results = results), digits = NA, auto_unbox = TRUE, na = "null", null = "null"), args[2])
