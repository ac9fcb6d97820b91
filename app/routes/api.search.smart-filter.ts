import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { z } from "zod";
import { smartFilter } from "~/.server/ai/relevance";
import { getLanguageModel, modelConfigFromEnv } from "~/.server/ai/registry";
import { requireUser } from "~/.server/auth/session";
import { AppError, handleApi, parseInput } from "~/.server/http/errors";
import { readJson } from "~/.server/http/json-body";

const SmartFilterSchema = z.object({
  searchQuery: z
    .string({ error: "searchQuery must be a string" })
    .trim()
    .min(1, "Search query is required")
    .max(500, "Search query must be at most 500 characters"),
  studies: z
    .array(
      z.looseObject({
        id: z.union([z.number(), z.string().min(1)], { error: "id must be a number or a non-empty string" }),
        title: z.string({ error: "title must be a string" }),
        abstract: z.string({ error: "abstract must be a string or null" }).nullish(),
      }),
      { error: "studies must be an array of studies" },
    )
    .min(1, "At least one study is required")
    .max(500, "At most 500 studies can be filtered at once"),
});

/**
 * POST /api/search/smart-filter {searchQuery, studies} → {relevantStudies, model} (SPEC §7).
 * Signed-in users only (SPEC §5). Studies keep every field they were sent with, plus
 * relevanceScore and relevanceReason. A failing model is a 502 SMART_FILTER_FAILED, on which the
 * client shows all results (SPEC §8).
 */
export async function action({ request, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "POST") throw new AppError("METHOD_NOT_ALLOWED", "Use POST.", 405);
    const app = context.app;
    await requireUser(app, request);
    const body = parseInput(SmartFilterSchema, await readJson(request));
    const { model, name, provider } = getLanguageModel(modelConfigFromEnv(app.env, app.fetch));
    try {
      const result = await smartFilter(
        { model, modelName: name, provider, abortSignal: request.signal },
        { searchQuery: body.searchQuery, studies: body.studies },
      );
      return Response.json(result, { headers: { "Cache-Control": "no-store" } });
    } catch (error) {
      console.error("smart filter failed", error);
      throw new AppError("SMART_FILTER_FAILED", "Smart filter failed; showing all results", 502);
    }
  });
}
