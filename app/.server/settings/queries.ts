import { eq } from "drizzle-orm";
import { userSettings } from "../../../db/schema";
import type { Database } from "../db/client";

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
export async function getUserSettings(
  { db }: { db: Database },
  { userId }: { userId: string },
): Promise<UserSettings> {
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
