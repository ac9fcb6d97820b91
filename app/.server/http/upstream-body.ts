/**
 * Reading upstream answers (search databases, Unpaywall, Europe PMC, full-text hosts, models) with
 * a byte cap: the body is read as a stream and cancelled as soon as it passes the cap, so an
 * oversized or endless answer costs at most `maxBytes` (+ one chunk) of memory, never the whole.
 */

/** Default cap for one API answer of a search database or an open-access lookup (16 MiB). */
export const DEFAULT_UPSTREAM_MAX_BYTES = 16 * 1024 * 1024;

/** The text every caller reports for an answer over its cap. */
export const ANSWER_TOO_LARGE = "answer too large";

/** An upstream body was larger than the cap; nothing past the cap was read. */
export class AnswerTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(ANSWER_TOO_LARGE);
    this.name = "AnswerTooLargeError";
  }
}

export interface ReadCappedOptions {
  /** Stops the read; the signal's reason is thrown. */
  signal?: AbortSignal;
}

function concat(chunks: Uint8Array[], total: number): Uint8Array {
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

/** Bytes asked of the runtime per read when the body allows reads into our own buffer (64 KiB). */
const READ_BLOCK = 64 * 1024;

type BlockReader = ReadableStreamBYOBReader & {
  /** workerd's extension: resolves once at least `min` bytes are in `view` or the stream ended. */
  readAtLeast?: <T extends ArrayBufferView>(min: number, view: T) => Promise<ReadableStreamReadResult<T>>;
};

/** A reader that fills our own buffers, or null when the stream is not a byte stream. */
function blockReader(body: ReadableStream<Uint8Array>): BlockReader | null {
  try {
    return body.getReader({ mode: "byob" });
  } catch {
    return null;
  }
}

/**
 * Reads a response body into bytes, at most `maxBytes` of them.
 *
 * A `Content-Length` above the cap is refused before reading; otherwise the body is read and the
 * stream is cancelled (the connection released) the moment the running total passes `maxBytes`.
 * A byte stream (a fetch response's body) is read into 64 KiB buffers of our own, each read
 * waiting until its buffer is full or the body ended (workerd's `readAtLeast`): a 200 KB answer
 * is four reads instead of some fifty 4 KiB chunks, about half the runtime's CPU time for the
 * body. Other streams are read chunk by chunk. A response without a body gives an empty array.
 *
 * @param maxBytes largest body accepted, in bytes (a positive integer).
 * @throws AnswerTooLargeError past the cap; the signal's reason when `options.signal` aborts;
 *   the stream's own error when the connection fails mid-body.
 */
export async function readBodyBytes(
  response: Response,
  maxBytes: number,
  options: ReadCappedOptions = {},
): Promise<Uint8Array> {
  const declared = Number(response.headers.get("Content-Length") ?? NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw new AnswerTooLargeError(maxBytes);
  }
  if (!response.body) return new Uint8Array(0);
  const blocks = blockReader(response.body);
  const reader = blocks ?? response.body.getReader();
  // A block read asks for at most one byte past the cap: that byte is how an oversized body shows.
  const next = (total: number): Promise<ReadableStreamReadResult<Uint8Array>> => {
    if (!blocks) return (reader as ReadableStreamDefaultReader<Uint8Array>).read();
    const size = Math.min(READ_BLOCK, maxBytes - total + 1);
    const view = new Uint8Array(size);
    return blocks.readAtLeast ? blocks.readAtLeast(size, view) : blocks.read(view);
  };
  const chunks: Uint8Array[] = [];
  let total = 0;
  // One listener for the whole read: cancelling the reader ends a pending read at once.
  const signal = options.signal;
  const onAbort = () => void reader.cancel(signal?.reason).catch(() => undefined);
  if (signal?.aborted) onAbort();
  else signal?.addEventListener("abort", onAbort, { once: true });
  try {
    for (;;) {
      const { done, value } = await next(total).catch((error: unknown) => {
        throw (signal?.aborted ? signal.reason : error) as Error;
      });
      if (signal?.aborted) throw signal.reason as Error;
      // A block read may end the body with its last bytes in the same result.
      if (value && value.byteLength > 0) {
        total += value.byteLength;
        if (total > maxBytes) {
          await reader.cancel().catch(() => undefined);
          throw new AnswerTooLargeError(maxBytes);
        }
        chunks.push(value);
      }
      if (done) break;
    }
  } finally {
    signal?.removeEventListener("abort", onAbort);
    reader.releaseLock();
  }
  return chunks.length === 1 && chunks[0]!.byteLength === chunks[0]!.buffer.byteLength
    ? chunks[0]!
    : concat(chunks, total);
}

/** The charset of a Content-Type header (`text/html; charset=ISO-8859-1` → iso-8859-1), or utf-8. */
function charsetOf(response: Response): string {
  const match = /charset\s*=\s*"?([\w.:-]+)"?/i.exec(response.headers.get("Content-Type") ?? "");
  return match?.[1]?.toLowerCase() ?? "utf-8";
}

/**
 * Reads a response body as text, at most `maxBytes` bytes (see {@link readBodyBytes}), decoded
 * with the Content-Type's charset (UTF-8 when absent or unknown; malformed bytes become U+FFFD).
 *
 * @throws AnswerTooLargeError past the cap (and whatever {@link readBodyBytes} throws).
 */
export async function readBodyCapped(
  response: Response,
  maxBytes: number,
  options: ReadCappedOptions = {},
): Promise<string> {
  const bytes = await readBodyBytes(response, maxBytes, options);
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(charsetOf(response));
  } catch {
    decoder = new TextDecoder("utf-8");
  }
  return decoder.decode(bytes);
}

/**
 * Wraps a fetch so every response body it returns stops with {@link AnswerTooLargeError} once it
 * has delivered more than `maxBytes` bytes (the upstream stream is cancelled). For consumers that
 * read the body themselves while it streams (the `ai` SDK reading a model's server-sent events),
 * where a one-shot read is not possible.
 *
 * @param maxBytes largest body passed through, in bytes.
 */
export function cappedFetch(fetchImpl: typeof fetch, maxBytes: number): typeof fetch {
  return async (input, init) => {
    const response = await fetchImpl(input, init);
    if (!response.body) return response;
    const declared = Number(response.headers.get("Content-Length") ?? NaN);
    if (Number.isFinite(declared) && declared > maxBytes) {
      await response.body.cancel().catch(() => undefined);
      throw new AnswerTooLargeError(maxBytes);
    }
    let total = 0;
    const limiter = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        total += chunk.byteLength;
        if (total > maxBytes) {
          controller.error(new AnswerTooLargeError(maxBytes));
          return;
        }
        controller.enqueue(chunk);
      },
    });
    return new Response(response.body.pipeThrough(limiter), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
