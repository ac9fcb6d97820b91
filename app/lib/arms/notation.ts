/**
 * Reading the statistics of one table cell (or a few sub-cells of one arm) or one prose fragment:
 * "mean (SD)", "mean ± SD", "n (%)", "n/N (%)", "%", "mean (SE)", "mean (95% CI a to b)".
 * Numbers are read by the extraction core's one number reader (`parseNumber`, `decimalsOf`).
 */
import { decimalsOf, parseNumber } from "../extraction/core/index.ts";

export type StatKind = "count" | "continuous" | "unknown";

/** What the headers, row label, caption and footnotes say a cell holds. */
export interface Hints {
  count: boolean;
  percentOnly: boolean;
  meanSd: boolean;
  se: boolean;
  ci: boolean;
  median: boolean;
}

const NUM = String.raw`[-−–]?\d+(?:[.,·]\d+)?`;

/** Hints from any describing text (header, row label, caption, footnotes). */
export function hintsOf(text: string): Hints {
  const t = text.replace(/\s+/g, " ");
  return {
    count:
      /\bn\s*\(\s*%\s*\)|\bno\.?\s*\(\s*%\s*\)|number\s*\(\s*%\s*\)|\bn\s*\/\s*N\b|\bn\s*\(\s*percent|\bcases?\s*\(%\)|\(%\)|%/i.test(
        t,
      ),
    percentOnly: /^\s*%\s*$|\(\s*%\s*\)\s*$|[,;:]\s*%\s*$|percent(age)?\s*$/i.test(t),
    meanSd: /mean\s*(\(|\[|±|\+\/-)\s*(SD|s\.d\.|standard deviation)|±\s*SD|\bSD\b|standard deviation/i.test(t),
    se: /\bSEM?\b|standard error|s\.e\./i.test(t),
    ci: /95\s*%\s*CI|confidence interval/i.test(t),
    median: /median|IQR|interquartile|range/i.test(t),
  };
}

export function mergeHints(...all: Hints[]): Hints {
  return {
    count: all.some((h) => h.count),
    percentOnly: all.some((h) => h.percentOnly),
    meanSd: all.some((h) => h.meanSd),
    se: all.some((h) => h.se),
    ci: all.some((h) => h.ci),
    median: all.some((h) => h.median),
  };
}

/** A parsed cell: the numbers it states and the notation they were read in. */
export interface CellStats {
  kind: StatKind;
  events?: number;
  groupSize?: number;
  percent?: number;
  percentDecimals?: number;
  mean?: number;
  sd?: number;
  se?: number;
  ciLow?: number;
  ciHigh?: number;
  /** The numbers in the notation "a (b)" where the hints could not tell counts from means. */
  ambiguous?: { a: number; b: number; bDecimals: number };
}

const RE_FRACTION = new RegExp(String.raw`^(\d+)\s*\/\s*(\d+)\s*(?:[,;(\[]\s*(${NUM})\s*%?\s*[)\]]?)?$`);
const RE_PCT_FRACTION = new RegExp(String.raw`^(${NUM})\s*%\s*[(\[]\s*(\d+)\s*\/\s*(\d+)\s*[)\]]$`);
const RE_N_PCT = new RegExp(String.raw`^(\d+)\s*[(\[]\s*(${NUM})\s*%?\s*[)\]]$`);
const RE_N_PCT_SPACE = new RegExp(String.raw`^(\d+)\s+(${NUM})\s*%?$`);
const RE_PM = new RegExp(String.raw`^(${NUM})\s*(?:±|\+\/-|\+\/−|\+-)\s*(${NUM})$`);
const RE_PAREN = new RegExp(String.raw`^(${NUM})\s*[(\[]\s*(?:(?:SD|SE|SEM|s\.d\.)\s*[=:,]?\s*)?(${NUM})\s*[)\]]$`);
const RE_SPACE_PAIR = new RegExp(String.raw`^(${NUM})\s+(${NUM})$`);
const RE_CI = new RegExp(
  String.raw`^(${NUM})\s*[(\[]\s*(?:95\s*%\s*CI\s*[,:]?\s*)?(${NUM})\s*(?:to|–|—|-|,|;)\s*(${NUM})\s*[)\]]$`,
);
const RE_PERCENT = new RegExp(String.raw`^(${NUM})\s*%$`);
/** "n=354, 3132.4 (581.7)", or "393, 7.7 (5.0)" under a mean (SD) hint: the arm's n written before its statistic. */
const RE_N_PREFIX = /^(n\s*=\s*)?(\d+)\s*[,;]\s+(.+)$/i;
const RE_NUMBER = new RegExp(String.raw`^(${NUM})$`);

/**
 * Reads one cell (markers such as "*", "a", "†" already removed) under the given hints and the
 * arm's known group size (or null). "a (b)" is a count with its percentage when the hints say n (%)
 * or b = 100·a/n fits; a mean with its SD when the hints say mean (SD) or SD; with SE when they say SE.
 * The arm's n may come first ("n=354, 3132.4 (581.7)"; "393, 7.7 (5.0)" only under a mean (SD) hint, as BMJ
 * tables write "numbers, means (standard deviations)"): it becomes the cell's group size.
 * Medians, IQRs and ranges give nothing.
 */
export function parseCell(raw: string, hints: Hints, groupSize: number | null): CellStats {
  const cell = raw
    .replace(/[*†‡§¶#¤]+/g, "")
    .replace(/\s*\b(?:[a-h])\s*$/i, (m) => (/\d\s*[a-h]$/i.test(raw.trim()) ? "" : m))
    .replace(/\s+/g, " ")
    .trim();
  if (!cell || hints.median) return { kind: "unknown" };
  let m = RE_N_PREFIX.exec(cell);
  if (m && (m[1] || hints.meanSd)) {
    const n = parseNumber(m[2]);
    const rest = parseCell(m[3], hints, n);
    if (rest.groupSize !== undefined) return { kind: "unknown" };
    const spread = rest.kind === "continuous" && (rest.sd !== undefined || rest.se !== undefined);
    if (m[1] ? spread || (rest.kind === "count" && rest.events !== undefined && rest.events <= n) : spread)
      return { ...rest, groupSize: n };
    if (m[1]) return { kind: "unknown" };
  }
  m = RE_FRACTION.exec(cell);
  if (m) {
    const events = parseNumber(m[1]);
    const n = parseNumber(m[2]);
    if (events <= n)
      return {
        kind: "count",
        events,
        groupSize: n,
        percent: m[3] ? parseNumber(m[3]) : undefined,
        percentDecimals: m[3] ? decimalsOf(m[3]) : undefined,
      };
    return { kind: "unknown" };
  }
  m = RE_PCT_FRACTION.exec(cell);
  if (m) {
    const events = parseNumber(m[2]);
    const n = parseNumber(m[3]);
    if (events <= n)
      return { kind: "count", events, groupSize: n, percent: parseNumber(m[1]), percentDecimals: decimalsOf(m[1]) };
  }
  m = RE_PM.exec(cell);
  if (m) {
    const sd = parseNumber(m[2]);
    if (sd < 0) return { kind: "unknown" };
    if (hints.se && !hints.meanSd) return { kind: "continuous", mean: parseNumber(m[1]), se: sd };
    return { kind: "continuous", mean: parseNumber(m[1]), sd };
  }
  m = RE_CI.exec(cell);
  if (m) {
    if (!hints.ci) return { kind: "unknown" };
    return { kind: "continuous", mean: parseNumber(m[1]), ciLow: parseNumber(m[2]), ciHigh: parseNumber(m[3]) };
  }
  const withPercent = /%/.test(cell);
  m = RE_N_PCT.exec(cell) ?? (hints.count ? RE_N_PCT_SPACE.exec(cell) : null);
  if (m) {
    const a = parseNumber(m[1]);
    const b = parseNumber(m[2]);
    const bd = decimalsOf(m[2]);
    const fitsPercent =
      groupSize !== null && a <= groupSize && Math.abs((100 * a) / groupSize - b) <= 0.5 * 10 ** -bd + 0.051;
    const explicitSd = /\b(SD|s\.d\.)\b/i.test(cell);
    const explicitSe = /\bSEM?\b/i.test(cell);
    if (!explicitSd && !explicitSe && (withPercent || fitsPercent || (hints.count && !hints.meanSd && b <= 100))) {
      if (b > 100) return { kind: "unknown" };
      return { kind: "count", events: a, percent: b, percentDecimals: bd };
    }
    if (explicitSe || (hints.se && !hints.meanSd)) return { kind: "continuous", mean: a, se: b };
    if (explicitSd || hints.meanSd) return { kind: "continuous", mean: a, sd: b };
    return { kind: "unknown", ambiguous: { a, b, bDecimals: bd } };
  }
  m = RE_PAREN.exec(cell) ?? RE_SPACE_PAIR.exec(cell);
  if (m) {
    const a = parseNumber(m[1]);
    const b = parseNumber(m[2]);
    if (b < 0) return { kind: "unknown" };
    if (/\bSEM?\b/i.test(cell) || (hints.se && !hints.meanSd)) return { kind: "continuous", mean: a, se: b };
    if (/\bSD\b/i.test(cell) || hints.meanSd) return { kind: "continuous", mean: a, sd: b };
    return { kind: "unknown", ambiguous: { a, b, bDecimals: decimalsOf(m[2]) } };
  }
  m = RE_PERCENT.exec(cell);
  if (m) return { kind: "count", percent: parseNumber(m[1]), percentDecimals: decimalsOf(m[1]) };
  m = RE_NUMBER.exec(cell);
  if (m) {
    const value = parseNumber(m[1]);
    if (hints.percentOnly) return { kind: "count", percent: value, percentDecimals: decimalsOf(m[1]) };
    if (hints.count && !hints.meanSd && Number.isInteger(value) && !/[.,]/.test(m[1]))
      return { kind: "count", events: value };
    if (hints.meanSd || !hints.count) return { kind: "continuous", mean: value };
  }
  return { kind: "unknown" };
}
