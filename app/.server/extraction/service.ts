/**
 * The one extraction service (issue 26 item 0, ADR 0039): source → document → rules → optional model
 * fill → reviewer edits, called by every product path — the meta-analysis job (queue.ts) and
 * `POST /api/meta-analysis/extract`, uploads (uploads/ai.ts), `POST /api/extraction/arms`, the review's
 * data extraction (reviews/outcomes.ts) and the combined summaries' study facts (ai/combined.ts).
 *
 * 1. Source → document: {@link documentOf} builds the extraction core's `StudyDocument` once (a study's
 *    title + abstract + full-text analysis, or a report in JATS/HTML/markdown/plain or PDF text).
 * 2. Rules on that one document: effects (`extractEffectRows`), arm-level data (`extractArms`), study
 *    facts (`documentFacts`), the study's own reported estimate ({@link reportedEstimate}).
 * 3. Optional model fill: effects by `extractStudyWithModel` (rules as fallback per study), arms by
 *    `fillArmsWithModel` for the gaps the rules left; each model value passes the core's quote check.
 * 4. Reviewer edits: the stored corrections applied on top (`applyStoredEdits`), with the audit trail.
 */
import type { ArmExtraction, ArmQuestion } from "~/lib/arms";
import { extractArms } from "~/lib/arms";
import { outcomesMatch } from "~/lib/extraction";
import { partOf, reportDocument, studyDocument, type ReportFormat, type StudyDocument } from "~/lib/extraction/core";
import { documentFacts, joinedTextFacts, type StudyExtraction } from "~/lib/extraction/facts";
import type { ExcludedStudy, ExtractedStudyData } from "~/lib/meta-analysis/types";
import { applyStoredEdits, type ReportedEstimate, type StoredEdit } from "~/lib/review-extraction";
import type { AuditEntry } from "~/lib/arms/review";
import { getLanguageModel, type ResolvedModel } from "../ai/registry";
import type { AppEnv } from "../env";
import { AppError } from "../http/errors";
import { extractStudyWithModel } from "./extract-ai";
import { extractEffectRows, RULES_EXTRACTOR, studyKey, type MetaStudyInput } from "./extract-rules";
import type { StructuredModel } from "../ai/model-call";
import { fillArmsWithModel, hasGaps } from "./arms";

// ---------------------------------------------------------------------------------------------
// 1. Source → document

/** Where a study's text comes from. */
export type ExtractionSource =
  /** A study as the meta-analysis routes, uploads and summaries hold it (abstract and/or full-text analysis). */
  | { kind: "study"; title: string; abstract?: string | null; fullText?: string | null }
  /** A full report: Europe PMC JATS, HTML, markdown, or plain text (typed, pasted, attached, or a PDF's text by unpdf). */
  | { kind: "report"; format: ReportFormat; text: string; title?: string };

/**
 * Builds the one document every later step reads.
 * @throws AppError 400 INVALID_REPORT when a report cannot be parsed in its format (malformed JATS).
 */
export function documentOf(source: ExtractionSource): StudyDocument {
  if (source.kind === "study") return studyDocument(source);
  try {
    return reportDocument(source.text, source.format, source.title);
  } catch (error) {
    throw new AppError(
      "INVALID_REPORT",
      `The text could not be read as ${source.format}: ${error instanceof Error ? error.message : "parse error"}`,
      400,
    );
  }
}

/**
 * The document of a review record's best text (reviews/outcomes.ts `recordReport`), for the study
 * characteristics pre-fill and the RoB 2 suggestions: Europe PMC JATS read by the JATS parser into its
 * text, any other text kept verbatim, with the record's title as the title part when `withTitle` (a
 * text that does not start with it already). JATS that cannot be read falls back to the record's title
 * and abstract; `fallback` is then the parser's message (null otherwise).
 */
