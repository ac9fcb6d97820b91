import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { z } from "zod";
import { requireUser } from "~/.server/auth/session";
import { AppError, handleApi, parseInput } from "~/.server/http/errors";
import { readJson } from "~/.server/http/json-body";
import { listStudyGuides, studyGuideFromReport } from "~/.server/student/assignments";

const FromReportSchema = z.object({ reportId: z.number().int().positive() }).strict();

/** GET /api/student/study-guides → {studyGuides: newest first}; 401 signed out. */
export async function loader({ request, context }: LoaderFunctionArgs) {
  return handleApi(async () => {
    const user = await requireUser(context.app, request);
    const studyGuides = await listStudyGuides(context.app, { userId: user.id });
    return Response.json({ studyGuides }, { headers: { "Cache-Control": "no-store" } });
  });
}

/**
 * POST /api/student/study-guides {reportId} → 201 {studyGuide}: the caller's saved report kept as a
 * study guide on the server (the same guide again if it was sent before). 400 INVALID_INPUT /
 * NO_CONTENT, 401 UNAUTHORIZED, 404 REPORT_NOT_FOUND, 409 LIMIT_REACHED.
 */
export async function action({ request, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "POST") throw new AppError("METHOD_NOT_ALLOWED", "Use GET or POST.", 405);
    const user = await requireUser(context.app, request);
    const { reportId } = parseInput(FromReportSchema, await readJson(request, { maxBytes: 4 * 1024 }));
    const studyGuide = await studyGuideFromReport(context.app, { userId: user.id, reportId });
    return Response.json({ studyGuide }, { status: 201 });
  });
}
