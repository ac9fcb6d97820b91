import { useState, type FormEvent } from "react";
import { Button } from "~/components/ui/button";
import {
  Dialog,
  DialogClose,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from "~/components/ui/dialog";
import { Input } from "~/components/ui/input";
import { Label } from "~/components/ui/label";
import { DESCRIPTION_MAX, NAME_MAX, validateReportForm } from "~/lib/meta-analysis/page-logic";
import { toast } from "~/browser/toast";

export interface SaveReportDialogProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  /** Ids of the studies the report covers. */
  studyIds: readonly number[];
  /** Builds the self-contained report for the chosen name and description. */
  buildHtml: (name: string, description: string) => string;
  /** Extra fields of reportData (the description is added here). */
  reportData: Record<string, unknown>;
  defaultName: string;
  fetchImpl?: typeof fetch;
}

/**
 * Save Report dialog (SPEC §2, §5, §8): name (required after trimming, ≤ 100) and description
 * (≤ 500); POST /api/saved-reports {name, type: 'meta-analysis', studyIds, reportData,
 * htmlContent}. Toasts: 'Name required' / 'Please enter a name for your report.', 'Report Saved',
 * 'Sign In Required' on 401, and 'Failed to save report. Please try again.' on any other failure.
 */
export function SaveReportDialog({
  open,
  onOpenChange,
  studyIds,
  buildHtml,
  reportData,
  defaultName,
  fetchImpl,
}: SaveReportDialogProps) {
  const [name, setName] = useState(defaultName);
  const [description, setDescription] = useState("");
  const [saving, setSaving] = useState(false);

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    const invalid = validateReportForm(name, description);
    if (invalid) {
      toast({ ...invalid, variant: "destructive" });
      return;
    }
    setSaving(true);
    try {
      const trimmed = name.trim();
      const desc = description.trim();
      const res = await (fetchImpl ?? fetch)("/api/saved-reports", {
        method: "POST",
        credentials: "include",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({
          name: trimmed,
          type: "meta-analysis",
          studyIds,
          reportData: { ...reportData, ...(desc ? { description: desc } : {}) },
          htmlContent: buildHtml(trimmed, desc),
        }),
      });
      if (res.status === 401) {
        toast({
          title: "Sign In Required",
          description: "Sign in to save reports to your profile.",
          variant: "destructive",
        });
        return;
      }
      if (!res.ok) {
        const body = (await res.json().catch(() => null)) as { message?: string } | null;
        console.warn("saving the report failed", res.status, body?.message);
        toast({ title: "Error", description: "Failed to save report. Please try again.", variant: "destructive" });
        return;
      }
      toast({ title: "Report Saved", description: `"${trimmed}" was saved to your reports.` });
      onOpenChange(false);
    } catch (error) {
      console.warn("saving the report failed", error);
      toast({ title: "Error", description: "Failed to save report. Please try again.", variant: "destructive" });
    } finally {
      setSaving(false);
    }
  }

  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent data-testid="save-report-dialog" className="max-w-md">
        <DialogHeader closeClassName="size-8">
          <div>
            <DialogTitle>Save Report</DialogTitle>
            <DialogDescription>
              The report (data, plots, results, GRADE and PRISMA) is saved to your profile.
            </DialogDescription>
          </div>
        </DialogHeader>
        <form onSubmit={onSubmit} className="mt-4 space-y-4" noValidate>
          <div className="space-y-1">
            <Label htmlFor="report-name">Name</Label>
            <Input
              id="report-name"
              value={name}
              maxLength={NAME_MAX}
              onChange={(e) => setName(e.target.value)}
              aria-describedby="report-name-count"
            />
            <p id="report-name-count" className="text-right text-xs text-slate-500">
              {name.trim().length}/{NAME_MAX}
            </p>
          </div>
          <div className="space-y-1">
            <Label htmlFor="report-description">Description (optional)</Label>
            <textarea
              id="report-description"
              value={description}
              maxLength={DESCRIPTION_MAX}
              rows={3}
              onChange={(e) => setDescription(e.target.value)}
              aria-describedby="report-description-count"
              className="w-full rounded-md border border-slate-300 px-3 py-2 text-sm outline-none focus:border-brand-500 focus:ring-2 focus:ring-brand-100"
            />
            <p id="report-description-count" className="text-right text-xs text-slate-500">
              {description.trim().length}/{DESCRIPTION_MAX}
            </p>
          </div>
          <DialogFooter className="mt-0">
            <DialogClose asChild>
              <Button type="button" variant="outline">
                Cancel
              </Button>
            </DialogClose>
            <Button type="submit" disabled={saving}>
              {saving ? "Saving..." : "Save Report"}
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}
