/**
 * One structured-output call to a language model (the ai SDK's `streamText` with
 * `Output.object`), shared by the AI extraction and the narrative phrasing.
 *
 * `streamText` rather than `generateText`: inside workerd a `generateText` whose output fails to
 * parse leaves an unhandled promise rejection behind (see app/.server/ai/combined.ts runModel);
 * `streamText` reports the failure through `onError` and the `output` promise only.
 * OpenAI-compatible servers often wrap JSON in ``` fences, which `extractJsonMiddleware` strips.
 */
import type { LanguageModelV4 } from "@ai-sdk/provider";
import { extractJsonMiddleware, Output, streamText, wrapLanguageModel } from "ai";
import type { z } from "zod";
import type { ModelProviderKind } from "./registry";

/** The model to call and how it is reached. */
export interface StructuredModel {
  model: LanguageModelV4;
  provider?: ModelProviderKind;
}

/**
 * Runs the model and returns its object, validated by `schema`.
 * @throws the model's error, `NoObjectGeneratedError` (malformed or schema-violating JSON), or
 *   the abort reason.
 */
export async function generateStructured<S extends z.ZodType>(
  deps: StructuredModel,
  call: { instructions: string; prompt: string; schema: S; name: string; abortSignal?: AbortSignal },
): Promise<z.infer<S>> {
  let streamError: unknown = null;
  const model =
    deps.provider === "openai-compatible"
      ? wrapLanguageModel({ model: deps.model, middleware: extractJsonMiddleware() })
      : deps.model;
  const result = streamText({
    model,
    instructions: call.instructions,
    prompt: call.prompt,
    output: Output.object({ schema: call.schema, name: call.name }),
    abortSignal: call.abortSignal,
    onError: ({ error }) => {
      streamError ??= error;
    },
  });
  // Reading the stream first makes a failing model surface through onError and `output`
  // instead of an unhandled rejection (as app/.server/ai/combined.ts runModel does).
  for await (const _partial of result.partialOutputStream) {
    if (call.abortSignal?.aborted) break;
  }
  if (call.abortSignal?.aborted) throw call.abortSignal.reason;
  let output: unknown;
  try {
    output = await result.output;
  } catch (error) {
    throw streamError ?? error;
  }
  if (streamError) throw streamError;
  return output as z.infer<S>;
}
