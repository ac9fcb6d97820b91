/**
 * Chooses the language model from configuration: OpenAI (Responses API), any OpenAI-compatible
 * server (Chat Completions: Ollama, vLLM, LM Studio…), or the built-in offline extractive model.
 */
import { cappedFetch } from "../http/upstream-body";
import { createOpenAI } from "@ai-sdk/openai";
import type { LanguageModelV4 } from "@ai-sdk/provider";
import { createOfflineModel } from "./offline-model";
import { withModelTimeout } from "./timeout";

/** Author name shown for texts written by the offline model. */
export const OFFLINE_MODEL_NAME = "MetaMind Offline Extractive v1";
export const DEFAULT_OPENAI_MODEL = "gpt-4o-mini";
/** Default for OpenAI-compatible servers; Ollama's tag for Llama 3.2 3B. */
export const DEFAULT_COMPATIBLE_MODEL = "llama3.2";

export type ModelProviderKind = "openai" | "openai-compatible" | "offline";

export interface ModelConfig {
  OPENAI_API_KEY?: string;
  OPENAI_BASE_URL?: string;
  AI_MODEL?: string;
  /** Pause between streamed words of the offline model, in milliseconds. */
  OFFLINE_MODEL_DELAY_MS?: number;
  /** Time limit of remote model calls in ms (see withModelTimeout); unset = no limit. */
  AI_TIMEOUT_MS?: number;
  fetch?: typeof fetch;
}

/** Largest model answer read (a whole streamed completion), in bytes. */
export const MODEL_MAX_BYTES = 8 * 1024 * 1024;

/**
 * The model settings of the app's env plus the request's fetch, wrapped so a model answer larger
 * than {@link MODEL_MAX_BYTES} is cut off with 'answer too large' (cappedFetch).
 */
export function modelConfigFromEnv(
  env: Pick<
    ModelConfig,
    "OPENAI_API_KEY" | "OPENAI_BASE_URL" | "AI_MODEL" | "OFFLINE_MODEL_DELAY_MS" | "AI_TIMEOUT_MS"
  >,
  fetchImpl: typeof fetch,
): ModelConfig {
  return {
    OPENAI_API_KEY: env.OPENAI_API_KEY,
    OPENAI_BASE_URL: env.OPENAI_BASE_URL,
    AI_MODEL: env.AI_MODEL,
    OFFLINE_MODEL_DELAY_MS: env.OFFLINE_MODEL_DELAY_MS,
    AI_TIMEOUT_MS: env.AI_TIMEOUT_MS,
    fetch: cappedFetch(fetchImpl, MODEL_MAX_BYTES),
  };
}

export interface ResolvedModel {
  model: LanguageModelV4;
  /** Author line for the UI, e.g. "gpt-4o-mini (OpenAI)". */
  name: string;
  provider: ModelProviderKind;
  /** Short provider label for badges: "OpenAI", "OpenAI-compatible" or "Offline". */
  label: string;
}

const blankToUndefined = (v: string | undefined): string | undefined => (v?.trim() ? v.trim() : undefined);

/** The base URL without credentials, query or trailing slash, safe to show to users. */
function displayUrl(baseURL: string): string {
  try {
    const url = new URL(baseURL);
    return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
  } catch {
    return baseURL.replace(/\/+$/, "");
  }
}

/**
 * Resolves the model for this request.
 *
 * - `OPENAI_BASE_URL` set → Chat Completions at `${OPENAI_BASE_URL}/chat/completions` via
 *   `createOpenAI({ apiKey, baseURL, fetch }).chat(model)`; the key may be absent (Ollama needs
 *   none: "not-needed" is sent). Model: `AI_MODEL` or {@link DEFAULT_COMPATIBLE_MODEL}.
 * - else `OPENAI_API_KEY` set → OpenAI Responses API (`POST /v1/responses`) via
 *   `createOpenAI({ apiKey, fetch })(model)`. Model: `AI_MODEL` or {@link DEFAULT_OPENAI_MODEL}.
 * - else the offline extractive model ({@link OFFLINE_MODEL_NAME}), streaming one word every
 *   `OFFLINE_MODEL_DELAY_MS` ms (default 0).
 *
 * Remote models get the `AI_TIMEOUT_MS` time limit ({@link withModelTimeout}). Blank strings count
 * as unset. Nothing is fetched here; `fetch` is only handed to the provider.
 */
export function getLanguageModel(config: ModelConfig): ResolvedModel {
  const apiKey = blankToUndefined(config.OPENAI_API_KEY);
  const baseURL = blankToUndefined(config.OPENAI_BASE_URL)?.replace(/\/+$/, "");
  const modelId = blankToUndefined(config.AI_MODEL);

  if (baseURL) {
    const id = modelId ?? DEFAULT_COMPATIBLE_MODEL;
    const provider = createOpenAI({
      apiKey: apiKey ?? "not-needed",
      baseURL,
      fetch: config.fetch,
    });
    return {
      model: withModelTimeout(provider.chat(id), config.AI_TIMEOUT_MS ?? 0),
      name: `${id} (OpenAI-compatible at ${displayUrl(baseURL)})`,
      provider: "openai-compatible",
      label: "OpenAI-compatible",
    };
  }
  if (apiKey) {
    const id = modelId ?? DEFAULT_OPENAI_MODEL;
    return {
      model: withModelTimeout(createOpenAI({ apiKey, fetch: config.fetch })(id), config.AI_TIMEOUT_MS ?? 0),
      name: `${id} (OpenAI)`,
      provider: "openai",
      label: "OpenAI",
    };
  }
  return {
    model: createOfflineModel({ delayMs: config.OFFLINE_MODEL_DELAY_MS }),
    name: OFFLINE_MODEL_NAME,
    provider: "offline",
    label: "Offline",
  };
}
