import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { generateText, streamText } from "ai";
import { afterEach, describe, expect, it, vi } from "vitest";
import { splitSentences } from "~/lib/extraction/core";
import { summarizeExtractive } from "./extractive";
import {
  createOfflineModel,
  extractSource,
  OFFLINE_MODEL_ID,
  OFFLINE_PROVIDER_ID,
  SOURCE_CLOSE_TAG,
  SOURCE_OPEN_TAG,
  wrapSource,
} from "./offline-model";

const ABSTRACT = [
  "BACKGROUND: Statins lower cholesterol, but their effect on frailty in older adults (e.g. those over 75) is unclear.",
  "METHODS: We randomly assigned 1,204 adults to atorvastatin 20 mg or placebo for 2 years; Smith et al. designed the frailty index used here.",
  "RESULTS: Frailty scores rose by 0.75 points with placebo vs. 0.41 points with atorvastatin (mean difference -0.34; 95% CI -0.52 to -0.16; p < 0.001).",
  "Muscle symptoms occurred in 6.2% vs. 5.9% of participants (p = 0.81), i.e. at similar rates (Fig. 2).",
  "Adherence was 87%.",
  "CONCLUSIONS: Atorvastatin slowed the rise in frailty over 2 years without more muscle symptoms.",
  "Longer trials are needed.",
].join(" ");

const PROMPT = `Title: A statin trial\n\nSummarise the abstract below.\n\n${wrapSource(ABSTRACT)}`;
const EXPECTED = summarizeExtractive(ABSTRACT)
  .sentences.map((s) => s.text)
  .join(" ");

