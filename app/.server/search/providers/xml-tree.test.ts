import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { XMLParser } from "fast-xml-parser";
import { describe, expect, it } from "vitest";
import { hasSharedFixtures, MISSING_FIXTURES_MESSAGE, SHARED_FIXTURES_DIR } from "../../../../tests/fixtures";
import { PUBMED_XML } from "./pubmed";
import { parseXmlTree } from "./xml-tree";

/** The reader it replaces on the PubMed path, as an oracle: the same shape is required. */
const oracle = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@_",
  parseTagValue: false,
  parseAttributeValue: false,
  processEntities: false,
  trimValues: true,
  stopNodes: [...PUBMED_XML.stopTags].map((t) => `*.${t}`),
  isArray: (name) => PUBMED_XML.arrayTags.has(name),
});
const read = (xml: string) => parseXmlTree(xml, PUBMED_XML);
const expected = (xml: string) => {
  const doc = oracle.parse(xml) as Record<string, unknown>;
  delete doc["?xml"];
  return doc;
};

const PUBMED_FIXTURES = path.join(SHARED_FIXTURES_DIR, "pubmed");

describe("parseXmlTree", () => {
  it.skipIf(!hasSharedFixtures())(
    `reads every recorded E-utilities answer exactly as fast-xml-parser did (${hasSharedFixtures() ? "../shared fixtures" : `skipped: ${MISSING_FIXTURES_MESSAGE}`})`,
    () => {
      const files = readdirSync(PUBMED_FIXTURES).filter((f) => f.endsWith(".xml"));
      expect(files.length).toBeGreaterThan(5);
      for (const file of files) {
        const xml = readFileSync(path.join(PUBMED_FIXTURES, file), "utf8");
        expect(read(xml), file).toEqual(expected(xml));
      }
    },
  );

  it("keeps stop tags raw, arrays as asked, attributes, empty and self-closing elements, mixed text", () => {
    const xml = `<?xml version="1.0"?><!DOCTYPE PubmedArticleSet><PubmedArticleSet><PubmedArticle><MedlineCitation><PMID Version="1">1</PMID><Article>
      <ArticleTitle>A <i>b</i> &amp; c<sup>2</sup> <mml:math><mml:mi>x</mml:mi></mml:math></ArticleTitle>
      <Abstract><AbstractText Label="BACKGROUND">x &lt; y <b>z</b></AbstractText><AbstractText/><AbstractText Label="E"/></Abstract>
      <AuthorList><Author ValidYN="Y"><LastName>Ab</LastName></Author><Author><LastName>Cd</LastName></Author><Author/></AuthorList>
      <Empty/><EmptyA a="1"/><Mixed>t1 <x>q</x> t2 <!-- c --></Mixed><Twice>1</Twice><Twice>2</Twice></Article></MedlineCitation></PubmedArticle></PubmedArticleSet>`;
    const doc = read(xml);
    expect(doc).toEqual(expected(xml));
    const article = (
      (doc.PubmedArticleSet as Record<string, unknown[]>).PubmedArticle[0] as Record<string, Record<string, unknown>>
    ).MedlineCitation.Article as Record<string, unknown>;
    expect(article.ArticleTitle).toBe("A <i>b</i> &amp; c<sup>2</sup> <mml:math><mml:mi>x</mml:mi></mml:math>");
    expect(article.Twice).toEqual(["1", "2"]);
  });

  it("never throws: garbage, HTML, truncated and empty answers give what could be read", () => {
    for (const xml of [
      "",
      "not xml at all",
      "<html><body><h1>Oops</h1></body></html>",
      "<PubmedArticleSet/>",
      "<eSearchResult><ERROR>Invalid</ERROR></eSearchResult>",
    ]) {
      expect(read(xml), xml).toEqual(expected(xml));
    }
    const truncated = read("<eSearchResult><Count>5</Count><IdList><Id>1</Id><Id>2");
    expect(truncated.eSearchResult).toMatchObject({ Count: "5" });
  });
});
