/**
 * Browser calls of the review's risk-of-bias routes (/api/reviews/{id}/risk-of-bias…), used by the
 * review's Risk of bias tab and the meta-analysis page. Errors throw {@link RobApiError} with the
 * server's code and message (e.g. ANSWERS_INCOMPLETE with `missing`).
 */
import type { ApiRobDualStudy } from "~/lib/risk-of-bias/dual";
import type { Rob2Answer, Rob2DomainId, Rob2Variant, RobJudgement } from "~/lib/risk-of-bias/rob2";
import type {
  ApiGradeRating,
  ApiGradeSettings,
  ApiRobAssessment,
  ApiRobOverview,
  ApiRobSuggestions,
} from "~/lib/risk-of-bias/types";

export class RobApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly body: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = "RobApiError";
  }
}

async function call<T>(path: string, init: RequestInit & { json?: unknown } = {}): Promise<T> {
  const { json, ...rest } = init;
  const res = await fetch(path, {
    ...rest,
    headers: json === undefined ? rest.headers : { "Content-Type": "application/json" },
    body: json === undefined ? rest.body : JSON.stringify(json),
  });
  if (res.status === 204) return undefined as T;
  const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  if (!res.ok)
    throw new RobApiError(
      res.status,
      String(body.error ?? "HTTP_ERROR"),
      String(body.message ?? `Request failed (${res.status})`),
      body,
    );
  return body as T;
}

/** PUT body of one assessment. */
export interface RobAssessmentInput {
  variant: Rob2Variant;
  answers: Record<string, Rob2Answer>;
  support: Record<string, { text: string; quotes: string[] }>;
  overrides: Partial<Record<Rob2DomainId | "overall", { judgement: RobJudgement; justification: string }>>;
}

const base = (reviewId: string) => `/api/reviews/${encodeURIComponent(reviewId)}/risk-of-bias`;

export const robApi = {
  overview: (reviewId: string) => call<ApiRobOverview>(base(reviewId)),
  save: (reviewId: string, recordId: number, outcomeId: number, input: RobAssessmentInput) =>
    call<{ assessment: ApiRobAssessment }>(`${base(reviewId)}/${recordId}/${outcomeId}`, {
      method: "PUT",
      json: input,
    }),
  /** Dual mode: the caller's own assessment of a study × outcome. */
  submit: (reviewId: string, recordId: number, outcomeId: number, input: RobAssessmentInput) =>
    call<{ study: ApiRobDualStudy }>(`${base(reviewId)}/${recordId}/${outcomeId}/submission`, {
      method: "POST",
      json: input,
    }),
  /** Dual mode: the consensus assessment (owner or resolver). */
  consensus: (reviewId: string, recordId: number, outcomeId: number, input: RobAssessmentInput) =>
    call<{ study: ApiRobDualStudy }>(`${base(reviewId)}/${recordId}/${outcomeId}/consensus`, {
      method: "POST",
      json: input,
    }),
  remove: (reviewId: string, recordId: number, outcomeId: number) =>
    call<void>(`${base(reviewId)}/${recordId}/${outcomeId}`, { method: "DELETE" }),
  suggestions: (reviewId: string, recordId: number, variant: Rob2Variant) =>
    call<ApiRobSuggestions>(`${base(reviewId)}/${recordId}/suggestions?variant=${variant}`),
  gradeSettings: (reviewId: string) =>
    call<{ settings: ApiGradeSettings[] }>(`/api/reviews/${encodeURIComponent(reviewId)}/grade`),
  saveGradeSettings: (
    reviewId: string,
    outcomeId: number,
    body: { rating: ApiGradeRating; assumedControlRisk: number | null; decisionThreshold: number | null },
  ) =>
    call<{ settings: ApiGradeSettings }>(`/api/reviews/${encodeURIComponent(reviewId)}/grade/${outcomeId}`, {
      method: "PUT",
      json: body,
    }),
  exportUrl: (reviewId: string, outcomeId: number, format: "csv" | "traffic-light" | "summary" | "audit") =>
    `${base(reviewId)}/export?outcomeId=${outcomeId}&format=${format}`,
};
