/**
 * D1 tables for systematic reviews (issue 13). Re-exported by db/schema.ts (drizzle-kit reads that
 * file). Every table has `user_id`, so app/.server/library/account.ts covers it in the account data
 * download and the account deletion; child rows also cascade from their review.
 */
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { studies, users } from "./schema";
import { uploadedStudies } from "./schema.uploads";
import type { StoppingCriterion } from "../app/lib/screening/stopping";

const now = sql`(unixepoch('subsec') * 1000)`;

/** PICO question of a review; every part optional. */
export interface ReviewQuestion {
  text?: string;
  population?: string;
  intervention?: string;
  comparator?: string;
  outcomes?: string;
}

/** A review project: title, question, eligibility criteria (lines) and the user's exclusion reasons. */
export const reviews = sqliteTable(
  "reviews",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    title: text("title").notNull(),
    question: text("question", { mode: "json" })
      .$type<ReviewQuestion>()
      .notNull()
      .default(sql`'{}'`),
    inclusionCriteria: text("inclusion_criteria", { mode: "json" })
      .$type<string[]>()
      .notNull()
      .default(sql`'[]'`),
    exclusionCriteria: text("exclusion_criteria", { mode: "json" })
      .$type<string[]>()
      .notNull()
      .default(sql`'[]'`),
    /** The reasons offered when excluding (user-editable list). */
    exclusionReasons: text("exclusion_reasons", { mode: "json" })
      .$type<string[]>()
      .notNull()
      .default(sql`'[]'`),
    /** Incremented by every decision, undo and merge change: the ranking cache is valid for one version. */
    version: integer("version").notNull().default(0),
    /** Screening of both stages (issue 30): one decision per record, or two independent votes. */
    screeningMode: text("screening_mode", { enum: ["single", "dual"] })
      .notNull()
      .default("single"),
    /** Dual mode: a reviewer sees no other vote on a record before casting their own. */
    screeningBlind: integer("screening_blind", { mode: "boolean" }).notNull().default(true),
    /** Data extraction (issue 30 item 5): one extractor, or two independent ones with a consensus per differing cell. */
    extractionMode: text("extraction_mode", { enum: ["single", "dual"] })
      .notNull()
      .default("single"),
    /** RoB 2 assessment (issue 30 item 5): one assessor, or two independent ones with a consensus assessment. */
    robMode: text("rob_mode", { enum: ["single", "dual"] })
      .notNull()
      .default("single"),
    /** Living review (issue 31): how often the review's searches are re-run, or null (not living). */
    livingSchedule: text("living_schedule", { enum: ["weekly", "monthly"] }),
    /** When the next scheduled update is due (ms since the epoch); null when not living. */
    livingNextRunAt: integer("living_next_run_at", { mode: "number" }),
    createdAt: integer("created_at", { mode: "number" }).notNull().default(now),
    updatedAt: integer("updated_at", { mode: "number" }).notNull().default(now),
  },
  (t) => [
    index("reviews_user_idx").on(t.userId, t.createdAt),
    index("reviews_living_due_idx")
      .on(t.livingNextRunAt)
      .where(sql`${t.livingSchedule} is not null`),
  ],
);

export const REVIEW_SOURCE_KINDS = ["file", "search", "uploads"] as const;

