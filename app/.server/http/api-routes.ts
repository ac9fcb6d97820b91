import { AppError } from "./errors";

/** An HTTP method an /api route answers. HEAD is implied by GET. */
export type ApiMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** One /api resource route: its path pattern (`:param` = one segment) and the methods it answers. */
export interface ApiRoute {
  /** e.g. "/api/studies/:id/citations" */
  readonly pattern: string;
  /** The route module in app/routes, e.g. "api.studies.$id.citations.ts". */
  readonly file: string;
  readonly methods: readonly ApiMethod[];
}

const route = (file: string, methods: readonly ApiMethod[]): ApiRoute => ({
  file,
  methods,
  pattern: `/${file
    .replace(/\.tsx?$/, "")
    .split(".")
    .map((s) => (s.startsWith("$") ? `:${s.slice(1)}` : s))
    .join("/")}`,
});

/**
 * Every /api route and the methods it answers (the route modules' own method checks agree). A test
 * (tests/fuzz/api-fuzz.workers.test.ts) checks this list against the files in app/routes, so a
 * new route must be added here.
 */
export const API_ROUTES: readonly ApiRoute[] = [
  route("api.admin.stats.ts", ["GET"]),
  route("api.auth.forgot-password.ts", ["POST"]),
  route("api.auth.reset-password.ts", ["POST"]),
  route("api.auth.verify-reset-token.$token.ts", ["GET"]),
  route("api.bookmarks.ts", ["GET", "POST", "DELETE"]),
  route("api.debug.session.ts", ["GET"]),
  route("api.export.ts", ["POST"]),
  route("api.extraction.arms.ts", ["POST"]),
  route("api.extraction.edits.ts", ["GET", "POST"]),
  route("api.extraction.fulltext.$pmcid.ts", ["GET"]),
  route("api.generate-workout.ts", ["POST"]),
  route("api.guest-usage.ts", ["GET"]),
  route("api.health-answer.ts", ["POST"]),
  route("api.health.ts", ["GET"]),
  route("api.login.ts", ["GET", "POST"]),
  route("api.logout.ts", ["POST"]),
  route("api.meta-analysis.enhanced.ts", ["POST"]),
  route("api.meta-analysis.extract.ts", ["POST"]),
  route("api.meta-analysis.jobs.$jobId.ts", ["GET"]),
  route("api.meta-analysis.jobs.$jobId.export.ts", ["GET"]),
  route("api.register.ts", ["POST"]),
  route("api.invitations.$token.accept.ts", ["POST"]),
  route("api.reviews.$id.agreement.ts", ["GET"]),
  route("api.reviews.$id.characteristics.ts", ["GET"]),
  route("api.reviews.$id.characteristics.columns.ts", ["POST"]),
  route("api.reviews.$id.characteristics.columns.$columnId.ts", ["DELETE"]),
  route("api.reviews.$id.characteristics.edits.ts", ["POST"]),
  route("api.reviews.$id.conflicts.ts", ["GET"]),
  route("api.reviews.$id.duplicates.$recordId.ts", ["DELETE"]),
  route("api.reviews.$id.duplicates.ts", ["GET", "POST"]),
  route("api.reviews.$id.export.ts", ["GET"]),
  route("api.reviews.$id.grade.$outcomeId.ts", ["PUT", "DELETE"]),
  route("api.reviews.$id.grade.ts", ["GET"]),
  route("api.reviews.$id.import-search.ts", ["POST"]),
  route("api.reviews.$id.import-uploads.ts", ["POST"]),
  route("api.reviews.$id.import.ts", ["POST"]),
  route("api.reviews.$id.members.$userId.ts", ["PATCH", "DELETE"]),
  route("api.reviews.$id.members.ts", ["GET", "POST"]),
  route("api.reviews.$id.outcomes.$outcomeId.ts", ["GET", "DELETE"]),
  route("api.reviews.$id.outcomes.import.ts", ["POST"]),
  route("api.reviews.$id.outcomes.ts", ["GET", "POST"]),
  route("api.reviews.$id.outcomes.$outcomeId.submissions.ts", ["POST"]),
  route("api.reviews.$id.outcomes.$outcomeId.consensus.ts", ["POST"]),
  route("api.reviews.$id.activity.ts", ["GET"]),
  route("api.reviews.$id.digest.ts", ["GET", "PUT"]),
  route("api.reviews.$id.prisma.ts", ["GET"]),
  route("api.reviews.$id.prisma-checklist.ts", ["GET"]),
  route("api.reviews.$id.update.ts", ["GET", "POST"]),
  route("api.reviews.$id.sources.$sourceId.ts", ["PATCH"]),
  route("api.reviews.$id.records.$recordId.decision.ts", ["POST", "DELETE"]),
  route("api.reviews.$id.records.$recordId.fulltext.ts", ["GET", "POST", "DELETE"]),
  route("api.reviews.$id.records.$recordId.report.ts", ["GET"]),
  route("api.reviews.$id.records.$recordId.resolve.ts", ["POST"]),
  route("api.reviews.$id.records.$recordId.suggestion.ts", ["POST"]),
  route("api.reviews.$id.records.ts", ["GET"]),
  route("api.reviews.$id.risk-of-bias.$recordId.$outcomeId.ts", ["PUT", "DELETE"]),
  route("api.reviews.$id.risk-of-bias.$recordId.$outcomeId.submission.ts", ["POST"]),
  route("api.reviews.$id.risk-of-bias.$recordId.$outcomeId.consensus.ts", ["POST"]),
  route("api.reviews.$id.risk-of-bias.$recordId.suggestions.ts", ["GET"]),
  route("api.reviews.$id.risk-of-bias.export.ts", ["GET"]),
  route("api.reviews.$id.risk-of-bias.ts", ["GET"]),
  route("api.reviews.$id.screening.next.ts", ["GET"]),
  route("api.reviews.$id.screening.undo.ts", ["POST"]),
  route("api.reviews.$id.ts", ["GET", "PATCH", "DELETE"]),
  route("api.reviews.ts", ["GET", "POST"]),
  route("api.risk-of-bias.rob2.judge.ts", ["POST"]),
  route("api.saved-reports.$id.ts", ["DELETE"]),
  route("api.saved-reports.ts", ["GET", "POST"]),
  route("api.saved-searches.$id.ts", ["DELETE"]),
  route("api.saved-searches.ts", ["GET", "POST"]),
  route("api.search-history.ts", ["GET", "DELETE"]),
  route("api.search.$provider.ts", ["GET"]),
  route("api.search.smart-filter.ts", ["POST"]),
  route("api.search.ts", ["GET"]),
  route("api.shared-answers.$id.ts", ["DELETE"]),
  route("api.shared-answers.ts", ["GET", "POST"]),
  route("api.shared-plans.ts", ["POST"]),
  route("api.stripe.webhook.ts", ["POST"]),
  route("api.student.assignments.$assignmentId.transfer-study-guide.ts", ["POST"]),
  route("api.student.assignments.$id.ts", ["PATCH", "DELETE"]),
  route("api.student.assignments.ts", ["GET", "POST"]),
  route("api.student.study-guides.ts", ["GET", "POST"]),
  route("api.studies.$id.analyze-fulltext.ts", ["POST"]),
  route("api.studies.$id.citations.ts", ["GET"]),
  route("api.studies.$id.fulltext-analysis.ts", ["GET"]),
  route("api.studies.$id.regenerate-summary.ts", ["POST"]),
  route("api.studies.$id.specialized.ts", ["GET"]),
  route("api.studies.$id.ts", ["GET"]),
  route("api.studies.batch-summarize.ts", ["POST"]),
  route("api.studies.generate-meals.ts", ["POST"]),
  route("api.studies.open-access-stats.ts", ["GET"]),
  route("api.studies.specialized-summarize.ts", ["POST"]),
  route("api.studies.store.ts", ["POST"]),
  route("api.subscription.create-checkout.ts", ["POST"]),
  route("api.subscription.create-portal.ts", ["POST"]),
  route("api.upload-pdfs.ts", ["POST"]),
  route("api.uploaded-studies.$id.full-analysis.ts", ["POST"]),
  route("api.uploaded-studies.$id.summary.ts", ["POST"]),
  route("api.uploaded-studies.$id.ts", ["GET", "DELETE"]),
  route("api.uploaded-studies.bulk-analysis.ts", ["POST"]),
  route("api.uploaded-studies.bulk-summary.ts", ["POST"]),
  route("api.uploaded-studies.bulk.ts", ["DELETE"]),
  route("api.uploaded-studies.ts", ["GET"]),
  route("api.user.data.ts", ["GET"]),
  route("api.user.delete.ts", ["POST"]),
  route("api.user.settings.ts", ["GET", "PATCH"]),
  route("api.user.subscription.ts", ["GET"]),
  route("api.user.ts", ["GET"]),
];

