import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { useLoaderData, useNavigate, useRevalidator } from "@remix-run/react";
import {
  Bookmark,
  Download,
  Eye,
  FileText,
  GraduationCap,
  History,
  MessageSquare,
  Printer,
  RotateCcw,
  Search,
  Send,
  Trash2,
} from "lucide-react";
import { useEffect, useState } from "react";
import { getUser, toPublicUser } from "~/.server/auth/session";
import { listBookmarks } from "~/.server/library/bookmarks";
import { listSavedReports } from "~/.server/library/reports";
import { listSavedSearches, listSearchHistory } from "~/.server/search/history";
import { ExportDialog } from "~/components/export-dialog";
import { ShareButton } from "~/components/share-button";
import { SharedLinks } from "~/components/shared-links";
import { ReportViewDialog } from "~/components/library/report-view-dialog";
import { TransferDialog } from "~/components/library/transfer-dialog";
import { Badge } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import { Card, CardContent } from "~/components/ui/card";
import { Tabs, TabsContent, TabsList, TabsTrigger } from "~/components/ui/tabs";
import { toggleBookmark } from "~/browser/bookmarks";
import { formatAuthors, formatPublicationDate, historyCountLabels } from "~/lib/format";
import { formatRelativeTime as relativeTime } from "~/lib/relative-time";
import { canView, downloadReport, exportReport, sendToStudentPortal, type ReportLike } from "~/browser/report-actions";
import { answerPreview, loadSavedAnswers, removeSavedAnswer, type SavedAnswer } from "~/browser/saved-answers";
import { requestSearchReload } from "~/browser/search-events";
import { sanitizeFormFields } from "~/lib/search-params";
import { createShareLink } from "~/browser/health-answer-client";
import type { HealthAnswer } from "~/lib/sharing";
import { toast } from "~/browser/toast";

export const meta: MetaFunction = () => [{ title: "Profile · MetaMind" }];

/** SPEC §9: a signed-out visitor is sent to /auth after this delay. */
const SIGNED_OUT_REDIRECT_MS = 1000;

export async function loader({ request, context }: LoaderFunctionArgs) {
  const app = context.app;
  const user = await getUser(app, request);
  if (!user) return { user: null };
  const [bookmarks, reports, savedSearches, history] = await Promise.all([
    listBookmarks(app, { userId: user.id }),
    listSavedReports(app, { userId: user.id }),
    listSavedSearches(app, { userId: user.id }),
    listSearchHistory(app, { userId: user.id, limit: 200 }),
  ]);
  return { user: toPublicUser(user), bookmarks, reports, savedSearches, history };
}

type Data = ReturnType<typeof useLoaderData<typeof loader>>;
type SignedInData = Extract<Data, { bookmarks: unknown }>;

export default function ProfilePage() {
  const data = useLoaderData<typeof loader>();
  const navigate = useNavigate();
  useEffect(() => {
    if (data.user) return;
    const timer = setTimeout(() => navigate("/auth"), SIGNED_OUT_REDIRECT_MS);
    return () => clearTimeout(timer);
  }, [data.user, navigate]);

  if (!("bookmarks" in data) || !data.user) {
    return (
      <div className="mx-auto max-w-md px-4 py-16 text-center">
        <Card>
          <CardContent className="pt-6">
            <h1 className="text-xl font-semibold text-slate-900">Sign In Required</h1>
            <p className="mt-2 text-sm text-slate-600">
              Please sign in to view your profile. Redirecting to sign in...
            </p>
          </CardContent>
        </Card>
      </div>
    );
  }
  return <Profile data={data} />;
}

