/**
 * Effect-data extraction with a language model (structured output with a zod schema), grounded:
 * a row is kept only when the extraction core's verbatim quote check passes (its quote is in the
 * source it names and every number of the row is written in that quote). Everything else the model
 * says is dropped. Offsets are computed here (the first occurrence of the quote), never taken from
 * the model.
 */
import { z } from "zod";
import type {
  EffectData,
  ExcludedStudy,
  ExtractedStudyData,
  Measure,
  SupportingQuote,
} from "~/lib/meta-analysis/types";
import { checkQuote, locateQuote, normaliseOutcomePhrase, type SourceQuote } from "~/lib/extraction/core";
import { wrapSource } from "../ai/offline-model";
import {
  classifyDesign,
  NO_DATA_REASON,
  NO_TEXT_REASON,
  studyKey,
  UNCERTAIN_OUTCOME,
  UNNAMED_OUTCOME,
  type MetaStudyInput,
} from "./extract-rules";
import { generateStructured, type StructuredModel } from "../ai/model-call";

const num = (what: string) => z.number().nullable().describe(what);

/** One effect statement as the model reports it. All properties required (OpenAI strict mode). */
export const AiEffectRowSchema = z.object({
  outcome: z.string().describe("The outcome measured, as a short noun phrase (e.g. 'all-cause mortality')"),
  measure: z
    .enum(["RR", "OR", "HR", "IRR", "RD", "MD", "SMD", "GEN"])
    .describe("The effect measure (GEN: a regression coefficient β or another generic effect)"),
  kind: z
    .enum(["estimate-ci", "counts", "means", "estimate-se", "rates", "oe-var"])
    .describe(
      "estimate-ci: a reported estimate with its 95% CI; counts: events and totals per arm; means: mean, SD and n per arm; " +
        "estimate-se: a reported estimate with its standard error; rates: events and person-time per arm; oe-var: observed minus expected events (O − E) with its variance",
    ),
  estimate: num("Reported estimate (estimate-ci, estimate-se), as written"),
  lower: num("Lower 95% CI bound (estimate-ci)"),
  upper: num("Upper 95% CI bound (estimate-ci)"),
  events1: num("Events in the intervention/exposed arm (counts)"),
  n1: num("Participants in the intervention/exposed arm (counts, means)"),
  events2: num("Events in the control arm (counts)"),
  n2: num("Participants in the control arm (counts, means)"),
  mean1: num("Mean in the intervention arm (means)"),
  sd1: num("SD in the intervention arm (means)"),
  mean2: num("Mean in the control arm (means)"),
  sd2: num("SD in the control arm (means)"),
  se: num("Standard error of the estimate (estimate-se)"),
  estimateScale: z
    .enum(["natural", "log"])
    .nullable()
    .describe(
      "estimate-se: 'log' when the text gives the estimate itself as a log ratio (log HR, ln OR), 'natural' otherwise",
    ),
  seOfLog: z
    .boolean()
    .nullable()
    .describe(
      "estimate-se with a ratio on the natural scale: true only when the text says the SE is that of the log ratio",
    ),
  time1: num("Person-time in the intervention/exposed arm (rates)"),
  time2: num("Person-time in the control arm (rates)"),
  oe: num("Observed minus expected events, O − E (oe-var)"),
  variance: num("Variance V of O − E (oe-var)"),
  comparison: z
    .string()
    .nullable()
    .describe("What is compared, as the text words it (e.g. 'aspirin vs placebo'); null if not stated"),
  timepoint: z.string().nullable().describe("When the outcome was measured (e.g. '12 weeks'); null if not stated"),
  isPooledEstimate: z
    .boolean()
    .describe("True when the text reports this effect as its own pooled (meta-analytic) result"),
  quote: z
    .string()
    .describe("The exact text copied character for character from the source that contains these numbers"),
  source: z.enum(["abstract", "fullText"]).describe("Which source the quote is from"),
});
export type AiEffectRow = z.infer<typeof AiEffectRowSchema>;

