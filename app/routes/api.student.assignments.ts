import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { requireUser } from "~/.server/auth/session";
import { AppError, handleApi, parseInput } from "~/.server/http/errors";
import { readJson } from "~/.server/http/json-body";
import { AssignmentInputSchema, createAssignment, listAssignments } from "~/.server/student/assignments";

/** GET /api/student/assignments → {assignments: soonest due first}; 401 signed out. */
export async function loader({ request, context }: LoaderFunctionArgs) {
  return handleApi(async () => {
    const user = await requireUser(context.app, request);
    const assignments = await listAssignments(context.app, { userId: user.id });
    return Response.json({ assignments }, { headers: { "Cache-Control": "no-store" } });
  });
}

/**
 * POST /api/student/assignments {title, dueDate: YYYY-MM-DD, notes?} → 201 {assignment}.
 * 400 INVALID_JSON / INVALID_INPUT, 401 UNAUTHORIZED, 409 LIMIT_REACHED.
 */
export async function action({ request, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "POST") throw new AppError("METHOD_NOT_ALLOWED", "Use GET or POST.", 405);
    const user = await requireUser(context.app, request);
    const input = parseInput(AssignmentInputSchema, await readJson(request, { maxBytes: 16 * 1024 }));
    const assignment = await createAssignment(context.app, { userId: user.id, input });
    return Response.json({ assignment }, { status: 201 });
  });
}
