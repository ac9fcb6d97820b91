import { describe, expect, it } from "vitest";
import { byteBody } from "../../../tests/mocks/byte-body.ts";
import { AnswerTooLargeError, readBodyBytes } from "./upstream-body";

describe("readBodyBytes in the Workers runtime", () => {
  it("finds block reads (readAtLeast) on a response body", () => {
    const reader = new Response("x".repeat(100_000)).body!.getReader({ mode: "byob" }) as unknown as {
      readAtLeast?: unknown;
    };
    expect(typeof reader.readAtLeast).toBe("function");
  });

  it("reads a body delivered in 4 KiB chunks whole and in order", async () => {
    // 4 KiB chunks, as workerd delivers a fetch body.
    const { stream } = byteBody(218_451, 4096);
    const bytes = await readBodyBytes(new Response(stream), 1_000_000);
    expect(bytes.byteLength).toBe(218_451);
    expect(bytes.every((b, i) => b === i % 251)).toBe(true);
    const text = "é".repeat(50_000);
    expect(new TextDecoder().decode(await readBodyBytes(new Response(text), 1_000_000))).toBe(text);
  });

  it("stops one byte past the cap and cancels the stream", async () => {
    const { stream, state } = byteBody(50 * 1024 * 1024, 4096);
    await expect(readBodyBytes(new Response(stream), 100_000)).rejects.toBeInstanceOf(AnswerTooLargeError);
    expect(state.cancelled).toBe(true);
    expect(state.produced).toBeLessThanOrEqual(100_000 + 64 * 1024);
    expect((await readBodyBytes(new Response(byteBody(100_000, 4096).stream), 100_000)).byteLength).toBe(100_000);
  });
});
