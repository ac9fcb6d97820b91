/**
 * Sealed records (issue 17, ADR 0019): a search writes no study rows, and the record a search
 * showed is remembered only by the isolate that showed it. So that the first action on a study
 * works on any isolate, every record without a row goes out with a seal — an HMAC-SHA-256 (keyed
 * by SESSION_SECRET) over the exact record the server would store — and the client sends the
 * record and its seal back (POST /api/studies/store) before it acts. The server stores only
 * records it sealed itself: a client cannot plant a false abstract under a real DOI.
 */
import { z } from "zod";
import type { StudyRow } from "../../../db/schema";
import type { Bindings } from "../env";
import { AppError } from "../http/errors";
import type { NormalisedStudy } from "~/lib/search/types";
import { recordFromRow } from "./lookup";
import { upsertStudies } from "./persist";

const encoder = new TextEncoder();
const keys = new Map<string, Promise<CryptoKey>>();

/** The HMAC key for `secret` (imported once per isolate); a seal key never signs sessions. */
function sealKey(secret: string): Promise<CryptoKey> {
  let key = keys.get(secret);
  if (!key) {
    key = crypto.subtle.importKey(
      "raw",
      encoder.encode(`metamind-study-seal:${secret}`),
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign", "verify"],
    );
    keys.set(secret, key);
  }
  return key;
}

/**
 * The canonical text a seal signs: the study id and every field the row is stored from, in a
 * fixed order (JSON, so a round trip through the client leaves it byte for byte the same).
 */
export function sealedText(id: number, record: NormalisedStudy): string {
  return JSON.stringify([
    "study-seal-v1",
    id,
    record.source,
    record.sourceId,
    record.title,
    record.abstract,
    record.authors,
    record.journal,
    record.publicationDate,
    record.pmid,
    record.pmcid,
    record.doi,
    record.studyType,
    record.publicationTypes,
    record.fullTextAvailable,
    record.isOpenAccess,
    record.openAccessUrl,
    record.url,
    record.citationCount,
    record.impactFactor,
  ]);
}

function base64url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64url(text: string): Uint8Array<ArrayBuffer> | null {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return null;
  try {
    const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes;
  } catch {
    return null;
  }
}

/**
 * Seals rows a search showed without storing them.
 *
 * @param secret SESSION_SECRET.
 * @returns study id → seal: `<base64url JSON [sourceId, publicationTypes]>.<base64url HMAC>` (the
 *   two stored fields the API's study shape lacks travel inside the seal; ≈ 100 characters).
 */
export async function sealStudies(secret: string, rows: Iterable<StudyRow>): Promise<Map<number, string>> {
  const key = await sealKey(secret);
  const list = [...rows];
  const macs = await Promise.all(
    list.map((row) => crypto.subtle.sign("HMAC", key, encoder.encode(sealedText(row.id, recordFromRow(row))))),
  );
  return new Map(
    list.map((row, i) => [
      row.id,
      `${base64url(encoder.encode(JSON.stringify([row.sourceId, row.publicationTypes])))}.${base64url(new Uint8Array(macs[i]!))}`,
    ]),
  );
}

/** A sealed study as the client sends it back: the API's study fields plus the seal. */
export const sealedStudySchema = z.object({
  id: z.number().int().positive().max(999_999_999_999_999),
  source: z.string().min(1).max(40),
  title: z.string().max(5_000),
  abstract: z.string().max(200_000).nullable(),
  authors: z.array(z.string().max(1_000)).max(5_000),
  journal: z.string().max(2_000).nullable(),
  publicationDate: z.string().max(40).nullable(),
  pmid: z.string().max(40).nullable(),
  pmcid: z.string().max(40).nullable(),
  doi: z.string().max(500).nullable(),
  studyType: z.string().max(200),
  fullTextAvailable: z.boolean(),
  isOpenAccess: z.boolean(),
  openAccessUrl: z.string().max(4_000).nullable(),
  url: z.string().max(4_000).nullable(),
  citationCount: z.number().nullable(),
  impactFactor: z.number().nullable(),
  seal: z.string().min(10).max(20_000),
});
export type SealedStudy = z.infer<typeof sealedStudySchema>;

