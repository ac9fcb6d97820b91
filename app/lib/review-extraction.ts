/**
 * A systematic review's data-extraction table (issue 19), the pure part shared by the server and the
 * page: the shapes of a review's outcomes and of one outcome's arm-level extraction per included
 * study, stored corrections applied to an extraction (latest value per cell), quotes turned into what
 * the page shows (the sentence with the quoted span, or the table with the quoted cell), a quote
 * located back in the raw source text (an uploaded PDF's text as unpdf gave it), and the pooling of an
 * outcome with the meta-analysis engine (escalc on arm data; a reported estimate with CI only where
 * arm data are missing).
 */
import {
  type ArmExtraction,
  type ArmField,
  type ArmKey,
  type ArmQuote,
  isTableQuote,
  type OutcomeType,
} from "./arms/types.ts";
import type { ReportTable, TrialReport } from "./extraction/core/document/model.ts";
import { armEffectData, type AuditEntry } from "./arms/review.ts";
import { escalc, MetaInputError, rma } from "./meta-analysis/index.ts";
import type { DualExtractionStudy, ExtractionMode } from "./dual-extraction.ts";
import type {
  GenqWeights,
  EffectData,
  EffectSize,
  ExtractedStudyData,
  Measure,
  Method,
  PooledResult,
  TestType,
} from "./meta-analysis/types.ts";

/** One outcome of a review's extraction: its name and the arms it compares. */
export interface ReviewOutcome {
  id: number;
  name: string;
  intervention: string;
  comparator: string;
  /** ISO time. */
  createdAt: string;
}

/**
 * Where a study's data came from: text read by the rules, best first (Europe PMC JATS, the uploaded
 * PDF, an attached full text, the abstract), or study-level data imported from CSV (`import`).
 */
export type ReportSourceKind = "europepmc" | "upload" | "fulltext" | "abstract" | "import";

export const SOURCE_LABEL: Record<ReportSourceKind, string> = {
  europepmc: "Europe PMC full text",
  upload: "uploaded PDF",
  fulltext: "attached full text",
  abstract: "title and abstract",
  import: "imported CSV",
};

/** A stored correction of one cell, as GET /api/extraction/edits returns it (who = email, when = ISO time). */
export interface StoredEdit {
  arm: ArmKey;
  field: ArmField;
  oldValue: number | null;
  newValue: number | null;
  who: string;
  when: string;
}

/** What the page shows for a quote: the sentence around a text span, or the table with the cell. */
export type QuoteContext =
  | {
      arm: ArmKey;
      field: ArmField;
      kind: "text";
      before: string;
      match: string;
      after: string;
      /** The span in the raw source text (the PDF's text as extracted), when it could be located. */
      sourceSpan: { start: number; end: number } | null;
    }
  /** A table cell: `table` is the label of one of the study's `tables`; row −1 is a header cell. */
  | { arm: ArmKey; field: ArmField; kind: "table"; table: string; row: number; column: number; text: string };

/** A table as the quote panel shows it. */
export type QuotedTable = Pick<ReportTable, "label" | "caption" | "header" | "rows">;

/** A study's own reported estimate with its 95% CI for the outcome (natural scale), from the rules. */
export interface ReportedEstimate {
  measure: Measure;
  /** "HR" / "IRR" when the study reported a hazard or rate ratio (then `measure` is "RR"; pooled as a log ratio). */
  reportedMeasure?: "HR" | "IRR";
  estimate: number;
  lower: number;
  upper: number;
  quote: string;
}

/** One included study's extraction for one outcome, corrections applied. */
export interface ReviewExtractionStudy {
  recordId: number;
  /** The key of its corrections in extraction_edits. */
  studyKey: string;
  title: string;
  year: number | null;
  source: { kind: ReportSourceKind; pmcid: string | null; note: string | null };
  /** The extraction with the stored corrections applied. */
  result: ArmExtraction;
  audit: AuditEntry[];
  contexts: QuoteContext[];
  /** The tables the contexts quote, by label (each once). */
  tables: Record<string, QuotedTable>;
  reported: ReportedEstimate | null;
  /** Dual extraction (issue 30): the submissions, differing cells and consensus the reader may see. */
  dual?: DualExtractionStudy;
}

