import { describe, expect, it } from "vitest";
import { byteBody } from "../../../tests/mocks/byte-body.ts";
import { AnswerTooLargeError, cappedFetch, readBodyBytes, readBodyCapped } from "./upstream-body";

const CHUNK = 64 * 1024;

/**
 * A body that would stream `totalBytes` (e.g. 200 MB) but makes each 64 KiB chunk only when
 * pulled, so the test never allocates the whole; `produced` counts what was handed out and
 * `cancelled` tells whether the reader gave up.
 */
function endlessBody(totalBytes: number) {
  const state = { produced: 0, cancelled: false };
  const chunk = new Uint8Array(CHUNK).fill(0x61);
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (state.produced >= totalBytes) {
        controller.close();
        return;
      }
      state.produced += CHUNK;
      controller.enqueue(chunk);
    },
    cancel() {
      state.cancelled = true;
    },
  });
  return { stream, state };
}

describe("readBodyCapped", () => {
  it("stops a 200 MB answer at the cap, cancelling the stream after reading at most one chunk more", async () => {
    const { stream, state } = endlessBody(200 * 1024 * 1024);
    const cap = 1024 * 1024;
    await expect(readBodyCapped(new Response(stream), cap)).rejects.toBeInstanceOf(AnswerTooLargeError);
    expect(state.cancelled).toBe(true);
    expect(state.produced).toBeLessThanOrEqual(cap + 2 * CHUNK);
  });

  it("refuses a declared Content-Length over the cap before reading anything", async () => {
    const { stream, state } = endlessBody(10 * 1024 * 1024);
    const response = new Response(stream, { headers: { "Content-Length": String(10 * 1024 * 1024) } });
    await expect(readBodyBytes(response, 1024)).rejects.toThrow("answer too large");
    expect(state.produced).toBeLessThanOrEqual(CHUNK);
    expect(state.cancelled).toBe(true);
  });

  it("returns a body at or under the cap whole, decoded with its charset", async () => {
    expect(await readBodyCapped(new Response("x".repeat(1000)), 1000)).toBe("x".repeat(1000));
    const latin1 = new Response(new Uint8Array([0x63, 0x61, 0x66, 0xe9]), {
      headers: { "Content-Type": "text/plain; charset=ISO-8859-1" },
    });
    expect(await readBodyCapped(latin1, 100)).toBe("café");
    expect((await readBodyBytes(new Response(null), 10)).byteLength).toBe(0);
  });

  it("rejects with the signal's reason when aborted mid-body", async () => {
    const controller = new AbortController();
    const stream = new ReadableStream<Uint8Array>({ pull: () => new Promise(() => undefined) });
    const pending = readBodyCapped(new Response(stream), 1000, { signal: controller.signal });
    controller.abort(new Error("client went away"));
    await expect(pending).rejects.toThrow("client went away");
  });
});

describe("readBodyBytes on a byte stream (read into our own buffers)", () => {
  it("returns every byte in order across many small chunks", async () => {
    const { stream } = byteBody(300_001, 4096);
    const bytes = await readBodyBytes(new Response(stream), 1_000_000);
    expect(bytes.byteLength).toBe(300_001);
    expect(bytes.every((b, i) => b === i % 251)).toBe(true);
  });

  it("accepts a body of exactly the cap and refuses one byte more, cancelling the stream", async () => {
    expect((await readBodyBytes(new Response(byteBody(70_000, 4096).stream), 70_000)).byteLength).toBe(70_000);
    const { stream, state } = byteBody(200 * 1024 * 1024, CHUNK);
    await expect(readBodyBytes(new Response(stream), 70_000)).rejects.toBeInstanceOf(AnswerTooLargeError);
    expect(state.cancelled).toBe(true);
    expect(state.produced).toBeLessThanOrEqual(70_000 + 2 * CHUNK);
  });

  it("rejects with the signal's reason when aborted mid-body", async () => {
    const controller = new AbortController();
    const stream = new ReadableStream({ type: "bytes", pull: () => new Promise<void>(() => undefined) });
    const pending = readBodyBytes(new Response(stream), 1000, { signal: controller.signal });
    controller.abort(new Error("client went away"));
    await expect(pending).rejects.toThrow("client went away");
  });
});

describe("cappedFetch", () => {
  it("passes small answers through and errors a streamed answer past the cap", async () => {
    const small = cappedFetch(async () => new Response("hello"), 10);
    expect(await (await small("https://model.test")).text()).toBe("hello");

    const { stream, state } = endlessBody(100 * 1024 * 1024);
    const big = cappedFetch(async () => new Response(stream), 256 * 1024);
    const response = await big("https://model.test");
    await expect(response.text()).rejects.toBeInstanceOf(AnswerTooLargeError);
    expect(state.produced).toBeLessThanOrEqual(256 * 1024 + 4 * CHUNK);
  });
});
