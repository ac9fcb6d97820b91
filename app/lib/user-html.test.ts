import { parse, type DefaultTreeAdapterTypes } from "parse5";
import { describe, expect, it } from "vitest";
import { httpUrl, USER_HTML_CSP, withUserHtmlCsp } from "./user-html";

type Element = DefaultTreeAdapterTypes.Element;
const child = (node: DefaultTreeAdapterTypes.ParentNode, tag: string) =>
  node.childNodes.find((n): n is Element => "tagName" in n && n.tagName === tag)!;

describe("withUserHtmlCsp", () => {
  it("puts the script-free CSP first in <head>, before the document's own markup", () => {
    const doc = withUserHtmlCsp(
      '<!DOCTYPE html><html lang="en"><head><title>R</title><style>h1{color:red}</style></head><body><h1>Report</h1><img src=x onerror=alert(1)></body></html>',
      "<style>@page{size:A4}</style>",
    );
    const html = child(parse(doc), "html");
    const head = child(html, "head");
    const first = head.childNodes[0] as Element;
    expect(first.tagName).toBe("meta");
    expect(first.attrs).toEqual([
      { name: "http-equiv", value: "Content-Security-Policy" },
      { name: "content", value: USER_HTML_CSP },
    ]);
    expect(head.childNodes.map((n) => n.nodeName)).toEqual(["meta", "meta", "style", "title", "style"]);
    expect(html.attrs).toEqual([{ name: "lang", value: "en" }]);
    expect(child(child(html, "body"), "h1")).toBeTruthy();
    expect(doc.match(/<!doctype/gi)).toHaveLength(1);
  });

  it("allows no script, no network and no plug-ins", () => {
    const directives = Object.fromEntries(
      USER_HTML_CSP.split(";")
        .map((d) => d.trim().split(/\s+/))
        .map(([k, ...v]) => [k, v.join(" ")]),
    );
    expect(directives["default-src"]).toBe("'none'");
    expect(directives["script-src"]).toBeUndefined();
    expect(directives["img-src"]).toBe("data:");
    expect(directives["object-src"]).toBe("'none'");
    expect(USER_HTML_CSP).not.toMatch(/https?:|\*|'self'|unsafe-eval/);
  });
});

describe("httpUrl", () => {
  it("keeps absolute http(s) URLs and refuses script-capable or relative ones", () => {
    expect(httpUrl("https://europepmc.org/article/PMC/PMC9")).toBe("https://europepmc.org/article/PMC/PMC9");
    expect(httpUrl("http://example.org/a.pdf")).toBe("http://example.org/a.pdf");
    for (const bad of [
      "javascript:alert(1)",
      " JavaScript:alert(1)",
      "java\tscript:alert(1)",
      "data:text/html,<script>alert(1)</script>",
      "blob:https://x/1",
      "/relative",
      "",
      null,
      undefined,
    ]) {
      expect(httpUrl(bad), String(bad)).toBeNull();
    }
  });
});