export interface ReviewOutcomeExtraction {
  outcome: ReviewOutcome;
  studies: ReviewExtractionStudy[];
  /** The review's extraction mode (absent: single). */
  mode?: ExtractionMode;
}

/** The extraction_edits study key of a review's record. */
export function reviewStudyKey(reviewId: string, recordId: number): string {
  return `review:${reviewId}:${recordId}`;
}

/** The review id a study key names ("review:{id}:{recordId}"), or null for another kind of key. */
export function reviewIdOfStudyKey(key: string): string | null {
  const m = /^review:([^:]{1,64}):\d{1,12}$/.exec(key);
  return m ? m[1]! : null;
}

/**
 * `result` with the stored corrections applied in order, so each cell holds its latest value; a
 * corrected cell loses its derivation mark and the extractor is marked "+user". Returns the audit
 * trail (old → new, who, when) in order. Pure: `result` is not changed.
 */
export function applyStoredEdits(
  result: ArmExtraction,
  edits: readonly StoredEdit[],
): { result: ArmExtraction; audit: AuditEntry[] } {
  if (edits.length === 0) return { result, audit: [] };
  const out: ArmExtraction = {
    ...result,
    intervention: { ...result.intervention },
    comparator: { ...result.comparator },
    derived: [...result.derived],
  };
  const audit: AuditEntry[] = [];
  for (const e of edits) {
    out[e.arm][e.field] = e.newValue;
    out.derived = out.derived.filter((d) => !(d.arm === e.arm && d.field === e.field));
    audit.push({ arm: e.arm, field: e.field, oldValue: e.oldValue, newValue: e.newValue, who: e.who, when: e.when });
  }
  if (!out.extractor.endsWith("+user")) out.extractor = `${out.extractor}+user`;
  return { result: out, audit };
}

/**
 * Normalises `raw` as the document model does (zero-width characters dropped, a word hyphenated at a
 * line end joined, every run of whitespace one space) and keeps, for each character of the result,
 * its index in `raw`.
 */
function normaliseWithMap(raw: string): { text: string; map: number[] } {
  const chars: string[] = [];
  const map: number[] = [];
  let i = 0;
  while (i < raw.length) {
    const ch = raw[i]!;
    if (ch === "\u200b" || ch === "\u200c" || ch === "\u200d" || ch === "\ufeff") {
      i += 1;
      continue;
    }
    if (ch === "-" && i > 0 && /\w/.test(raw[i - 1]!)) {
      const m = /^-[ \t]*\r?\n\s*(?=\w)/.exec(raw.slice(i, i + 40));
      if (m) {
        i += m[0].length;
        continue;
      }
    }
    if (/\s/.test(ch)) {
      const start = i;
      while (i < raw.length && /\s/.test(raw[i]!)) i += 1;
      if (chars.length > 0 && chars[chars.length - 1] !== " ") {
        chars.push(" ");
        map.push(start);
      }
      continue;
    }
    chars.push(ch);
    map.push(i);
    i += 1;
  }
  return { text: chars.join(""), map };
}

/**
 * Where the `occurrence`-th (0-based) appearance of `quote` sits in the raw source text, comparing
 * both as the document model normalises text (so a quote of the parsed PDF text is found across the
 * PDF's line breaks and hyphenation). Returns offsets into `raw`, or null when it is not there.
 */
export function locateInSource(raw: string, quote: string, occurrence = 0): { start: number; end: number } | null {
  const needle = quote.replace(/\s+/g, " ").trim();
  if (!needle) return null;
  const { text, map } = normaliseWithMap(raw);
  let at = -1;
  for (let k = 0; k <= occurrence; k += 1) {
    at = text.indexOf(needle, at + 1);
    if (at < 0) return null;
  }
  const last = at + needle.length - 1;
  return { start: map[at]!, end: map[last]! + 1 };
}

function occurrencesBefore(text: string, needle: string, before: number): number {
  let count = 0;
  for (let at = text.indexOf(needle); at >= 0 && at < before; at = text.indexOf(needle, at + 1)) count += 1;
  return count;
}

/**
 * What the page shows for each quote of an extraction: for a text span, its sentence (within its
 * paragraph) split into before / match / after, and, when `raw` is given (the source before
 * parsing, e.g. a PDF's text), the span located in it; for a table cell, the cell's table label, row
 * and column, with each quoted table once in `tables`. A quote whose span is not in `report` keeps
 * only its text; a table missing from `report` is left out of `tables`.
 */
