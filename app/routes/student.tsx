import type { MetaFunction } from "@remix-run/cloudflare";
import { Link } from "@remix-run/react";
import { BookOpen, CalendarClock, Trash2 } from "lucide-react";
import { useCallback, useEffect, useState, type FormEvent } from "react";
import { Badge } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import { Card, CardContent, CardHeader, CardTitle } from "~/components/ui/card";
import { Input } from "~/components/ui/input";
import { Label } from "~/components/ui/label";
import {
  isOverdue,
  localToday,
  readLocalGuides,
  sortByDueDate,
  type StudentAssignment,
  type StudentGuide,
} from "~/browser/student";
import { toast } from "~/browser/toast";
import { openUserHtml } from "~/browser/open-user-html";
import { useOptionalUser } from "~/root";

export const meta: MetaFunction = () => [{ title: "Student Portal · MetaMind" }];

async function api<T>(path: string, init?: RequestInit): Promise<T> {
  const res = await fetch(path, {
    credentials: "include",
    ...init,
    headers: { "Content-Type": "application/json", ...init?.headers },
  });
  if (!res.ok) throw new Error(`${res.status}: ${await res.text().catch(() => res.statusText)}`);
  return (await res.json()) as T;
}

interface ServerGuide {
  id: number;
  title: string;
  reportType: string;
  htmlContent: string;
  assignmentId: number | null;
  createdAt: string;
}

/**
 * Student Portal (SPEC §2 /student): assignments the student creates (sorted by due date, with an
 * overdue badge) and study guides (#study-guides) sent from Profile — kept in browser storage and,
 * when signed in, on the server — which can be transferred to an assignment.
 */