export function recordDocument(
  source: { format: "jats" | "text"; text: string },
  record: { title: string; abstract: string | null },
  options: { withTitle?: boolean } = {},
): { document: StudyDocument; fallback: string | null } {
  let body = source.text;
  if (source.format === "jats") {
    try {
      body = reportDocument(source.text, "jats").text;
    } catch (error) {
      return {
        document: studyDocument({ title: record.title, abstract: record.abstract }),
        fallback: error instanceof Error ? error.message : "parse error",
      };
    }
  }
  return {
    document: studyDocument({ title: options.withTitle ? record.title : null, fullText: body }),
    fallback: null,
  };
}

/**
 * The study's facts (design, sample size, outcomes, effect sizes, follow-up, …; facts.ts) for the
 * combined summaries, from its document: a source, a built document, or the summaries' own joined
 * "title + blank line + abstract" text with the title's end (offsets stay offsets into that text).
 */
export function studyFacts(
  source: ExtractionSource | StudyDocument | { text: string; titleEnd: number },
): StudyExtraction {
  if ("parts" in source) return documentFacts(source);
  if ("kind" in source) return documentFacts(documentOf(source));
  return joinedTextFacts(source);
}

// ---------------------------------------------------------------------------------------------
// Model choice

/** Request value of `model` that forces the offline rules and template narrative. */
export const OFFLINE_CHOICE = "offline";

/** Name reported as `model` for offline runs. */
export const OFFLINE_META_MODEL = `${RULES_EXTRACTOR} (MetaMind offline extraction and template narrative)`;

/**
 * The model for a request: null (offline rules) when `choice` is "offline" or no model is
 * configured, else the configured model (OPENAI_* / AI_MODEL, see ai/registry.ts).
 */
export function resolveMetaModel(
  env: Pick<AppEnv, "OPENAI_API_KEY" | "OPENAI_BASE_URL" | "AI_MODEL">,
  fetchImpl: typeof fetch,
  choice?: string,
): ResolvedModel | null {
  if (choice === OFFLINE_CHOICE) return null;
  const resolved = getLanguageModel({
    OPENAI_API_KEY: env.OPENAI_API_KEY,
    OPENAI_BASE_URL: env.OPENAI_BASE_URL,
    AI_MODEL: env.AI_MODEL,
    fetch: fetchImpl,
  });
  return resolved.provider === "offline" ? null : resolved;
}

// ---------------------------------------------------------------------------------------------
// 2–3. Effects: rules, optional model fill

/**
 * Effect data of every study (the meta-analysis job, `POST /api/meta-analysis/extract`, uploads):
 * each study's document is built once; with a model, the model reads the document's abstract and
 * full-text parts (every row grounded by the core's quote check) and the rules on the same document
 * are the fallback for a study whose model call fails; offline, the rules alone. Calls
 * `onStudy(done, total)` after each study.
 * @returns rows, excluded studies and the name of the extractor used.
 * @throws the model's first error when the model failed for every study that had text (so a
 *   queued job retries rather than silently running offline).
 */
export async function extractStudies(
  deps: { model: Pick<ResolvedModel, "model" | "name" | "provider"> | null; abortSignal?: AbortSignal },
  studies: readonly MetaStudyInput[],
  onStudy?: (done: number, total: number) => Promise<void> | void,
): Promise<{ extracted: ExtractedStudyData[]; excluded: ExcludedStudy[]; model: string }> {
  const extracted: ExtractedStudyData[] = [];
  const excluded: ExcludedStudy[] = [];
  let modelFailures = 0;
  let modelTries = 0;
  let firstError: unknown = null;
  for (let i = 0; i < studies.length; i++) {
    const study = studies[i]!;
    const document = documentOf({
      kind: "study",
      title: study.title,
      abstract: study.abstract,
      fullText: study.fullTextAnalysis,
    });
    const abstract = partOf(document, "abstract")?.text ?? null;
    const fullText = partOf(document, "fullText")?.text ?? null;
    let outcome: { rows: ExtractedStudyData[]; excluded: ExcludedStudy | null } | null = null;
    if (deps.model && (abstract || fullText)) {
      modelTries++;
      try {
        outcome = await extractStudyWithModel(
          {
            model: deps.model.model,
            provider: deps.model.provider,
            modelName: deps.model.name,
            abortSignal: deps.abortSignal,
          },
          { id: study.id, title: document.title, abstract, fullTextAnalysis: fullText },
          i,
        );
      } catch (error) {
        modelFailures++;
        firstError ??= error;
      }
    }
    outcome ??= extractEffectRows(document, studyKey(study, i));
    extracted.push(...outcome.rows);
    if (outcome.excluded) excluded.push(outcome.excluded);
    await onStudy?.(i + 1, studies.length);
  }
  if (deps.model && modelTries > 0 && modelFailures === modelTries) throw firstError;
  return { extracted, excluded, model: deps.model ? deps.model.name : OFFLINE_META_MODEL };
}

