import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { getUser } from "~/.server/auth/session";
import { AppError, handleApi } from "~/.server/http/errors";
import { readJson } from "~/.server/http/json-body";
import { addBookmark, BOOKMARK_SIGN_IN_MESSAGE, listBookmarks, removeBookmark } from "~/.server/library/bookmarks";

function signInRequired(): AppError {
  return new AppError("UNAUTHORIZED", BOOKMARK_SIGN_IN_MESSAGE, 401, { title: "Sign In Required" });
}

/** GET /api/bookmarks → {bookmarks: [{bookmark:{id, createdAt}, study:{…}}]}, newest first; 401. */
export async function loader({ request, context }: LoaderFunctionArgs) {
  return handleApi(async () => {
    const user = await getUser(context.app, request);
    if (!user) throw signInRequired();
    const items = await listBookmarks(context.app, { userId: user.id });
    return Response.json({ bookmarks: items }, { headers: { "Cache-Control": "no-store" } });
  });
}

/**
 * POST /api/bookmarks {studyId} → 201 {bookmark} (200 when it already existed);
 * DELETE /api/bookmarks {studyId} → {ok:true}. 401 'Please sign in to bookmark studies',
 * 400 INVALID_INPUT, 404 STUDY_NOT_FOUND / BOOKMARK_NOT_FOUND, 409 LIMIT_REACHED.
 */
export async function action({ request, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "POST" && request.method !== "DELETE") {
      throw new AppError("METHOD_NOT_ALLOWED", "Use GET, POST or DELETE.", 405);
    }
    const user = await getUser(context.app, request);
    if (!user) throw signInRequired();
    const body = await readJson(request);
    if (request.method === "DELETE") {
      await removeBookmark(context.app, { userId: user.id, body });
      return Response.json({ ok: true });
    }
    const { bookmark, created } = await addBookmark(context.app, { userId: user.id, body });
    return Response.json({ bookmark }, { status: created ? 201 : 200 });
  });
}