export function quoteContexts(
  report: TrialReport,
  quotes: readonly ArmQuote[],
  raw?: string,
): { contexts: QuoteContext[]; tables: Record<string, QuotedTable> } {
  const tables: Record<string, QuotedTable> = {};
  const contexts = quotes.map((quote): QuoteContext => {
    if (isTableQuote(quote)) {
      const table = report.tables.find((t) => t.label === quote.table);
      if (table)
        tables[table.label] = { label: table.label, caption: table.caption, header: table.header, rows: table.rows };
      return {
        arm: quote.arm,
        field: quote.field,
        kind: "table",
        table: quote.table,
        row: quote.row,
        column: quote.column,
        text: quote.text,
      };
    }
    const text = report.text;
    const paragraph =
      quote.start >= 0 ? report.paragraphs.find((p) => p.start <= quote.start && quote.end <= p.end) : undefined;
    if (!paragraph)
      return {
        arm: quote.arm,
        field: quote.field,
        kind: "text",
        before: "",
        match: quote.text,
        after: "",
        sourceSpan: null,
      };
    const from = Math.max(paragraph.start, text.lastIndexOf(". ", quote.start) + 1);
    const dot = text.indexOf(". ", quote.end);
    const to = Math.min(paragraph.end, dot < 0 ? paragraph.end : dot + 1);
    const match = text.slice(quote.start, quote.end);
    return {
      arm: quote.arm,
      field: quote.field,
      kind: "text",
      before: text.slice(from, quote.start).trimStart(),
      match,
      after: text.slice(quote.end, to),
      sourceSpan: raw === undefined ? null : locateInSource(raw, match, occurrencesBefore(text, match, quote.start)),
    };
  });
  return { contexts, tables };
}

/** How a study enters the pooled estimate. */
export interface PooledStudy {
  recordId: number;
  title: string;
  via: "arm-data" | "reported-estimate" | "none";
  /** Effect size on the analysis scale and its variance (null when the study is not pooled). */
  yi: number | null;
  vi: number | null;
  note: string;
}

export interface OutcomePooling {
  measure: PoolMeasure;
  studies: PooledStudy[];
  /** The pooled result, or null with `message` when fewer than 2 studies have usable data. */
  pooled: PooledResult | null;
  message: string | null;
}

export const BINARY_POOL_MEASURES: readonly Measure[] = ["OR", "RR", "RD"];
export const CONTINUOUS_POOL_MEASURES: readonly Measure[] = ["MD", "SMD"];

/** What an outcome is pooled from: arm data (2×2 or means) or, RevMan's generic inverse variance, each study's reported estimate with CI. */
export type ReviewPoolType = "binary" | "continuous" | "generic";
/** A pooled measure as the reviewer names it: the engine's measure, or a hazard / rate ratio (pooled as a log ratio under RR). */
export type PoolMeasure = Measure | "HR" | "IRR";
/** Generic inverse variance: ratios (HR, adjusted OR/RR, rate ratio) on the log scale, differences as reported. */
export const GENERIC_POOL_MEASURES: readonly PoolMeasure[] = ["HR", "IRR", "OR", "RR", "RD", "MD", "SMD"];

/** The engine's measure of a pooled measure, with the ratio it names (HR → RR + HR). */
export function engineMeasure(m: PoolMeasure): { measure: Measure; reportedMeasure?: "HR" | "IRR" } {
  return m === "HR" || m === "IRR" ? { measure: "RR", reportedMeasure: m } : { measure: m };
}

/** The measures a pool type offers. */
export function poolMeasuresFor(type: ReviewPoolType): readonly PoolMeasure[] {
  return type === "binary"
    ? BINARY_POOL_MEASURES
    : type === "continuous"
      ? CONTINUOUS_POOL_MEASURES
      : GENERIC_POOL_MEASURES;
}

/**
 * The pool type an outcome's data suggest: generic inverse variance when no study has complete arm
 * data and at least one reports an estimate with CI (a trial reporting only a hazard ratio, an
 * adjusted estimate or a rate ratio is not a 2×2); else the arm type most studies report.
 */
