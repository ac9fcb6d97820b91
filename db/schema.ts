/**
 * D1 schema, the single source of truth for tables. drizzle-kit generates db/migrations from it;
 * wrangler applies those migrations (wrangler.toml migrations_dir).
 */
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

const now = sql`(unixepoch('subsec') * 1000)`;

export const users = sqliteTable(
  "users",
  {
    id: text("id").primaryKey(),
    email: text("email").notNull(),
    passwordHash: text("password_hash").notNull(),
    firstName: text("first_name"),
    lastName: text("last_name"),
    profileImageUrl: text("profile_image_url"),
    plan: text("plan", { enum: ["free", "pro"] })
      .notNull()
      .default("free"),
    subscriptionPlatform: text("subscription_platform"),
    createdAt: integer("created_at", { mode: "number" }).notNull().default(now),
  },
  (t) => [uniqueIndex("users_email_unique").on(t.email)],
);

export const sessions = sqliteTable(
  "sessions",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    expiresAt: integer("expires_at", { mode: "number" }).notNull(),
    createdAt: integer("created_at", { mode: "number" }).notNull().default(now),
  },
  (t) => [index("sessions_user_idx").on(t.userId)],
);

export const studies = sqliteTable(
  "studies",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    doi: text("doi"),
    pmid: text("pmid"),
    pmcid: text("pmcid"),
    titleKey: text("title_key").notNull(),
    title: text("title").notNull(),
    abstract: text("abstract"),
    authors: text("authors", { mode: "json" }).$type<string[]>().notNull(),
    journal: text("journal"),
    publicationDate: text("publication_date"),
    source: text("source").notNull(),
    sourceId: text("source_id").notNull(),
    studyType: text("study_type").notNull(),
    publicationTypes: text("publication_types", { mode: "json" }).$type<string[]>().notNull(),
    fullTextAvailable: integer("full_text_available", { mode: "boolean" }).notNull().default(false),
    isOpenAccess: integer("is_open_access", { mode: "boolean" }).notNull().default(false),
    openAccessUrl: text("open_access_url"),
    url: text("url"),
    impactFactor: real("impact_factor"),
    citationCount: integer("citation_count"),
    createdAt: integer("created_at", { mode: "number" }).notNull().default(now),
    updatedAt: integer("updated_at", { mode: "number" }).notNull().default(now),
  },
  (t) => [
    uniqueIndex("studies_doi_unique").on(t.doi),
    uniqueIndex("studies_pmid_unique").on(t.pmid),
    index("studies_title_key_idx").on(t.titleKey),
    // Records with no DOI, no PMID and a short title are known by their database's own id.
    index("studies_source_idx").on(t.source, t.sourceId),
  ],
);

export const searchHistory = sqliteTable(
  "search_history",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    query: text("query").notNull(),
    filters: text("filters", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    providers: text("providers", { mode: "json" }).$type<string[]>().notNull(),
    resultCount: integer("result_count").notNull(),
    /** Per database: status, records returned and records identified (PRISMA "identified"). */
    providerCounts: text("provider_counts", { mode: "json" })
      .$type<Record<string, { status: string; count: number; totalCount: number }>>()
      .notNull()
      .default(sql`'{}'`),
    duplicatesRemoved: integer("duplicates_removed").notNull().default(0),
    createdAt: integer("created_at", { mode: "number" }).notNull().default(now),
  },
  (t) => [index("search_history_user_idx").on(t.userId, t.createdAt)],
);

/** SPEC §3 User settings, one row per user; absent row = the spec's defaults. */
export const userSettings = sqliteTable("user_settings", {
  userId: text("user_id")
    .primaryKey()
    .references(() => users.id, { onDelete: "cascade" }),
  emailNotifications: integer("email_notifications", { mode: "boolean" }).notNull().default(true),
  defaultSearchProvider: text("default_search_provider").notNull().default("pubmed"),
  defaultExportFormat: text("default_export_format").notNull().default("csv"),
  searchResultsPerPage: integer("search_results_per_page").notNull().default(25),
  saveSearchHistory: integer("save_search_history", { mode: "boolean" }).notNull().default(true),
  updatedAt: integer("updated_at", { mode: "number" }).notNull().default(now),
});

/** SPEC §3 Saved search: a named query (with the filters and databases it ran with). */
export const savedSearches = sqliteTable(
  "saved_searches",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    query: text("query").notNull(),
    filters: text("filters", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    createdAt: integer("created_at", { mode: "number" }).notNull().default(now),
  },
  (t) => [index("saved_searches_user_idx").on(t.userId, t.createdAt)],
);

/** AI texts about a study, one row per (study, feature, focus, model); the newest is shown. */
export const aiSummaries = sqliteTable(
  "ai_summaries",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    studyId: integer("study_id")
      .notNull()
      .references(() => studies.id, { onDelete: "cascade" }),
    feature: text("feature").notNull().default("summary"),
    focus: text("focus").notNull().default(""),
    model: text("model").notNull(),
    content: text("content").notNull(),
    /**
     * Grounding: the source passages the text rests on, as JSON
     * `[{id, quote, start, end}]` (character offsets into the source text); null when none.
     */
    citations: text("citations", { mode: "json" }).$type<{ id: string; quote: string; start: number; end: number }[]>(),
    /**
     * Who may see the row: '' = everyone; a user id = that user only (a full-text analysis of a
     * URL the user supplied rather than the study's own resolved open-access location).
     */
    ownerId: text("owner_id").notNull().default(""),
    /** The URL the text was fetched from (full-text analyses); null for abstract-based texts. */
    sourceUrl: text("source_url"),
    createdAt: integer("created_at", { mode: "number" }).notNull().default(now),
    updatedAt: integer("updated_at", { mode: "number" }).notNull().default(now),
  },
  (t) => [
    uniqueIndex("ai_summaries_key_unique").on(t.studyId, t.feature, t.focus, t.model, t.ownerId),
    index("ai_summaries_study_idx").on(t.studyId, t.feature, t.updatedAt),
  ],
);

export type UserRow = typeof users.$inferSelect;
export type UserSettingsRow = typeof userSettings.$inferSelect;
export type StudyRow = typeof studies.$inferSelect;

/**
 * Metered AI use: gated AI actions per user per calendar month (UTC, "YYYY-MM"). A row is
 * incremented once per successful action; absent row = 0.
 */
export const aiUsage = sqliteTable(
  "ai_usage",
  {
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    period: text("period").notNull(),
    count: integer("count").notNull().default(0),
    updatedAt: integer("updated_at", { mode: "number" }).notNull().default(now),
  },
  (t) => [primaryKey({ columns: [t.userId, t.period] })],
);

export * from "./schema.meta";
export * from "./schema.uploads";
export * from "./schema.library";
export * from "./schema.extraction";
export * from "./schema.sharing";
export * from "./schema.security";
export * from "./schema.reliability";
export * from "./schema.reviews";
export * from "./schema.billing";
export * from "./schema.student";
export * from "./schema.review-extraction";
export * from "./schema.risk-of-bias";
export * from "./schema.review-team";
export * from "./schema.characteristics";
