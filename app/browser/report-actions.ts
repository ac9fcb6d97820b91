import { toast } from "~/browser/toast";
import { withUserHtmlCsp } from "~/lib/user-html";
import { openUserHtml } from "~/browser/open-user-html";

/**
 * Client actions on a saved report (SPEC §2 Profile, §5): download the HTML, export it (print to
 * PDF, printing 1000 ms after it opens, SPEC §9), and send it to the student portal. Each needs
 * htmlContent; without it the spec's "no … content" message is shown.
 */

export interface ReportLike {
  id: number;
  name: string;
  type: string;
  htmlContent: string | null;
  createdAt: string;
}

/** SPEC §9: the printed report opens the print dialog after this delay. */
export const PRINT_DELAY_MS = 1000;
/** Study guides sent to the student portal, in localStorage. */
export const STUDENT_GUIDES_KEY = "metamind:student-study-guides:v1";

function missing(what: "viewable" | "downloadable" | "exportable"): void {
  toast({ title: "No content", description: `This report has no ${what} content.`, variant: "destructive" });
}

/** True when the report has HTML; otherwise shows the 'no viewable content' message. */
export function canView(report: ReportLike): boolean {
  if (report.htmlContent?.trim()) return true;
  missing("viewable");
  return false;
}

/** The download name: metamind-{type}-report-{timestamp}.html. */
export function reportFilename(report: ReportLike, now = Date.now()): string {
  return `metamind-${report.type}-report-${now}.html`;
}

/** Downloads the report's HTML, under the script-free CSP of user HTML (see ~/lib/user-html). */
export function downloadReport(report: ReportLike): void {
  if (!report.htmlContent?.trim()) return missing("downloadable");
  const url = URL.createObjectURL(new Blob([withUserHtmlCsp(report.htmlContent)], { type: "text/html;charset=utf-8" }));
  const a = document.createElement("a");
  a.href = url;
  a.download = reportFilename(report);
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
  toast({ title: "Download Started", description: a.download });
}

/**
 * Opens the report (sanitized on the server) in a new tab and prints it after 1000 ms, for
 * saving as PDF (A4, 0.75 in margins). The tab is a blob: URL, which shares the app's origin, so
 * the document carries the script-free CSP of user HTML as its first element: nothing in it can
 * run even if a stored report predates the current sanitizer.
 */
export function exportReport(report: ReportLike): void {
  if (!report.htmlContent?.trim()) return missing("exportable");
  const { tab, release } = openUserHtml(report.htmlContent, "<style>@page{size:A4;margin:0.75in}</style>");
  if (!tab) {
    release();
    toast({
      title: "Popup Blocked",
      description: "Please disable popup blockers and try again.",
      variant: "destructive",
    });
    return;
  }
  setTimeout(() => {
    try {
      tab.print();
    } catch (error) {
      console.warn("print failed", error);
    }
    release();
  }, PRINT_DELAY_MS);
}

/** Saves a copy as a study guide for the student portal (browser storage and the account) and opens /student#study-guides. */
export function sendToStudentPortal(report: ReportLike): void {
  if (!report.htmlContent?.trim()) return missing("exportable");
  try {
    const list: unknown = JSON.parse(localStorage.getItem(STUDENT_GUIDES_KEY) ?? "[]");
    const guides = Array.isArray(list) ? list : [];
    guides.unshift({
      id: `report-${report.id}`,
      title: report.name,
      type: report.type,
      htmlContent: report.htmlContent,
      savedAt: new Date().toISOString(),
    });
    localStorage.setItem(
      STUDENT_GUIDES_KEY,
      JSON.stringify(
        guides.filter((g, i, all) => all.findIndex((x) => (x as { id: string }).id === (g as { id: string }).id) === i),
      ),
    );
  } catch (error) {
    console.warn("Could not store the study guide", error);
  }
  window.open("/student#study-guides", "_blank");
  toast({ title: "Sent to Student Portal", description: report.name });
  // Signed in (Profile is), the guide is also kept on the account (POST /api/student/study-guides).
  fetch("/api/student/study-guides", {
    method: "POST",
    credentials: "include",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ reportId: report.id }),
  }).catch((error: unknown) => console.warn("The study guide is kept in this browser only", error));
}
