/**
 * Time limits for model calls. A remote model (OpenAI, or an OpenAI-compatible server that has
 * stalled) must not hold a request open forever: the call is aborted when the model is silent for
 * longer than the limit, and the services then answer with their usual failure messages.
 */
import type { LanguageModelV4, LanguageModelV4StreamPart } from "@ai-sdk/provider";

/** Raised (as the abort reason) when a model call exceeds its time limit. */
export class ModelTimeoutError extends Error {
  override name = "ModelTimeoutError";
  constructor(readonly timeoutMs: number) {
    super(
      `The AI model did not answer within ${
        timeoutMs < 1000 ? `${timeoutMs} ms` : `${Math.round(timeoutMs / 1000)} s`
      }`,
    );
  }
}

function combine(outer: AbortSignal | undefined, inner: AbortSignal): AbortSignal {
  return outer ? AbortSignal.any([outer, inner]) : inner;
}

/**
 * Wraps `model` so that every call has a time limit of `timeoutMs` milliseconds:
 * - doGenerate: the whole answer must arrive within `timeoutMs`;
 * - doStream: the stream must open and then deliver each next part within `timeoutMs` of the
 *   previous one (an idle limit, so long answers that keep streaming are not cut off).
 * On expiry a call that has not answered is aborted (its abort signal, combined with the caller's,
 * aborts) and rejects with a {@link ModelTimeoutError}; an open stream that falls silent ends with
 * an `{ type: "error", error }` part (as providers report mid-stream failures, so `streamText`'s
 * onError sees it) and the provider's stream is cancelled, which closes its connection. The
 * caller's own abort keeps its reason. `timeoutMs` ≤ 0 or non-finite returns `model`.
 */
export function withModelTimeout(model: LanguageModelV4, timeoutMs: number): LanguageModelV4 {
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) return model;
  return {
    specificationVersion: model.specificationVersion,
    provider: model.provider,
    modelId: model.modelId,
    get supportedUrls() {
      return model.supportedUrls;
    },

    async doGenerate(options) {
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(new ModelTimeoutError(timeoutMs)), timeoutMs);
      try {
        return await raceAbort(
          model.doGenerate({
            ...options,
            abortSignal: combine(options.abortSignal, controller.signal),
          }),
          controller.signal,
        );
      } finally {
        clearTimeout(timer);
      }
    },

    async doStream(options) {
      const opening = new AbortController();
      const timer = setTimeout(() => opening.abort(new ModelTimeoutError(timeoutMs)), timeoutMs);
      let result;
      try {
        result = await raceAbort(
          model.doStream({ ...options, abortSignal: combine(options.abortSignal, opening.signal) }),
          opening.signal,
        );
      } finally {
        clearTimeout(timer);
      }
      const reader = result.stream.getReader();
      const stream = new ReadableStream<LanguageModelV4StreamPart>({
        async pull(controller) {
          let idle: ReturnType<typeof setTimeout> | undefined;
          const silence = new Promise<"timeout">((resolve) => {
            idle = setTimeout(() => resolve("timeout"), timeoutMs);
          });
          const next = await Promise.race([reader.read(), silence]).finally(() => clearTimeout(idle));
          if (next === "timeout") {
            const error = new ModelTimeoutError(timeoutMs);
            // Reported the way providers report mid-stream failures: an error part, then the end.
            controller.enqueue({ type: "error", error });
            controller.close();
            reader.cancel(error).catch(() => {});
            return;
          }
          if (next.done) controller.close();
          else controller.enqueue(next.value);
        },
        cancel(reason) {
          return reader.cancel(reason);
        },
      });
      return { ...result, stream };
    },
  };
}

/** Rejects with the signal's reason as soon as it aborts, even if `promise` ignores the signal. */
function raceAbort<T>(promise: PromiseLike<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
