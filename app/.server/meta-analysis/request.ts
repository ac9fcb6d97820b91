/**
 * Request bodies of the meta-analysis routes, validated with zod:
 * POST /api/meta-analysis/enhanced and POST /api/meta-analysis/extract.
 */
import { z } from "zod";
import type { ExtractedStudyData } from "~/lib/meta-analysis/types";
import { AppError, describeZodError } from "../http/errors";
import { readJson } from "../http/json-body";

/** Most studies per meta-analysis request. */
export const MAX_META_STUDIES = 100;
/** Longest abstract accepted, in characters. */
export const MAX_ABSTRACT_CHARS = 20_000;
/** Longest full text accepted, in characters. */
export const MAX_FULLTEXT_CHARS = 200_000;
/** Largest body of POST /extract, in bytes (413 above). */
export const MAX_BODY_BYTES = 5 * 1024 * 1024;
/**
 * Largest body of POST /enhanced, in bytes: the request is stored in its job row, and D1 rows hold
 * at most 2,000,000 bytes (https://developers.cloudflare.com/d1/platform/limits/).
 */
export const MAX_JOB_BODY_BYTES = 1_800_000;
export const MIN_STUDIES_MESSAGE = "Please select at least 2 studies for meta-analysis";

const finite = z.number().refine(Number.isFinite, "must be a finite number");
const count = z.number().int("must be a whole number").min(0, "must not be negative");

const QuoteSchema = z.object({
  quote: z.string().max(5000),
  start: z.number().int().min(0),
  end: z.number().int().min(0),
  source: z.enum(["abstract", "fullText"]),
});

/** Effect data as the page sends it back after review. Counts must be whole and non-negative;
 * a negative SD is accepted here and reported by the analysis as the reason a study is left out. */
const EffectDataSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("counts"), events1: count, n1: count, events2: count, n2: count }),
  z.object({ kind: z.literal("means"), mean1: finite, sd1: finite, n1: count, mean2: finite, sd2: finite, n2: count }),
  z.object({ kind: z.literal("estimate-ci"), estimate: finite, lower: finite, upper: finite }),
  z.object({ kind: z.literal("yi-vi"), yi: finite, vi: finite }),
  z.object({ kind: z.literal("estimate-se"), estimate: finite, se: finite, scale: z.literal("log").optional() }),
  z.object({ kind: z.literal("rates"), events1: count, time1: finite, events2: count, time2: finite }),
  z.object({ kind: z.literal("oe-var"), oe: finite, v: finite }),
]);

const MeasureSchema = z.enum(["RR", "OR", "RD", "MD", "SMD", "ROM", "GEN"]);

/** One reviewed row of the data table (ExtractedStudyData). */
export const ExtractedRowSchema = z.object({
  studyId: z.string().trim().min(1).max(200),
  title: z.string().trim().min(1).max(1000),
  outcome: z.string().trim().min(1, "Every row needs an outcome").max(200),
  measure: MeasureSchema,
  reportedMeasure: z.enum(["HR", "IRR"]).optional(),
  data: EffectDataSchema,
  quotes: z.array(QuoteSchema).max(20).default([]),
  extractedBy: z.string().max(200).default("user"),
  design: z.string().max(100).nullable().default(null),
  totalN: count.nullable().default(null),
  comparison: z.string().max(300).nullable().optional(),
  timepoint: z.string().max(200).nullable().optional(),
  isPooledEstimate: z.boolean().optional(),
  poolGroup: z.string().trim().max(100).optional(),
  outcomeUncertain: z.string().max(300).optional(),
}) satisfies z.ZodType<ExtractedStudyData, unknown>;

export const MetaStudySchema = z.object({
  id: z.union([z.string().max(200), z.number()]).nullish(),
  title: z
    .string({ error: "Every study needs a title" })
    .trim()
    .min(1, "Every study needs a title")
    .max(1000, "A title may have at most 1000 characters"),
  abstract: z
    .string()
    .max(MAX_ABSTRACT_CHARS, `An abstract may have at most ${MAX_ABSTRACT_CHARS} characters`)
    .nullish(),
  fullTextAnalysis: z
    .string()
    .max(MAX_FULLTEXT_CHARS, `A full text may have at most ${MAX_FULLTEXT_CHARS} characters`)
    .nullish(),
});

