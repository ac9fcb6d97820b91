import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { checkHealth, healthResponse } from "~/.server/observability/health";

/** GET /api/health → 200 {status:"ok", checks:{d1,kv,r2:{status,ms}}} or 503 naming the failing bindings. */
export async function loader({ context }: LoaderFunctionArgs) {
  const { DB, KV, BUCKET } = context.app.bindings;
  return healthResponse(await checkHealth({ db: DB, kv: KV, bucket: BUCKET }));
}