function Profile({ data }: { data: SignedInData }) {
  const { user, bookmarks, reports, savedSearches, history } = data;
  const revalidator = useRevalidator();
  const [answers, setAnswers] = useState<SavedAnswer[]>([]);
  useEffect(() => setAnswers(loadSavedAnswers()), []);
  const name = [user!.firstName, user!.lastName].filter(Boolean).join(" ") || user!.email;

  const counters = [
    { label: "Bookmarks", value: bookmarks.length, icon: Bookmark, testId: "count-bookmarks" },
    { label: "Reports", value: reports.length, icon: FileText, testId: "count-reports" },
    { label: "Saved answers", value: answers.length, icon: MessageSquare, testId: "count-answers" },
    { label: "Saved searches", value: savedSearches.length, icon: Search, testId: "count-saved-searches" },
    { label: "History", value: history.length, icon: History, testId: "count-history" },
  ];

  return (
    <div className="mx-auto max-w-6xl px-4 py-10 sm:px-6">
      <div className="flex flex-wrap items-center gap-3">
        <h1 className="text-3xl font-bold tracking-tight text-slate-900" data-testid="profile-name">
          {name}
        </h1>
        <Badge variant={user!.isPro ? "default" : "secondary"}>{user!.isPro ? "Professional" : "Free"}</Badge>
      </div>
      {name !== user!.email && <p className="mt-1 text-slate-600">{user!.email}</p>}

      <div className="mt-6 grid grid-cols-2 gap-3 sm:grid-cols-5">
        {counters.map(({ label, value, icon: Icon, testId }) => (
          <Card key={label}>
            <CardContent className="flex items-center gap-3 pt-5 pb-5">
              <Icon className="size-5 text-brand-600" aria-hidden />
              <div>
                <p className="text-2xl font-semibold text-slate-900" data-testid={testId}>
                  {value}
                </p>
                <p className="text-xs text-slate-500">{label}</p>
              </div>
            </CardContent>
          </Card>
        ))}
      </div>

      <Tabs defaultValue="bookmarks" className="mt-8">
        <TabsList className="h-auto flex-wrap">
          <TabsTrigger value="bookmarks">Bookmarks</TabsTrigger>
          <TabsTrigger value="saved-reports">Saved Reports</TabsTrigger>
          <TabsTrigger value="saved-answers">Saved Answers</TabsTrigger>
          <TabsTrigger value="saved-searches">Saved Searches</TabsTrigger>
          <TabsTrigger value="history">History</TabsTrigger>
        </TabsList>
        <TabsContent value="bookmarks" className="mt-4">
          <BookmarksTab items={bookmarks} onChange={() => revalidator.revalidate()} />
        </TabsContent>
        <TabsContent value="saved-reports" className="mt-4">
          <ReportsTab reports={reports} onChange={() => revalidator.revalidate()} />
        </TabsContent>
        <TabsContent value="saved-answers" className="mt-4">
          <AnswersTab answers={answers} onRemove={(id) => setAnswers(removeSavedAnswer(id))} />
          <SharedLinks />
        </TabsContent>
        <TabsContent value="saved-searches" className="mt-4">
          <SavedSearchesTab items={savedSearches} onChange={() => revalidator.revalidate()} />
        </TabsContent>
        <TabsContent value="history" className="mt-4">
          <HistoryTab items={history} />
        </TabsContent>
      </Tabs>
    </div>
  );
}

function Empty({ title, hint }: { title: string; hint: string }) {
  return (
    <div className="rounded-xl border border-dashed border-slate-300 p-10 text-center">
      <p className="font-medium text-slate-900">{title}</p>
      <p className="mt-1 text-sm text-slate-500">{hint}</p>
    </div>
  );
}

interface OpenAccessSummary {
  openAccessCount: number;
  totalStudies: number;
  openAccessPercentage: number;
  repositoryCount: number;
}

function BookmarksTab({ items, onChange }: { items: SignedInData["bookmarks"]; onChange: () => void }) {
  const [exportOpen, setExportOpen] = useState(false);
  const [oa, setOa] = useState<OpenAccessSummary | "loading" | "error" | null>(null);
  if (items.length === 0)
    return <Empty title="No bookmarks yet" hint="Bookmark studies from the search page to keep them here." />;
  async function remove(studyId: number) {
    const outcome = await toggleBookmark(studyId, false);
    if (outcome.kind === "saved" || outcome.kind === "queued") onChange();
    else toast({ title: "Error", description: "Failed to remove bookmark", variant: "destructive" });
  }
  async function checkOpenAccess() {
    setOa("loading");
    try {
      const ids = items
        .slice(0, 100)
        .map((i) => i.study.id)
        .join(",");
      const res = await fetch(`/api/studies/open-access-stats?studyIds=${ids}`, { credentials: "include" });
      if (!res.ok) throw new Error(`${res.status}: ${await res.text()}`);
      setOa((await res.json()) as OpenAccessSummary);
    } catch (error) {
      console.warn("open-access stats failed", error);
      setOa("error");
    }
  }
  return (
    <div className="space-y-3">
      <div className="flex flex-wrap items-center justify-end gap-2">
        <p className="mr-auto text-sm text-slate-600" data-testid="open-access-summary" aria-live="polite">
          {oa === "loading" && "Checking open access..."}
          {oa === "error" && "Could not check open access. Please try again."}
          {oa !== null &&
            typeof oa === "object" &&
            `Open access: ${oa.openAccessCount} of ${oa.totalStudies} (${oa.openAccessPercentage}%) · ${oa.repositoryCount} in repositories`}
        </p>
        <Button variant="outline" size="sm" onClick={checkOpenAccess} disabled={oa === "loading"}>
          Check open access
        </Button>
        <Button variant="outline" size="sm" onClick={() => setExportOpen(true)} data-testid="export-bookmarks">
          <Download aria-hidden />
          Export all ({items.length})
        </Button>
      </div>
      <ul className="space-y-3" data-testid="bookmark-list">
        {items.map(({ bookmark, study }) => (
          <li key={bookmark.id} data-testid="bookmark-item" className="rounded-xl border border-slate-200 bg-white p-4">
            <div className="flex items-start justify-between gap-3">
              <div>
                <p className="font-semibold text-slate-900">{study.title}</p>
                <p className="mt-1 text-sm text-slate-600">{formatAuthors(study.authors)}</p>
                <p className="text-sm text-slate-500">
                  {[study.journal, formatPublicationDate(study.publicationDate)].filter(Boolean).join(" · ")}
                  {study.doi && <> · doi:{study.doi}</>}
                </p>
              </div>
              <Button
                variant="ghost"
                size="sm"
                onClick={() => remove(study.id)}
                aria-label={`Remove bookmark: ${study.title}`}
              >
                <Trash2 aria-hidden />
                Remove
              </Button>
            </div>
          </li>
        ))}
      </ul>
      <ExportDialog open={exportOpen} onOpenChange={setExportOpen} studyIds={items.map((i) => i.study.id)} />
    </div>
  );
}