/**
 * The route a path belongs to, ranked as Remix ranks them: a static segment beats a `:param`
 * (so /api/studies/batch-summarize is not /api/studies/:id). A trailing slash is ignored.
 */
export function matchApiRoute(pathname: string, routes: readonly ApiRoute[] = API_ROUTES): ApiRoute | null {
  const segments = pathname.replace(/\/+$/, "").split("/");
  let best: ApiRoute | null = null;
  let bestScore = -1;
  for (const { route: candidate, parts } of splitPatterns(routes).get(segments.length) ?? []) {
    let score = 0;
    let matches = true;
    for (let i = 0; i < parts.length && matches; i++) {
      const part = parts[i]!;
      const segment = segments[i]!;
      if (part.startsWith(":")) matches = segment !== "";
      else if (part === segment) score++;
      else matches = false;
    }
    if (matches && score > bestScore) {
      best = candidate;
      bestScore = score;
    }
  }
  return best;
}

const splitCache = new WeakMap<readonly ApiRoute[], Map<number, { route: ApiRoute; parts: string[] }[]>>();

/** The routes' patterns split into segments once per route table, grouped by segment count. */
function splitPatterns(routes: readonly ApiRoute[]): Map<number, { route: ApiRoute; parts: string[] }[]> {
  let bySize = splitCache.get(routes);
  if (!bySize) {
    bySize = new Map();
    for (const route of routes) {
      const parts = route.pattern.split("/");
      const group = bySize.get(parts.length);
      if (group) group.push({ route, parts });
      else bySize.set(parts.length, [{ route, parts }]);
    }
    splitCache.set(routes, bySize);
  }
  return bySize;
}

