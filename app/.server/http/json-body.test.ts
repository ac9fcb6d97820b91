import { describe, expect, it } from "vitest";
import { AppError } from "./errors";
import { jsonDepth, parseBoundedJson, readJson } from "./json-body";

const deep = (levels: number, leaf = "1") => `${'{"a":'.repeat(levels)}${leaf}${"}".repeat(levels)}`;

function caught(fn: () => unknown): AppError {
  try {
    fn();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error("expected an AppError");
}

async function caughtAsync(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error("expected an AppError");
}

describe("jsonDepth", () => {
  it("counts nesting and ignores brackets inside strings, escaped quotes included", () => {
    expect(jsonDepth("1")).toBe(0);
    expect(jsonDepth("{}")).toBe(1);
    expect(jsonDepth('{"a":[1,{"b":[]}]}')).toBe(4);
    expect(jsonDepth('{"a":"[[[{{{\\"[[["}')).toBe(1);
    expect(jsonDepth("[".repeat(10) + "]".repeat(10), 3)).toBe(4);
  });
});

describe("parseBoundedJson", () => {
  it("parses bodies within the bound; empty is {}", () => {
    expect(parseBoundedJson(deep(64), 64)).toBeTypeOf("object");
    expect(parseBoundedJson("  ")).toEqual({});
  });

  it("refuses deeper nesting with 400 INVALID_BODY before parsing (6,000 levels as in issue 11)", () => {
    const error = caught(() => parseBoundedJson(`{"name":"x","reportData":${deep(6000)}}`));
    expect(error).toMatchObject({ status: 400, code: "INVALID_BODY" });
    expect(caught(() => parseBoundedJson("[".repeat(65) + "]".repeat(65), 64)).code).toBe("INVALID_BODY");
  });

  it("malformed JSON is 400 INVALID_JSON", () => {
    expect(caught(() => parseBoundedJson("{nope"))).toMatchObject({ status: 400, code: "INVALID_JSON" });
  });
});

describe("readJson", () => {
  const request = (body: BodyInit, headers: Record<string, string> = {}) =>
    new Request("https://metamind.test/", { method: "POST", body, headers });

  it("refuses a body over the byte cap with 413 (declared length or streamed bytes)", async () => {
    expect(
      await caughtAsync(readJson(request("x".repeat(2048), { "Content-Length": "2048" }), { maxBytes: 1024 })),
    ).toMatchObject({
      status: 413,
      code: "PAYLOAD_TOO_LARGE",
    });
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(new Uint8Array(512).fill(0x20));
      },
    });
    const streamed = new Request("https://metamind.test/", {
      method: "POST",
      body: stream,
      duplex: "half",
    } as RequestInit);
    expect((await caughtAsync(readJson(streamed, { maxBytes: 4096 }))).code).toBe("PAYLOAD_TOO_LARGE");
  });

  it("reads multi-byte UTF-8 split across chunks", async () => {
    expect(await readJson(request(JSON.stringify({ name: "Müller – 東京" })))).toEqual({ name: "Müller – 東京" });
  });
});
