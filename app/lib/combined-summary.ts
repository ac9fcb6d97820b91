/**
 * The combined research summary (SPEC §3 "Combined summary", §7 POST /api/studies/batch-summarize)
 * as zod schemas: the object a model fills in through structured output, and the stored/returned
 * object, which adds who generated it and which numbers could not be found in the sources.
 *
 * Every leaf is a string or an array of strings, so a partially streamed object renders naturally
 * (a half-written string is still a string). No numeric bounds, optional properties or records:
 * OpenAI's strict structured outputs require every property to be listed as required and
 * `additionalProperties: false`, and reject `minimum`/`maximum`-style keywords on some models
 * (https://platform.openai.com/docs/guides/structured-outputs#supported-schemas).
 */
import type { DeepPartial } from "ai";
import { z } from "zod";

/** Strength-of-evidence levels (SPEC §3: high, moderate, low). */
export const STRENGTH_LEVELS = ["high", "moderate", "low"] as const;
export type StrengthOfEvidence = (typeof STRENGTH_LEVELS)[number];

/** The top-level sections that carry citations, in display order. */
export const COMBINED_SECTIONS = [
  "executiveSummary",
  "quantitativeFindings",
  "studyCharacteristics",
  "commonThemes",
  "clinicalRecommendations",
  "safetyProfile",
  "conflictsAndHeterogeneity",
  "gradeAssessment",
  "studyQuality",
  "clinicalImplications",
  "limitationsAndBiases",
  "futureResearchPriorities",
  "strengthOfEvidence",
] as const;
export type CombinedSection = (typeof COMBINED_SECTIONS)[number];

/** A source sentence id: study number, then sentence number ("T2.S5" = study 2, sentence 5). */
export const SOURCE_SENTENCE_ID = /^T(\d+)\.S(\d+)$/;

const ids = (what: string) =>
  z
    .array(z.string())
    .describe(`Ids of the source sentences (like "T2.S5" = study 2, sentence 5) that ${what} rests on`);

/** Citations per section: arrays of source sentence ids. */
export const CombinedCitationsSchema = z.object({
  executiveSummary: ids("the executive summary"),
  quantitativeFindings: ids("the quantitative findings"),
  studyCharacteristics: ids("the study characteristics"),
  commonThemes: ids("the common themes"),
  clinicalRecommendations: ids("the clinical recommendations"),
  safetyProfile: ids("the safety profile"),
  conflictsAndHeterogeneity: ids("the conflicts and heterogeneity section"),
  gradeAssessment: ids("the GRADE assessment"),
  studyQuality: ids("the study quality section"),
  clinicalImplications: ids("the clinical implications"),
  limitationsAndBiases: ids("the limitations and biases section"),
  futureResearchPriorities: ids("the future research priorities"),
  strengthOfEvidence: ids("the strength-of-evidence rating"),
});
export type CombinedCitations = z.infer<typeof CombinedCitationsSchema>;