/** POST /api/studies/store's body: 1–100 sealed studies. */
export const storeSealedBodySchema = z.object({ studies: z.array(sealedStudySchema).min(1).max(100) });

/**
 * The record a sealed study stands for, or null when the seal does not match it (tampered,
 * truncated, or sealed with another secret). Verification is constant-time (crypto.subtle.verify).
 */
export async function openSealedStudy(secret: string, study: SealedStudy): Promise<NormalisedStudy | null> {
  const [payload, mac, ...rest] = study.seal.split(".");
  if (payload === undefined || mac === undefined || rest.length > 0) return null;
  const payloadBytes = fromBase64url(payload);
  const macBytes = fromBase64url(mac);
  if (!payloadBytes || !macBytes) return null;
  let extra: unknown;
  try {
    extra = JSON.parse(new TextDecoder().decode(payloadBytes));
  } catch {
    return null;
  }
  const parsed = z.tuple([z.string().max(1_000), z.array(z.string().max(500)).max(200)]).safeParse(extra);
  if (!parsed.success) return null;
  const [sourceId, publicationTypes] = parsed.data;
  const record: NormalisedStudy = {
    source: study.source as NormalisedStudy["source"],
    sourceId,
    title: study.title,
    abstract: study.abstract,
    authors: study.authors,
    journal: study.journal,
    publicationDate: study.publicationDate,
    pmid: study.pmid,
    pmcid: study.pmcid,
    doi: study.doi,
    studyType: study.studyType as NormalisedStudy["studyType"],
    publicationTypes,
    fullTextAvailable: study.fullTextAvailable,
    isOpenAccess: study.isOpenAccess,
    openAccessUrl: study.openAccessUrl,
    url: study.url,
    citationCount: study.citationCount,
    impactFactor: study.impactFactor,
  };
  const ok = await crypto.subtle.verify(
    "HMAC",
    await sealKey(secret),
    macBytes,
    encoder.encode(sealedText(study.id, record)),
  );
  return ok ? record : null;
}

/**
 * Stores sealed studies (the client's first action on studies a search showed, possibly on
 * another isolate): every seal is checked first, so one bad seal stores nothing; then one batch
 * upserts those without a row under their ids (or into a row stored meanwhile that matches by DOI,
 * PMID or title); ids that have a row already are answered as they are.
 *
 * @returns requested id → stored id (normally the same id).
 * @throws AppError 403 INVALID_SEAL naming the first study whose seal does not match; Error when D1 fails.
 */
export async function storeSealedStudies(
  app: { env: { SESSION_SECRET: string }; bindings: Pick<Bindings, "DB"> },
  studies: readonly SealedStudy[],
): Promise<Map<number, number>> {
  const unique = [...new Map(studies.map((s) => [s.id, s])).values()];
  const records = await Promise.all(unique.map((s) => openSealedStudy(app.env.SESSION_SECRET, s)));
  const bad = records.findIndex((r) => r === null);
  if (bad >= 0) {
    throw new AppError(
      "INVALID_SEAL",
      `Study ${unique[bad]!.id} does not match the record MetaMind showed; search again.`,
      403,
      {
        studyId: unique[bad]!.id,
      },
    );
  }
  const out = new Map<number, number>();
  const { results } = await app.bindings.DB.prepare(
    "SELECT id FROM studies WHERE id IN (SELECT value FROM json_each(?1))",
  )
    .bind(JSON.stringify(unique.map((s) => s.id)))
    .all<{ id: number }>();
  for (const { id } of results) out.set(id, id);
  const toStore = unique.flatMap((s, i) => (out.has(s.id) ? [] : [{ id: s.id, record: records[i]! }]));
  if (toStore.length > 0) {
    const stored = await upsertStudies(
      app.bindings.DB,
      toStore.map((s) => s.record),
      { ids: toStore.map((s) => s.id) },
    );
    toStore.forEach((s, i) => out.set(s.id, stored[i]!.row.id));
  }
  return out;
}