const ReviewFlowSchema = z.object({
  excluded: count,
  awaitingScreening: count.optional(),
  maybe: count.optional(),
  soughtForRetrieval: count,
  notRetrieved: count,
  assessed: count,
  awaitingFullText: count.optional(),
  fullTextMaybe: count.optional(),
  excludedWithReasons: z.record(z.string().max(200), count),
  included: count,
});

const PrismaSchema = z
  .object({
    identified: z.record(z.string().max(200), count),
    duplicatesRemoved: count,
    screened: count,
    /** The whole flow of a systematic review (GET /api/reviews/{id}/prisma), used as sent. */
    review: ReviewFlowSchema.optional(),
    /** A living review's updated-review counts (GET /api/reviews/{id}/prisma `updated`), used as sent. */
    updated: z
      .object({
        updates: count,
        lastUpdateAt: z.string().max(40).nullable(),
        previousStudies: count,
        totalStudies: count,
        newFlow: z.object({
          identified: z.record(z.string().max(200), count),
          duplicatesRemoved: count,
          screened: count,
          review: ReviewFlowSchema,
        }),
      })
      .refine(
        (u) => u.totalStudies === u.previousStudies + u.newFlow.review.included,
        "prisma.updated.totalStudies must be previousStudies + newFlow.review.included",
      )
      .optional(),
  })
  .refine((p) => !p.updated || p.review, "prisma.updated needs the review's flow (prisma.review)");

const StudiesSchema = z
  .array(MetaStudySchema, { error: "studies must be an array of studies" })
  .max(MAX_META_STUDIES, `At most ${MAX_META_STUDIES} studies can be analysed at once`);

/**
 * Summary of Findings options: the assumed control risk (a proportion; default the pooled
 * control-group risk of each analysis' studies).
 */
const SummaryOfFindingsSchema = z.object({
  assumedControlRisk: finite
    .refine((x) => x > 0 && x < 1, "assumedControlRisk is a proportion between 0 and 1 (e.g. 0.15 for 150 per 1,000)")
    .optional(),
  /** Per outcome name (a review's stored GRADE settings); takes precedence over assumedControlRisk. */
  assumedControlRiskByOutcome: z
    .record(
      z.string().max(200),
      finite.refine((x) => x > 0 && x < 1, "an assumed control risk is a proportion between 0 and 1"),
    )
    .optional(),
});

/**
 * The reviewer's GRADE inputs: RoB 2 overall judgements by study id (or by outcome name, then study
 * id: `riskOfBiasByOutcome`, the overall judgement or all six; adds the sensitivity analysis by risk of bias and
 * the report's risk-of-bias plots), an indirectness call and a
 * decision threshold (on the measure's natural scale: a ratio for RR/OR/ROM) by outcome name.
 */
const RobJudgementSchema = z.enum(["low", "some_concerns", "high"]);
/** A study's RoB 2 domain judgements and overall one (drawn in the report's traffic-light plot). */
const RobJudgementSetSchema = z
  .object({
    D1: RobJudgementSchema,
    D2: RobJudgementSchema,
    D3: RobJudgementSchema,
    D4: RobJudgementSchema,
    D5: RobJudgementSchema,
    overall: RobJudgementSchema,
  })
  .strict();

const downgrade = z.union([z.literal(0), z.literal(-1), z.literal(-2)]);
const justification = z.string().trim().min(1, "A changed GRADE rating needs a justification").max(2000);
/** The reviewer's GRADE rating changes for one outcome (app/lib/meta-analysis/grade.ts GradeReviewerRating). */
export const GradeReviewerRatingSchema = z
  .object({
    overrides: z
      .object({
        "risk of bias": z.object({ downgrade, justification }),
        inconsistency: z.object({ downgrade, justification }),
        indirectness: z.object({ downgrade, justification }),
        imprecision: z.object({ downgrade, justification }),
        "publication bias": z.object({ downgrade, justification }),
      })
      .partial()
      .strict()
      .default({}),
    rateUp: z
      .array(
        z
          .object({
            reason: z.enum(["large effect", "dose response", "plausible confounding"]),
            levels: z.union([z.literal(1), z.literal(2)]),
            justification,
          })
          .strict(),
      )
      .max(3)
      .refine((r) => new Set(r.map((x) => x.reason)).size === r.length, "Each reason to rate up may be given once")
      .default([]),
  })
  .strict();

