import { AppError } from "./errors";

/** Bounds of one JSON body. */
export interface JsonBodyLimits {
  /** Largest body in bytes (UTF-8 as sent). */
  maxBytes?: number;
  /** Deepest nesting of arrays/objects: `{}` and `[]` are depth 1, `{"a":[1]}` depth 2. */
  maxDepth?: number;
}

/** Default body cap: 1 MiB. Routes that take report HTML or study lists pass their own. */
export const DEFAULT_MAX_JSON_BYTES = 1024 * 1024;
/** Default nesting cap; the app's own bodies nest at most about 8 levels. */
export const DEFAULT_MAX_JSON_DEPTH = 64;

function tooLarge(maxBytes: number): AppError {
  const size =
    maxBytes >= 1024 * 1024 ? `${(maxBytes / (1024 * 1024)).toFixed(1)} MB` : `${Math.round(maxBytes / 1024)} KB`;
  return new AppError("PAYLOAD_TOO_LARGE", `The request body is too large (at most ${size}).`, 413, { maxBytes });
}

/**
 * The nesting depth of JSON text, counted without parsing: brackets inside strings (and escaped
 * quotes) are skipped. Stops as soon as `limit` is exceeded and returns limit + 1. O(length).
 */
export function jsonDepth(text: string, limit: number = Number.POSITIVE_INFINITY): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x7b || c === 0x5b) {
      depth++;
      if (depth > max) {
        max = depth;
        if (max > limit) return max;
      }
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return max;
}

/**
 * Parses JSON text within a depth bound. Empty text is `{}`.
 * @throws AppError 400 INVALID_BODY when nested deeper than `maxDepth`; 400 INVALID_JSON when malformed.
 */
export function parseBoundedJson(text: string, maxDepth: number = DEFAULT_MAX_JSON_DEPTH): unknown {
  if (!text.trim()) return {};
  if (jsonDepth(text, maxDepth) > maxDepth) {
    throw new AppError("INVALID_BODY", `The request body is nested too deeply (at most ${maxDepth} levels).`, 400, {
      maxDepth,
    });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new AppError("INVALID_JSON", "The request body is not valid JSON.", 400);
  }
}

/**
 * Reads a body as text, at most `maxBytes`: a larger `Content-Length` is refused before reading
 * and the stream is cancelled as soon as it passes the cap, so an oversized body is never buffered.
 * @throws AppError 413 PAYLOAD_TOO_LARGE.
 */
export async function readCappedText(request: Request, maxBytes: number): Promise<string> {
  const declared = Number(request.headers.get("Content-Length") ?? "0");
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes);
  if (!request.body) return "";
  const reader = request.body.getReader();
  const decoder = new TextDecoder();
  let received = 0;
  let text = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    received += value.byteLength;
    if (received > maxBytes) {
      await reader.cancel().catch(() => {});
      throw tooLarge(maxBytes);
    }
    text += decoder.decode(value, { stream: true });
  }
  return text + decoder.decode();
}

/**
 * The one way routes read a JSON body: bounded in size (413 PAYLOAD_TOO_LARGE) and nesting depth
 * (400 INVALID_BODY) before anything is parsed or written; malformed JSON is 400 INVALID_JSON and
 * an empty body is `{}`.
 */
export async function readJson(request: Request, limits: JsonBodyLimits = {}): Promise<unknown> {
  const text = await readCappedText(request, limits.maxBytes ?? DEFAULT_MAX_JSON_BYTES);
  return parseBoundedJson(text, limits.maxDepth ?? DEFAULT_MAX_JSON_DEPTH);
}
