import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { simulateReadableStream } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { describe, expect, it, vi } from "vitest";
import { createOfflineModel, wrapSource } from "./offline-model";
import { NoAbstractError } from "./prompts";
import { streamStudySummary } from "./summarize";

const STUDY = {
  title: "Atorvastatin and frailty",
  abstract:
    "BACKGROUND: Statins may slow frailty. RESULTS: Frailty scores rose by 0.75 points with placebo vs. 0.41 points with atorvastatin (95% CI -0.52 to -0.16). CONCLUSIONS: Atorvastatin slowed frailty.",
  journal: "J Test Med",
  publicationDate: "2024-03",
};
const DELTAS = ["Atorvastatin ", "slowed ", "frailty ", "(0.41 vs 0.75 points)."];
const FULL_TEXT = DELTAS.join("");

const usage = {
  inputTokens: { total: 40, noCache: 40, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 6, text: 6, reasoning: 0 },
};

function textParts(deltas: string[]): LanguageModelV4StreamPart[] {
  return [
    { type: "text-start", id: "t1" },
    ...deltas.map((delta): LanguageModelV4StreamPart => ({ type: "text-delta", id: "t1", delta })),
    { type: "text-end", id: "t1" },
  ];
}

function mockModel(chunks: LanguageModelV4StreamPart[], chunkDelayInMs = 5) {
  return new MockLanguageModelV4({
    doStream: async () => ({ stream: simulateReadableStream({ chunks, chunkDelayInMs }) }),
  });
}

const okChunks: LanguageModelV4StreamPart[] = [
  { type: "stream-start", warnings: [] },
  ...textParts(DELTAS),
  { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage },
];

/** Reads a body with an explicit reader; returns every decoded read and how the body ended. */
async function readBody(response: Response): Promise<{ reads: string[]; error?: unknown }> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  const reads: string[] = [];
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { reads };
      reads.push(decoder.decode(value, { stream: true }));
    }
  } catch (error) {
    return { reads, error };
  }
}

