import { STUDENT_GUIDES_KEY } from "~/browser/report-actions";

/** SPEC §3 Student assignment as GET /api/student/assignments returns it. */
export interface StudentAssignment {
  id: number;
  title: string;
  dueDate: string;
  notes: string;
}

/** A study guide from browser storage (`local-…` ids) or the server (numeric ids). */
export interface StudentGuide {
  key: string;
  /** Server id, or "report-{id}" for a local copy of a saved report. */
  transferId: string | number | null;
  title: string;
  type: string;
  htmlContent: string;
  assignmentId: number | null;
  savedAt: string;
}

/** Today as YYYY-MM-DD in the browser's time zone. */
export function localToday(now = new Date()): string {
  const p = (n: number) => String(n).padStart(2, "0");
  return `${now.getFullYear()}-${p(now.getMonth() + 1)}-${p(now.getDate())}`;
}

/** An assignment is overdue once its due date (a whole day) has passed. */
export function isOverdue(dueDate: string, today: string): boolean {
  return dueDate < today;
}

/** Assignments soonest due first; ties keep creation order (id). Pure. */
export function sortByDueDate<T extends { id: number; dueDate: string }>(list: readonly T[]): T[] {
  return [...list].sort((a, b) => (a.dueDate < b.dueDate ? -1 : a.dueDate > b.dueDate ? 1 : a.id - b.id));
}

/** Study guides kept in browser storage by 'Send to Student Portal' (SPEC §4 Reports). */
export function readLocalGuides(): StudentGuide[] {
  try {
    const list: unknown = JSON.parse(localStorage.getItem(STUDENT_GUIDES_KEY) ?? "[]");
    if (!Array.isArray(list)) return [];
    return list
      .filter(
        (g): g is Record<string, unknown> => typeof g === "object" && g !== null && typeof g.htmlContent === "string",
      )
      .map((g) => ({
        key: `local-${String(g.id)}`,
        transferId: typeof g.id === "string" && /^report-\d+$/.test(g.id) ? g.id : null,
        title: typeof g.title === "string" ? g.title : "Study guide",
        type: typeof g.type === "string" ? g.type : "export",
        htmlContent: g.htmlContent as string,
        assignmentId: null,
        savedAt: typeof g.savedAt === "string" ? g.savedAt : new Date(0).toISOString(),
      }));
  } catch (error) {
    console.warn("Could not read the stored study guides", error);
    return [];
  }
}