/** One batch of records brought into a review: a file, a search or a set of uploaded PDFs. */
export const reviewSources = sqliteTable(
  "review_sources",
  {
    id: text("id").primaryKey(),
    reviewId: text("review_id")
      .notNull()
      .references(() => reviews.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    kind: text("kind", { enum: REVIEW_SOURCE_KINDS }).notNull(),
    /** Database(s) or file name, as the PRISMA diagram and the sources list show it. */
    name: text("name").notNull(),
    /** ris | nbib | bibtex | csv for files; null otherwise. */
    format: text("format"),
    /** The search query (searches only). */
    query: text("query"),
    /** Search parameters and per-database counts (searches), as JSON. */
    details: text("details", { mode: "json" })
      .$type<Record<string, unknown>>()
      .notNull()
      .default(sql`'{}'`),
    /** Records brought in by this batch (duplicates included). */
    recordCount: integer("record_count").notNull(),
    /** Records of this batch merged into an earlier record at import time. */
    duplicatesRemoved: integer("duplicates_removed").notNull().default(0),
    createdAt: integer("created_at", { mode: "number" }).notNull().default(now),
  },
  (t) => [index("review_sources_review_idx").on(t.reviewId, t.createdAt)],
);

export const SCREENING_DECISIONS = ["include", "exclude", "maybe"] as const;
export type ScreeningDecision = (typeof SCREENING_DECISIONS)[number];
export const SCREENING_STAGES = ["title_abstract", "full_text"] as const;
export type ScreeningStage = (typeof SCREENING_STAGES)[number];

/**
 * One record of a review, as imported. A duplicate keeps its row with `duplicateOf` pointing at
 * the record it was merged into (visible and reversible); current decisions per stage are kept on
 * the row, their history in review_decisions.
 */
export const reviewRecords = sqliteTable(
  "review_records",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    reviewId: text("review_id")
      .notNull()
      .references(() => reviews.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    sourceId: text("source_id")
      .notNull()
      .references(() => reviewSources.id, { onDelete: "cascade" }),
    /** 0-based position of the record in its source (import order). */
    position: integer("position").notNull(),
    /** Database or file the record came from (PRISMA identification). */
    origin: text("origin").notNull(),
    title: text("title").notNull(),
    abstract: text("abstract"),
    authors: text("authors", { mode: "json" })
      .$type<string[]>()
      .notNull()
      .default(sql`'[]'`),
    year: integer("year"),
    journal: text("journal"),
    doi: text("doi"),
    pmid: text("pmid"),
    keywords: text("keywords"),
    url: text("url"),
    /** The stored search record it came from (searches), for full text and the meta-analysis. */
    studyId: integer("study_id").references(() => studies.id, { onDelete: "set null" }),
    /** The user's uploaded PDF that is this record's full text. */
    uploadedStudyId: integer("uploaded_study_id").references(() => uploadedStudies.id, { onDelete: "set null" }),
    /** Kept record this one was merged into; null = a unique record. */
    duplicateOf: integer("duplicate_of"),
    /** Why it was merged: doi | pmid | title. */
    duplicateReason: text("duplicate_reason"),
    /** The user undid a merge: never merged automatically again. */
    notDuplicate: integer("not_duplicate", { mode: "boolean" }).notNull().default(false),
    taDecision: text("ta_decision", { enum: SCREENING_DECISIONS }),
    taReason: text("ta_reason"),
    taDecidedAt: integer("ta_decided_at", { mode: "number" }),
    ftDecision: text("ft_decision", { enum: SCREENING_DECISIONS }),
    ftReason: text("ft_reason"),
    ftDecidedAt: integer("ft_decided_at", { mode: "number" }),
    /** Full text: R2 key of an attached PDF (under uploads/{userId}/reviews/), its URL, its text. */
    fullTextKey: text("full_text_key"),
    fullTextUrl: text("full_text_url"),
    fullText: text("full_text"),
    /** Second-screener suggestion of the language model (JSON), never a decision. */
    suggestion: text("suggestion", { mode: "json" }).$type<Record<string, unknown>>(),
    createdAt: integer("created_at", { mode: "number" }).notNull().default(now),
  },
  (t) => [
    index("review_records_review_idx").on(t.reviewId, t.duplicateOf),
    index("review_records_source_idx").on(t.sourceId, t.position),
    /** Progress counts and a retraining's read of the decisions, without the wide rows (migration 0028). */
    index("review_records_screening_idx").on(t.reviewId, t.duplicateOf, t.taDecision, t.taDecidedAt),
  ],
);

/** Every decision made, in order: the undo history. The latest row per record and stage is current. */
export const reviewDecisions = sqliteTable(
  "review_decisions",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    reviewId: text("review_id")
      .notNull()
      .references(() => reviews.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    recordId: integer("record_id")
      .notNull()
      .references(() => reviewRecords.id, { onDelete: "cascade" }),
    stage: text("stage", { enum: SCREENING_STAGES }).notNull(),
    decision: text("decision", { enum: SCREENING_DECISIONS }).notNull(),
    reason: text("reason"),
    createdAt: integer("created_at", { mode: "number" }).notNull().default(now),
  },
  (t) => [
    index("review_decisions_review_idx").on(t.reviewId, t.stage, t.id),
    index("review_decisions_record_idx").on(t.recordId, t.stage, t.userId),
  ],
);

/**
 * The cached title/abstract ranking of a review (ADR 0009): the unscreened record ids in screening
 * order with scores and matched terms, computed for review `version`.
 */
export const reviewRankings = sqliteTable("review_rankings", {
  reviewId: text("review_id")
    .primaryKey()
    .references(() => reviews.id, { onDelete: "cascade" }),
  userId: text("user_id")
    .notNull()
    .references(() => users.id, { onDelete: "cascade" }),
  version: integer("version").notNull(),
  mode: text("mode").notNull(),
  /** `[[recordId, score, terms[]], …]` best first. */
  ranked: text("ranked", { mode: "json" }).$type<[number, number, string[]][]>().notNull(),
  estimatedRelevantRemaining: real("estimated_relevant_remaining"),
  /** The stopping criterion on the decisions the ranking was computed from (migration 0018). */
  stopping: text("stopping", { mode: "json" }).$type<StoppingCriterion>(),
  computedAt: integer("computed_at", { mode: "number" }).notNull().default(now),
});

/**
 * Who is retraining a ranking now (migration 0028): one retraining at a time per review (`ranking`
 * '') or per reviewer's own ranking in dual screening (`ranking` = their user id), across isolates.
 * A lease expires, so a crashed holder blocks nobody for long.
 */
export const reviewRankingLeases = sqliteTable(
  "review_ranking_leases",
  {
    reviewId: text("review_id")
      .notNull()
      .references(() => reviews.id, { onDelete: "cascade" }),
    ranking: text("ranking").notNull(),
    holder: text("holder").notNull(),
    expiresAt: integer("expires_at", { mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.reviewId, t.ranking] })],
);