async function collect(stream: AsyncIterable<string>): Promise<string[]> {
  const chunks: string[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("wrapSource / extractSource", () => {
  it("round-trips the text between the markers", () => {
    expect(wrapSource("abc")).toBe(`${SOURCE_OPEN_TAG}\nabc\n${SOURCE_CLOSE_TAG}`);
    expect(extractSource(`Intro\n${wrapSource("  The text.  ")}\nOutro`)).toBe("The text.");
    expect(extractSource("No markers here. ")).toBe("No markers here.");
    expect(extractSource(`${SOURCE_OPEN_TAG} unterminated`)).toBe(`${SOURCE_OPEN_TAG} unterminated`);
  });

  it("keeps a source that itself mentions the closing marker", () => {
    const tricky = `Tags like ${SOURCE_CLOSE_TAG} appear here. Then more text.`;
    expect(extractSource(wrapSource(tricky))).toBe(tricky);
  });
});

describe("createOfflineModel", () => {
  it("is a v4 language model", () => {
    const model = createOfflineModel();
    expect(model.specificationVersion).toBe("v4");
    expect(model.provider).toBe(OFFLINE_PROVIDER_ID);
    expect(model.modelId).toBe(OFFLINE_MODEL_ID);
  });

  it("emits the documented V4 stream parts", async () => {
    const model = createOfflineModel();
    const { stream } = await model.doStream({ prompt: [{ role: "user", content: [{ type: "text", text: PROMPT }] }] });
    const parts: LanguageModelV4StreamPart[] = [];
    const reader = stream.getReader();
    for (let r = await reader.read(); !r.done; r = await reader.read()) parts.push(r.value);
    const types = parts.map((p) => p.type);
    const words = EXPECTED.split(/\s+/).length;
    expect(types).toEqual([
      "stream-start",
      "response-metadata",
      "text-start",
      ...Array<string>(words).fill("text-delta"),
      "text-end",
      "finish",
    ]);
    const deltas = parts.flatMap((p) => (p.type === "text-delta" ? [p.delta] : []));
    expect(deltas.join("")).toBe(EXPECTED);
    expect(parts.at(-1)).toEqual({
      type: "finish",
      finishReason: { unified: "stop", raw: "stop" },
      usage: {
        inputTokens: {
          total: PROMPT.split(/\s+/).length,
          noCache: PROMPT.split(/\s+/).length,
          cacheRead: 0,
          cacheWrite: 0,
        },
        outputTokens: { total: words, text: words, reasoning: 0 },
      },
    });
  });

  it("streams word by word through streamText, matching generateText", async () => {
    const warn = vi.spyOn(console, "warn");
    const model = createOfflineModel();
    const result = streamText({ model, instructions: "Summarise.", prompt: PROMPT });
    const chunks = await collect(result.textStream);
    const generated = await generateText({ model, instructions: "Summarise.", prompt: PROMPT });

    expect(chunks.length).toBe(EXPECTED.split(/\s+/).length);
    expect(chunks.length).toBeGreaterThan(10);
    expect(chunks.join("")).toBe(EXPECTED);
    expect(generated.text).toBe(EXPECTED);
    expect(await result.finishReason).toBe("stop");
    expect((await result.usage).outputTokens).toBe(chunks.length);
    expect(generated.finishReason).toBe("stop");
    for (const s of splitSentences(chunks.join(""))) expect(ABSTRACT).toContain(s.text);
    expect(warn).not.toHaveBeenCalled();
  });

  it("waits delayMs between deltas", async () => {
    const model = createOfflineModel({ delayMs: 5 });
    const started = Date.now();
    const chunks = await collect(
      streamText({ model, prompt: wrapSource("One two three four five six. Seven eight.") }).textStream,
    );
    expect(chunks).toEqual(["One ", "two ", "three ", "four ", "five ", "six. ", "Seven ", "eight."]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(7 * 5 - 5);
  });

  it("stops emitting when the abort signal fires", async () => {
    const model = createOfflineModel({ delayMs: 10 });
    const controller = new AbortController();
    const result = streamText({ model, prompt: PROMPT, abortSignal: controller.signal });
    const chunks: string[] = [];
    let thrown: unknown;
    try {
      for await (const chunk of result.textStream) {
        chunks.push(chunk);
        if (chunks.length === 3) controller.abort();
      }
    } catch (error) {
      thrown = error;
    }
    const total = EXPECTED.split(/\s+/).length;
    expect(chunks.length).toBeGreaterThanOrEqual(3);
    expect(chunks.length).toBeLessThan(total);
    const countAtStop = chunks.length;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(chunks.length).toBe(countAtStop);
    if (thrown !== undefined) expect((thrown as Error).name).toBe("AbortError");
    await expect(result.text).rejects.toBeDefined();
  });

  it("errors its own stream on abort and rejects an already aborted call", async () => {
    const model = createOfflineModel({ delayMs: 10 });
    const controller = new AbortController();
    const prompt = [{ role: "user" as const, content: [{ type: "text" as const, text: PROMPT }] }];
    const { stream } = await model.doStream({ prompt, abortSignal: controller.signal });
    const reader = stream.getReader();
    const seen: string[] = [];
    const readAll = (async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        seen.push(value.type);
        if (value.type === "text-delta" && seen.filter((t) => t === "text-delta").length === 2) controller.abort();
      }
    })();
    await expect(readAll).rejects.toMatchObject({ name: "AbortError" });
    expect(seen.filter((t) => t === "text-delta")).toHaveLength(2);
    expect(seen).not.toContain("finish");

    await expect(model.doStream({ prompt, abortSignal: controller.signal })).rejects.toMatchObject({
      name: "AbortError",
    });
    await expect(model.doGenerate({ prompt, abortSignal: controller.signal })).rejects.toMatchObject({
      name: "AbortError",
    });
  });

  it("summarises the whole last user message when there is no source block", async () => {
    const model = createOfflineModel();
    const { text } = await generateText({
      model,
      messages: [
        { role: "user", content: "Ignore this earlier message. It has sentences too." },
        { role: "assistant", content: "Noted." },
        { role: "user", content: "Short text. Two sentences." },
      ],
    });
    expect(text).toBe("Short text. Two sentences.");
  });

  it("truncates at maxOutputTokens words with finish reason length", async () => {
    const model = createOfflineModel();
    const result = await generateText({ model, prompt: PROMPT, maxOutputTokens: 4 });
    expect(result.text).toBe(EXPECTED.split(" ").slice(0, 4).join(" "));
    expect(result.finishReason).toBe("length");
  });

  it("returns no text for an empty source", async () => {
    const { text, finishReason } = await generateText({ model: createOfflineModel(), prompt: wrapSource("   ") });
    expect(text).toBe("");
    expect(finishReason).toBe("stop");
  });
});
