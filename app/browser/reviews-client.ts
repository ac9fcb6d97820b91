/**
 * Browser calls of the review API (issue 13). Every failure is a {@link ReviewApiError} carrying
 * the server's `{error, message}`.
 */
import type {
  ApiReview,
  ApiReviewRecord,
  ApiReviewSource,
  ImportWarning,
  ReviewPrisma,
  ScreeningDecision,
  ScreeningNext,
  ScreeningProgress,
  ScreeningStage,
  ScreeningSuggestion,
} from "~/lib/reviews";
import type { ReviewOutcome, ReviewOutcomeExtraction } from "~/lib/review-extraction";
import type { RobAgreement } from "~/lib/risk-of-bias/dual";
import type { PairAgreement, StageAgreement } from "~/lib/agreement";
import type { ApiActivityEntry, ApiConflict, ApiInvitation, ApiMember, MemberRole } from "~/lib/team";

/** GET /api/reviews/{id}/agreement. */
export type ReviewAgreement = Record<
  "titleAbstract" | "fullText",
  Omit<StageAgreement, "pairs"> & { pairs: (PairAgreement & { emails: [string, string] })[] }
> & {
  /** Dual RoB 2 assessment: per domain and overall (absent from older servers). */
  riskOfBias?: RobAgreement;
};
import type { PrismaChecklist } from "~/lib/prisma-checklist";

/** What POST /api/reviews/{id}/update answers. */
export interface LivingUpdateResult {
  searchesRun: number;
  newRecords: number;
  duplicatesRemoved: number;
  failed: { source: string; reason: string }[];
  ranAt: string;
}

/** One recorded update of a living review (GET /api/reviews/{id}/update). */
export interface LivingUpdate extends LivingUpdateResult {
  id: string;
  trigger: "schedule" | "manual";
  status: "running" | "done" | "failed";
  digestSent: boolean;
  finishedAt: string | null;
}

export class ReviewApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly body: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = "ReviewApiError";
  }
}