export function inferPoolType(studies: readonly Pick<ReviewExtractionStudy, "result" | "reported">[]): ReviewPoolType {
  const arms = studies.some((s) => armEffectData(s.result) !== null);
  if (!arms && studies.some((s) => s.reported)) return "generic";
  return dominantOutcomeType(studies);
}

/** The measure an inferred generic outcome starts in: the ratio most of its studies report. */
export function inferGenericMeasure(studies: readonly Pick<ReviewExtractionStudy, "reported">[]): PoolMeasure {
  const counts = new Map<PoolMeasure, number>();
  for (const s of studies)
    if (s.reported)
      counts.set(
        s.reported.reportedMeasure ?? s.reported.measure,
        (counts.get(s.reported.reportedMeasure ?? s.reported.measure) ?? 0) + 1,
      );
  return [...counts].sort((a, b) => b[1] - a[1])[0]?.[0] ?? "HR";
}

/** The outcome type most studies report (ties: binary); "binary" when none is known. */
export function dominantOutcomeType(
  studies: readonly Pick<ReviewExtractionStudy, "result">[],
): Exclude<OutcomeType, "unknown"> {
  let binary = 0;
  let continuous = 0;
  for (const s of studies) {
    if (s.result.outcomeType === "binary") binary += 1;
    if (s.result.outcomeType === "continuous") continuous += 1;
  }
  return continuous > binary ? "continuous" : "binary";
}

const fmt = (x: number) => String(Number(x.toPrecision(4)));

/** The measure each pool type is pooled in until the reviewer picks another (the Data extraction tab's defaults). */
export const DEFAULT_POOL_MEASURES: Readonly<Record<ReviewPoolType, PoolMeasure>> = {
  binary: "OR",
  continuous: "SMD",
  generic: "HR",
};

/** The pool type and measure a reviewer chose for one outcome (kept so /meta-analysis opens with the same). */
export interface PoolChoice {
  type: ReviewPoolType;
  measure: PoolMeasure;
}

/** Browser-storage key of a review outcome's {@link PoolChoice}. */
export function poolChoiceKey(reviewId: string, outcomeId: number): string {
  return `metamind.review-pool:${reviewId}:${outcomeId}`;
}

/**
 * A stored {@link PoolChoice} read back, or null when absent or not a valid choice (a measure the
 * type cannot give is not a choice).
 */
export function parsePoolChoice(raw: string | null): PoolChoice | null {
  if (!raw) return null;
  try {
    const v = JSON.parse(raw) as Partial<PoolChoice>;
    if (
      (v.type === "binary" || v.type === "continuous" || v.type === "generic") &&
      poolMeasuresFor(v.type).includes(v.measure as PoolMeasure)
    ) {
      return { type: v.type, measure: v.measure as PoolMeasure };
    }
  } catch {
    return null;
  }
  return null;
}

/**
 * How one study enters an outcome's pooling, with the data escalc reads: its arm data for `type`
 * when complete, else its reported estimate with 95% CI when it is of `measure`, else nothing (with
 * the reason). The one decision both the Data extraction tab's pooling and the rows sent to
 * /meta-analysis use, so both pool the same numbers.
 */
export function studyPoolData(
  s: Pick<ReviewExtractionStudy, "result" | "reported">,
  options: { type: ReviewPoolType; measure: PoolMeasure },
): { via: "arm-data" | "reported-estimate"; data: EffectData; note: string } | { via: "none"; note: string } {
  const data = options.type === "generic" ? null : armEffectData({ ...s.result, outcomeType: options.type });
  if (data) return { via: "arm-data", data, note: "arm-level data" };
  const r = s.reported;
  const reportedAs = r ? (r.reportedMeasure ?? r.measure) : null;
  const lead = options.type === "generic" ? "generic inverse variance" : "no complete arm data";
  if (r && reportedAs === options.measure) {
    return {
      via: "reported-estimate",
      data: { kind: "estimate-ci", estimate: r.estimate, lower: r.lower, upper: r.upper },
      note: `${lead}: reported ${reportedAs} ${fmt(r.estimate)} (95% CI ${fmt(r.lower)} to ${fmt(r.upper)}) used`,
    };
  }
  return {
    via: "none",
    note: r
      ? `${lead}; its reported estimate is a ${reportedAs}, not a ${options.measure}`
      : `${lead}: no reported estimate with CI`,
  };
}

