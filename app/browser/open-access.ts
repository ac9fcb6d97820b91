import { toast } from "~/browser/toast";
import { storedStudyId } from "~/browser/sealed-studies";

/** The two repository searches the open-access action opens (SPEC §2: 2 tabs). */
export function repositorySearchUrls(study: { title: string; doi?: string | null }): [string, string] {
  const q = study.doi ? `DOI:"${study.doi}"` : `"${study.title}"`;
  return [
    `https://europepmc.org/search?query=${encodeURIComponent(q)}`,
    `https://core.ac.uk/search?q=${encodeURIComponent(`"${study.title}"`)}`,
  ];
}

/**
 * Opens the repository searches in two new tabs; when the browser blocks either, the
 * 'Popup Blocked' toast asks to allow pop-ups. Returns true when both opened. (The tabs are
 * opened without the "noopener" feature, which would make window.open return null even on
 * success, and the opener is cut by hand instead.)
 */
export function openRepositorySearch(
  study: { title: string; doi?: string | null },
  open: (url: string, target: string) => Window | null = (url, target) => window.open(url, target),
): boolean {
  const opened = repositorySearchUrls(study).map((url) => {
    const tab = open(url, "_blank");
    if (tab) tab.opener = null;
    return tab;
  });
  if (opened.some((tab) => !tab)) {
    toast({
      title: "Popup Blocked",
      description: "Please disable popup blockers and try again.",
      variant: "destructive",
    });
    return false;
  }
  return true;
}

/** One study's open-access answer from GET /api/studies/open-access-stats. */
export interface StudyOpenAccess {
  studyId: number;
  isOpenAccess: boolean;
  hasRepositoryCopy: boolean;
  url: string | null;
  source: string;
}

/** Looks one study up; null when the lookup fails. */
export async function lookupOpenAccess(studyId: number): Promise<StudyOpenAccess | null> {
  try {
    const res = await fetch(`/api/studies/open-access-stats?studyIds=${await storedStudyId(studyId)}`, {
      credentials: "include",
    });
    if (!res.ok) return null;
    const body = (await res.json()) as { studies?: StudyOpenAccess[] };
    return body.studies?.find((s) => s.studyId === studyId) ?? null;
  } catch (error) {
    console.warn("open-access lookup failed", error);
    return null;
  }
}