export type ReviewRow = typeof reviews.$inferSelect;
export type ReviewSourceRow = typeof reviewSources.$inferSelect;
export type ReviewRecordRow = typeof reviewRecords.$inferSelect;

/**
 * One update of a living review (issue 31): the review's searches re-run on its schedule or on
 * demand. At most one runs per review at a time (unique partial index on status 'running'); what it
 * found, what failed and whether the digest went out are kept.
 */
export const reviewUpdates = sqliteTable(
  "review_updates",
  {
    id: text("id").primaryKey(),
    reviewId: text("review_id")
      .notNull()
      .references(() => reviews.id, { onDelete: "cascade" }),
    /** The review's owner (the account whose plan and databases the searches use). */
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    trigger: text("trigger", { enum: ["schedule", "manual"] }).notNull(),
    status: text("status", { enum: ["running", "done", "failed"] })
      .notNull()
      .default("running"),
    searchesRun: integer("searches_run").notNull().default(0),
    newRecords: integer("new_records").notNull().default(0),
    duplicatesRemoved: integer("duplicates_removed").notNull().default(0),
    /** Searches that failed: [{source, reason}]. */
    failed: text("failed", { mode: "json" })
      .$type<{ source: string; reason: string }[]>()
      .notNull()
      .default(sql`'[]'`),
    digestSent: integer("digest_sent", { mode: "boolean" }).notNull().default(false),
    startedAt: integer("started_at", { mode: "number" }).notNull().default(now),
    finishedAt: integer("finished_at", { mode: "number" }),
  },
  (t) => [
    index("review_updates_review_idx").on(t.reviewId, t.startedAt),
    uniqueIndex("review_updates_running_idx")
      .on(t.reviewId)
      .where(sql`${t.status} = 'running'`),
  ],
);

export type ReviewUpdateRow = typeof reviewUpdates.$inferSelect;
