import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { requireUser } from "~/.server/auth/session";
import { AppError, handleApi, parseInput } from "~/.server/http/errors";
import { readJson } from "~/.server/http/json-body";
import { AssignmentPatchSchema, deleteAssignment, parseId, updateAssignment } from "~/.server/student/assignments";

/** Any GET here is a 405 with the usual JSON error body. */
export async function loader() {
  return new AppError("METHOD_NOT_ALLOWED", "Use PATCH or DELETE.", 405).toResponse();
}

/**
 * PATCH /api/student/assignments/{id} {title?, dueDate?, notes?} → {assignment};
 * DELETE /api/student/assignments/{id} → {ok: true}. 400 INVALID_ASSIGNMENT_ID / INVALID_INPUT,
 * 401 UNAUTHORIZED, 404 ASSIGNMENT_NOT_FOUND (unknown or another user's).
 */
export async function action({ request, params, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "PATCH" && request.method !== "DELETE")
      throw new AppError("METHOD_NOT_ALLOWED", "Use PATCH or DELETE.", 405);
    const id = parseId(params.id);
    const user = await requireUser(context.app, request);
    if (request.method === "DELETE") {
      await deleteAssignment(context.app, { userId: user.id, id });
      return Response.json({ ok: true });
    }
    const patch = parseInput(AssignmentPatchSchema, await readJson(request, { maxBytes: 16 * 1024 }));
    return Response.json({ assignment: await updateAssignment(context.app, { userId: user.id, id, patch }) });
  });
}