export const AiExtractionSchema = z.object({
  design: z
    .enum([
      "RCT",
      "cohort",
      "case-control",
      "cross-sectional",
      "meta-analysis",
      "systematic review",
      "qualitative",
      "other",
    ])
    .nullable()
    .describe("The study's own design, null if not stated"),
  totalN: z.number().nullable().describe("Total participants of the study, null if not stated"),
  effects: z
    .array(AiEffectRowSchema)
    .describe(
      "Every effect estimate with a 95% CI or a standard error, every arm-level result (counts, means, events and person-time) and every O − E with its variance, in the text",
    ),
});
export type AiExtraction = z.infer<typeof AiExtractionSchema>;

const INSTRUCTIONS = `You extract effect data for a meta-analysis from a study's text.
Report only numbers written in the text; never compute or convert. For each effect give the exact
quote (copied character for character) that contains all of its numbers. Use estimate-ci for a
reported ratio or difference with its 95% confidence interval, estimate-se for an estimate with its
standard error (say whether the estimate is written as a log ratio and whether the SE is said to be of
the log ratio), counts for events/totals per arm, rates for events and person-time per arm (a rate is
never a 2×2 table), means for mean, SD and n per arm, oe-var for O − E with its variance. Arm 1 is the intervention or exposed group, arm 2 the control.
Name each effect's own outcome as its sentence words it, with its comparison and timepoint; mark
isPooledEstimate when a meta-analysis reports the effect as its own pooled result.
Leave properties that do not apply null.`;

/** Builds the prompt: the sources inside <source> blocks, labelled. */
export function buildExtractionPrompt(study: MetaStudyInput): string {
  const parts = [`Title: ${study.title}`];
  if (study.abstract?.trim()) parts.push(`Abstract (source "abstract"):\n${wrapSource(study.abstract)}`);
  if (study.fullTextAnalysis?.trim())
    parts.push(`Full text (source "fullText"):\n${wrapSource(study.fullTextAnalysis)}`);
  return parts.join("\n\n");
}

/** The row's data when its kind's numbers are all present; null otherwise. */
function rowData(row: AiEffectRow): EffectData | null {
  const all = (...xs: (number | null)[]) => xs.every((x) => typeof x === "number" && Number.isFinite(x));
  if (row.kind === "estimate-ci" && all(row.estimate, row.lower, row.upper)) {
    return { kind: "estimate-ci", estimate: row.estimate!, lower: row.lower!, upper: row.upper! };
  }
  if (row.kind === "counts" && all(row.events1, row.n1, row.events2, row.n2)) {
    return { kind: "counts", events1: row.events1!, n1: row.n1!, events2: row.events2!, n2: row.n2! };
  }
  if (row.kind === "means" && all(row.mean1, row.sd1, row.n1, row.mean2, row.sd2, row.n2)) {
    return {
      kind: "means",
      mean1: row.mean1!,
      sd1: row.sd1!,
      n1: row.n1!,
      mean2: row.mean2!,
      sd2: row.sd2!,
      n2: row.n2!,
    };
  }
  if (row.kind === "estimate-se" && all(row.estimate, row.se)) {
    return row.estimateScale === "log" && RATIO_MEASURES.has(row.measure)
      ? { kind: "estimate-se", estimate: row.estimate!, se: row.se!, scale: "log" }
      : { kind: "estimate-se", estimate: row.estimate!, se: row.se! };
  }
  if (row.kind === "rates" && all(row.events1, row.time1, row.events2, row.time2)) {
    return { kind: "rates", events1: row.events1!, time1: row.time1!, events2: row.events2!, time2: row.time2! };
  }
  if (row.kind === "oe-var" && all(row.oe, row.variance)) return { kind: "oe-var", oe: row.oe!, v: row.variance! };
  return null;
}

