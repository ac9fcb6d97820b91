import { describe, expect, it } from "vitest";
import { searchLines } from "./ndjson-lines";

function recorder(providers: number) {
  const chunks: string[] = [];
  return { chunks, lines: searchLines(providers, (chunk) => void chunks.push(chunk)) };
}

describe("searchLines", () => {
  it("writes earlier databases' lines at once and the last one together with the merged page", () => {
    const { chunks, lines } = recorder(3);
    lines.send({ type: "provider", provider: "pubmed" });
    expect(chunks).toEqual(['{"type":"provider","provider":"pubmed"}\n']);
    lines.send({ type: "provider", provider: "crossref" });
    lines.send({ type: "provider", provider: "doaj" });
    expect(chunks).toHaveLength(2);
    lines.send({ type: "done" });
    expect(chunks).toEqual([
      '{"type":"provider","provider":"pubmed"}\n',
      '{"type":"provider","provider":"crossref"}\n',
      '{"type":"provider","provider":"doaj"}\n{"type":"done"}\n',
    ]);
  });

  it("sends the held line with an error line, and flush writes nothing twice", () => {
    const { chunks, lines } = recorder(2);
    lines.send({ type: "provider", n: 1 });
    lines.send({ type: "provider", n: 2 });
    expect(chunks).toEqual(['{"type":"provider","n":1}\n']);
    lines.send({ type: "error" });
    lines.flush();
    expect(chunks).toEqual(['{"type":"provider","n":1}\n', '{"type":"provider","n":2}\n{"type":"error"}\n']);
  });

  it("with one database sends its line at once", () => {
    const { chunks, lines } = recorder(1);
    lines.send({ type: "provider" });
    expect(chunks).toEqual(['{"type":"provider"}\n']);
    lines.send({ type: "done" });
    expect(chunks).toEqual(['{"type":"provider"}\n', '{"type":"done"}\n']);
  });

  it("flush writes a held line when no final line follows", () => {
    const { chunks, lines } = recorder(2);
    lines.send({ type: "provider" });
    lines.send({ type: "provider" });
    lines.flush();
    expect(chunks).toEqual(['{"type":"provider"}\n', '{"type":"provider"}\n']);
  });
});
