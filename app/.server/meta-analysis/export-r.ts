/**
 * A finished meta-analysis as a self-contained R script (issue 31, PRISMA 2020 item 27: data and
 * code). Running it with R and metafor (Viechtbauer 2010, J Stat Softw 36(3)) reproduces every
 * pooled number of the report: the study data as data frames, escalc() with the analysis's measure
 * and metafor's defaults (add = 1/2, to = "only0"), rma() with the same estimator and test,
 * regtest(), ranktest(), trimfill() and leave1out() where the report has them, forest and funnel
 * plots (written to metamind-plots.pdf), and a check that compares the fits with the report's numbers
 * and stops with the differences when one differs by more than 1e-6 (relative to max(1, |value|)).
 * It leaves `analyses`, a list of the rma fits in the order of the report's analyses.
 * Pure: no I/O.
 */
import { GENQ_WEIGHT_SHORT } from "~/lib/meta-analysis/display";
import type {
  EffectData,
  GenqWeights,
  Measure,
  MetaAnalysisJobResult,
  OutcomeAnalysis,
} from "~/lib/meta-analysis/types";
import { analysisStudyRows, type AnalysisStudyRow } from "./study-rows";

/** Names of measures as the script's comments print them. */
const MEASURE_TITLES: Record<Measure, string> = {
  RR: "risk ratio",
  OR: "odds ratio",
  RD: "risk difference",
  MD: "mean difference",
  SMD: "standardised mean difference (Hedges' g)",
  ROM: "ratio of means",
  GEN: "effect size",
};

const TEST_TITLES = { z: "z-test", knha: "Hartung-Knapp adjustment" } as const;

