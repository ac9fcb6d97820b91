import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { AppError, handleApi } from "~/.server/http/errors";
import { parseStudyId } from "~/.server/studies/params";
import { getStudy } from "~/.server/studies/queries";

/** GET /api/studies/{id} → the stored study with its newest AI summary and the model's name. */
export async function loader({ params, context }: LoaderFunctionArgs) {
  return handleApi(async () => {
    const study = await getStudy(context.app, { id: parseStudyId(params.id) });
    if (!study) throw new AppError("STUDY_NOT_FOUND", "Study not found", 404);
    return Response.json(study, { headers: { "Cache-Control": "no-store" } });
  });
}
