/**
 * Extraction of effect data for a set of studies with the chosen extractor: the offline rules
 * (extract-rules.ts) for the offline model, else the language model (extract-ai.ts) with the rules
 * as fallback for a study whose model call fails.
 */
import type { ExcludedStudy, ExtractedStudyData } from "~/lib/meta-analysis/types";
import { getLanguageModel, type ResolvedModel } from "../ai/registry";
import type { AppEnv } from "../env";
import { extractStudyWithModel } from "./extract-ai";
import { extractStudyByRules, RULES_EXTRACTOR, type MetaStudyInput } from "./extract-rules";

/** Request value of `model` that forces the offline rules and template narrative. */
export const OFFLINE_CHOICE = "offline";

/** Name reported as `model` for offline runs. */
export const OFFLINE_META_MODEL = `${RULES_EXTRACTOR} (MetaMind offline extraction and template narrative)`;

/**
 * The model for a request: null (offline rules) when `choice` is "offline" or no model is
 * configured, else the configured model (OPENAI_* / AI_MODEL, see ai/registry.ts).
 */
export function resolveMetaModel(
  env: Pick<AppEnv, "OPENAI_API_KEY" | "OPENAI_BASE_URL" | "AI_MODEL">,
  fetchImpl: typeof fetch,
  choice?: string,
): ResolvedModel | null {
  if (choice === OFFLINE_CHOICE) return null;
  const resolved = getLanguageModel({ OPENAI_API_KEY: env.OPENAI_API_KEY, OPENAI_BASE_URL: env.OPENAI_BASE_URL, AI_MODEL: env.AI_MODEL, fetch: fetchImpl });
  return resolved.provider === "offline" ? null : resolved;
}

/**
 * Extracts every study, calling `onStudy(done, total)` after each.
 * @returns rows, excluded studies and the name of the extractor used.
 * @throws the model's first error when the model failed for every study that had text (so a
 *   queued job retries rather than silently running offline).
 */
export async function extractStudies(
  deps: { model: Pick<ResolvedModel, "model" | "name" | "provider"> | null; abortSignal?: AbortSignal },
  studies: readonly MetaStudyInput[],
  onStudy?: (done: number, total: number) => Promise<void> | void,
): Promise<{ extracted: ExtractedStudyData[]; excluded: ExcludedStudy[]; model: string }> {
  const extracted: ExtractedStudyData[] = [];
  const excluded: ExcludedStudy[] = [];
  let modelFailures = 0;
  let modelTries = 0;
  let firstError: unknown = null;
  for (let i = 0; i < studies.length; i++) {
    const study = studies[i]!;
    let outcome: { rows: ExtractedStudyData[]; excluded: ExcludedStudy | null } | null = null;
    if (deps.model && (study.abstract?.trim() || study.fullTextAnalysis?.trim())) {
      modelTries++;
      try {
        outcome = await extractStudyWithModel(
          { model: deps.model.model, provider: deps.model.provider, modelName: deps.model.name, abortSignal: deps.abortSignal },
          study,
          i,
        );
      } catch (error) {
        modelFailures++;
        firstError ??= error;
      }
    }
    outcome ??= extractStudyByRules(study, i);
    extracted.push(...outcome.rows);
    if (outcome.excluded) excluded.push(outcome.excluded);
    await onStudy?.(i + 1, studies.length);
  }
  if (deps.model && modelTries > 0 && modelFailures === modelTries) throw firstError;
  return { extracted, excluded, model: deps.model ? deps.model.name : OFFLINE_META_MODEL };
}
