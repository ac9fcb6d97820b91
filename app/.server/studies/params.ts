import { AppError } from "../http/errors";

/** Parses a study id path segment: a positive integer, else 400 INVALID_STUDY_ID. */
export function parseStudyId(raw: string | undefined): number {
  const id = Number(raw);
  if (!raw || !/^\d{1,15}$/.test(raw) || !Number.isSafeInteger(id) || id < 1) {
    throw new AppError("INVALID_STUDY_ID", "Study id must be a positive whole number", 400);
  }
  return id;
}
