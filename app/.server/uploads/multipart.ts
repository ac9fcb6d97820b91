/**
 * A streaming multipart/form-data reader (RFC 7578) for request bodies that must never be held in
 * memory whole: parts are handed out one at a time, and a part's body is an async iterator of the
 * chunks as they arrive. Memory is bounded by the largest network chunk plus the boundary length.
 *
 * Usage: `for await (const part of readMultipart(body, boundary)) { for await (const chunk of
 * part.body) … }`. A part's body must be consumed (or left: the next iteration skips what is
 * left of it) before the next part is read.
 */

/** The multipart body is malformed (no opening boundary, truncated, headers too long…). */
export class MultipartError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MultipartError";
  }
}

/** One part of a multipart body. */
export interface MultipartPart {
  /** Lower-cased header names → values. */
  headers: Map<string, string>;
  /** Form field name (Content-Disposition name). */
  name: string | null;
  /** File name (Content-Disposition filename; filename* UTF-8 form preferred), null for plain fields. */
  fileName: string | null;
  /** The part's Content-Type, lower-cased, without parameters ("" when absent). */
  contentType: string;
  /** The part's bytes as they arrive. */
  body: AsyncIterable<Uint8Array>;
}

/** Longest header block accepted per part, in bytes. */
const MAX_HEADER_BYTES = 16 * 1024;
const CRLF_CRLF = new Uint8Array([13, 10, 13, 10]);

/**
 * The boundary of a `multipart/form-data; boundary=…` Content-Type, or null when the type is not
 * multipart/form-data or has no valid boundary (1–70 characters, RFC 2046).
 */
export function multipartBoundary(contentType: string | null): string | null {
  if (!contentType || !/^multipart\/form-data\s*(?:;|$)/i.test(contentType.trim())) return null;
  const m = /;\s*boundary=(?:"([^"]{1,70})"|([^\s;]{1,70}))/i.exec(contentType);
  return m ? (m[1] ?? m[2] ?? null) : null;
}

/** Index of `needle` in `haystack` at or after `from`, or -1. */
function indexOf(haystack: Uint8Array, needle: Uint8Array, from = 0): number {
  const first = needle[0]!;
  const last = haystack.length - needle.length;
  for (let i = haystack.indexOf(first, from); i !== -1 && i <= last; i = haystack.indexOf(first, i + 1)) {
    let k = 1;
    while (k < needle.length && haystack[i + k] === needle[k]) k++;
    if (k === needle.length) return i;
  }
  return -1;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b;
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

function parseDisposition(value: string): { name: string | null; fileName: string | null } {
  const param = (key: string): string | null => {
    const m = new RegExp(`;\\s*${key}=(?:"((?:[^"\\\\]|\\\\.)*)"|([^;\\s]+))`, "i").exec(value);
    return m ? (m[1] !== undefined ? m[1].replace(/\\(.)/g, "$1") : (m[2] ?? null)) : null;
  };
  const star = /;\s*filename\*=(?:UTF-8|utf-8)''([^;\s]+)/.exec(value);
  let fileName = param("filename");
  if (star) {
    try {
      fileName = decodeURIComponent(star[1]!);
    } catch {
      // Keep the plain filename parameter when filename* is not valid percent-encoding.
    }
  }
  return { name: param("name"), fileName };
}

/**
 * Reads a multipart/form-data body part by part (see the module comment).
 *
 * @throws MultipartError when the body does not start with the boundary, a header block is
 *   longer than 16 KiB or unterminated, or the body ends before the closing boundary.
 */
export async function* readMultipart(
  body: ReadableStream<Uint8Array>,
  boundary: string,
): AsyncGenerator<MultipartPart, void, undefined> {
  const encoder = new TextEncoder();
  // Every delimiter is CRLF "--" boundary; the first one may lack the CRLF, so the buffer starts with one.
  const delimiter = encoder.encode(`\r\n--${boundary}`);
  const reader = body.getReader();
  let buffer: Uint8Array = new Uint8Array([13, 10]);
  let ended = false;

  const fill = async (): Promise<boolean> => {
    if (ended) return false;
    const { done, value } = await reader.read();
    if (done) {
      ended = true;
      return false;
    }
    buffer = concat(buffer, value);
    return true;
  };

  try {
    // Preamble: everything before the first delimiter.
    for (;;) {
      const at = indexOf(buffer, delimiter);
      if (at !== -1) {
        buffer = buffer.subarray(at + delimiter.length);
        break;
      }
      if (buffer.length > delimiter.length) buffer = buffer.subarray(buffer.length - delimiter.length);
      if (!(await fill())) throw new MultipartError("The multipart body has no opening boundary.");
    }

    for (;;) {
      // After a delimiter: "--" closes the body, CRLF starts a part (transport padding allowed).
      while (buffer.length < 2)
        if (!(await fill())) throw new MultipartError("The multipart body ends without its closing boundary.");
      if (buffer[0] === 45 && buffer[1] === 45) return;
      let headerEnd = -1;
      for (;;) {
        headerEnd = indexOf(buffer, CRLF_CRLF);
        if (headerEnd !== -1) break;
        if (buffer.length > MAX_HEADER_BYTES) throw new MultipartError("A multipart part's headers are too long.");
        if (!(await fill())) throw new MultipartError("The multipart body ends inside a part's headers.");
      }
      const headers = new Map<string, string>();
      const headerText = new TextDecoder().decode(buffer.subarray(0, headerEnd));
      for (const line of headerText.split("\r\n")) {
        const colon = line.indexOf(":");
        if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
      }
      buffer = buffer.subarray(headerEnd + CRLF_CRLF.length);
      const { name, fileName } = parseDisposition(headers.get("content-disposition") ?? "");
      const contentType = (headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();

      let partDone = false;
      async function* partBody(): AsyncGenerator<Uint8Array, void, undefined> {
        for (;;) {
          const at = indexOf(buffer, delimiter);
          if (at !== -1) {
            if (at > 0) yield buffer.subarray(0, at);
            buffer = buffer.subarray(at + delimiter.length);
            partDone = true;
            return;
          }
          // Keep a tail that could be the start of a delimiter split across chunks.
          const safe = buffer.length - (delimiter.length - 1);
          if (safe > 0) {
            const chunk = buffer.subarray(0, safe);
            buffer = buffer.subarray(safe);
            yield chunk;
          }
          if (!(await fill())) throw new MultipartError("The multipart body ends inside a part.");
        }
      }
      const iterator = partBody();
      // No `return` on the handed-out iterator: a consumer that stops early (break) leaves the
      // generator open, so the rest of the part can be skipped below.
      const body: AsyncIterable<Uint8Array> = { [Symbol.asyncIterator]: () => ({ next: () => iterator.next() }) };
      yield { headers, name, fileName, contentType, body };
      // Skip whatever the consumer left of this part.
      while (!partDone) {
        const { done } = await iterator.next();
        if (done && !partDone) throw new MultipartError("The multipart body ends inside a part.");
      }
    }
  } finally {
    if (!ended) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}
