import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { simulateReadableStream, streamText } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { describe, expect, it } from "vitest";
import { ModelTimeoutError, withModelTimeout } from "./timeout";

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};
const CALL = { prompt: [{ role: "user" as const, content: [{ type: "text" as const, text: "hi" }] }] };

function parts(words: string[]): LanguageModelV4StreamPart[] {
  return [
    { type: "stream-start", warnings: [] },
    { type: "text-start", id: "t" },
    ...words.map((delta): LanguageModelV4StreamPart => ({ type: "text-delta", id: "t", delta })),
    { type: "text-end", id: "t" },
    { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage },
  ];
}

/** A stream that opens, sends one part and then stays silent until its signal aborts. */
function stallingModel() {
  return new MockLanguageModelV4({
    doStream: async ({ abortSignal }) => ({
      stream: new ReadableStream<LanguageModelV4StreamPart>({
        start(controller) {
          controller.enqueue({ type: "stream-start", warnings: [] });
          abortSignal?.addEventListener("abort", () => controller.error(abortSignal.reason), { once: true });
        },
      }),
    }),
  });
}

async function drain(stream: ReadableStream<LanguageModelV4StreamPart>) {
  const seen: LanguageModelV4StreamPart[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return seen;
    seen.push(value);
  }
}

describe("withModelTimeout", () => {
  it("ends a stream that goes silent with a ModelTimeoutError part after the idle limit", async () => {
    const started = Date.now();
    const { stream } = await withModelTimeout(stallingModel(), 60).doStream(CALL);
    const seen = await drain(stream);
    expect(seen.map((p) => p.type)).toEqual(["stream-start", "error"]);
    const error = (seen[1] as { error: unknown }).error;
    expect(error).toBeInstanceOf(ModelTimeoutError);
    expect((error as ModelTimeoutError).message).toBe("The AI model did not answer within 60 ms");
    expect(Date.now() - started).toBeGreaterThanOrEqual(55);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it("rejects when the stream never opens, even if the model ignores its abort signal", async () => {
    const model = new MockLanguageModelV4({ doStream: () => new Promise(() => {}) });
    await expect(withModelTimeout(model, 40).doStream(CALL)).rejects.toBeInstanceOf(ModelTimeoutError);
  });

  it("is an idle limit: a long answer that keeps streaming is not cut off", async () => {
    const words = Array.from({ length: 12 }, (_, i) => `w${i} `);
    const model = new MockLanguageModelV4({
      doStream: async () => ({ stream: simulateReadableStream({ chunks: parts(words), chunkDelayInMs: 20 }) }),
    });
    const started = Date.now();
    const seen = await drain((await withModelTimeout(model, 80).doStream(CALL)).stream);
    expect(Date.now() - started).toBeGreaterThan(160); // longer in total than the limit
    expect(seen.filter((p) => p.type === "text-delta")).toHaveLength(12);
  });

  it("limits doGenerate as a whole", async () => {
    const model = new MockLanguageModelV4({ doGenerate: () => new Promise(() => {}) });
    await expect(withModelTimeout(model, 40).doGenerate(CALL)).rejects.toBeInstanceOf(ModelTimeoutError);
  });

  it("keeps the caller's abort reason and leaves the model untouched when the limit is off", async () => {
    const controller = new AbortController();
    const pending = withModelTimeout(stallingModel(), 5_000).doStream({ ...CALL, abortSignal: controller.signal });
    const { stream } = await pending;
    controller.abort(new Error("client went away"));
    await expect(drain(stream)).rejects.toThrow("client went away");
    const model = stallingModel();
    expect(withModelTimeout(model, 0)).toBe(model);
  });

  it("reaches streamText's onError so services release the use and store nothing", async () => {
    const errors: unknown[] = [];
    const result = streamText({
      model: withModelTimeout(stallingModel(), 40),
      prompt: "Summarise.",
      onError: ({ error }) => void errors.push(error),
    });
    expect(await result.text).toBe("");
    expect(errors[0]).toBeInstanceOf(ModelTimeoutError);
  });
});