/** The `Allow` header value of a route: its methods, with HEAD beside GET and OPTIONS. */
export function allowHeader(route: ApiRoute): string {
  const methods: string[] = [...route.methods];
  if (methods.includes("GET")) methods.splice(methods.indexOf("GET") + 1, 0, "HEAD");
  return [...methods, "OPTIONS"].join(", ");
}

/** True for /api and every path under it. */
export function isApiPath(pathname: string): boolean {
  return pathname === "/api" || pathname.startsWith("/api/");
}

/** A route of Remix's server build: its path is relative to its parent's. */
interface BuiltRoute {
  path?: string;
  parentId?: string;
}

/**
 * The /api path patterns of the built app's route modules (Remix's `build.routes`; a flat route
 * such as api.saved-reports.$id nests under api.saved-reports, so each path is joined with its
 * parents'), as {@link ApiRoute}s without methods.
 */
export function apiPatternsOfBuild(routes: Record<string, BuiltRoute | undefined>): ApiRoute[] {
  const fullPath = (route: BuiltRoute | undefined, depth = 0): string => {
    if (!route || depth > 32) return "";
    const parent = route.parentId ? fullPath(routes[route.parentId], depth + 1) : "";
    return [parent, route.path ?? ""].filter(Boolean).join("/");
  };
  return Object.values(routes)
    .map((r) => fullPath(r))
    .filter((path) => path === "api" || path.startsWith("api/"))
    .map((path) => ({ pattern: `/${path}`, file: path, methods: [] }));
}

/**
 * Answers what no route module should see, before Remix: an /api path no built route matches is
 * 404 NOT_FOUND; a method the route does not answer ({@link API_ROUTES}) is 405
 * METHOD_NOT_ALLOWED with `Allow`; OPTIONS is 204 with `Allow`. Returns null when the request goes
 * on to its route (and for every non-/api path). A built route missing from API_ROUTES also goes
 * on (see {@link jsonApiError}), so a route added without its line here works while its test fails.
 */
export function answerApiRouting(request: Request, builtRoutes: readonly ApiRoute[]): Response | null {
  const { pathname } = new URL(request.url);
  if (!isApiPath(pathname)) return null;
  if (!matchApiRoute(pathname, builtRoutes)) {
    return new AppError("NOT_FOUND", `No API endpoint at ${pathname}.`, 404).toResponse();
  }
  const route = matchApiRoute(pathname);
  if (!route) return null;
  const method = request.method.toUpperCase();
  const allow = allowHeader(route);
  if (method === "OPTIONS") return new Response(null, { status: 204, headers: { Allow: allow } });
  const answered =
    method === "HEAD" ? route.methods.includes("GET") : (route.methods as readonly string[]).includes(method);
  if (answered) return null;
  return new AppError("METHOD_NOT_ALLOWED", `${method} is not allowed here. Use ${route.methods.join(" or ")}.`, 405, {
    allow: allow.split(", "),
  }).toResponse({ Allow: allow });
}

/**
 * Makes every /api error a JSON answer: a non-JSON error response from Remix (the catch-all's
 * HTML 404 page for an unknown path, Remix's plain-text 405 or 'Unexpected Server Error') becomes
 * `{error, message}` JSON with the same status (404 NOT_FOUND, 405 METHOD_NOT_ALLOWED with Allow,
 * 500 INTERNAL, other 4xx BAD_REQUEST). Responses of other paths, JSON errors and successes pass.
 */
export function jsonApiError(request: Request, response: Response): Response {
  const { pathname } = new URL(request.url);
  if (!isApiPath(pathname) || response.status < 400) return response;
  const type = response.headers.get("Content-Type") ?? "";
  if (type.includes("json")) return response;
  response.body?.cancel().catch(() => {});
  if (response.status === 404) {
    return new AppError("NOT_FOUND", `No API endpoint at ${pathname}.`, 404).toResponse();
  }
  if (response.status === 405) {
    const route = matchApiRoute(pathname);
    const allow = route ? allowHeader(route) : null;
    return new AppError("METHOD_NOT_ALLOWED", `${request.method} is not allowed here.`, 405, {
      ...(allow ? { allow: allow.split(", ") } : {}),
    }).toResponse(allow ? { Allow: allow } : undefined);
  }
  if (response.status >= 500) {
    return new AppError("INTERNAL", "Something went wrong. Please try again.", 500).toResponse();
  }
  return new AppError("BAD_REQUEST", "The request could not be handled.", response.status).toResponse();
}