async function request<T>(path: string, init: RequestInit & { json?: unknown } = {}): Promise<T> {
  const { json, ...rest } = init;
  const res = await fetch(path, {
    ...rest,
    headers: json === undefined ? rest.headers : { "Content-Type": "application/json", ...rest.headers },
    body: json === undefined ? rest.body : JSON.stringify(json),
  });
  const text = await res.text();
  let body: Record<string, unknown> = {};
  try {
    body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch {
    body = {};
  }
  if (!res.ok) {
    throw new ReviewApiError(
      res.status,
      String(body.error ?? "HTTP_ERROR"),
      String(body.message ?? `Request failed (${res.status})`),
      body,
    );
  }
  return body as T;
}

/** The database and query behind an imported file, so living updates re-run it. */
export interface SavedSearch {
  database: string;
  query: string;
}
export type ReviewWithSources = ApiReview & { sources: ApiReviewSource[] };
/** Filters of GET /api/reviews/{id}/records (see the route). */
export interface RecordsQuery {
  stage?: ScreeningStage;
  decision?: string;
  duplicates?: string;
  source?: string;
  q?: string;
  suggestion?: "disagrees";
}
/** One page of GET /api/reviews/{id}/records; `total` on the first page only. */
export interface RecordsPage {
  records: ApiReviewRecord[];
  nextCursor: string | null;
  total?: number;
}
export interface ImportResult {
  imported: number;
  duplicatesRemoved: number;
  sourceId: string;
  /** Records of the file imported despite a problem (e.g. no title), by line. */
  warnings?: ImportWarning[];
}
export interface Merge {
  record: { id: number; title: string; year: number | null; doi: string | null; pmid: string | null; origin: string };
  mergedInto: {
    id: number;
    title: string;
    year: number | null;
    doi: string | null;
    pmid: string | null;
    origin: string;
  };
  reason: string | null;
}

const base = (id: string) => `/api/reviews/${encodeURIComponent(id)}`;

export const reviewsApi = {
  create: (body: { title: string; question?: unknown; criteria?: unknown }) =>
    request<{ review: ApiReview }>("/api/reviews", { method: "POST", json: body }),
  get: (id: string) => request<{ review: ReviewWithSources }>(base(id)),
  update: (id: string, body: Record<string, unknown>) =>
    request<{ review: ReviewWithSources }>(base(id), { method: "PATCH", json: body }),
  remove: (id: string) => request<{ ok: true }>(base(id), { method: "DELETE" }),
  importFile: (
    id: string,
    file: File,
    options: { format?: string; database?: string; savedSearch?: SavedSearch } = {},
  ) => {
    const form = new FormData();
    form.set("file", file);
    if (options.format) form.set("format", options.format);
    if (options.database) form.set("database", options.database);
    if (options.savedSearch) {
      form.set("searchDatabase", options.savedSearch.database);
      form.set("searchQuery", options.savedSearch.query);
    }
    return request<ImportResult>(`${base(id)}/import`, { method: "POST", body: form });
  },
  importSearch: (id: string, params: Record<string, string>) =>
    request<ImportResult>(`${base(id)}/import-search`, { method: "POST", json: params }),
  importUploads: (id: string, uploadIds: number[]) =>
    request<ImportResult>(`${base(id)}/import-uploads`, { method: "POST", json: { uploadIds } }),
  /** One page of the records listing (at most `limit`, 500; default 100) and the cursor of the next. */
  recordsPage: (id: string, query: RecordsQuery & { limit?: number; cursor?: string | null } = {}) => {
    const params = new URLSearchParams(
      Object.entries(query)
        .filter(([, v]) => v !== undefined && v !== null && v !== "")
        .map(([k, v]) => [k, String(v)]),
    );
    return request<RecordsPage>(`${base(id)}/records?${params}`);
  },
  /** Every record matching `query`, read page by page (500 each): for short lists (full text, included). */
  records: async (id: string, query: RecordsQuery = {}): Promise<{ records: ApiReviewRecord[] }> => {
    const records: ApiReviewRecord[] = [];
    let cursor: string | null = null;
    do {
      const page: RecordsPage = await reviewsApi.recordsPage(id, { ...query, limit: 500, cursor });
      records.push(...page.records);
      cursor = page.nextCursor;
    } while (cursor);
    return { records };
  },
  next: (id: string) => request<ScreeningNext>(`${base(id)}/screening/next`),
  decide: (
    id: string,
    recordId: number,
    body: { stage: ScreeningStage; decision: ScreeningDecision; reason?: string | null },
  ) =>
    request<{ progress: ScreeningProgress; next?: ScreeningNext }>(`${base(id)}/records/${recordId}/decision`, {
      method: "POST",
      json: body,
    }),
  undo: (id: string, stage: ScreeningStage = "title_abstract") =>
    request<{ progress: ScreeningProgress; recordId: number; next?: ScreeningNext }>(`${base(id)}/screening/undo`, {
      method: "POST",
      json: { stage },
    }),
  undoRecord: (id: string, recordId: number, stage: ScreeningStage) =>
    request<{ progress: ScreeningProgress; recordId: number }>(
      `${base(id)}/records/${recordId}/decision?stage=${stage}`,
      { method: "DELETE" },
    ),
  prisma: (id: string) => request<ReviewPrisma>(`${base(id)}/prisma`),
  outcomes: (id: string) => request<{ outcomes: ReviewOutcome[] }>(`${base(id)}/outcomes`),
  outcomeExtraction: (id: string, outcomeId: number) =>
    request<ReviewOutcomeExtraction & { included: number }>(`${base(id)}/outcomes/${outcomeId}`),
  prismaChecklist: (id: string) => request<PrismaChecklist>(`${base(id)}/prisma-checklist`),
  livingUpdates: (id: string) => request<{ updates: LivingUpdate[] }>(`${base(id)}/update`),
  /** Marks an imported file as the saved search that produced it (null: removes the mark). */
  markSavedSearch: (id: string, sourceId: string, savedSearch: SavedSearch | null) =>
    request<{ source: ApiReviewSource }>(`${base(id)}/sources/${encodeURIComponent(sourceId)}`, {
      method: "PATCH",
      json: { savedSearch },
    }),
  runLivingUpdate: (id: string) => request<LivingUpdateResult>(`${base(id)}/update`, { method: "POST" }),
  merges: (id: string) => request<{ merges: Merge[] }>(`${base(id)}/duplicates`),
  undoMerge: (id: string, recordId: number) =>
    request<{ recordId: number }>(`${base(id)}/duplicates/${recordId}`, { method: "DELETE" }),
  attachPdf: (id: string, recordId: number, file: File) => {
    const form = new FormData();
    form.set("file", file);
    return request<{ attached: true; characters: number }>(`${base(id)}/records/${recordId}/fulltext`, {
      method: "POST",
      body: form,
    });
  },
  fetchOpenAccess: (id: string, recordId: number) =>
    request<{ attached: true; url: string | null; characters: number }>(`${base(id)}/records/${recordId}/fulltext`, {
      method: "POST",
      json: { source: "open_access" },
    }),
  suggest: (id: string, recordId: number) =>
    request<{ suggestion: ScreeningSuggestion }>(`${base(id)}/records/${recordId}/suggestion`, { method: "POST" }),
  exportUrl: (id: string, format: "csv" | "ris" | "json" | "svg" | "checklist" | "extraction") =>
    `${base(id)}/export?format=${format}`,
  members: (id: string) => request<{ members: ApiMember[] }>(`${base(id)}/members`),
  invite: (id: string, body: { email: string; role: MemberRole }) =>
    request<{ invitation: ApiInvitation }>(`${base(id)}/members`, { method: "POST", json: body }),
  updateMember: (id: string, userId: string, body: { role?: MemberRole; resolver?: boolean }) =>
    request<{ member: ApiMember }>(`${base(id)}/members/${encodeURIComponent(userId)}`, {
      method: "PATCH",
      json: body,
    }),
  removeMember: (id: string, userId: string) =>
    request<{ userId: string; removed: true }>(`${base(id)}/members/${encodeURIComponent(userId)}`, {
      method: "DELETE",
    }),
  conflicts: (id: string, stage?: ScreeningStage) =>
    request<{ conflicts: ApiConflict[] }>(`${base(id)}/conflicts${stage ? `?stage=${stage}` : ""}`),
  resolve: (
    id: string,
    recordId: number,
    body: { stage: ScreeningStage; decision: ScreeningDecision; reason?: string | null },
  ) =>
    request<{ recordId: number; decision: ScreeningDecision }>(`${base(id)}/records/${recordId}/resolve`, {
      method: "POST",
      json: body,
    }),
  agreement: (id: string) => request<ReviewAgreement>(`${base(id)}/agreement`),
  activity: (id: string, cursor?: string | null) =>
    request<{ entries: ApiActivityEntry[]; nextCursor: string | null }>(
      `${base(id)}/activity?limit=20${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
    ),
  digest: (id: string) => request<{ digest: { enabled: boolean; lastSentDay: string | null } }>(`${base(id)}/digest`),
  setDigest: (id: string, enabled: boolean) =>
    request<{ digest: { enabled: boolean; lastSentDay: string | null } }>(`${base(id)}/digest`, {
      method: "PUT",
      json: { enabled },
    }),
  fullTextUrl: (id: string, recordId: number) => `${base(id)}/records/${recordId}/fulltext`,
};