function ReportsTab({ reports, onChange }: { reports: SignedInData["reports"]; onChange: () => void }) {
  const [viewing, setViewing] = useState<ReportLike | null>(null);
  const [transferring, setTransferring] = useState<ReportLike | null>(null);
  if (reports.length === 0)
    return <Empty title="No saved reports" hint="Save a meta-analysis or export report to find it here." />;
  async function remove(id: number) {
    try {
      const res = await fetch(`/api/saved-reports/${id}`, { method: "DELETE", credentials: "include" });
      if (!res.ok) throw new Error(`${res.status}: ${await res.text()}`);
      toast({ title: "Report deleted" });
      onChange();
    } catch (error) {
      console.warn("delete report failed", error);
      toast({ title: "Error", description: "Failed to delete report", variant: "destructive" });
    }
  }
  return (
    <>
      <ul className="space-y-3" data-testid="report-list">
        {reports.map((r) => {
          const description = typeof r.reportData.description === "string" ? r.reportData.description : null;
          const studentActions = r.type === "meta-analysis" || r.type === "export";
          return (
            <li key={r.id} data-testid="report-item" className="rounded-xl border border-slate-200 bg-white p-4">
              <div className="flex flex-wrap items-start justify-between gap-3">
                <div>
                  <p className="font-semibold text-slate-900">{r.name}</p>
                  <p className="text-xs text-slate-500">
                    <Badge variant="outline" className="mr-2">
                      {r.type}
                    </Badge>
                    {r.studyIds.length} studies · {relativeTime(r.createdAt)}
                  </p>
                  {description && <p className="mt-1 text-sm text-slate-600">{description}</p>}
                </div>
                <div className="flex flex-wrap gap-1">
                  <Button variant="outline" size="sm" onClick={() => canView(r) && setViewing(r)}>
                    <Eye aria-hidden />
                    View
                  </Button>
                  <Button variant="outline" size="sm" onClick={() => downloadReport(r)}>
                    <Download aria-hidden />
                    Download
                  </Button>
                  <Button variant="outline" size="sm" onClick={() => exportReport(r)}>
                    <Printer aria-hidden />
                    Export
                  </Button>
                  {studentActions && (
                    <>
                      <Button variant="outline" size="sm" onClick={() => sendToStudentPortal(r)}>
                        <GraduationCap aria-hidden />
                        Send to Student Portal
                      </Button>
                      <Button variant="outline" size="sm" onClick={() => setTransferring(r)}>
                        <Send aria-hidden />
                        Transfer to Assignment
                      </Button>
                    </>
                  )}
                  <Button variant="ghost" size="sm" onClick={() => remove(r.id)} aria-label={`Delete report ${r.name}`}>
                    <Trash2 aria-hidden />
                  </Button>
                </div>
              </div>
            </li>
          );
        })}
      </ul>
      <ReportViewDialog report={viewing} onClose={() => setViewing(null)} />
      <TransferDialog report={transferring} onClose={() => setTransferring(null)} />
    </>
  );
}

