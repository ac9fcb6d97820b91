/**
 * The arm-level model fill and request shape of the extraction service (service.ts, behind
 * POST /api/extraction/arms and the review's data extraction): with a language model, the model fills
 * what the offline rules (app/lib/arms) left null — keeping a proposed number only when it is
 * written in its quote or follows from it by one of the rules' derivations.
 */
import { z } from "zod";
import {
  ABSTAIN_BELOW,
  ARM_FIELDS,
  type ArmExtraction,
  type ArmKey,
  type ArmQuestion,
  groundProposedValue,
  perValue,
  REPORT_FORMATS,
  type ReportFormat,
  type TrialReport,
} from "~/lib/arms";
import { locateQuote } from "~/lib/extraction/core";
import { generateStructured, type StructuredModel } from "../ai/model-call";

/** Largest report text accepted, in bytes (413 above). */
export const MAX_REPORT_BYTES = 2 * 1024 * 1024;

const phrase = (what: string) =>
  z
    .string({ error: `${what} is required` })
    .trim()
    .min(1, `${what} is required`)
    .max(500, `${what} may have at most 500 characters`);

export const ArmsRequestSchema = z.object({
  text: z.string({ error: "text is required" }).min(1, "text is required"),
  format: z.enum(REPORT_FORMATS as [ReportFormat, ...ReportFormat[]], {
    error: `format must be one of ${REPORT_FORMATS.join(", ")}`,
  }),
  intervention: phrase("intervention"),
  comparator: phrase("comparator"),
  outcome: phrase("outcome"),
});
export type ArmsRequest = z.infer<typeof ArmsRequestSchema>;

const nullableNumber = (what: string) => z.number().nullable().describe(what);
const ArmProposalSchema = z.object({
  events: nullableNumber("Participants with the outcome in this arm (binary outcomes)"),
  groupSize: nullableNumber("Participants analysed in this arm"),
  mean: nullableNumber("Mean of the outcome in this arm (continuous outcomes)"),
  sd: nullableNumber("Standard deviation in this arm (continuous outcomes)"),
  quote: z
    .string()
    .describe("The exact sentence or table line, copied character for character, that states these numbers"),
});
export const ArmsProposalSchema = z.object({
  outcomeType: z.enum(["binary", "continuous", "unknown"]),
  intervention: ArmProposalSchema,
  comparator: ArmProposalSchema,
});

const INSTRUCTIONS = `You extract arm-level results of one outcome from a randomized trial report for a meta-analysis.
For the named intervention arm and comparator arm give: for a binary outcome the number of participants with the event and the group size; for a continuous outcome the mean, standard deviation and group size.
Copy numbers exactly as written. Use null for anything the report does not state. Never compute or guess.
For each arm, quote the exact text (sentence or table line) the numbers come from.`;

/** Renders the report for the model: paragraphs, then tables as tab-separated lines. */
function reportForModel(report: TrialReport, maxChars = 60_000): string {
  const parts = [report.text];
  for (const table of report.tables) {
    const lines = [
      `${table.label}: ${table.caption}`,
      ...table.header.map((row) => row.join("\t")),
      ...table.rows.map((row) => row.join("\t")),
    ];
    if (table.footnotes.length) lines.push(table.footnotes.join(" "));
    parts.push(lines.join("\n"));
  }
  return parts.join("\n\n").slice(0, maxChars);
}

/**
 * Confidence given to a model-filled value. The rules' confidence is an estimated probability fitted on the rules'
 * own readings (ADR 0044); the model path has no such data (the bench runs the rules only), so a grounded model
 * value is given at the rules' threshold ABSTAIN_BELOW — the lowest confidence a given value can have — and its
 * reason says "not calibrated", for the reviewer to check.
 */
export const MODEL_FILL_CONFIDENCE = ABSTAIN_BELOW;

/**
 * Fills the rules' null fields from the model's proposal, each kept only when grounded in the quote the
 * model gave for that arm (which must itself occur in the report: the extraction core's
 * `locateQuote`, whitespace differences ignored; its number by `groundProposedValue`, which reads
 * numbers with the core's reader). Mutates and returns `result`.
 */
export function mergeModelProposal(
  result: ArmExtraction,
  proposal: z.infer<typeof ArmsProposalSchema>,
  report: TrialReport,
  modelName: string,
): ArmExtraction {
  const haystack = reportForModel(report, Number.MAX_SAFE_INTEGER);
  let used = false;
  for (const arm of ["intervention", "comparator"] as ArmKey[]) {
    const p = proposal[arm];
    const quote = p.quote.replace(/\s+/g, " ").trim();
    // The core's verbatim quote check: in the report as the model saw it (table lines included), whitespace aside.
    if (!locateQuote(haystack, p.quote)) continue;
    const inText = locateQuote(report.text, p.quote);
    for (const field of ARM_FIELDS) {
      const value = p[field];
      if (value === null || result[arm][field] !== null) continue;
      const groupSize = result[arm].groupSize ?? p.groupSize;
      const how = groundProposedValue(value, field, quote, groupSize);
      if (how === null) continue;
      result[arm][field] = value;
      used = true;
      if (how) result.derived.push({ arm, field, from: how });
      result.confidence ??= perValue<number | null>(null);
      result.reason ??= perValue<string | null>(null);
      result.confidence[arm][field] = MODEL_FILL_CONFIDENCE;
      result.reason[arm][field] =
        `proposed by ${modelName} and found in its quote "${quote.length > 120 ? `${quote.slice(0, 119)}…` : quote}"${how ? ` (${how})` : ""}; not calibrated`;
      result.quotes.push(
        inText
          ? { arm, field, text: inText.text, start: inText.start, end: inText.end }
          : { arm, field, text: quote, start: -1, end: -1 },
      );
    }
  }
  if (used) {
    if (result.outcomeType === "unknown") result.outcomeType = proposal.outcomeType;
    result.extractor = `rules+${modelName}`;
  }
  return result;
}

/** Whether the fields of the result's outcome type are incomplete for either arm. */
export function hasGaps(result: ArmExtraction): boolean {
  const fields =
    result.outcomeType === "binary" ? (["events", "groupSize"] as const) : (["mean", "sd", "groupSize"] as const);
  return (["intervention", "comparator"] as ArmKey[]).some((arm) =>
    fields.some((field) => result[arm][field] === null),
  );
}

/**
 * Asks the model for the question's arm data and merges what is grounded into `result` (see
 * mergeModelProposal). Model errors propagate so the caller can release the reserved use.
 */
export async function fillArmsWithModel(
  deps: { model: StructuredModel & { name: string }; abortSignal?: AbortSignal },
  report: TrialReport,
  result: ArmExtraction,
  question: ArmQuestion,
): Promise<ArmExtraction> {
  const proposal = await generateStructured(deps.model, {
    instructions: INSTRUCTIONS,
    prompt: `Intervention arm: ${question.intervention}\nComparator arm: ${question.comparator}\nOutcome: ${question.outcome}\n\nReport:\n${reportForModel(report)}`,
    schema: ArmsProposalSchema,
    name: "arm_level_results",
    abortSignal: deps.abortSignal,
  });
  return mergeModelProposal(result, proposal, report, deps.model.name);
}
