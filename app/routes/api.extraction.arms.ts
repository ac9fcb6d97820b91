import type { ActionFunctionArgs } from "@remix-run/cloudflare";
import { getUser } from "~/.server/auth/session";
import { reserveAiUse } from "~/.server/billing/metering";
import { ArmsRequestSchema, MAX_REPORT_BYTES } from "~/.server/extraction/arms";
import { documentOf, extractArmData, resolveMetaModel } from "~/.server/extraction/service";
import { AppError, handleApi, parseInput } from "~/.server/http/errors";
import { META_ANALYSIS_ACTION } from "~/.server/meta-analysis/jobs";
import { readLimitedJson } from "~/.server/meta-analysis/request";

/**
 * POST /api/extraction/arms {text, format: 'jats'|'html'|'markdown'|'text', intervention, comparator,
 * outcome} → 200 {outcomeType, intervention: {events, groupSize, mean, sd}, comparator: {…},
 * derived: [{arm, field, from}], quotes: [{arm, field, text, start, end} | {arm, field, table, row,
 * column, text}], extractor, confidence: {intervention: {events, groupSize, mean, sd}, comparator: {…}}
 * (0–1 per value, null where none is given), reason: {same shape} (the evidence in words, or why a value
 * was withheld: 'not found …'), candidates: [quotes of a withheld best candidate]}. The offline rules are free; when a language model is configured and the
 * rules left a gap, one meta-analysis use is reserved (403 LIMIT_REACHED when none is left) and
 * counted once the model answered. Errors: 400 INVALID_INPUT / INVALID_JSON / INVALID_REPORT,
 * 405, 413 PAYLOAD_TOO_LARGE for text over 2 MB, 502 AI_FAILED.
 */
export async function action({ request, context }: ActionFunctionArgs) {
  return handleApi(async () => {
    if (request.method !== "POST") throw new AppError("METHOD_NOT_ALLOWED", "Use POST.", 405);
    const app = context.app;
    const body = await readLimitedJson(request, MAX_REPORT_BYTES + 64 * 1024);
    const text = (body as { text?: unknown } | null)?.text;
    if (typeof text === "string" && new TextEncoder().encode(text).byteLength > MAX_REPORT_BYTES) {
      throw new AppError("PAYLOAD_TOO_LARGE", "The report text may be at most 2 MB.", 413);
    }
    const input = parseInput(ArmsRequestSchema, body);
    const resolved = resolveMetaModel(app.env, app.fetch);
    const document = documentOf({ kind: "report", format: input.format, text: input.text });
    const extracted = await extractArmData(
      {
        model: resolved ? { model: resolved.model, provider: resolved.provider, name: resolved.name } : null,
        abortSignal: request.signal,
        reserve: async () => reserveAiUse(app, { user: await getUser(app, request), request }, META_ANALYSIS_ACTION),
      },
      { document, question: input },
    );
    return Response.json(extracted.result, {
      headers: extracted.use ? extracted.use.headers : { "Cache-Control": "no-store" },
    });
  });
}
