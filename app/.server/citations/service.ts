import { eq } from "drizzle-orm";
import { studies } from "../../../db/schema";
import type { Database } from "../db/client";
import { AppError } from "../http/errors";
import { shownStudy } from "../studies/ensure";
import { citationsFor } from "./csl";

/**
 * SPEC §3 Citations of a stored study (or one a search just showed): {apa, mla, chicago} (plain text, official CSL styles).
 * @throws AppError 404 STUDY_NOT_FOUND.
 */
export async function getStudyCitations(
  { db }: { db: Database },
  { id }: { id: number },
): Promise<{ apa: string; mla: string; chicago: string }> {
  const [row] = await db
    .select({
      id: studies.id,
      title: studies.title,
      authors: studies.authors,
      journal: studies.journal,
      publicationDate: studies.publicationDate,
      doi: studies.doi,
      pmid: studies.pmid,
      pmcid: studies.pmcid,
      url: studies.url,
    })
    .from(studies)
    .where(eq(studies.id, id))
    .limit(1);
  if (!row) {
    // A study a search showed but nobody has acted on yet has no row (issue 17).
    const shown = shownStudy(id);
    if (shown) return citationsFor(shown);
  }
  if (!row) throw new AppError("STUDY_NOT_FOUND", "Study not found", 404);
  return citationsFor(row);
}
