import type { MetaFunction } from "@remix-run/cloudflare";
import { Link } from "@remix-run/react";
import { Check, Lock } from "lucide-react";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { ExportDialog, type ExportableStudy } from "~/components/export-dialog";
import { useUpgradePrompt } from "~/components/search/upgrade-prompt-state";
import { ReportModal, TextDialog, type ReportStudy } from "~/components/upload/report-modal";
import { BulkActions, StudyItem, type StudyPending } from "~/components/upload/study-list";
import { UploadPanel } from "~/components/upload/upload-panel";
import { Button } from "~/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "~/components/ui/card";
import { Tabs, TabsContent, TabsList, TabsTrigger } from "~/components/ui/tabs";
import { aiErrorFromResponse } from "~/browser/ai-errors";
import type { MetaAnalysisJobResult } from "~/lib/meta-analysis/types";
import { toast } from "~/browser/toast";
import { OfflineQueuedError, REPLAYED_EVENT, type ReplayedMessage } from "~/browser/offline-sync";
import {
  afterUpload,
  processingOutcome,
  UploadError,
  uploadedMessage,
  type UploadedStudy,
  type UploadRefusal,
} from "~/lib/uploads";
import { uploadPdfs } from "~/browser/upload-pdfs";
import { useOptionalUser } from "~/root";

export const meta: MetaFunction = () => [{ title: "Upload PDFs · MetaMind" }];

const BENEFITS = [
  "Upload multiple PDFs",
  "AI summaries and analysis",
  "Meta-analysis across studies",
  "Export results",
];
/**
 * How often the list is refreshed while a study is queued or extracting, in ms: often enough to
 * follow the extraction job's page-by-page progress (it writes at most every 250 ms).
 */
const POLL_MS = 600;
const cut = (title: string) => (title.length > 50 ? `${title.slice(0, 50)}…` : title);

/** SPEC §3: export defaults for uploaded studies. */
function toExportable(s: UploadedStudy): ExportableStudy {
  return {
    id: s.id,
    title: s.title,
    authors: s.authors,
    journal: s.journal ?? "Uploaded Study",
    publicationDate: s.publicationDate ?? String(new Date().getFullYear()),
    doi: s.doi,
    abstract: s.abstract,
    aiSummary: s.aiSummary,
    studyType: s.studyType ?? "Research Article",
    source: "upload",
  };
}

async function readText(res: Response, onText: (text: string) => void): Promise<string> {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text;
    text += value;
    onText(text);
  }
}

function SignInRequired() {
  return (
    <div className="mx-auto max-w-lg px-4 py-16">
      <Card>
        <CardHeader className="text-center">
          <Lock className="mx-auto mb-2 size-10 text-slate-400" aria-hidden />
          <CardTitle as="h1">Sign In Required</CardTitle>
          <CardDescription>Sign in to upload PDFs and analyse them with AI.</CardDescription>
        </CardHeader>
        <CardContent className="space-y-4">
          <ul className="space-y-2">
            {BENEFITS.map((b) => (
              <li key={b} className="flex items-center gap-2 text-sm text-slate-700">
                <Check className="size-4 text-green-600" aria-hidden /> {b}
              </li>
            ))}
          </ul>
          <Button asChild className="w-full">
            <Link to="/auth">Sign In or Create Account</Link>
          </Button>
        </CardContent>
      </Card>
    </div>
  );
}

/** SPEC §2 Upload page (/upload). */
export default function UploadPage() {
  const user = useOptionalUser();
  if (!user) return <SignInRequired />;
  return <UploadWorkspace isPro={user.isPro} />;
}