/**
 * The study's own estimate with a 95% CI for `outcome`, from the effect rules on the document (not a
 * pooled result): a risk/odds ratio or difference first (the fallback of a 2×2 or means), else a
 * hazard or rate ratio (`reportedMeasure`), which the generic inverse-variance type pools.
 */
export function reportedEstimate(document: StudyDocument, outcome: string): ReportedEstimate | null {
  const { rows } = extractEffectRows(document, "study-1");
  const words = outcome.toLowerCase();
  const matching = rows.filter(
    (row) =>
      row.data.kind === "estimate-ci" &&
      !row.isPooledEstimate &&
      (outcomesMatch(row.outcome, outcome) || row.outcome.toLowerCase().includes(words)),
  );
  const row = matching.find((r) => !r.reportedMeasure) ?? matching[0];
  if (!row || row.data.kind !== "estimate-ci") return null;
  return {
    measure: row.measure,
    ...(row.reportedMeasure ? { reportedMeasure: row.reportedMeasure } : {}),
    estimate: row.data.estimate,
    lower: row.data.lower,
    upper: row.data.upper,
    quote: row.quotes[0]?.quote ?? "",
  };
}

// ---------------------------------------------------------------------------------------------
// 2–4. Arm-level data: rules, optional model fill, reviewer edits

/** A metered model use: committed once the model answered, released when it failed. */
export interface ModelUse {
  /** Response headers the use adds (a guest device cookie). */
  headers: Headers;
  commit(): Promise<void>;
  release(): Promise<void>;
}

/**
 * Arm-level data of one question on one document (`POST /api/extraction/arms`, the review's data
 * extraction): the rules (app/lib/arms) on the document; then, when a model is given and the rules
 * left a gap in the outcome type's fields, `deps.reserve()` (the caller's metering; its error
 * propagates) and the model fill of the gaps; then the reviewer's stored corrections.
 * @returns the result with edits applied, the audit trail, the unedited rules result (`rules`, whose
 *   quotes locate the evidence in the document) and the model use when one was made.
 * @throws AppError 502 AI_FAILED when the model fails (after releasing the reserved use); the errors
 *   of `deps.reserve` (403 LIMIT_REACHED …) as they are.
 */
export async function extractArmData<U extends ModelUse>(
  deps: { model?: (StructuredModel & { name: string }) | null; abortSignal?: AbortSignal; reserve?: () => Promise<U> },
  input: { document: StudyDocument; question: ArmQuestion; edits?: readonly StoredEdit[] },
): Promise<{ result: ArmExtraction; audit: AuditEntry[]; rules: ArmExtraction; use: U | null }> {
  const rules = extractArms(input.document, input.question);
  let result = rules;
  let use: U | null = null;
  if (deps.model && hasGaps(rules)) {
    use = deps.reserve ? await deps.reserve() : null;
    try {
      result = await fillArmsWithModel(
        { model: deps.model, abortSignal: deps.abortSignal },
        input.document,
        structuredClone(rules),
        input.question,
      );
      await use?.commit();
    } catch (error) {
      await use?.release();
      console.warn("extraction/arms: model failed", error instanceof Error ? error.message : error);
      throw new AppError("AI_FAILED", "The language model failed to extract arm data. Please try again.", 502);
    }
  }
  const { result: edited, audit } = applyStoredEdits(result, input.edits ?? []);
  return { result: edited, audit, rules, use };
}