const RATIO_MEASURES: ReadonlySet<AiEffectRow["measure"]> = new Set(["RR", "OR", "HR", "IRR"]);

/**
 * The job row's measure for a model row's measure and data kind, as the rules name them (HR and IRR
 * are measure RR with `reportedMeasure`; rates are always an IRR, O − E always a Peto HR), or null
 * when the pair is not poolable (a hazard ratio from a 2×2 table, a generic effect from arm data,
 * a natural-scale ratio that is not positive, an SE or variance that is not positive).
 */
function rowMeasure(row: AiEffectRow, data: EffectData): { measure: Measure; reportedMeasure?: "HR" | "IRR" } | null {
  switch (data.kind) {
    case "rates":
      return data.time1 > 0 && data.time2 > 0 ? { measure: "RR", reportedMeasure: "IRR" } : null;
    case "oe-var":
      return data.v > 0 ? { measure: "RR", reportedMeasure: "HR" } : null;
    case "estimate-se":
      if (!(data.se > 0) || (RATIO_MEASURES.has(row.measure) && data.scale !== "log" && !(data.estimate > 0)))
        return null;
      break;
    case "counts":
    case "means":
      if (row.measure === "HR" || row.measure === "IRR" || row.measure === "GEN") return null;
      break;
  }
  if (row.measure === "HR" || row.measure === "IRR") return { measure: "RR", reportedMeasure: row.measure };
  return { measure: row.measure };
}

function dataNumbers(data: EffectData): number[] {
  switch (data.kind) {
    case "estimate-ci":
      return [data.estimate, data.lower, data.upper];
    case "counts":
      return [data.events1, data.n1, data.events2, data.n2];
    case "means":
      return [data.mean1, data.sd1, data.n1, data.mean2, data.sd2, data.n2];
    case "yi-vi":
      return [data.yi, data.vi];
    case "estimate-se":
      return [data.estimate, data.se];
    case "rates":
      return [data.events1, data.time1, data.events2, data.time2];
    case "oe-var":
      return [data.oe, data.v];
  }
}

/**
 * Why a model row is dropped, or null when it is grounded: the extraction core's one verbatim quote
 * check (`checkQuote`: the quote is in the source it names — whitespace differences ignored — and
 * every number of the row is written in it, in any form the core's number reader knows).
 */
export function groundingProblem(
  row: AiEffectRow,
  sources: { abstract?: string | null; fullText?: string | null },
): string | null {
  return groundRow(row, sources).problem;
}

/** {@link groundingProblem} with the located quote when the row is grounded. */
function groundRow(
  row: AiEffectRow,
  sources: { abstract?: string | null; fullText?: string | null },
): { problem: string | null; quote: SourceQuote | null } {
  const text = row.source === "abstract" ? sources.abstract : sources.fullText;
  if (!text) return { problem: `no ${row.source} was given`, quote: null };
  const data = rowData(row);
  if (!row.quote.trim() || !locateQuote(text, row.quote))
    return { problem: "its quote is not in the source", quote: null };
  if (!data) return { problem: "its numbers are incomplete", quote: null };
  const check = checkQuote(text, row.quote, dataNumbers(data));
  return check.ok ? { problem: null, quote: check.quote } : { problem: check.reason, quote: null };
}

/**
 * Turns the model's answer into grounded rows (see module comment); rows that fail grounding are
 * counted in `dropped`. HR and IRR become measure RR with `reportedMeasure` (log-ratio pooling, see
 * group.ts); rates are an IRR and O − E a Peto HR whatever measure the model names; an estimate with
 * its SE keeps the log scale the text states (`scale: "log"`), and an SE beside a natural-scale ratio
 * not said to be of the log ratio is marked for the reviewer (`outcomeUncertain`), as the rules do.
 * One row per (outcome, measure) and study.
 */
