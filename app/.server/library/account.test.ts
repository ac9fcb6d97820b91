import { describe, expect, it } from "vitest";
import { childrenFirst } from "./account";

describe("childrenFirst", () => {
  it("puts every table before the tables it references", () => {
    const parents = new Map([
      ["uploaded_studies", new Set(["users"])],
      ["upload_chunks", new Set(["uploaded_studies", "users"])],
      ["bookmarks", new Set(["users", "studies"])],
      ["chunk_notes", new Set(["upload_chunks"])],
    ]);
    const order = childrenFirst(parents);
    expect(order.sort()).toEqual([...parents.keys()].sort());
    const ordered = childrenFirst(parents);
    expect(ordered.indexOf("chunk_notes")).toBeLessThan(ordered.indexOf("upload_chunks"));
    expect(ordered.indexOf("upload_chunks")).toBeLessThan(ordered.indexOf("uploaded_studies"));
  });

  it("terminates on cycles", () => {
    const order = childrenFirst(
      new Map([
        ["a", new Set(["b"])],
        ["b", new Set(["a"])],
      ]),
    );
    expect(order.sort()).toEqual(["a", "b"]);
  });
});
