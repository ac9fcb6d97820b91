import { and, desc, eq, sql } from "drizzle-orm";
import { z } from "zod";
import { bookmarks, studies } from "../../../db/schema";
import type { Database } from "../db/client";
import type { Bindings } from "../env";
import { AppError, parseInput } from "../http/errors";
import { ensureStudy } from "../studies/ensure";

/** Bookmarks a user may keep. */
export const MAX_BOOKMARKS = 2000;

/** SPEC §5: bookmarking needs sign-in. */
export const BOOKMARK_SIGN_IN_MESSAGE = "Please sign in to bookmark studies";

/** POST/DELETE /api/bookmarks body: {studyId} (a stored study's id, number or digit string). */
export const BookmarkInputSchema = z.object({
  studyId: z
    .union([z.number().int().positive(), z.string().regex(/^[1-9]\d{0,14}$/)], {
      error: "studyId must be a positive whole number",
    })
    .transform(Number),
});

/** SPEC §3 Bookmark item: bookmark.id and the study (plus fields the profile and export use). */
export interface BookmarkItem {
  bookmark: { id: number; createdAt: string };
  study: {
    id: number;
    title: string;
    authors: string[];
    journal: string | null;
    publicationDate: string | null;
    doi: string | null;
    pmid: string | null;
    abstract: string | null;
    source: string;
    studyType: string;
    isOpenAccess: boolean;
    openAccessUrl: string | null;
    url: string | null;
  };
}

/** The user's bookmarks, newest first, each with its study. */
export async function listBookmarks({ db }: { db: Database }, { userId }: { userId: string }): Promise<BookmarkItem[]> {
  const rows = await db
    .select({ bookmark: bookmarks, study: studies })
    .from(bookmarks)
    .innerJoin(studies, eq(studies.id, bookmarks.studyId))
    .where(eq(bookmarks.userId, userId))
    .orderBy(desc(bookmarks.createdAt), desc(bookmarks.id));
  return rows.map(({ bookmark, study }) => ({
    bookmark: { id: bookmark.id, createdAt: new Date(bookmark.createdAt).toISOString() },
    study: {
      id: study.id,
      title: study.title,
      authors: study.authors,
      journal: study.journal,
      publicationDate: study.publicationDate,
      doi: study.doi,
      pmid: study.pmid,
      abstract: study.abstract,
      source: study.source,
      studyType: study.studyType,
      isOpenAccess: study.isOpenAccess,
      openAccessUrl: study.openAccessUrl,
      url: study.url,
    },
  }));
}

/**
 * Bookmarks a study for the user (storing its row first when only a search had shown it). Idempotent: bookmarking a study twice returns the
 * existing bookmark (`created: false`). One statement checks the study exists and the cap.
 * @throws AppError 400 INVALID_INPUT; 404 STUDY_NOT_FOUND; 409 LIMIT_REACHED.
 */
export async function addBookmark(
  app: { db: Database; bindings: Pick<Bindings, "DB"> },
  { userId, body }: { userId: string; body: unknown },
): Promise<{ bookmark: { id: number; studyId: number; createdAt: string }; created: boolean }> {
  const { db } = app;
  const requested = parseInput(BookmarkInputSchema, body).studyId;
  // A study only a search has shown gets its row now (issue 17: searches write none).
  const studyId = (await ensureStudy(app, requested)) ?? requested;
  const inserted = await db.get<{ id: number; createdAt: number } | undefined>(sql`
    INSERT INTO bookmarks (user_id, study_id)
    SELECT ${userId}, ${studyId}
    WHERE EXISTS (SELECT 1 FROM studies WHERE id = ${studyId})
      AND (SELECT count(*) FROM bookmarks WHERE user_id = ${userId}) < ${MAX_BOOKMARKS}
    ON CONFLICT (user_id, study_id) DO NOTHING
    RETURNING id, created_at AS createdAt`);
  if (inserted) {
    return {
      bookmark: { id: inserted.id, studyId, createdAt: new Date(inserted.createdAt).toISOString() },
      created: true,
    };
  }
  const [existing] = await db
    .select({ id: bookmarks.id, createdAt: bookmarks.createdAt })
    .from(bookmarks)
    .where(and(eq(bookmarks.userId, userId), eq(bookmarks.studyId, studyId)))
    .limit(1);
  if (existing) {
    return {
      bookmark: { id: existing.id, studyId, createdAt: new Date(existing.createdAt).toISOString() },
      created: false,
    };
  }
  const [study] = await db.select({ id: studies.id }).from(studies).where(eq(studies.id, studyId)).limit(1);
  if (!study) throw new AppError("STUDY_NOT_FOUND", "Study not found.", 404);
  throw new AppError("LIMIT_REACHED", `You can keep at most ${MAX_BOOKMARKS} bookmarks.`, 409, {
    limit: MAX_BOOKMARKS,
  });
}

/**
 * Removes the user's bookmark of a study (only ever the caller's own row).
 * @throws AppError 400 INVALID_INPUT; 404 BOOKMARK_NOT_FOUND when the user has not bookmarked it.
 */
export async function removeBookmark(
  { db }: { db: Database },
  { userId, body }: { userId: string; body: unknown },
): Promise<void> {
  const { studyId } = parseInput(BookmarkInputSchema, body);
  const deleted = await db
    .delete(bookmarks)
    .where(and(eq(bookmarks.userId, userId), eq(bookmarks.studyId, studyId)))
    .returning({ id: bookmarks.id });
  if (deleted.length === 0) throw new AppError("BOOKMARK_NOT_FOUND", "This study is not bookmarked.", 404);
}
