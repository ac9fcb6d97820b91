import { describe, expect, it } from "vitest";
import { failureReason, providerFailures } from "./search-failure";

describe("providerFailures", () => {
  it("names each database that did not answer with its reason in words", () => {
    expect(
      providerFailures({
        pubmed: { status: "failed", error: "getaddrinfo ENOTFOUND eutils.ncbi.nlm.nih.gov" },
        crossref: { status: "timeout", error: "The operation was aborted due to timeout" },
        europepmc: { status: "failed", error: "Europe PMC answered HTTP 503" },
        core: { status: "unavailable", error: "No CORE API key configured" },
        doaj: { status: "ok", error: null },
        semanticscholar: undefined,
      }),
    ).toEqual([
      "PubMed could not be reached (no network connection?)",
      "Crossref did not answer in time",
      "Europe PMC answered with an error (HTTP 503)",
      "CORE is unavailable: No CORE API key configured",
    ]);
    expect(providerFailures(null)).toEqual([]);
  });

  it("keeps a reason it does not recognise, and says when there is none", () => {
    expect(failureReason({ status: "failed", error: "Unexpected XML" })).toBe("failed: Unexpected XML");
    expect(failureReason({ status: "failed" })).toBe("failed without a reason");
    expect(failureReason({ status: "failed", error: "TypeError: fetch failed" })).toBe(
      "could not be reached (no network connection?)",
    );
  });
});