/**
 * The rows of the meta-analysis data table for one review outcome, exactly as the Data extraction
 * tab pools it ({@link studyPoolData}: corrected arm data, else a reported estimate of the same
 * measure): one row per study that has data, `studyId` the record id, the outcome's name as both
 * outcome and pool group (so the rows pool together, as in the tab), the chosen measure, the arm
 * quotes, and `extractedBy` saying whether the reviewer corrected a value. Studies without data are
 * returned in `excluded` with the reason.
 */
export function reviewOutcomeRows(
  extraction: ReviewOutcomeExtraction,
  choice: PoolChoice,
): { rows: ExtractedStudyData[]; excluded: { studyId: string; title: string; reason: string }[] } {
  const rows: ExtractedStudyData[] = [];
  const excluded: { studyId: string; title: string; reason: string }[] = [];
  const name = extraction.outcome.name.trim().slice(0, 100);
  for (const s of extraction.studies) {
    const use = studyPoolData(s, choice);
    if (use.via === "none") {
      excluded.push({ studyId: String(s.recordId), title: s.title, reason: `${extraction.outcome.name}: ${use.note}` });
      continue;
    }
    const i = s.result.intervention;
    const c = s.result.comparator;
    rows.push({
      studyId: String(s.recordId),
      title: s.title,
      outcome: extraction.outcome.name,
      ...engineMeasure(choice.measure),
      data: use.data,
      quotes: [],
      extractedBy: `review data extraction (${use.note}${s.audit.length ? `; ${s.audit.length} correction${s.audit.length === 1 ? "" : "s"} by the reviewer` : ""})`,
      design: null,
      totalN: use.via === "arm-data" ? (i.groupSize ?? 0) + (c.groupSize ?? 0) || null : null,
      comparison: `${extraction.outcome.intervention} vs ${extraction.outcome.comparator}`.slice(0, 300),
      timepoint: null,
      poolGroup: name,
    });
  }
  return { rows, excluded };
}

/**
 * Pools one outcome with the meta-analysis engine. A study with complete arm data for `type`
 * (events and n per arm; or mean, SD > 0 and n ≥ 2 per arm) contributes escalc(`measure`) of those
 * data; a study without contributes its reported estimate with 95% CI only when that estimate is of
 * the same measure (a reported OR is never pooled as an RR); otherwise it is left out, and each
 * study's `note` says which. Then rma(`method`, `test`) when at least 2 studies have an effect size.
 * Source: escalc and rma.uni as in metafor (app/lib/meta-analysis).
 */
export function poolReviewOutcome(
  studies: readonly Pick<ReviewExtractionStudy, "recordId" | "title" | "result" | "reported">[],
  options: { type: ReviewPoolType; measure: PoolMeasure; method: Method; test: TestType; genqWeights?: GenqWeights },
): OutcomePooling {
  const { measure } = engineMeasure(options.measure);
  const effects: EffectSize[] = [];
  const out: PooledStudy[] = [];
  for (const s of studies) {
    const use = studyPoolData(s, options);
    try {
      if (use.via === "none") {
        out.push({ recordId: s.recordId, title: s.title, via: "none", yi: null, vi: null, note: use.note });
        continue;
      }
      const e = escalc(measure, use.data);
      effects.push(e);
      out.push({ recordId: s.recordId, title: s.title, via: use.via, yi: e.yi, vi: e.vi, note: use.note });
    } catch (error) {
      if (!(error instanceof MetaInputError)) throw error;
      out.push({ recordId: s.recordId, title: s.title, via: "none", yi: null, vi: null, note: error.message });
    }
  }
  if (effects.length < 2) {
    return {
      measure: options.measure,
      studies: out,
      pooled: null,
      message: `At least 2 studies need usable data to pool (${effects.length} ha${effects.length === 1 ? "s" : "ve"}).`,
    };
  }
  try {
    return {
      measure: options.measure,
      studies: out,
      pooled: rma(effects, {
        measure,
        method: options.method,
        test: options.test,
        ...(options.genqWeights ? { control: { weightScheme: options.genqWeights } } : {}),
      }),
      message: null,
    };
  } catch (error) {
    if (!(error instanceof MetaInputError)) throw error;
    return { measure: options.measure, studies: out, pooled: null, message: error.message };
  }
}