function AnswerCard({ answer, onRemove }: { answer: SavedAnswer; onRemove: () => void }) {
  const [expanded, setExpanded] = useState(false);
  const preview = answerPreview(answer.answer);
  return (
    <li data-testid="answer-item" className="rounded-xl border border-slate-200 bg-white p-4">
      <div className="flex items-start justify-between gap-3">
        <p className="font-semibold text-slate-900">{answer.question}</p>
        <div className="flex items-start gap-1">
          <ShareButton
            testId="saved-answer-share"
            create={() =>
              createShareLink({ kind: "answer", answer: { studies: [], model: "", ...answer } as HealthAnswer })
            }
            title={answer.question}
            text={`${answer.question} — an answer from ${answer.studyCount} studies on MetaMind`}
          />
          <Button variant="ghost" size="sm" onClick={onRemove} aria-label="Remove saved answer">
            <Trash2 aria-hidden />
          </Button>
        </div>
      </div>
      <p className="mt-2 text-sm whitespace-pre-line text-slate-700" data-testid="answer-text">
        {expanded ? answer.answer : preview.text}
      </p>
      {preview.truncated && (
        <button
          type="button"
          className="mt-1 text-sm font-medium text-brand-600 hover:underline"
          onClick={() => setExpanded((v) => !v)}
        >
          {expanded ? "Show less" : "Show more"}
        </button>
      )}
      <p className="mt-2 text-xs text-slate-500">
        Based on {answer.studyCount} {answer.studyCount === 1 ? "study" : "studies"}
        {answer.savedAt && <> · saved {relativeTime(answer.savedAt)}</>}
      </p>
    </li>
  );
}

function AnswersTab({ answers, onRemove }: { answers: SavedAnswer[]; onRemove: (id: string) => void }) {
  if (answers.length === 0) return <Empty title="No saved answers" hint="Answers you save are kept in this browser." />;
  return (
    <ul className="space-y-3">
      {answers.map((a) => (
        <AnswerCard key={a.id} answer={a} onRemove={() => onRemove(a.id)} />
      ))}
    </ul>
  );
}

function SavedSearchesTab({ items, onChange }: { items: SignedInData["savedSearches"]; onChange: () => void }) {
  if (items.length === 0)
    return <Empty title="No saved searches" hint="Save a search on the search page to run it again later." />;
  async function remove(id: number) {
    try {
      const res = await fetch(`/api/saved-searches/${id}`, { method: "DELETE", credentials: "include" });
      if (!res.ok) throw new Error(`${res.status}: ${await res.text()}`);
      onChange();
    } catch (error) {
      console.warn("delete saved search failed", error);
      toast({ title: "Error", description: "Failed to delete saved search", variant: "destructive" });
    }
  }
  return (
    <ul className="space-y-3">
      {items.map((s) => (
        <li
          key={s.id}
          data-testid="saved-search-item"
          className="flex items-center justify-between gap-3 rounded-xl border border-slate-200 bg-white p-4"
        >
          <div>
            <p className="font-semibold text-slate-900">{s.name}</p>
            <p className="text-sm text-slate-600">
              &ldquo;{s.query}&rdquo; · {relativeTime(s.createdAt)}
            </p>
          </div>
          <div className="flex gap-1">
            <Button
              variant="outline"
              size="sm"
              onClick={() => requestSearchReload({ ...sanitizeFormFields(s.filters), query: s.query })}
            >
              <Search aria-hidden />
              Run
            </Button>
            <Button variant="ghost" size="sm" onClick={() => remove(s.id)} aria-label={`Delete saved search ${s.name}`}>
              <Trash2 aria-hidden />
            </Button>
          </div>
        </li>
      ))}
    </ul>
  );
}

function HistoryTab({ items }: { items: SignedInData["history"] }) {
  if (items.length === 0) {
    return <Empty title="No search history found" hint="Your searches will appear here once you start searching" />;
  }
  return (
    <ul className="space-y-3">
      {items.map((h) => (
        <li
          key={h.id}
          data-testid="history-item"
          className="flex items-center justify-between gap-3 rounded-xl border border-slate-200 bg-white p-4"
        >
          <div>
            <p className="font-semibold text-slate-900">{h.query}</p>
            <p className="text-sm text-slate-600">
              {[...historyCountLabels(h.resultCount, h.databaseTotal), relativeTime(h.createdAt)].join(" · ")}
            </p>
          </div>
          <Button
            variant="outline"
            size="sm"
            onClick={() =>
              requestSearchReload({ ...sanitizeFormFields({ ...h.filters, providers: h.providers }), query: h.query })
            }
          >
            <RotateCcw aria-hidden />
            Reload
          </Button>
        </li>
      ))}
    </ul>
  );
}
