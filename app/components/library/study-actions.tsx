import { Bookmark, BookmarkCheck, Download, ExternalLink, Quote, Unlock } from "lucide-react";
import { useEffect, useState } from "react";
import { loadWhenOpen } from "~/components/on-demand";
import { loadBookmarks, toggleBookmark, useIsBookmarked } from "~/browser/bookmarks";
import { lookupOpenAccess, openRepositorySearch } from "~/browser/open-access";
import { toast } from "~/browser/toast";
import { httpUrl } from "~/lib/user-html";

const ExportDialog = loadWhenOpen(() => import("~/components/export-dialog").then((m) => m.ExportDialog));
const CitationDialog = loadWhenOpen(() => import("~/components/library/citation-dialog").then((m) => m.CitationDialog));

const BUTTON =
  "inline-flex items-center gap-1.5 rounded-md border border-slate-300 bg-white px-2.5 py-1 text-xs font-medium text-slate-700 hover:bg-slate-100 disabled:opacity-50";

/** SPEC §9: study titles in toasts are cut at 50 characters. */
export function toastTitle(title: string): string {
  return title.length > 50 ? `${title.slice(0, 50)}...` : title;
}

/**
 * The study card's library actions (SPEC §2 Study card): bookmark toggle (sign-in required;
 * queued offline), cite (APA/MLA/Chicago dialog), export (the export dialog for this study) and
 * open access (the free copy when one is known, else the repository search in two tabs).
 */
export function StudyLibraryActions({
  study,
  signedIn,
}: {
  study: { id: number; title: string; doi: string | null; openAccessUrl: string | null };
  signedIn: boolean;
}) {
  const bookmarked = useIsBookmarked(study.id);
  const [pending, setPending] = useState<"bookmark" | "oa" | null>(null);
  const [citeOpen, setCiteOpen] = useState(false);
  const [exportOpen, setExportOpen] = useState(false);

  useEffect(() => {
    if (signedIn) void loadBookmarks();
  }, [signedIn]);

  async function onBookmark() {
    if (!signedIn) {
      toast({ title: "Sign In Required", description: "Please sign in to bookmark studies", variant: "destructive" });
      return;
    }
    setPending("bookmark");
    const outcome = await toggleBookmark(study.id, !bookmarked);
    setPending(null);
    switch (outcome.kind) {
      case "saved":
      case "queued":
        toast({
          title: outcome.bookmarked ? "Bookmarked" : "Bookmark removed",
          description:
            outcome.kind === "queued"
              ? `${toastTitle(study.title)} — you are offline; this will sync when you reconnect.`
              : toastTitle(study.title),
        });
        break;
      case "signin":
        toast({ title: "Sign In Required", description: "Please sign in to bookmark studies", variant: "destructive" });
        break;
      case "error":
        toast({
          title: "Error",
          description: bookmarked ? "Failed to remove bookmark" : outcome.message,
          variant: "destructive",
        });
        break;
    }
  }

  async function onOpenAccess() {
    // Open the tab synchronously (user gesture) when the copy is already known.
    const known = httpUrl(study.openAccessUrl);
    if (known) {
      const tab = window.open(known, "_blank");
      if (tab) tab.opener = null;
      else
        toast({
          title: "Popup Blocked",
          description: "Please disable popup blockers and try again.",
          variant: "destructive",
        });
      return;
    }
    setPending("oa");
    const result = await lookupOpenAccess(study.id);
    setPending(null);
    const found = httpUrl(result?.url);
    if (found) {
      toast({ title: "Open-access copy found", description: found });
      const tab = window.open(found, "_blank");
      if (tab) tab.opener = null;
      else
        toast({
          title: "Popup Blocked",
          description: "Please disable popup blockers and try again.",
          variant: "destructive",
        });
      return;
    }
    openRepositorySearch(study);
  }

  return (
    <div className="mt-3 flex flex-wrap gap-2" data-testid="library-actions">
      <button
        type="button"
        className={BUTTON}
        data-testid="bookmark-button"
        aria-pressed={bookmarked}
        disabled={pending === "bookmark"}
        onClick={onBookmark}
      >
        {bookmarked ? (
          <BookmarkCheck className="size-3.5 text-brand-600" aria-hidden />
        ) : (
          <Bookmark className="size-3.5" aria-hidden />
        )}
        {bookmarked ? "Bookmarked" : "Bookmark"}
      </button>
      <button type="button" className={BUTTON} data-testid="cite-button" onClick={() => setCiteOpen(true)}>
        <Quote className="size-3.5" aria-hidden />
        Cite
      </button>
      <button type="button" className={BUTTON} data-testid="export-button" onClick={() => setExportOpen(true)}>
        <Download className="size-3.5" aria-hidden />
        Export
      </button>
      <button
        type="button"
        className={BUTTON}
        data-testid="open-access-button"
        disabled={pending === "oa"}
        onClick={onOpenAccess}
        title={
          study.openAccessUrl ? "Open the free full text" : "Find a free copy (Unpaywall, Europe PMC, repositories)"
        }
      >
        {study.openAccessUrl ? (
          <ExternalLink className="size-3.5" aria-hidden />
        ) : (
          <Unlock className="size-3.5" aria-hidden />
        )}
        {pending === "oa" ? "Looking up..." : study.openAccessUrl ? "Read free full text" : "Find open access"}
      </button>
      <CitationDialog studyId={study.id} title={study.title} open={citeOpen} onOpenChange={setCiteOpen} />
      <ExportDialog open={exportOpen} onOpenChange={setExportOpen} studyIds={[study.id]} />
    </div>
  );
}
