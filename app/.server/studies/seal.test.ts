import { describe, expect, it } from "vitest";
import type { StudyRow } from "../../../db/schema";
import { recordFromRow } from "./lookup";
import { sealedText, sealStudies } from "./seal";

const row = (id: number, title: string): StudyRow =>
  ({
    id,
    doi: `10.1000/seal.${id}`,
    pmid: null,
    pmcid: null,
    titleKey: title.toLowerCase(),
    title,
    abstract: "Background: ünïcode — and “quotes”. Results: RR 0.80 (95% CI 0.70–0.91).",
    authors: ["A. Author", "B. Author"],
    journal: "Journal",
    publicationDate: "2021-02",
    source: "crossref",
    sourceId: `10.1000/seal.${id}`,
    studyType: "Clinical Trial",
    publicationTypes: ["journal-article"],
    fullTextAvailable: false,
    isOpenAccess: false,
    openAccessUrl: null,
    url: null,
    citationCount: 3,
    impactFactor: null,
  }) as unknown as StudyRow;

const fromBase64url = (text: string) =>
  Uint8Array.from(atob(text.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));

describe("sealStudies", () => {
  it("gives each record the HMAC-SHA-256 WebCrypto computes for it, under the seal key only", async () => {
    const secret = "s".repeat(40);
    const rows = [row(1, "First trial"), row(2, "Second trial")];
    const seals = await sealStudies(secret, rows);
    const key = await crypto.subtle.importKey(
      "raw",
      new TextEncoder().encode(`metamind-study-seal:${secret}`),
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign"],
    );
    for (const r of rows) {
      const [payload, mac] = seals.get(r.id)!.split(".");
      const expected = new Uint8Array(
        await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(sealedText(r.id, recordFromRow(r)))),
      );
      expect(fromBase64url(mac!)).toEqual(expected);
      expect(JSON.parse(new TextDecoder().decode(fromBase64url(payload!)))).toEqual([r.sourceId, r.publicationTypes]);
    }
    expect(seals.get(1)).not.toBe(seals.get(2));
    const other = await sealStudies("t".repeat(40), rows);
    expect(other.get(1)!.split(".")[1]).not.toBe(seals.get(1)!.split(".")[1]);
    // The keyed state is reused, never consumed: the same record seals the same way twice.
    expect((await sealStudies(secret, rows)).get(1)).toBe(seals.get(1));
  });
});
