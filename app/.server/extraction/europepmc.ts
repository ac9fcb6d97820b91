/**
 * Full-text JATS of an open-access article from Europe PMC
 * (`GET {EUROPEPMC_BASE_URL}/{PMCID}/fullTextXML`), read with a byte cap and cached in R2 under
 * `europepmc/fulltext/{PMCID}.xml` so a study is fetched once.
 */
import { AppError } from "../http/errors";

/** Largest JATS body read from Europe PMC, in bytes. */
export const MAX_JATS_BYTES = 4 * 1024 * 1024;

const PMCID = /^PMC\d{1,10}$/;

export interface EuropePmcDeps {
  fetch: typeof fetch;
  baseUrl: string;
  bucket: Pick<R2Bucket, "get" | "put">;
}

/** Reads a response body as text, refusing more than `maxBytes` while streaming (413 TOO_LARGE). */
export async function readCappedText(response: Response, maxBytes: number): Promise<string> {
  const declared = Number(response.headers.get("Content-Length") ?? "0");
  if (declared > maxBytes) throw new AppError("TOO_LARGE", "The full text is larger than MetaMind reads.", 413);
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      throw new AppError("TOO_LARGE", "The full text is larger than MetaMind reads.", 413);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
}

/**
 * The JATS XML of `pmcid` ("PMC" + digits), from the R2 cache or Europe PMC.
 * @throws AppError 400 INVALID_INPUT for a malformed PMCID, 404 NOT_FOUND when Europe PMC has no
 *   open-access full text, 502 UPSTREAM_FAILED for other upstream failures, 413 TOO_LARGE above the cap.
 */
export async function fetchEuropePmcJats(
  deps: EuropePmcDeps,
  pmcid: string,
): Promise<{ xml: string; cached: boolean }> {
  const id = pmcid.trim().toUpperCase();
  if (!PMCID.test(id)) throw new AppError("INVALID_INPUT", "pmcid must look like PMC1234567.", 400);
  const key = `europepmc/fulltext/${id}.xml`;
  const hit = await deps.bucket.get(key);
  if (hit) return { xml: await hit.text(), cached: true };
  let response: Response;
  try {
    response = await deps.fetch(`${deps.baseUrl.replace(/\/+$/, "")}/${id}/fullTextXML`, {
      headers: { Accept: "application/xml" },
    });
  } catch (error) {
    console.warn("europepmc fullTextXML: fetch failed", error instanceof Error ? error.message : error);
    throw new AppError("UPSTREAM_FAILED", "Europe PMC could not be reached.", 502);
  }
  if (response.status === 404)
    throw new AppError("NOT_FOUND", `Europe PMC has no open-access full text for ${id}.`, 404);
  if (!response.ok) throw new AppError("UPSTREAM_FAILED", `Europe PMC answered ${response.status}.`, 502);
  const xml = await readCappedText(response, MAX_JATS_BYTES);
  if (!/<(article|body|sec|abstract)\b/.test(xml))
    throw new AppError("NOT_FOUND", `Europe PMC returned no article XML for ${id}.`, 404);
  await deps.bucket.put(key, xml, { httpMetadata: { contentType: "application/xml" } });
  return { xml, cached: false };
}
