import { generateText } from "ai";
import { describe, expect, it } from "vitest";
import { wrapSource } from "./offline-model";
import { DEFAULT_COMPATIBLE_MODEL, DEFAULT_OPENAI_MODEL, getLanguageModel, OFFLINE_MODEL_NAME } from "./registry";

interface RecordedRequest {
  url: string;
  method: string;
  headers: Headers;
  body: Record<string, unknown>;
}

/** A fetch double that records each request and answers with `json`. */
function fakeFetch(json: unknown): { fetch: typeof fetch; requests: RecordedRequest[] } {
  const requests: RecordedRequest[] = [];
  const fn = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    requests.push({
      url: request.url,
      method: request.method,
      headers: request.headers,
      body: JSON.parse(await request.text()) as Record<string, unknown>,
    });
    return new Response(JSON.stringify(json), { status: 200, headers: { "content-type": "application/json" } });
  };
  return { fetch: fn as typeof fetch, requests };
}

/** Shape of a non-streaming Chat Completions answer (as served by Ollama's /v1 endpoint). */
const chatCompletion = {
  id: "chatcmpl-512",
  object: "chat.completion",
  created: 1733760000,
  model: "llama3",
  system_fingerprint: "fp_ollama",
  choices: [
    {
      index: 0,
      message: { role: "assistant", content: "Aspirin reduced major vascular events." },
      finish_reason: "stop",
    },
  ],
  usage: { prompt_tokens: 52, completion_tokens: 7, total_tokens: 59 },
};

/** Shape of a non-streaming OpenAI Responses API answer. */
const responsesApiAnswer = {
  id: "resp_67ccd2bed1ec8190b14f964abc0542670bb6a6b452d3795b",
  object: "response",
  created_at: 1741476542,
  status: "completed",
  error: null,
  incomplete_details: null,
  instructions: null,
  max_output_tokens: null,
  model: "gpt-4o-mini-2024-07-18",
  output: [
    {
      type: "message",
      id: "msg_67ccd2bf17f0819081ff3bb2cf6508e60bb6a6b452d3795b",
      status: "completed",
      role: "assistant",
      content: [{ type: "output_text", text: "Aspirin reduced major vascular events.", annotations: [] }],
    },
  ],
  parallel_tool_calls: true,
  previous_response_id: null,
  reasoning: { effort: null, summary: null },
  store: true,
  temperature: 1.0,
  text: { format: { type: "text" } },
  tool_choice: "auto",
  tools: [],
  top_p: 1.0,
  truncation: "disabled",
  usage: {
    input_tokens: 36,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 7,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 43,
  },
  user: null,
  metadata: {},
};

describe("getLanguageModel", () => {
  it("falls back to the offline model without key or base URL", async () => {
    for (const config of [{}, { OPENAI_API_KEY: "", OPENAI_BASE_URL: "  " }, { AI_MODEL: "gpt-4o" }]) {
      const resolved = getLanguageModel(config);
      expect(resolved.provider).toBe("offline");
      expect(resolved.name).toBe(OFFLINE_MODEL_NAME);
      expect(resolved.label).toBe("Offline");
      expect(resolved.model.provider).toBe("metamind-offline");
    }
    const { model } = getLanguageModel({ OFFLINE_MODEL_DELAY_MS: 0 });
    const { text } = await generateText({ model, prompt: wrapSource("One sentence here. Another one there.") });
    expect(text).toBe("One sentence here. Another one there.");
  });

  it("uses Chat Completions at OPENAI_BASE_URL, with no key needed", async () => {
    const { fetch, requests } = fakeFetch(chatCompletion);
    const resolved = getLanguageModel({ OPENAI_BASE_URL: "http://localhost:11434/v1/", AI_MODEL: "llama3", fetch });
    expect(resolved.provider).toBe("openai-compatible");
    expect(resolved.name).toBe("llama3 (OpenAI-compatible at http://localhost:11434/v1)");
    expect(resolved.label).toBe("OpenAI-compatible");

    const { text } = await generateText({ model: resolved.model, instructions: "Be brief.", prompt: "Summarise." });
    expect(text).toBe("Aspirin reduced major vascular events.");
    expect(requests).toHaveLength(1);
    expect(requests[0]!.method).toBe("POST");
    expect(requests[0]!.url).toBe("http://localhost:11434/v1/chat/completions");
    expect(requests[0]!.headers.get("authorization")).toBe("Bearer not-needed");
    expect(requests[0]!.body.model).toBe("llama3");
    expect(requests[0]!.body.messages).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: "Summarise." },
    ]);
  });

  it("sends the key to an OpenAI-compatible server and defaults the model", async () => {
    const { fetch, requests } = fakeFetch(chatCompletion);
    const resolved = getLanguageModel({
      OPENAI_BASE_URL: "https://vllm.example.org/v1",
      OPENAI_API_KEY: "sk-local",
      fetch,
    });
    expect(resolved.name).toBe(`${DEFAULT_COMPATIBLE_MODEL} (OpenAI-compatible at https://vllm.example.org/v1)`);
    await generateText({ model: resolved.model, prompt: "Hi" });
    expect(requests[0]!.headers.get("authorization")).toBe("Bearer sk-local");
    expect(requests[0]!.body.model).toBe(DEFAULT_COMPATIBLE_MODEL);
  });

  it("uses OpenAI's Responses API when only a key is set", async () => {
    const { fetch, requests } = fakeFetch(responsesApiAnswer);
    const resolved = getLanguageModel({ OPENAI_API_KEY: "sk-test", fetch });
    expect(resolved.provider).toBe("openai");
    expect(resolved.name).toBe(`${DEFAULT_OPENAI_MODEL} (OpenAI)`);
    expect(resolved.label).toBe("OpenAI");

    const { text } = await generateText({ model: resolved.model, prompt: "Summarise." });
    expect(text).toBe("Aspirin reduced major vascular events.");
    expect(requests).toHaveLength(1);
    expect(requests[0]!.method).toBe("POST");
    expect(requests[0]!.url).toBe("https://api.openai.com/v1/responses");
    expect(requests[0]!.headers.get("authorization")).toBe("Bearer sk-test");
    expect(requests[0]!.body.model).toBe("gpt-4o-mini");
  });

  it("honours AI_MODEL for OpenAI", () => {
    expect(getLanguageModel({ OPENAI_API_KEY: "sk-test", AI_MODEL: "gpt-4.1" }).name).toBe("gpt-4.1 (OpenAI)");
  });
});
