/**
 * D1 tables for reviewing as a team (issue 30): members and their roles, e-mail invitations,
 * conflict resolutions of dual screening and each member's own screening order. Re-exported by
 * db/schema.ts. Votes are the rows of review_decisions (one history per reviewer).
 */
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { users } from "./schema";
import { reviewRecords, reviews, SCREENING_DECISIONS, SCREENING_STAGES } from "./schema.reviews";
import { reviewOutcomes } from "./schema.review-extraction";

const now = sql`(unixepoch('subsec') * 1000)`;

export const REVIEW_MEMBER_ROLES = ["reviewer", "viewer"] as const;
export type ReviewMemberRole = (typeof REVIEW_MEMBER_ROLES)[number];

/** A member of another user's review (the owner is reviews.user_id and has no row here). */
export const reviewMembers = sqliteTable(
  "review_members",
  {
    reviewId: text("review_id")
      .notNull()
      .references(() => reviews.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    role: text("role", { enum: REVIEW_MEMBER_ROLES }).notNull(),
    /** Named by the owner to resolve screening conflicts. */
    resolver: integer("resolver", { mode: "boolean" }).notNull().default(false),
    createdAt: integer("created_at", { mode: "number" }).notNull().default(now),
  },
  (t) => [primaryKey({ columns: [t.reviewId, t.userId] }), index("review_members_user_idx").on(t.userId)],
);

/** An invitation by e-mail: only the SHA-256 of its token is stored; it works once, for 7 days. */
export const reviewInvitations = sqliteTable(
  "review_invitations",
  {
    id: text("id").primaryKey(),
    reviewId: text("review_id")
      .notNull()
      .references(() => reviews.id, { onDelete: "cascade" }),
    /** The owner who invited. */
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** Lower-cased e-mail of the invited account. */
    email: text("email").notNull(),
    role: text("role", { enum: REVIEW_MEMBER_ROLES }).notNull(),
    tokenHash: text("token_hash").notNull(),
    expiresAt: integer("expires_at", { mode: "number" }).notNull(),
    acceptedAt: integer("accepted_at", { mode: "number" }),
    acceptedBy: text("accepted_by"),
    createdAt: integer("created_at", { mode: "number" }).notNull().default(now),
  },
  (t) => [
    uniqueIndex("review_invitations_token_unique").on(t.tokenHash),
    index("review_invitations_review_idx").on(t.reviewId, t.email),
  ],
);

/** The final decision on a record whose two votes disagreed, by the owner or a named resolver. */
export const reviewResolutions = sqliteTable(
  "review_resolutions",
  {
    reviewId: text("review_id")
      .notNull()
      .references(() => reviews.id, { onDelete: "cascade" }),
    recordId: integer("record_id")
      .notNull()
      .references(() => reviewRecords.id, { onDelete: "cascade" }),
    stage: text("stage", { enum: SCREENING_STAGES }).notNull(),
    /** Who resolved it. */
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    decision: text("decision", { enum: SCREENING_DECISIONS }).notNull(),
    reason: text("reason"),
    createdAt: integer("created_at", { mode: "number" }).notNull().default(now),
  },
  (t) => [
    primaryKey({ columns: [t.recordId, t.stage] }),
    index("review_resolutions_review_idx").on(t.reviewId, t.stage),
  ],
);

/**
 * Dual screening: one member's title/abstract order, trained on the review's final decisions and
 * that member's own votes (the single-mode order is review_rankings).
 */
export const reviewMemberRankings = sqliteTable(
  "review_member_rankings",
  {
    reviewId: text("review_id")
      .notNull()
      .references(() => reviews.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    version: integer("version").notNull(),
    mode: text("mode").notNull(),
    ranked: text("ranked", { mode: "json" }).$type<[number, number, string[]][]>().notNull(),
    estimatedRelevantRemaining: real("estimated_relevant_remaining"),
    computedAt: integer("computed_at", { mode: "number" }).notNull().default(now),
  },
  (t) => [primaryKey({ columns: [t.reviewId, t.userId] })],
);

export type ReviewMemberRow = typeof reviewMembers.$inferSelect;
export type ReviewInvitationRow = typeof reviewInvitations.$inferSelect;

/** The arm-level values of one study for one outcome, as one extractor submitted them (null: not reported). */
export type SubmittedArmValues = Record<
  "intervention" | "comparator",
  Record<"events" | "groupSize" | "mean" | "sd", number | null>
>;

/**
 * Dual extraction (issue 30 item 5): one reviewer's submitted arm-level values for a study and an
 * outcome (a snapshot of the extraction with that reviewer's own corrections), at most one row per
 * reviewer (a re-submission replaces it).
 */
export const reviewExtractionSubmissions = sqliteTable(
  "review_extraction_submissions",
  {
    reviewId: text("review_id")
      .notNull()
      .references(() => reviews.id, { onDelete: "cascade" }),
    outcomeId: integer("outcome_id")
      .notNull()
      .references(() => reviewOutcomes.id, { onDelete: "cascade" }),
    recordId: integer("record_id")
      .notNull()
      .references(() => reviewRecords.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    values: text("values", { mode: "json" }).$type<SubmittedArmValues>().notNull(),
    submittedAt: integer("submitted_at", { mode: "number" }).notNull().default(now),
  },
  (t) => [
    primaryKey({ columns: [t.outcomeId, t.recordId, t.userId] }),
    index("review_extraction_submissions_review_idx").on(t.reviewId, t.userId),
  ],
);

/** The consensus value of one differing cell, by the owner or a named resolver; the latest row of a cell counts (older rows are its history). */
export const reviewExtractionConsensus = sqliteTable(
  "review_extraction_consensus",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    reviewId: text("review_id")
      .notNull()
      .references(() => reviews.id, { onDelete: "cascade" }),
    outcomeId: integer("outcome_id")
      .notNull()
      .references(() => reviewOutcomes.id, { onDelete: "cascade" }),
    recordId: integer("record_id")
      .notNull()
      .references(() => reviewRecords.id, { onDelete: "cascade" }),
    arm: text("arm", { enum: ["intervention", "comparator"] }).notNull(),
    field: text("field", { enum: ["events", "groupSize", "mean", "sd"] }).notNull(),
    value: real("value"),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    createdAt: integer("created_at", { mode: "number" }).notNull().default(now),
  },
  (t) => [index("review_extraction_consensus_cell_idx").on(t.outcomeId, t.recordId)],
);

/** The review's activity log: who did what when, written in the same D1 batch as the action. */
export const reviewActivity = sqliteTable(
  "review_activity",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    reviewId: text("review_id")
      .notNull()
      .references(() => reviews.id, { onDelete: "cascade" }),
    userId: text("user_id").references(() => users.id, { onDelete: "set null" }),
    action: text("action").notNull(),
    recordId: integer("record_id"),
    detail: text("detail", { mode: "json" })
      .$type<Record<string, unknown>>()
      .notNull()
      .default(sql`'{}'`),
    createdAt: integer("created_at", { mode: "number" }).notNull().default(now),
  },
  (t) => [index("review_activity_review_idx").on(t.reviewId, t.id)],
);

/** A member's (or the owner's) opt-in to the daily e-mail of conflicts waiting, and the UTC day it was last sent. */
export const reviewDigests = sqliteTable(
  "review_digests",
  {
    reviewId: text("review_id")
      .notNull()
      .references(() => reviews.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    enabled: integer("enabled", { mode: "boolean" }).notNull().default(false),
    lastSentDay: text("last_sent_day"),
  },
  (t) => [
    primaryKey({ columns: [t.reviewId, t.userId] }),
    index("review_digests_enabled_idx").on(t.enabled, t.lastSentDay),
  ],
);
