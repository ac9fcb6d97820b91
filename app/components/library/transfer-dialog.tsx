import { useEffect, useState } from "react";
import { Button } from "~/components/ui/button";
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from "~/components/ui/dialog";
import type { ReportLike } from "~/browser/report-actions";
import { toast } from "~/browser/toast";

interface Assignment {
  id: string | number;
  title: string;
  dueDate?: string | null;
}

/**
 * Transfer a report to a student assignment (SPEC §2 Profile, §4 Reports): lists
 * GET /api/student/assignments, posts the report as the study guide to
 * /api/student/assignments/{id}/transfer-study-guide, closes on success.
 */
export function TransferDialog({ report, onClose }: { report: ReportLike | null; onClose: () => void }) {
  return (
    <Dialog open={report !== null} onOpenChange={(open) => !open && onClose()}>
      <DialogContent className="max-w-md">
        <DialogHeader>
          <DialogTitle>Transfer to Assignment</DialogTitle>
        </DialogHeader>
        <DialogDescription>{report?.name}</DialogDescription>
        {report && <TransferForm report={report} onDone={onClose} />}
      </DialogContent>
    </Dialog>
  );
}

function TransferForm({ report, onDone }: { report: ReportLike; onDone: () => void }) {
  const [assignments, setAssignments] = useState<Assignment[] | null>(null);
  const [selected, setSelected] = useState("");
  const [pending, setPending] = useState(false);

  useEffect(() => {
    fetch("/api/student/assignments", { credentials: "include" })
      .then(async (res) => {
        if (!res.ok) throw new Error(`${res.status}`);
        const body = (await res.json()) as Assignment[] | { assignments?: Assignment[] };
        setAssignments(Array.isArray(body) ? body : (body.assignments ?? []));
      })
      .catch(() => setAssignments([]));
  }, []);

  async function transfer() {
    if (!selected) {
      toast({ title: "Error", description: "Please select an assignment to transfer to.", variant: "destructive" });
      return;
    }
    setPending(true);
    try {
      const res = await fetch(`/api/student/assignments/${encodeURIComponent(selected)}/transfer-study-guide`, {
        method: "POST",
        credentials: "include",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ studyGuideId: `report-${report.id}` }),
      });
      if (!res.ok) throw new Error(`${res.status}: ${await res.text()}`);
      toast({ title: "Study guide transferred", description: report.name });
      setSelected("");
      onDone();
    } catch (error) {
      console.warn("transfer failed", error);
      toast({ title: "Error", description: "Failed to transfer study guide", variant: "destructive" });
    } finally {
      setPending(false);
    }
  }

  if (assignments === null) return <p className="mt-4 text-sm text-slate-500">Loading assignments...</p>;
  if (assignments.length === 0) return <p className="mt-4 text-sm text-slate-600">No assignments available.</p>;
  return (
    <div className="mt-4 space-y-4">
      <select
        aria-label="Assignment"
        value={selected}
        onChange={(e) => setSelected(e.target.value)}
        className="h-10 w-full rounded-md border border-slate-300 bg-white px-3 text-sm"
      >
        <option value="">Select an assignment</option>
        {assignments.map((a) => (
          <option key={a.id} value={String(a.id)}>
            {a.title}
            {a.dueDate ? ` (due ${a.dueDate})` : ""}
          </option>
        ))}
      </select>
      <div className="flex justify-end">
        <Button onClick={transfer} disabled={pending}>
          {pending ? "Transferring..." : "Transfer"}
        </Button>
      </div>
    </div>
  );
}
