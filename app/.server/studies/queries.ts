import { and, desc, eq, inArray, or } from "drizzle-orm";
import { aiSummaries, studies, type StudyRow } from "../../../db/schema";
import type { Citation } from "../../lib/grounding";
import type { Database } from "../db/client";
import type { ApiStudy, ProviderId } from "../../lib/search/types";

export type { ApiStudy } from "../../lib/search/types";

/** The newest stored plain summary of a study. */
export interface StoredSummary {
  content: string;
  model: string;
  /** Its grounding in the abstract, or null when stored without citations. */
  citations: Citation[] | null;
  updatedAt: number;
}

/**
 * The citations column as read back: an array of citations with a string id and quote and numeric
 * offsets (malformed entries dropped), or null when the value is not an array. Accepts the JSON
 * text of a raw query as well as drizzle's parsed value.
 */
export function parseStoredCitations(value: unknown): Citation[] | null {
  let parsed = value;
  if (typeof value === "string") {
    try {
      parsed = JSON.parse(value) as unknown;
    } catch {
      return null;
    }
  }
  if (!Array.isArray(parsed)) return null;
  return parsed.filter(
    (c): c is Citation =>
      typeof c === "object" &&
      c !== null &&
      typeof (c as Citation).id === "string" &&
      typeof (c as Citation).quote === "string" &&
      typeof (c as Citation).start === "number" &&
      typeof (c as Citation).end === "number",
  );
}

/** Turns a stored row (plus its newest summary and full-text analysis) into the API shape. */
export function toApiStudy(
  row: StudyRow,
  summary: StoredSummary | null,
  sources: ProviderId[] = [row.source as ProviderId],
  fullTextAnalysis: string | null = null,
): ApiStudy {
  return {
    id: row.id,
    title: row.title,
    abstract: row.abstract,
    authors: row.authors,
    journal: row.journal,
    publicationDate: row.publicationDate,
    pmid: row.pmid,
    pmcid: row.pmcid,
    doi: row.doi,
    source: row.source,
    sources,
    studyType: row.studyType,
    fullTextAvailable: row.fullTextAvailable,
    isOpenAccess: row.isOpenAccess,
    openAccessUrl: row.openAccessUrl,
    url: row.url,
    impactFactor: row.impactFactor,
    relevanceScore: null,
    relevanceReason: null,
    aiSummary: summary?.content ?? null,
    aiSummaryModel: summary?.model ?? null,
    aiSummaryCitations: summary ? summary.citations : null,
    citationCount: row.citationCount,
    fullTextAnalysis,
  };
}

/**
 * The newest stored AI summary (feature 'summary') of each study, keyed by study id.
 * Queries in chunks to respect D1's 100-parameter limit.
 */
export async function latestSummaries(
  { db }: { db: Database },
  { studyIds }: { studyIds: number[] },
): Promise<Map<number, StoredSummary>> {
  const out = new Map<number, StoredSummary>();
  const ids = [...new Set(studyIds)];
  for (let i = 0; i < ids.length; i += 90) {
    const rows = await db
      .select({
        studyId: aiSummaries.studyId,
        content: aiSummaries.content,
        model: aiSummaries.model,
        citations: aiSummaries.citations,
        updatedAt: aiSummaries.updatedAt,
      })
      .from(aiSummaries)
      .where(
        and(
          eq(aiSummaries.feature, "summary"),
          eq(aiSummaries.ownerId, PUBLIC_OWNER),
          inArray(aiSummaries.studyId, ids.slice(i, i + 90)),
        ),
      )
      .orderBy(desc(aiSummaries.updatedAt), desc(aiSummaries.id));
    for (const r of rows) {
      if (!out.has(r.studyId)) {
        out.set(r.studyId, {
          content: r.content,
          model: r.model,
          citations: parseStoredCitations(r.citations),
          updatedAt: r.updatedAt,
        });
      }
    }
  }
  return out;
}

/** The `feature` of full-text analyses in ai_summaries. */
export const FULLTEXT_FEATURE = "fulltext";

/** ai_summaries.owner_id of rows everyone may see. */
export const PUBLIC_OWNER = "";

/**
 * The drizzle condition "row visible to `viewerId`": public rows (owner '') and, for a signed-in
 * viewer, that viewer's own private rows.
 */
export function visibleTo(viewerId: string | null | undefined) {
  return viewerId
    ? or(eq(aiSummaries.ownerId, PUBLIC_OWNER), eq(aiSummaries.ownerId, viewerId))
    : eq(aiSummaries.ownerId, PUBLIC_OWNER);
}

/**
 * One study with its newest summary and its newest full-text analysis (feature 'fulltext', any
 * model) that `viewerId` may see (public, or that viewer's own private analysis; guests: public
 * only), or null when the id is unknown.
 */
export async function getStudy(
  { db }: { db: Database },
  { id, viewerId = null }: { id: number; viewerId?: string | null },
): Promise<ApiStudy | null> {
  const [row] = await db.select().from(studies).where(eq(studies.id, id)).limit(1);
  if (!row) return null;
  // One query for both the newest summary and the newest full-text analysis.
  const rows = await db
    .select({
      feature: aiSummaries.feature,
      content: aiSummaries.content,
      model: aiSummaries.model,
      citations: aiSummaries.citations,
      updatedAt: aiSummaries.updatedAt,
    })
    .from(aiSummaries)
    .where(
      and(
        eq(aiSummaries.studyId, id),
        inArray(aiSummaries.feature, ["summary", FULLTEXT_FEATURE]),
        visibleTo(viewerId),
      ),
    )
    .orderBy(desc(aiSummaries.updatedAt), desc(aiSummaries.id));
  const summary = rows.find((r) => r.feature === "summary");
  const fullText = rows.find((r) => r.feature === FULLTEXT_FEATURE);
  return {
    ...toApiStudy(
      row,
      summary
        ? {
            content: summary.content,
            model: summary.model,
            citations: parseStoredCitations(summary.citations),
            updatedAt: summary.updatedAt,
          }
        : null,
    ),
    fullTextAnalysis: fullText?.content ?? null,
  };
}

/**
 * Stores an AI summary for a study (one row per study/feature/focus/model/owner, replaced on
 * regeneration) in a single statement, so a failure leaves no half-written row.
 */
export async function saveSummary(
  { db }: { db: Database },
  input: {
    studyId: number;
    model: string;
    content: string;
    feature?: string;
    focus?: string;
    /** Grounding of `content` (anchors, when present, are stored with each citation). */
    citations?: Citation[] | null;
    /** The user the row belongs to ('' / absent = visible to everyone). */
    ownerId?: string;
    /** The URL the analysed text was fetched from (full-text analyses). */
    sourceUrl?: string | null;
  },
): Promise<void> {
  const now = Date.now();
  await db
    .insert(aiSummaries)
    .values({
      studyId: input.studyId,
      feature: input.feature ?? "summary",
      focus: input.focus ?? "",
      model: input.model,
      content: input.content,
      citations: input.citations ?? null,
      ownerId: input.ownerId ?? PUBLIC_OWNER,
      sourceUrl: input.sourceUrl ?? null,
      createdAt: now,
      updatedAt: now,
    })
    .onConflictDoUpdate({
      target: [aiSummaries.studyId, aiSummaries.feature, aiSummaries.focus, aiSummaries.model, aiSummaries.ownerId],
      set: {
        content: input.content,
        citations: input.citations ?? null,
        sourceUrl: input.sourceUrl ?? null,
        updatedAt: now,
      },
    });
}