/** What a model is asked to produce (structured output). */
export const CombinedSummaryModelSchema = z.object({
  executiveSummary: z
    .string()
    .describe("3 to 6 sentences: what the studies examined, in whom, and what they found overall"),
  quantitativeFindings: z.object({
    pooledEffectSize: z
      .string()
      .describe(
        "A pooled estimate only if a study in the set is a meta-analysis reporting one (quote it and name the study); otherwise start with 'Not pooled:' and list the effects the studies report, numbers copied exactly",
      ),
    statisticalHeterogeneity: z
      .string()
      .describe("Heterogeneity statistics reported by the studies (I², τ², Q), or say they are not reported"),
    sampleSizeTotal: z
      .string()
      .describe(
        "Total participants: the sum of the sample sizes the studies report, and how many studies reported one",
      ),
    keyOutcomes: z
      .array(z.string())
      .describe("The main outcomes with their reported results, one per item, naming the study"),
  }),
  studyCharacteristics: z.object({
    designQuality: z.string().describe("The study designs (how many of each) and what they imply for quality"),
    populationSummary: z.string().describe("Who was studied: populations, settings, ages"),
    interventionDetails: z.string().describe("Interventions or exposures and their comparators"),
    followUpPeriods: z.string().describe("Follow-up or treatment durations per study, or 'Not reported'"),
  }),
  commonThemes: z.array(z.string()).describe("Themes shared by two or more studies, one per item"),
  clinicalRecommendations: z.object({
    evidenceBasedGuidance: z.string().describe("What the evidence supports, stated with its certainty"),
    implementationConsiderations: z.string().describe("Practical considerations for applying the findings"),
    patientSelection: z.string().describe("Which patients the findings apply to"),
    dosageAndTiming: z.string().describe("Doses, schedules and timing reported, or 'Not reported'"),
  }),
  safetyProfile: z.object({
    adverseEvents: z.string().describe("Adverse events and harms reported, with numbers copied exactly"),
    riskBenefitRatio: z.string().describe("The balance of benefits and harms as far as the studies show it"),
    contraindications: z.string().describe("Contraindications or groups to avoid, or 'None reported'"),
  }),
  conflictsAndHeterogeneity: z.string().describe("Where the studies disagree, and likely reasons"),
  gradeAssessment: z
    .string()
    .describe("A GRADE-style certainty judgement (high/moderate/low/very low) with the domains that lower or raise it"),
  studyQuality: z.string().describe("Methodological quality and risk of bias as far as the abstracts show"),
  clinicalImplications: z.string().describe("What the findings mean for clinical practice"),
  limitationsAndBiases: z.string().describe("Limitations of the studies and of this summary (abstracts only)"),
  futureResearchPriorities: z.array(z.string()).describe("Research questions the studies leave open, one per item"),
  strengthOfEvidence: z
    .enum(STRENGTH_LEVELS)
    .describe(
      "high: several randomised trials or meta-analyses agreeing; moderate: some randomised evidence; low: otherwise",
    ),
  citations: CombinedCitationsSchema.describe("For every section, the source sentence ids it rests on"),
});
export type CombinedSummaryModelOutput = z.infer<typeof CombinedSummaryModelSchema>;

/** The combined summary as stored and returned: the model's object plus provenance. */
export const CombinedSummarySchema = CombinedSummaryModelSchema.extend({
  generatedBy: z
    .string()
    .describe("Who wrote the summary: the model's name, or a statement that the offline extractive model built it"),
  unsupportedNumbers: z
    .array(z.string())
    .describe("Numbers in the summary that do not occur in any source; they are marked ⟦unverified: …⟧ in the text"),
});
export type CombinedSummary = z.infer<typeof CombinedSummarySchema>;

/** A combined summary while it streams: any part may still be missing or cut short. */
export type PartialCombinedSummary = DeepPartial<CombinedSummary>;

export { COMBINED_HEADINGS } from "./combined-headings";

/** A cited source sentence, resolved for the reader. Offsets are into the study's `text`. */
export interface CitationSource {
  id: string;
  /** 1-based study number. */
  study: number;
  studyId: string | number | null;
  quote: string;
  start: number;
  end: number;
}

/** The combined result (SPEC §7: studiesAnalyzed, combinedSummary, combinedText) plus provenance. */
export interface CombinedResult {
  studiesAnalyzed: number;
  combinedSummary: CombinedSummary;
  combinedText: string;
  /** Name of the model that wrote the summary (the UI shows "Generated by {model}"). */
  model: string;
  /** Every cited sentence id → its quote. */
  citationSources: Record<string, CitationSource>;
  /** Notes about the input, e.g. studies without an abstract. */
  notes: string[];
}

/** One NDJSON line of the combined-summary stream. */
export type CombinedStreamLine =
  | { type: "partial"; object: PartialCombinedSummary }
  | ({ type: "done" } & CombinedResult)
  | { type: "error"; error: "AI_FAILED"; message: string };