export function groundAiExtraction(
  study: MetaStudyInput,
  index: number,
  answer: AiExtraction,
  modelName: string,
): { rows: ExtractedStudyData[]; excluded: ExcludedStudy | null; dropped: number } {
  const studyId = studyKey(study, index);
  const sources = { abstract: study.abstract, fullText: study.fullTextAnalysis };
  const rows: ExtractedStudyData[] = [];
  const seen = new Set<string>();
  let dropped = 0;
  const design =
    answer.design && answer.design !== "other"
      ? answer.design
      : classifyDesign(study.title, `${study.abstract ?? ""}\n${study.fullTextAnalysis ?? ""}`);
  for (const row of answer.effects) {
    const grounded = groundRow(row, sources);
    if (grounded.problem || !grounded.quote) {
      dropped++;
      continue;
    }
    const data = rowData(row)!;
    const quote: SupportingQuote = {
      quote: grounded.quote.text,
      start: grounded.quote.start,
      end: grounded.quote.end,
      source: row.source,
    };
    const mapped = rowMeasure(row, data);
    if (!mapped) {
      dropped++;
      continue;
    }
    const { measure, reportedMeasure } = mapped;
    // An SE beside a natural-scale ratio that the text does not call the SE of the log ratio: the reviewer checks its scale.
    const seScaleUnstated =
      data.kind === "estimate-se" && data.scale !== "log" && RATIO_MEASURES.has(row.measure) && row.seOfLog !== true;
    const outcome = row.outcome.trim() || UNNAMED_OUTCOME;
    const comparison = row.comparison?.trim() || null;
    const timepoint = row.timepoint?.trim() || null;
    const key = [normaliseOutcomePhrase(outcome), reportedMeasure ?? measure, comparison ?? "", timepoint ?? ""].join(
      "|",
    );
    if (seen.has(key)) continue;
    seen.add(key);
    const armN = data.kind === "counts" || data.kind === "means" ? data.n1 + data.n2 : null;
    rows.push({
      studyId,
      title: study.title,
      outcome,
      measure,
      ...(reportedMeasure ? { reportedMeasure } : {}),
      data,
      quotes: [quote],
      extractedBy: modelName,
      design,
      totalN: armN ?? (answer.totalN && answer.totalN > 0 && Number.isInteger(answer.totalN) ? answer.totalN : null),
      comparison,
      timepoint,
      // Arm-level data is a study's own; only a reported estimate can be a pooled result.
      isPooledEstimate: (data.kind === "estimate-ci" || data.kind === "estimate-se") && row.isPooledEstimate,
      ...(seScaleUnstated ? { outcomeUncertain: UNCERTAIN_OUTCOME.seScale } : {}),
    });
  }
  if (rows.length > 0) return { rows, excluded: null, dropped };
  const reason =
    dropped > 0
      ? `${NO_DATA_REASON} (${dropped} value${dropped === 1 ? "" : "s"} the model gave could not be found in the text)`
      : NO_DATA_REASON;
  return { rows, excluded: { studyId, title: study.title, reason }, dropped };
}

/**
 * Extracts one study with the model.
 * @throws the model's error (the caller decides whether to fall back to the rules).
 */
export async function extractStudyWithModel(
  deps: StructuredModel & { modelName: string; abortSignal?: AbortSignal },
  study: MetaStudyInput,
  index: number,
): Promise<{ rows: ExtractedStudyData[]; excluded: ExcludedStudy | null; dropped: number }> {
  if (!study.abstract?.trim() && !study.fullTextAnalysis?.trim()) {
    return {
      rows: [],
      excluded: { studyId: studyKey(study, index), title: study.title, reason: NO_TEXT_REASON },
      dropped: 0,
    };
  }
  const answer = await generateStructured(deps, {
    instructions: INSTRUCTIONS,
    prompt: buildExtractionPrompt(study),
    schema: AiExtractionSchema,
    name: "effect_data",
    abortSignal: deps.abortSignal,
  });
  return groundAiExtraction(study, index, answer, deps.modelName);
}
