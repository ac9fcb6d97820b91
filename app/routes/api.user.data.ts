import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { requireUser } from "~/.server/auth/session";
import { handleApi } from "~/.server/http/errors";
import { exportAccountData } from "~/.server/library/account";

/**
 * GET /api/user/data → the signed-in user's data as a JSON attachment
 * (metamind-data-YYYY-MM-DD.json): the account, the rows of every user-owned table, the file
 * list. 401 signed out.
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  return handleApi(async () => {
    const user = await requireUser(context.app, request);
    const now = new Date();
    const data = await exportAccountData(context.app.bindings, { userId: user.id, now });
    return new Response(JSON.stringify(data, null, 2), {
      headers: {
        "Content-Type": "application/json; charset=utf-8",
        "Content-Disposition": `attachment; filename="metamind-data-${now.toISOString().slice(0, 10)}.json"`,
        "Cache-Control": "no-store",
      },
    });
  });
}