/** An R string literal: quotes and backslashes escaped, control and non-ASCII characters as \u escapes. */
export function rString(value: string): string {
  let out = '"';
  for (const ch of value) {
    const code = ch.codePointAt(0)!;
    if (ch === '"' || ch === "\\") out += `\\${ch}`;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\t") out += "\\t";
    else if (code < 0x20 || code === 0x7f) out += `\\u${code.toString(16).padStart(4, "0")}`;
    else if (code > 0x7e)
      out += code > 0xffff ? `\\U${code.toString(16).padStart(8, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
    else out += ch;
  }
  return `${out}"`;
}

/** An R numeric literal that reads back as the same double; NA for a missing or non-finite value. */
export function rNumber(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return "NA";
  return String(value);
}

function rVector(values: readonly (number | null | undefined)[]): string {
  return `c(${values.map(rNumber).join(", ")})`;
}

function rStrings(values: readonly string[]): string {
  return `c(${values.map(rString).join(", ")})`;
}

type Column = [name: string, values: (row: AnalysisStudyRow) => number | null];

/** The arm-level and estimate columns a data frame needs for the data kinds present. */
function columnsFor(rows: readonly AnalysisStudyRow[]): Column[] {
  const kinds = new Set(rows.map((r) => r.data.kind));
  const pick =
    <K extends EffectData["kind"], F extends string>(kind: K, field: F) =>
    (row: AnalysisStudyRow) =>
      row.data.kind === kind ? ((row.data as Record<string, unknown>)[field] as number) : null;
  const columns: Column[] = [];
  if (kinds.has("counts")) {
    columns.push(
      ["ai", pick("counts", "events1")],
      ["n1i", pick("counts", "n1")],
      ["ci", pick("counts", "events2")],
      ["n2i", pick("counts", "n2")],
    );
  }
  if (kinds.has("means")) {
    columns.push(
      ["m1i", pick("means", "mean1")],
      ["sd1i", pick("means", "sd1")],
      ["n1i_means", pick("means", "n1")],
      ["m2i", pick("means", "mean2")],
      ["sd2i", pick("means", "sd2")],
      ["n2i_means", pick("means", "n2")],
    );
  }
  if (kinds.has("estimate-ci")) {
    columns.push(
      ["estimate", pick("estimate-ci", "estimate")],
      ["ci_lower", pick("estimate-ci", "lower")],
      ["ci_upper", pick("estimate-ci", "upper")],
    );
  }
  if (kinds.has("yi-vi")) columns.push(["yi_given", pick("yi-vi", "yi")], ["vi_given", pick("yi-vi", "vi")]);
  return columns;
}

const HELPERS = String.raw`# Effect size and sampling variance of every row of a study table, by the kind of data it holds:
# 2x2 counts and means through escalc() with metafor's defaults; a reported estimate with its 95% CI
# as yi = estimate (log estimate for ratios), vi = (CI width / (2 * 1.959964))^2; yi/vi as given.
# The ratio of means is the bias-corrected log ratio (Lajeunesse 2015; escalc's default from metafor
# 4.0 on), written out so that older metafor versions give the same numbers.
effect_sizes <- function(dat, measure) {
  ratio <- measure %in% c("RR", "OR", "ROM")
  dat$yi <- NA_real_
  dat$vi <- NA_real_
  for (i in seq_len(nrow(dat))) {
    kind <- dat$data_kind[i]
    if (kind == "counts") {
      es <- escalc(measure, ai = dat$ai[i], n1i = dat$n1i[i], ci = dat$ci[i], n2i = dat$n2i[i])
      dat$yi[i] <- as.numeric(es$yi)
      dat$vi[i] <- as.numeric(es$vi)
    } else if (kind == "means" && measure == "ROM") {
      v1 <- dat$sd1i[i]^2 / (dat$n1i_means[i] * dat$m1i[i]^2)
      v2 <- dat$sd2i[i]^2 / (dat$n2i_means[i] * dat$m2i[i]^2)
      dat$yi[i] <- log(dat$m1i[i] / dat$m2i[i]) + (v1 - v2) / 2
      dat$vi[i] <- v1 + v2
    } else if (kind == "means") {
      es <- escalc(measure, m1i = dat$m1i[i], sd1i = dat$sd1i[i], n1i = dat$n1i_means[i],
                   m2i = dat$m2i[i], sd2i = dat$sd2i[i], n2i = dat$n2i_means[i])
      dat$yi[i] <- as.numeric(es$yi)
      dat$vi[i] <- as.numeric(es$vi)
    } else if (kind == "estimate-ci") {
      f <- if (ratio) log else identity
      dat$yi[i] <- f(dat$estimate[i])
      dat$vi[i] <- ((f(dat$ci_upper[i]) - f(dat$ci_lower[i])) / (2 * 1.959964))^2
    } else {
      dat$yi[i] <- dat$yi_given[i]
      dat$vi[i] <- dat$vi_given[i]
    }
  }
  dat
}

# Largest difference between a fitted value and the report's, relative to max(1, |report value|).
mismatches <- list()
check <- function(analysis, name, fitted, reported) {
  fitted <- as.numeric(fitted)
  reported <- as.numeric(reported)
  both <- !is.na(reported)
  if (!any(both)) return(invisible())
  diff <- max(abs(fitted[both] - reported[both]) / pmax(1, abs(reported[both])))
  if (is.na(diff) || diff > 1e-6) {
    mismatches[[length(mismatches) + 1]] <<- sprintf("analysis %d, %s: R gives %s, the report %s",
      analysis, name, paste(signif(fitted, 10), collapse = " "), paste(signif(reported, 10), collapse = " "))
  }
}
`;

/** metafor `weights` argument of each GENQ/GENQM weight rule (evaluated in the data frame). */
const GENQ_WEIGHTS_R: Record<GenqWeights, string> = {
  "inverse-variance": "1/vi",
  "inverse-se": "1/sqrt(vi)",
  equal: "rep(1, length(vi))",
};

/** The R lines of one analysis: its data frame, effect sizes, model, tests and checks. */
function analysisBlock(result: MetaAnalysisJobResult, analysis: OutcomeAnalysis, index: number): string {
  const n = index + 1;
  const rows = analysisStudyRows(result, analysis);
  const measureTitle =
    analysis.reportedMeasure === "HR"
      ? "hazard ratio"
      : analysis.reportedMeasure === "IRR"
        ? "rate ratio"
        : MEASURE_TITLES[analysis.measure];
  const lines: string[] = [];
  lines.push(`## Analysis ${n}: ${analysis.outcome.replace(/[\r\n]+/g, " ")}`);
  lines.push(
    `## ${measureTitle}, k = ${analysis.k}, tau^2 estimator ${analysis.method}${analysis.genqWeights ? ` with ${GENQ_WEIGHT_SHORT[analysis.genqWeights]}` : ""}, ${TEST_TITLES[analysis.test]}`,
  );
  const frame = [
    `  study = ${rStrings(rows.map((r) => r.label))}`,
    `  study_id = ${rStrings(rows.map((r) => r.studyId))}`,
    `  data_kind = ${rStrings(rows.map((r) => r.data.kind))}`,
    ...columnsFor(rows).map(([name, get]) => `  ${name} = ${rVector(rows.map(get))}`),
  ];
  lines.push(`dat${n} <- data.frame(\n${frame.join(",\n")},\n  stringsAsFactors = FALSE\n)`);
  lines.push(`dat${n} <- effect_sizes(dat${n}, ${rString(analysis.measure)})`);
  lines.push(
    `fit${n} <- rma(yi, vi, data = dat${n}, method = ${rString(analysis.method)}, test = ${rString(analysis.test)}${analysis.genqWeights ? `, weights = ${GENQ_WEIGHTS_R[analysis.genqWeights]}` : ""}, slab = study)`,
  );
  lines.push(`analyses[[${n}]] <- fit${n}`);
  lines.push(`print(fit${n})`);
  lines.push(`pred${n} <- predict(fit${n})`);
  lines.push(`check(${n}, "yi", dat${n}$yi, ${rVector(rows.map((r) => r.yi))})`);
  lines.push(`check(${n}, "vi", dat${n}$vi, ${rVector(rows.map((r) => r.vi))})`);
  const pooled: [string, string, number | null | undefined][] = [
    ["estimate", `fit${n}$beta`, analysis.estimate],
    ["se", `fit${n}$se`, analysis.se],
    ["ci_lb", `fit${n}$ci.lb`, analysis.ci_lb],
    ["ci_ub", `fit${n}$ci.ub`, analysis.ci_ub],
    ["pval", `fit${n}$pval`, analysis.pval],
    ["tau2", `fit${n}$tau2`, analysis.tau2],
    ["I2", `fit${n}$I2`, analysis.I2],
    ["H2", `fit${n}$H2`, analysis.H2],
    ["QE", `fit${n}$QE`, analysis.QE],
    ["QEp", `fit${n}$QEp`, analysis.QEp],
    ["pi_lb", `if (is.null(pred${n}$pi.lb)) pred${n}$ci.lb else pred${n}$pi.lb`, analysis.pi_lb],
    ["pi_ub", `if (is.null(pred${n}$pi.ub)) pred${n}$ci.ub else pred${n}$pi.ub`, analysis.pi_ub],
    ["weights", `weights(fit${n})`, Number.NaN],
  ];
  for (const [name, expr, value] of pooled) {
    if (name === "weights") lines.push(`check(${n}, "weights", ${expr}, ${rVector(analysis.weights)})`);
    else lines.push(`check(${n}, ${rString(name)}, ${expr}, ${rNumber(value)})`);
  }
  if (analysis.egger) {
    lines.push(`egger${n} <- regtest(fit${n})`);
    lines.push(`print(egger${n})`);
    lines.push(`check(${n}, "Egger's test statistic", egger${n}$zval, ${rNumber(analysis.egger.statistic)})`);
    lines.push(`check(${n}, "Egger's test p-value", egger${n}$pval, ${rNumber(analysis.egger.pval)})`);
  }
  if (analysis.begg) {
    lines.push(`begg${n} <- ranktest(fit${n})`);
    lines.push(`print(begg${n})`);
    lines.push(`check(${n}, "Begg's test tau", begg${n}$tau, ${rNumber(analysis.begg.tau)})`);
  }
  if (analysis.trimfill) {
    lines.push(`print(trimfill(fit${n}))`);
  }
  if (analysis.leaveOneOut.length === analysis.k) {
    lines.push(`l1o${n} <- leave1out(fit${n})`);
    lines.push(`print(l1o${n})`);
    lines.push(
      `check(${n}, "leave-one-out estimates", l1o${n}$estimate, ${rVector(analysis.leaveOneOut.map((r) => r.estimate))})`,
    );
    lines.push(`check(${n}, "leave-one-out tau^2", l1o${n}$tau2, ${rVector(analysis.leaveOneOut.map((r) => r.tau2))})`);
  }
  return lines.join("\n");
}

/**
 * The R script of a finished job's pooled analyses.
 *
 * @param result the job's result (GET /api/meta-analysis/jobs/{id} → result).
 * @param meta.jobId the job's id, named in the header; `meta.generatedAt` the time shown there.
 * @returns the script text (UTF-8, ASCII only: other characters are \u escapes). With no pooled
 *   analysis the script still runs and says so.
 */
export function buildRScript(result: MetaAnalysisJobResult, meta: { jobId: string; generatedAt: Date }): string {
  const header = [
    "# MetaMind meta-analysis as an R script (metafor).",
    `# Job ${meta.jobId}, exported ${meta.generatedAt.toISOString()}.`,
    '# Run it with: Rscript this-file.R   (needs R and metafor: install.packages("metafor")).',
    "# It rebuilds every pooled analysis of the report from the study data, compares each number with",
    "# the report (stopping with the differences if one differs by more than 1e-6), writes the forest and",
    "# funnel plots to metamind-plots.pdf and leaves `analyses`, the list of rma() fits in report order.",
    "",
    "library(metafor)",
    "",
    HELPERS,
    "analyses <- list()",
    "",
  ].join("\n");
  const blocks = result.analyses.map((analysis, i) => analysisBlock(result, analysis, i));
  const ratios = result.analyses.map((a) => a.measure === "RR" || a.measure === "OR" || a.measure === "ROM");
  const outcomes = result.analyses.map((a) => a.outcome);
  const footer = result.analyses.length
    ? [
        "## Plots",
        `ratio_scale <- ${`c(${ratios.map((r) => (r ? "TRUE" : "FALSE")).join(", ")})`}`,
        `outcomes <- ${rStrings(outcomes)}`,
        'pdf("metamind-plots.pdf", width = 9, height = 6)',
        "for (i in seq_along(analyses)) {",
        "  forest(analyses[[i]], atransf = if (ratio_scale[i]) exp else FALSE, main = outcomes[i])",
        "  funnel(analyses[[i]], main = outcomes[i])",
        "}",
        "invisible(dev.off())",
        "",
        "## Check against the report",
        'if (length(mismatches)) stop(paste(c("Some numbers differ from the MetaMind report:", unlist(mismatches)), collapse = "\\n"))',
        `cat("All numbers of the ${result.analyses.length} pooled ${result.analyses.length === 1 ? "analysis" : "analyses"} match the MetaMind report.\\n")`,
      ].join("\n")
    : 'cat("The report has no pooled analysis (fewer than 2 usable studies per outcome).\\n")';
  return `${header}\n${blocks.join("\n\n")}${blocks.length ? "\n\n" : ""}${footer}\n`;
}
