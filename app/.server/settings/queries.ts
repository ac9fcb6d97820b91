import { eq } from "drizzle-orm";
import { z } from "zod";
import { userSettings } from "../../../db/schema";
import type { Database } from "../db/client";
import { AppError, parseInput } from "../http/errors";

/** SPEC §3 User settings as the API shows them. */
export interface UserSettings {
  emailNotifications: boolean;
  /** One of the six database ids, or 'multi' (SPEC §5 Settings options). */
  defaultSearchProvider: string;
  /** csv, json, html, pdf, bibtex or ris. */
  defaultExportFormat: string;
  /** 10, 25, 50 or 100. */
  searchResultsPerPage: number;
  saveSearchHistory: boolean;
}

/** The spec's defaults, in force for every field while a user has no settings row. */
export const DEFAULT_USER_SETTINGS: Readonly<UserSettings> = Object.freeze({
  emailNotifications: true,
  defaultSearchProvider: "pubmed",
  defaultExportFormat: "csv",
  searchResultsPerPage: 25,
  saveSearchHistory: true,
});

/** The user's settings; the SPEC §3 defaults when no row has been stored yet. */
export async function getUserSettings({ db }: { db: Database }, { userId }: { userId: string }): Promise<UserSettings> {
  const [row] = await db
    .select({
      emailNotifications: userSettings.emailNotifications,
      defaultSearchProvider: userSettings.defaultSearchProvider,
      defaultExportFormat: userSettings.defaultExportFormat,
      searchResultsPerPage: userSettings.searchResultsPerPage,
      saveSearchHistory: userSettings.saveSearchHistory,
    })
    .from(userSettings)
    .where(eq(userSettings.userId, userId))
    .limit(1);
  return row ?? { ...DEFAULT_USER_SETTINGS };
}

/** SPEC §5 Settings options. */
export const SEARCH_PROVIDER_SETTINGS = [
  "pubmed",
  "crossref",
  "europepmc",
  "core",
  "semanticscholar",
  "doaj",
  "multi",
] as const;
export const EXPORT_FORMAT_SETTINGS = ["csv", "json", "html", "pdf", "bibtex", "ris"] as const;
export const RESULTS_PER_PAGE_SETTINGS = [10, 25, 50, 100] as const;

/**
 * PATCH /api/user/settings body: one or more settings fields (SPEC §7), nothing else. Unknown
 * fields are refused so a typo never looks like a successful save.
 */
export const UserSettingsPatchSchema = z
  .strictObject({
    emailNotifications: z.boolean({ error: "emailNotifications must be true or false" }),
    defaultSearchProvider: z.enum(SEARCH_PROVIDER_SETTINGS, {
      error: `defaultSearchProvider must be one of ${SEARCH_PROVIDER_SETTINGS.join(", ")}`,
    }),
    defaultExportFormat: z.enum(EXPORT_FORMAT_SETTINGS, {
      error: `defaultExportFormat must be one of ${EXPORT_FORMAT_SETTINGS.join(", ")}`,
    }),
    searchResultsPerPage: z.union(
      RESULTS_PER_PAGE_SETTINGS.map((n) => z.literal(n)),
      {
        error: "searchResultsPerPage must be 10, 25, 50 or 100",
      },
    ),
    saveSearchHistory: z.boolean({ error: "saveSearchHistory must be true or false" }),
  })
  .partial()
  .refine((patch) => Object.keys(patch).length > 0, "Send at least one setting");

/**
 * Saves some of the user's settings (a partial save: fields not sent keep their stored value or
 * the SPEC §3 default) in one upsert, and returns the full settings after the save.
 * Multi-Database as default search needs Professional (SPEC §5).
 * @throws AppError 400 INVALID_INPUT; 403 PRO_REQUIRED {feature:'multi_database'}.
 */
export async function updateUserSettings(
  { db }: { db: Database },
  { userId, isPro, patch: raw }: { userId: string; isPro: boolean; patch: unknown },
): Promise<UserSettings> {
  const patch = parseInput(UserSettingsPatchSchema, raw);
  if (patch.defaultSearchProvider === "multi" && !isPro) {
    throw new AppError("PRO_REQUIRED", "Multi-database search requires Professional subscription", 403, {
      feature: "multi_database",
    });
  }
  const [row] = await db
    .insert(userSettings)
    .values({ userId, ...patch })
    .onConflictDoUpdate({ target: userSettings.userId, set: { ...patch, updatedAt: Date.now() } })
    .returning({
      emailNotifications: userSettings.emailNotifications,
      defaultSearchProvider: userSettings.defaultSearchProvider,
      defaultExportFormat: userSettings.defaultExportFormat,
      searchResultsPerPage: userSettings.searchResultsPerPage,
      saveSearchHistory: userSettings.saveSearchHistory,
    });
  return row!;
}