function UploadWorkspace({ isPro }: { isPro: boolean }) {
  const upgrade = useUpgradePrompt();
  const [studies, setStudies] = useState<UploadedStudy[] | null>(null);
  const [selected, setSelected] = useState<Set<number>>(new Set());
  const [pending, setPending] = useState<Record<number, StudyPending>>({});
  const [streaming, setStreaming] = useState<Record<number, string>>({});
  const [bulkPending, setBulkPending] = useState<"summary" | "analysis" | "delete" | null>(null);
  const [report, setReport] = useState<{
    type: "summary" | "analysis";
    content: unknown;
    studies: ReportStudy[];
    strength: string | null;
    citationSources?: Record<string, { quote?: string }>;
    metaAnalysis?: MetaAnalysisJobResult | null;
  } | null>(null);
  const [exporting, setExporting] = useState<ExportableStudy[] | null>(null);
  const [viewing, setViewing] = useState<{ title: string; heading: string; content: string } | null>(null);
  const [tab, setTab] = useState("upload");
  // Files refused at upload stay listed (a toast alone vanishes) until the next upload or dismissal.
  const [refused, setRefused] = useState<UploadRefusal[]>([]);
  const mounted = useRef(true);
  /** Uploads whose processing has not been reported yet (a toast says how it ended). */
  const inFlight = useRef<number[]>([]);

  const refresh = useCallback(async () => {
    const res = await fetch(`/api/uploaded-studies?t=${Date.now()}`, { credentials: "include", cache: "no-store" });
    if (!res.ok) return;
    const list = (await res.json()) as UploadedStudy[];
    if (!mounted.current) return;
    setStudies(list);
    setSelected((current) => new Set([...current].filter((id) => list.some((s) => s.id === id))));
  }, []);

  useEffect(() => {
    mounted.current = true;
    void refresh();
    return () => {
      mounted.current = false;
    };
  }, [refresh]);

  useEffect(() => {
    if (!studies || inFlight.current.length === 0) return;
    const outcome = processingOutcome(inFlight.current, studies);
    if (!outcome) return;
    const total = inFlight.current.length;
    inFlight.current = [];
    toast({
      title: outcome.failed ? "Processing Finished" : "Processing Complete",
      description: `${outcome.ready} of ${total} PDFs ready${outcome.failed ? `; ${outcome.failed} could not be read` : ""}.`,
      variant: outcome.ready === 0 ? "destructive" : "default",
    });
  }, [studies]);

  // The service worker's upload-sync queue delivered PDFs picked while offline: show them.
  useEffect(() => {
    const onReplayed = (event: Event) => {
      if ((event as CustomEvent<ReplayedMessage>).detail?.queue === "upload-sync") void refresh();
    };
    window.addEventListener(REPLAYED_EVENT, onReplayed);
    return () => window.removeEventListener(REPLAYED_EVENT, onReplayed);
  }, [refresh]);

  const processing = studies?.some((s) => s.status === "queued" || s.status === "extracting") ?? false;
  useEffect(() => {
    if (!processing) return;
    const timer = setInterval(() => void refresh(), POLL_MS);
    return () => clearInterval(timer);
  }, [processing, refresh]);

  const selectedStudies = useMemo(() => (studies ?? []).filter((s) => selected.has(s.id)), [studies, selected]);

  const onUpload = async (files: File[], onProgress: (p: number[]) => void) => {
    try {
      setRefused([]);
      const results = await uploadPdfs(files, onProgress);
      const outcome = afterUpload(results);
      setRefused(outcome.refused);
      toast({
        title: outcome.showList ? "Upload Complete" : "Upload Refused",
        description: uploadedMessage(results),
        variant: outcome.showList ? "default" : "destructive",
      });
      const ids = results.flatMap((r) => (r.success && r.id !== undefined ? [r.id] : []));
      if (ids.length) inFlight.current = [...inFlight.current, ...ids];
      await refresh();
      if (outcome.showList) setTab("manage");
    } catch (error) {
      if (error instanceof OfflineQueuedError) {
        toast({ title: "Upload queued", description: error.message });
        return;
      }
      if (
        error instanceof UploadError &&
        error.status === 403 &&
        (error.body?.error === "LIMIT_REACHED" || error.body?.error === "PRO_REQUIRED")
      ) {
        upgrade.open("pdf_upload", error.body?.message ?? "PDF upload requires Professional subscription");
        throw error;
      }
      const message = error instanceof UploadError ? (error.body?.message ?? "Upload failed") : "Upload failed";
      if (!/upgrade|subscription/i.test(message)) {
        setRefused(files.map((f) => ({ fileName: f.name, message })));
        toast({ title: "Upload Failed", description: message, variant: "destructive" });
      }
      throw error;
    }
  };

  const setStudyPending = (id: number, value: StudyPending) => setPending((p) => ({ ...p, [id]: value }));

  const generate = async (study: UploadedStudy, kind: "summary" | "analysis") => {
    setStudyPending(study.id, kind);
    setStreaming((s) => ({ ...s, [study.id]: "" }));
    try {
      const res = await fetch(`/api/uploaded-studies/${study.id}/${kind === "summary" ? "summary" : "full-analysis"}`, {
        method: "POST",
        credentials: "include",
      });
      if (!res.ok) {
        const error = await aiErrorFromResponse(res);
        if (error.kind === "limit" || error.kind === "pro") {
          upgrade.open("ai_summaries", error.message);
          return;
        }
        throw new Error(error.message);
      }
      await readText(res, (text) => setStreaming((s) => ({ ...s, [study.id]: text })));
      toast({
        title: kind === "summary" ? "Summary Generated" : "Full Analysis Generated",
        description: cut(study.title),
      });
      await refresh();
    } catch {
      toast({
        title: "Error",
        description: kind === "summary" ? "Failed to generate summary" : "Failed to generate analysis",
        variant: "destructive",
      });
    } finally {
      setStudyPending(study.id, null);
      setStreaming((s) => {
        const next = { ...s };
        delete next[study.id];
        return next;
      });
    }
  };

  const remove = async (study: UploadedStudy) => {
    if (!window.confirm(`Are you sure you want to delete "${study.title}"? This action cannot be undone.`)) return;
    setStudyPending(study.id, "delete");
    try {
      const res = await fetch(`/api/uploaded-studies/${study.id}`, { method: "DELETE", credentials: "include" });
      if (!res.ok) throw new Error(`${res.status}`);
      toast({ title: "Study Deleted", description: cut(study.title) });
      await refresh();
    } catch {
      toast({ title: "Error", description: "Failed to delete study", variant: "destructive" });
    } finally {
      setStudyPending(study.id, null);
    }
  };

  const bulk = async (kind: "summary" | "analysis") => {
    const chosen = selectedStudies;
    setBulkPending(kind);
    try {
      const res = await fetch(`/api/uploaded-studies/${kind === "summary" ? "bulk-summary" : "bulk-analysis"}`, {
        method: "POST",
        credentials: "include",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ studyIds: chosen.map((s) => s.id) }),
      });
      if (!res.ok) {
        const error = await aiErrorFromResponse(res);
        if (kind === "summary" && (error.kind === "limit" || error.kind === "pro")) {
          upgrade.open("ai_summaries", error.message);
          return;
        }
        toast({
          title: "Error",
          description:
            error.status === 400
              ? error.message
              : kind === "summary"
                ? "Failed to generate combined summary"
                : "Failed to generate combined analysis",
          variant: "destructive",
        });
        return;
      }
      const body = (await res.json()) as {
        summary?: string;
        combinedSummary?: unknown;
        analysis?: unknown;
        studies: ReportStudy[];
        strengthOfEvidence?: string;
        citationSources?: Record<string, { quote?: string }>;
        metaAnalysis?: MetaAnalysisJobResult;
      };
      setReport({
        type: kind,
        // The structured summary renders with its headings and sources by title; the text is the fallback.
        content: kind === "summary" ? (body.combinedSummary ?? body.summary) : body.analysis,
        studies: body.studies,
        strength: body.strengthOfEvidence ?? null,
        citationSources: body.citationSources,
        metaAnalysis: body.metaAnalysis ?? null,
      });
    } catch {
      toast({
        title: "Error",
        description:
          kind === "summary" ? "Failed to generate combined summary" : "Failed to generate combined analysis",
        variant: "destructive",
      });
    } finally {
      setBulkPending(null);
    }
  };

  const bulkDelete = async () => {
    const ids = [...selected];
    if (!window.confirm(`Are you sure you want to delete ${ids.length} studies? This action cannot be undone.`)) return;
    setBulkPending("delete");
    try {
      const res = await fetch("/api/uploaded-studies/bulk", {
        method: "DELETE",
        credentials: "include",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ studyIds: ids }),
      });
      if (!res.ok) throw new Error(`${res.status}`);
      const { deletedCount } = (await res.json()) as { deletedCount: number };
      toast({ title: "Studies Deleted", description: `Successfully deleted ${deletedCount} studies` });
      setSelected(new Set());
      await refresh();
    } catch {
      toast({ title: "Error", description: "Failed to delete studies", variant: "destructive" });
    } finally {
      setBulkPending(null);
    }
  };

  return (
    <div className="mx-auto max-w-5xl space-y-6 px-4 py-8">
      <div>
        <h1 className="text-2xl font-bold text-slate-900">Upload PDFs</h1>
        <p className="text-slate-600">Upload research papers, then summarise, analyse and combine them with AI.</p>
      </div>
      {refused.length > 0 && (
        <div
          role="alert"
          className="rounded-xl border border-red-200 bg-red-50 p-4 text-sm text-red-800"
          data-testid="upload-refusals"
        >
          <p className="font-semibold">
            {refused.length === 1 ? "1 file was not uploaded" : `${refused.length} files were not uploaded`}
          </p>
          <ul className="mt-1 list-disc pl-5">
            {refused.map((r, i) => (
              <li key={`${r.fileName}-${i}`}>
                <span className="font-medium">{r.fileName}</span>: {r.message}
              </li>
            ))}
          </ul>
          <Button type="button" variant="outline" size="sm" className="mt-2 bg-white" onClick={() => setRefused([])}>
            Dismiss
          </Button>
        </div>
      )}
      <Tabs value={tab} onValueChange={setTab}>
        <TabsList className="grid w-full grid-cols-2">
          <TabsTrigger value="upload">Upload PDFs</TabsTrigger>
          <TabsTrigger value="manage">Manage Uploaded Studies</TabsTrigger>
        </TabsList>
        <TabsContent value="upload" className="pt-4">
          <UploadPanel
            onUpload={onUpload}
            notice={isPro ? null : "PDF upload requires Professional subscription. You can view your uploaded studies."}
          />
        </TabsContent>
        <TabsContent value="manage" className="space-y-4 pt-4">
          <BulkActions
            total={studies?.length ?? 0}
            selected={selected.size}
            pending={bulkPending}
            onToggleAll={(checked) => setSelected(checked ? new Set((studies ?? []).map((s) => s.id)) : new Set())}
            onSummary={() => void bulk("summary")}
            onAnalysis={() => void bulk("analysis")}
            onExport={() => setExporting(selectedStudies.map(toExportable))}
            onDelete={() => void bulkDelete()}
          />
          <Card>
            <CardHeader className="pb-3">
              <CardTitle className="text-base">Uploaded Studies</CardTitle>
            </CardHeader>
            <CardContent>
              {studies === null ? (
                <p className="text-sm text-slate-500">Loading…</p>
              ) : studies.length === 0 ? (
                <div className="py-10 text-center" data-testid="uploads-empty">
                  <p className="font-medium text-slate-800">No uploaded studies yet</p>
                  <p className="text-sm text-slate-500">Upload PDF files to get started</p>
                </div>
              ) : (
                <ul className="space-y-3">
                  {studies.map((study) => (
                    <StudyItem
                      key={study.id}
                      study={study}
                      selected={selected.has(study.id)}
                      pending={pending[study.id] ?? null}
                      streaming={streaming[study.id] ?? null}
                      onSelect={(checked) =>
                        setSelected((current) => {
                          const next = new Set(current);
                          if (checked) next.add(study.id);
                          else next.delete(study.id);
                          return next;
                        })
                      }
                      onSummary={() => void generate(study, "summary")}
                      onAnalysis={() => void generate(study, "analysis")}
                      onDelete={() => void remove(study)}
                      onViewSummary={() =>
                        setViewing({ title: study.title, heading: "Summary", content: study.aiSummary ?? "" })
                      }
                      onViewAnalysis={() =>
                        setViewing({
                          title: study.title,
                          heading: "Full Analysis",
                          content: study.fullTextAnalysis ?? "",
                        })
                      }
                    />
                  ))}
                </ul>
              )}
            </CardContent>
          </Card>
        </TabsContent>
      </Tabs>
      {report ? (
        <ReportModal
          open
          onOpenChange={(open) => !open && setReport(null)}
          type={report.type}
          content={report.content}
          studies={report.studies}
          strengthOfEvidence={report.strength}
          citationSources={report.citationSources}
          metaAnalysis={report.metaAnalysis}
          onExport={() =>
            setExporting((studies ?? []).filter((s) => report.studies.some((r) => r.id === s.id)).map(toExportable))
          }
        />
      ) : null}
      {viewing ? (
        <TextDialog
          open
          onOpenChange={(open) => !open && setViewing(null)}
          title={viewing.title}
          heading={viewing.heading}
          content={viewing.content}
        />
      ) : null}
      <ExportDialog
        open={exporting !== null}
        onOpenChange={(open) => !open && setExporting(null)}
        studies={exporting ?? []}
      />
      {upgrade.element}
    </div>
  );
}