export default function StudentPortal() {
  const user = useOptionalUser();
  const [assignments, setAssignments] = useState<StudentAssignment[] | null>(null);
  const [guides, setGuides] = useState<StudentGuide[]>([]);
  const [today, setToday] = useState("");

  const load = useCallback(async () => {
    const local = readLocalGuides();
    if (!user) {
      setGuides(local);
      setAssignments([]);
      return;
    }
    try {
      const [a, g] = await Promise.all([
        api<{ assignments: StudentAssignment[] }>("/api/student/assignments"),
        api<{ studyGuides: ServerGuide[] }>("/api/student/study-guides"),
      ]);
      setAssignments(sortByDueDate(a.assignments));
      const server: StudentGuide[] = g.studyGuides.map((s) => ({
        key: `server-${s.id}`,
        transferId: s.id,
        title: s.title,
        type: s.reportType,
        htmlContent: s.htmlContent,
        assignmentId: s.assignmentId,
        savedAt: s.createdAt,
      }));
      // A local copy the server also holds (same title and HTML) is shown once.
      const onServer = new Set(server.map((s) => `${s.title}\n${s.htmlContent}`));
      setGuides([...server, ...local.filter((l) => !onServer.has(`${l.title}\n${l.htmlContent}`))]);
    } catch (error) {
      console.warn("student portal load failed", error);
      setAssignments([]);
      setGuides(local);
      toast({
        title: "Error",
        description: "Could not load your assignments. Please try again.",
        variant: "destructive",
      });
    }
  }, [user]);

  useEffect(() => {
    setToday(localToday());
    void load();
  }, [load]);

  useEffect(() => {
    if (window.location.hash === "#study-guides") document.getElementById("study-guides")?.scrollIntoView();
  }, [guides.length]);

  return (
    <div className="mx-auto max-w-4xl px-4 py-10 sm:px-6">
      <h1 className="text-3xl font-bold tracking-tight text-slate-900">Student Portal</h1>
      <p className="mt-2 text-slate-600">Plan your assignments and keep the study guides you send from your reports.</p>

      {user ? (
        <Assignments assignments={assignments} today={today} onChange={load} />
      ) : (
        <Card className="mt-8">
          <CardContent className="p-6 text-slate-700">
            <Link to="/auth" className="font-medium text-brand-700 underline">
              Sign in
            </Link>{" "}
            to create assignments and keep study guides on your account.
          </CardContent>
        </Card>
      )}

      <section id="study-guides" className="mt-10 scroll-mt-20" aria-labelledby="study-guides-title">
        <h2 id="study-guides-title" className="flex items-center gap-2 text-xl font-semibold text-slate-900">
          <BookOpen className="size-5 text-brand-600" aria-hidden />
          Study Guides
        </h2>
        {guides.length === 0 ? (
          <p className="mt-3 rounded-xl border border-dashed border-slate-300 bg-white p-6 text-center text-slate-600">
            No study guides yet. Use &lsquo;Send to Student Portal&rsquo; on a report in your profile.
          </p>
        ) : (
          <ul className="mt-4 space-y-3">
            {guides.map((g) => (
              <GuideRow key={g.key} guide={g} assignments={user ? (assignments ?? []) : []} onChange={load} />
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}

function Assignments({
  assignments,
  today,
  onChange,
}: {
  assignments: StudentAssignment[] | null;
  today: string;
  onChange: () => Promise<void>;
}) {
  const [title, setTitle] = useState("");
  const [dueDate, setDueDate] = useState("");
  const [notes, setNotes] = useState("");
  const [pending, setPending] = useState(false);

  async function create(event: FormEvent) {
    event.preventDefault();
    setPending(true);
    try {
      await api("/api/student/assignments", { method: "POST", body: JSON.stringify({ title, dueDate, notes }) });
      setTitle("");
      setDueDate("");
      setNotes("");
      toast({ title: "Assignment added", description: title.trim() });
      await onChange();
    } catch (error) {
      console.warn("create assignment failed", error);
      toast({ title: "Error", description: "Failed to add the assignment. Please try again.", variant: "destructive" });
    } finally {
      setPending(false);
    }
  }

  async function remove(a: StudentAssignment) {
    if (!window.confirm(`Delete "${a.title}"? Its study guides stay in the portal.`)) return;
    try {
      await api(`/api/student/assignments/${a.id}`, { method: "DELETE" });
      await onChange();
    } catch (error) {
      console.warn("delete assignment failed", error);
      toast({ title: "Error", description: "Failed to delete the assignment.", variant: "destructive" });
    }
  }

  return (
    <section className="mt-8" aria-labelledby="assignments-title">
      <h2 id="assignments-title" className="flex items-center gap-2 text-xl font-semibold text-slate-900">
        <CalendarClock className="size-5 text-brand-600" aria-hidden />
        Assignments
      </h2>
      <Card className="mt-4">
        <CardHeader>
          <CardTitle>New assignment</CardTitle>
        </CardHeader>
        <CardContent className="pt-0">
          <form onSubmit={create} className="grid gap-4 sm:grid-cols-[1fr_auto]">
            <div className="space-y-1">
              <Label htmlFor="assignment-title">Title</Label>
              <Input
                id="assignment-title"
                value={title}
                onChange={(e) => setTitle(e.target.value)}
                required
                maxLength={200}
              />
            </div>
            <div className="space-y-1">
              <Label htmlFor="assignment-due">Due date</Label>
              <Input
                id="assignment-due"
                type="date"
                value={dueDate}
                onChange={(e) => setDueDate(e.target.value)}
                required
              />
            </div>
            <div className="space-y-1 sm:col-span-2">
              <Label htmlFor="assignment-notes">Notes</Label>
              <textarea
                id="assignment-notes"
                value={notes}
                onChange={(e) => setNotes(e.target.value)}
                maxLength={5000}
                rows={2}
                className="w-full rounded-md border border-slate-300 px-3 py-2 text-sm"
              />
            </div>
            <div className="sm:col-span-2">
              <Button type="submit" disabled={pending || !title.trim() || !dueDate}>
                {pending ? "Adding..." : "Add Assignment"}
              </Button>
            </div>
          </form>
        </CardContent>
      </Card>
      {assignments === null ? (
        <p className="mt-4 text-sm text-slate-600" role="status">
          Loading assignments...
        </p>
      ) : assignments.length === 0 ? (
        <p className="mt-4 text-sm text-slate-600">No assignments yet.</p>
      ) : (
        <ul className="mt-4 space-y-3">
          {assignments.map((a) => (
            <li
              key={a.id}
              data-testid="assignment"
              className="flex items-start justify-between gap-3 rounded-xl border border-slate-200 bg-white p-4"
            >
              <div className="min-w-0">
                <p className="font-semibold break-words text-slate-900">{a.title}</p>
                <p className="mt-1 flex flex-wrap items-center gap-2 text-sm text-slate-600">
                  Due <time dateTime={a.dueDate}>{a.dueDate}</time>
                  {today && isOverdue(a.dueDate, today) && (
                    <Badge variant="destructive" data-testid="overdue-badge">
                      Overdue
                    </Badge>
                  )}
                </p>
                {a.notes && <p className="mt-1 text-sm break-words whitespace-pre-line text-slate-700">{a.notes}</p>}
              </div>
              <Button variant="ghost" size="sm" onClick={() => void remove(a)} aria-label={`Delete ${a.title}`}>
                <Trash2 aria-hidden />
              </Button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function GuideRow({
  guide,
  assignments,
  onChange,
}: {
  guide: StudentGuide;
  assignments: StudentAssignment[];
  onChange: () => Promise<void>;
}) {
  const [target, setTarget] = useState("");
  const assigned = assignments.find((a) => a.id === guide.assignmentId);

  function view() {
    const { tab, release } = openUserHtml(guide.htmlContent);
    if (!tab)
      toast({
        title: "Popup Blocked",
        description: "Please disable popup blockers and try again.",
        variant: "destructive",
      });
    setTimeout(release, 60_000);
  }

  async function transfer() {
    if (!target) {
      toast({ title: "Error", description: "Please select an assignment to transfer to.", variant: "destructive" });
      return;
    }
    try {
      await api(`/api/student/assignments/${target}/transfer-study-guide`, {
        method: "POST",
        body: JSON.stringify({ studyGuideId: guide.transferId }),
      });
      toast({ title: "Study guide transferred", description: guide.title });
      setTarget("");
      await onChange();
    } catch (error) {
      console.warn("transfer failed", error);
      toast({ title: "Error", description: "Failed to transfer study guide", variant: "destructive" });
    }
  }

  return (
    <li data-testid="study-guide" className="rounded-xl border border-slate-200 bg-white p-4">
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="min-w-0">
          <p className="font-semibold break-words text-slate-900">{guide.title}</p>
          <p className="mt-1 text-sm text-slate-600">
            {guide.type === "meta-analysis" ? "Meta-analysis report" : "Export report"} ·{" "}
            {new Date(guide.savedAt).toLocaleDateString("en-GB")}
            {assigned && <span data-testid="guide-assignment"> · Assigned to {assigned.title}</span>}
          </p>
        </div>
        <Button variant="outline" size="sm" onClick={view}>
          View
        </Button>
      </div>
      {assignments.length > 0 && guide.transferId !== null && (
        <div className="mt-3 flex flex-wrap items-center gap-2">
          <select
            aria-label={`Assignment for ${guide.title}`}
            value={target}
            onChange={(e) => setTarget(e.target.value)}
            className="h-9 min-w-0 flex-1 rounded-md border border-slate-300 bg-white px-2 text-sm"
          >
            <option value="">Transfer to an assignment…</option>
            {assignments.map((a) => (
              <option key={a.id} value={String(a.id)}>
                {a.title} (due {a.dueDate})
              </option>
            ))}
          </select>
          <Button size="sm" onClick={() => void transfer()}>
            Transfer
          </Button>
        </div>
      )}
    </li>
  );
}
