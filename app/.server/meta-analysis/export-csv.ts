/**
 * The study rows of a finished meta-analysis as CSV (issue 31): one line per study per pooled
 * analysis, with the column names of Cochrane's data package (RevMan's analysis data export) where
 * one exists — Study, Study year, Experimental cases/N, Control cases/N, Experimental/Control
 * mean and SD, Mean (the effect estimate), CI start, CI end, Weight — plus the analysis scale's yi
 * and vi so the rows can be pooled again elsewhere. Written with papaparse; cells that a
 * spreadsheet would read as a formula are quoted with a leading apostrophe (escapeFormulae).
 * Pure: no I/O.
 */
import Papa from "papaparse";
import { Z_975 } from "~/lib/meta-analysis";
import type { MetaAnalysisJobResult } from "~/lib/meta-analysis/types";
import { analysisStudyRows } from "./study-rows";

/** The CSV's columns, in order. */
export const STUDY_DATA_COLUMNS = [
  "Analysis number",
  "Analysis name",
  "Effect measure",
  "Study",
  "Study ID",
  "Study year",
  "Data type",
  "Experimental cases",
  "Experimental N",
  "Control cases",
  "Control N",
  "Experimental mean",
  "Experimental SD",
  "Control mean",
  "Control SD",
  "Mean",
  "CI start",
  "CI end",
  "Weight",
  "yi",
  "vi",
] as const;

const RATIO = new Set(["RR", "OR", "ROM"]);

function num(value: number | null | undefined): number | "" {
  return typeof value === "number" && Number.isFinite(value) ? value : "";
}

/** The year a study label or title names ("Smith 2019", "… (2021)"), or "" when it names none. */
export function yearOf(label: string): number | "" {
  const match = /\b(19[5-9]\d|20\d\d)\b/.exec(label);
  return match ? Number(match[1]) : "";
}

/**
 * The study rows of every pooled analysis of `result` as CSV text (RFC 4180, CRLF line ends, a
 * header line even with no analysis). "Mean", "CI start" and "CI end" are the study's effect and
 * its 95% CI (yi ± 1.959964·√vi, the z escalc turns a CI back into vi with, so the file imports back to the same yi and vi) on the scale readers see: ratios back-transformed with exp().
 * "Weight" is the study's weight in the pooled model, in percent.
 */
export function buildStudyDataCsv(result: MetaAnalysisJobResult): string {
  const rows: Record<(typeof STUDY_DATA_COLUMNS)[number], string | number>[] = [];
  result.analyses.forEach((analysis, index) => {
    const ratio = RATIO.has(analysis.measure);
    const scale = (x: number) => (ratio ? Math.exp(x) : x);
    for (const row of analysisStudyRows(result, analysis)) {
      const d = row.data;
      const half = Z_975 * Math.sqrt(row.vi);
      rows.push({
        "Analysis number": index + 1,
        "Analysis name": analysis.outcome,
        "Effect measure": analysis.reportedMeasure ?? analysis.measure,
        Study: row.label,
        "Study ID": row.studyId,
        "Study year": yearOf(row.label),
        "Data type": d.kind,
        "Experimental cases": d.kind === "counts" ? num(d.events1) : "",
        "Experimental N": d.kind === "counts" || d.kind === "means" ? num(d.n1) : "",
        "Control cases": d.kind === "counts" ? num(d.events2) : "",
        "Control N": d.kind === "counts" || d.kind === "means" ? num(d.n2) : "",
        "Experimental mean": d.kind === "means" ? num(d.mean1) : "",
        "Experimental SD": d.kind === "means" ? num(d.sd1) : "",
        "Control mean": d.kind === "means" ? num(d.mean2) : "",
        "Control SD": d.kind === "means" ? num(d.sd2) : "",
        Mean: num(scale(row.yi)),
        "CI start": num(scale(row.yi - half)),
        "CI end": num(scale(row.yi + half)),
        Weight: num(row.weight),
        yi: num(row.yi),
        vi: num(row.vi),
      });
    }
  });
  return Papa.unparse(
    { fields: [...STUDY_DATA_COLUMNS], data: rows.map((r) => STUDY_DATA_COLUMNS.map((c) => r[c])) },
    { escapeFormulae: true, newline: "\r\n" },
  );
}
