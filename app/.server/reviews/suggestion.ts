/**
 * Second-screener suggestion (issue 13): with a language model configured (OPENAI_*), the model
 * reads one record against the review's question and criteria and suggests include / exclude /
 * maybe with reasons quoted from the abstract and the criteria. It never makes the decision; the
 * screening page shows it beside the record and lists disagreements with the human decisions.
 */
import { generateStructured } from "../ai/model-call";
import { eq } from "drizzle-orm";
import { z } from "zod";
import { reviewRecords, users, type UserRow } from "../../../db/schema";
import type { ScreeningSuggestion } from "~/lib/reviews";
import { getLanguageModel, modelConfigFromEnv, type ResolvedModel } from "../ai/registry";
import { reserveAiUse } from "../billing/metering";
import type { AppServices } from "../context";
import { AppError } from "../http/errors";
import { requireRecord, requireReview } from "./service";

const SuggestionSchema = z.object({
  decision: z.enum(["include", "exclude", "maybe"]),
  reasons: z
    .array(
      z.object({
        quote: z.string().describe("A verbatim quote from the record (title or abstract) or from one criterion"),
        from: z.enum(["abstract", "criteria"]),
      }),
    )
    .max(6),
});

const SYSTEM = `You are the second screener of a systematic review, screening one record on its title and abstract.
Suggest include, exclude or maybe against the review's question and eligibility criteria.
Support the suggestion with 1 to 4 reasons, each a VERBATIM quote copied exactly from the record's title/abstract ("abstract") or from one criterion line ("criteria"). Never paraphrase inside a quote. When the abstract is missing or unclear, suggest maybe.`;

const squash = (s: string) => s.replace(/\s+/g, " ").trim().toLowerCase();

/** Keeps only quotes found verbatim (whitespace and case aside) in the named text. */
export function groundedReasons(
  reasons: readonly { quote: string; from: "abstract" | "criteria" }[],
  texts: { record: string; criteria: string },
): ScreeningSuggestion["reasons"] {
  const record = squash(texts.record);
  const criteria = squash(texts.criteria);
  const out: ScreeningSuggestion["reasons"] = [];
  for (const r of reasons) {
    const q = squash(r.quote).replace(/^["“']|["”']$/g, "");
    if (q.length < 4) continue;
    const haystack = r.from === "criteria" ? criteria : record;
    if (haystack.includes(q) && !out.some((o) => squash(o.quote) === q))
      out.push({ quote: r.quote.trim(), from: r.from });
  }
  return out;
}

/**
 * Asks the configured model for a suggestion on one record and stores it on the record (one AI
 * use, metered as an AI summary). @throws AppError 404; 409 AI_NOT_CONFIGURED (offline: the
 * ranking's matched terms explain it instead); 403/429-style metering errors from reserveAiUse.
 */
export async function suggestDecision(
  app: AppServices,
  {
    user,
    reviewId,
    recordId,
    request,
    model: given,
  }: {
    user: UserRow;
    reviewId: string | undefined;
    recordId: string | undefined;
    request: Request;
    model?: ResolvedModel;
  },
): Promise<{ suggestion: ScreeningSuggestion }> {
  const review = await requireReview(app, { userId: user.id, reviewId }, "write");
  const record = await requireRecord(app, review, recordId);
  const resolved = given ?? getLanguageModel(modelConfigFromEnv(app.env, app.fetch));
  if (resolved.provider === "offline") {
    throw new AppError(
      "AI_NOT_CONFIGURED",
      "A language model is not configured; the ranking's matched terms explain each record.",
      409,
    );
  }
  // Plan gating follows the review's owner (a Professional owner's Free reviewers use the owner's plan and quota).
  const owner =
    review.userId === user.id ? user : await app.db.select().from(users).where(eq(users.id, review.userId)).get();
  if (!owner) throw new AppError("REVIEW_NOT_FOUND", "Review not found", 404);
  const reservation = await reserveAiUse(
    app,
    { user: owner, request },
    { planFeature: "ai_summaries", guestFeature: "aiSummaries" },
  );
  const q = review.question;
  const criteriaText = [
    ...review.inclusionCriteria.map((c) => `Include: ${c}`),
    ...review.exclusionCriteria.map((c) => `Exclude: ${c}`),
  ].join("\n");
  const recordText = `${record.title}\n${record.abstract ?? ""}`;
  try {
    const output = await generateStructured(resolved, {
      instructions: SYSTEM,
      prompt: [
        `Review question: ${[q.text, q.population && `Population: ${q.population}`, q.intervention && `Intervention: ${q.intervention}`, q.comparator && `Comparator: ${q.comparator}`, q.outcomes && `Outcomes: ${q.outcomes}`].filter(Boolean).join("\n") || review.title}`,
        `Criteria:\n${criteriaText || "(none given)"}`,
        `Record title: ${record.title}`,
        `Record abstract: ${record.abstract ?? "(no abstract)"}`,
      ].join("\n\n"),
      schema: SuggestionSchema,
      name: "screening_suggestion",
    });
    const suggestion: ScreeningSuggestion = {
      decision: output.decision,
      reasons: groundedReasons(output.reasons, { record: recordText, criteria: criteriaText }),
      model: resolved.name,
    };
    await app.db
      .update(reviewRecords)
      .set({ suggestion: { ...suggestion } })
      .where(eq(reviewRecords.id, record.id));
    await reservation.commit();
    return { suggestion };
  } catch (error) {
    await reservation.release();
    if (error instanceof AppError) throw error;
    console.error("second-screener suggestion failed", error);
    throw new AppError("AI_FAILED", "The second-screener suggestion could not be made. Please try again.", 502);
  }
}
