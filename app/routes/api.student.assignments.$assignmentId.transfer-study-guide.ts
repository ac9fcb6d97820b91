import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { requireUser } from "~/.server/auth/session";
import { AppError, handleApi, parseInput } from "~/.server/http/errors";
import { readJson } from "~/.server/http/json-body";
import { parseId, TransferInputSchema, transferStudyGuide } from "~/.server/student/assignments";

/** Any GET here is a 405 with the usual JSON error body. */
export async function loader() {
  return new AppError("METHOD_NOT_ALLOWED", "Use POST.", 405).toResponse();
}

/**
 * POST /api/student/assignments/{assignmentId}/transfer-study-guide {studyGuideId} → {studyGuide}
 * (SPEC §7). studyGuideId is a study guide id or "report-{savedReportId}". 400 INVALID_INPUT,
 * 401 UNAUTHORIZED, 404 ASSIGNMENT_NOT_FOUND / STUDY_GUIDE_NOT_FOUND / REPORT_NOT_FOUND.
 */
export async function action({ request, params, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "POST") throw new AppError("METHOD_NOT_ALLOWED", "Use POST.", 405);
    const assignmentId = parseId(params.assignmentId);
    const user = await requireUser(context.app, request);
    const { studyGuideId } = parseInput(TransferInputSchema, await readJson(request, { maxBytes: 4 * 1024 }));
    const studyGuide = await transferStudyGuide(context.app, { userId: user.id, assignmentId, studyGuideId });
    return Response.json({ studyGuide });
  });
}