const GradeOptionsSchema = z.object({
  riskOfBias: z.record(z.string().max(200), z.enum(["low", "some_concerns", "high"])).optional(),
  riskOfBiasByOutcome: z
    .record(z.string().max(200), z.record(z.string().max(200), z.union([RobJudgementSchema, RobJudgementSetSchema])))
    .optional(),
  indirectness: z
    .record(
      z.string().max(200),
      z.object({
        levels: z.union([z.literal(0), z.literal(1), z.literal(2)]),
        reason: z.string().trim().min(1).max(2000),
      }),
    )
    .optional(),
  decisionThresholds: z.record(z.string().max(200), finite).optional(),
  reviewerRatings: z.record(z.string().max(200), GradeReviewerRatingSchema).optional(),
});

export const EnhancedRequestSchema = z.object({
  studies: StudiesSchema,
  model: z.string().max(100).optional(),
  measure: MeasureSchema.exclude(["GEN"]).optional(),
  method: z
    .enum([
      "EE",
      "FE",
      "DL",
      "REML",
      "ML",
      "PM",
      "HS",
      "SJ",
      "HE",
      "EB",
      "HSk",
      "PMM",
      "DL2",
      "CA2",
      "SJ2",
      "GENQ",
      "GENQM",
    ])
    .optional(),
  /** Weights of GENQ/GENQM (see GenqWeights; default inverse-variance); ignored by the other estimators. */
  genqWeights: z.enum(["inverse-variance", "inverse-se", "equal"]).optional(),
  test: z.enum(["z", "knha"]).optional(),
  data: z.array(ExtractedRowSchema).max(2000).optional(),
  prisma: PrismaSchema.optional(),
  summaryOfFindings: SummaryOfFindingsSchema.optional(),
  grade: GradeOptionsSchema.optional(),
});
export type EnhancedRequest = z.infer<typeof EnhancedRequestSchema>;

export const ExtractRequestSchema = z.object({ studies: StudiesSchema, model: z.string().max(100).optional() });
export type ExtractRequest = z.infer<typeof ExtractRequestSchema>;

/** True when zod failed only because a string or array was longer than allowed. */
function onlyTooBig(error: z.ZodError): boolean {
  return error.issues.length > 0 && error.issues.every((i) => i.code === "too_big" && i.path.length > 1);
}

function parseStudiesBody<S extends typeof EnhancedRequestSchema | typeof ExtractRequestSchema>(
  schema: S,
  body: unknown,
): z.infer<S> {
  const raw = body as { studies?: unknown } | null;
  if (!raw || typeof raw !== "object" || !Array.isArray(raw.studies) || raw.studies.length < 2) {
    throw new AppError("INVALID_INPUT", MIN_STUDIES_MESSAGE, 400);
  }
  const result = schema.safeParse(body);
  if (!result.success) {
    throw new AppError(
      onlyTooBig(result.error) ? "PAYLOAD_TOO_LARGE" : "INVALID_INPUT",
      describeZodError(result.error),
      onlyTooBig(result.error) ? 413 : 400,
    );
  }
  return result.data as z.infer<S>;
}

/**
 * Validates POST /api/meta-analysis/enhanced. 400 INVALID_INPUT 'Please select at least 2
 * studies for meta-analysis' for fewer than 2 studies; 413 PAYLOAD_TOO_LARGE when an abstract
 * (> 20,000 chars) or full text (> 200,000) is too long; 400 INVALID_INPUT otherwise (more than
 * 100 studies, bad measure/method/test, malformed data rows).
 */
export function parseEnhancedRequest(body: unknown): EnhancedRequest {
  return parseStudiesBody(EnhancedRequestSchema, body);
}

/** Validates POST /api/meta-analysis/extract (same rules for `studies`). */
export function parseExtractRequest(body: unknown): ExtractRequest {
  return parseStudiesBody(ExtractRequestSchema, body);
}

/**
 * Reads a JSON body of at most `maxBytes` (UTF-8) through the shared bounded reader: 413
 * PAYLOAD_TOO_LARGE above it, 400 INVALID_BODY when nested too deeply, 400 INVALID_JSON for
 * malformed JSON.
 */
export async function readLimitedJson(request: Request, maxBytes: number = MAX_BODY_BYTES): Promise<unknown> {
  try {
    return await readJson(request, { maxBytes });
  } catch (error) {
    if (error instanceof AppError && error.code === "PAYLOAD_TOO_LARGE") {
      throw new AppError(
        "PAYLOAD_TOO_LARGE",
        `The request is too large: at most ${(maxBytes / 1_000_000).toFixed(1)} MB of study text per analysis.`,
        413,
      );
    }
    throw error;
  }
}