describe("streamStudySummary", () => {
  it("streams the model's chunks in order as plain text and calls onFinish once", async () => {
    const model = mockModel(okChunks);
    const onFinish = vi.fn();
    const onError = vi.fn();
    const response = streamStudySummary({ model, modelName: "gpt-4o-mini (OpenAI)", onFinish, onError }, STUDY);

    expect(response.status).toBe(200);
    expect(response.headers.get("X-Model-Name")).toBe(encodeURIComponent("gpt-4o-mini (OpenAI)"));
    expect(decodeURIComponent(response.headers.get("X-Model-Name")!)).toBe("gpt-4o-mini (OpenAI)");
    expect(response.headers.get("Cache-Control")).toBe("no-store");
    expect(response.headers.get("Content-Type")).toBe("text/plain; charset=utf-8");

    const { reads, error } = await readBody(response);
    expect(error).toBeUndefined();
    expect(reads).toEqual(DELTAS);
    expect(onFinish).toHaveBeenCalledTimes(1);
    expect(onFinish).toHaveBeenCalledWith({ text: FULL_TEXT, modelName: "gpt-4o-mini (OpenAI)" });
    expect(onError).not.toHaveBeenCalled();
  });

  it("sends the instructions and the wrapped abstract to the model", async () => {
    const model = mockModel(okChunks, 0);
    await readBody(streamStudySummary({ model, modelName: "m", onFinish: () => {} }, STUDY));
    const [call] = model.doStreamCalls;
    expect(call!.prompt[0]!.role).toBe("system");
    expect(call!.prompt[0]!.content).toMatch(/2 to 4 sentences/);
    const user = call!.prompt[1]!;
    if (user.role !== "user") throw new Error(`expected a user message, got ${user.role}`);
    const text = user.content.map((p) => ("text" in p ? p.text : "")).join("");
    expect(text).toContain(wrapSource(STUDY.abstract));
    expect(text).toContain("Title: Atorvastatin and frailty");
    expect(text).toContain("Journal: J Test Med");
  });

  it("awaits an async onFinish before the body closes", async () => {
    const model = mockModel(okChunks, 0);
    let stored = false;
    const onFinish = async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      stored = true;
    };
    await readBody(streamStudySummary({ model, modelName: "m", onFinish }, STUDY));
    expect(stored).toBe(true);
  });

  it("does not call onFinish when the model fails mid-stream, and errors the body", async () => {
    const failure = new Error("upstream exploded");
    const model = mockModel([
      { type: "stream-start", warnings: [] },
      ...textParts(DELTAS).slice(0, 3),
      { type: "error", error: failure },
    ]);
    const onFinish = vi.fn();
    const onError = vi.fn();
    const { reads, error } = await readBody(streamStudySummary({ model, modelName: "m", onFinish, onError }, STUDY));
    expect(reads.join("")).toBe(DELTAS.slice(0, 2).join(""));
    expect(error).toBe(failure);
    expect(onFinish).not.toHaveBeenCalled();
    expect(onError).toHaveBeenCalledWith(failure);
  });

  it("does not call onFinish when the error arrives after the text, before finish", async () => {
    const model = mockModel([
      { type: "stream-start", warnings: [] },
      ...textParts(DELTAS),
      { type: "error", error: new Error("late") },
      { type: "finish", finishReason: { unified: "error", raw: undefined }, usage },
    ]);
    const onFinish = vi.fn();
    const { error } = await readBody(streamStudySummary({ model, modelName: "m", onFinish, onError: () => {} }, STUDY));
    expect(error).toBeInstanceOf(Error);
    expect(onFinish).not.toHaveBeenCalled();
  });

  it("does not call onFinish when the model throws before streaming", async () => {
    const model = new MockLanguageModelV4({
      doStream: async () => {
        throw new Error("401 Unauthorized");
      },
    });
    const onFinish = vi.fn();
    const onError = vi.fn();
    const { reads, error } = await readBody(streamStudySummary({ model, modelName: "m", onFinish, onError }, STUDY));
    expect(reads).toEqual([]);
    expect((error as Error).message).toBe("401 Unauthorized");
    expect(onError).toHaveBeenCalledTimes(1);
    expect(onFinish).not.toHaveBeenCalled();
  });

  it("does not call onFinish for a truncated (length) or empty answer", async () => {
    const truncated = mockModel([
      { type: "stream-start", warnings: [] },
      ...textParts(DELTAS),
      { type: "finish", finishReason: { unified: "length", raw: "length" }, usage },
    ]);
    const empty = mockModel([
      { type: "stream-start", warnings: [] },
      ...textParts([" ", "\n"]),
      { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage },
    ]);
    const onFinish = vi.fn();
    await readBody(streamStudySummary({ model: truncated, modelName: "m", onFinish }, STUDY));
    await readBody(streamStudySummary({ model: empty, modelName: "m", onFinish }, STUDY));
    expect(onFinish).not.toHaveBeenCalled();
  });

  it("does not call onFinish when aborted, and errors the body", async () => {
    const controller = new AbortController();
    const onFinish = vi.fn();
    const response = streamStudySummary(
      { model: createOfflineModel({ delayMs: 10 }), modelName: "offline", abortSignal: controller.signal, onFinish },
      STUDY,
    );
    const reader = response.body!.getReader();
    await reader.read();
    controller.abort();
    let failed = false;
    try {
      while (!(await reader.read()).done);
    } catch {
      failed = true;
    }
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(failed).toBe(true);
    expect(onFinish).not.toHaveBeenCalled();
  });

  it("reports an onFinish failure through onError", async () => {
    const boom = new Error("D1 is down");
    const onError = vi.fn();
    const { error } = await readBody(
      streamStudySummary(
        { model: mockModel(okChunks, 0), modelName: "m", onFinish: () => Promise.reject(boom), onError },
        STUDY,
      ),
    );
    expect(error).toBeUndefined();
    expect(onError).toHaveBeenCalledWith(boom);
  });

  it("streams the offline model word by word", async () => {
    const onFinish = vi.fn();
    const { reads } = await readBody(
      streamStudySummary({ model: createOfflineModel(), modelName: "offline", onFinish }, STUDY),
    );
    expect(reads.length).toBeGreaterThan(10);
    expect(onFinish).toHaveBeenCalledWith({ text: reads.join(""), modelName: "offline" });
    expect(STUDY.abstract).toContain(
      "Frailty scores rose by 0.75 points with placebo vs. 0.41 points with atorvastatin (95% CI -0.52 to -0.16).",
    );
    expect(reads.join("")).toContain("0.75 points with placebo vs. 0.41 points");
  });

  it.each([null, "", "   short  "])("throws NoAbstractError for abstract %j", (abstract) => {
    const model = mockModel(okChunks);
    const onFinish = vi.fn();
    expect(() => streamStudySummary({ model, modelName: "m", onFinish }, { ...STUDY, abstract })).toThrow(
      NoAbstractError,
    );
    expect(model.doStreamCalls).toHaveLength(0);
  });
});
