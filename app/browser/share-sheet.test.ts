import { describe, expect, it, vi } from "vitest";
import { shareLink, whatsappLink } from "./share-sheet";

const data = { title: "Q", text: "An answer", url: "https://metamind.test/answer/abc" };

describe("shareLink (SPEC §8)", () => {
  it("uses the Web Share API when there is one", async () => {
    const share = vi.fn(async () => undefined);
    const writeText = vi.fn(async () => undefined);
    expect(await shareLink({ share, writeText, open: vi.fn() }, data)).toBe("shared");
    expect(share).toHaveBeenCalledWith(data);
    expect(writeText).not.toHaveBeenCalled();
  });

  it("does nothing more when the user cancels the share sheet", async () => {
    const writeText = vi.fn(async () => undefined);
    const share = vi.fn(async () => Promise.reject(new DOMException("cancelled", "AbortError")));
    expect(await shareLink({ share, writeText, open: vi.fn() }, data)).toBe("cancelled");
    expect(writeText).not.toHaveBeenCalled();
  });

  it("copies the link when sharing fails otherwise or is unavailable", async () => {
    const writeText = vi.fn(async () => undefined);
    const share = vi.fn(async () => Promise.reject(new DOMException("denied", "NotAllowedError")));
    expect(await shareLink({ share, writeText, open: vi.fn() }, data)).toBe("copied");
    expect(writeText).toHaveBeenCalledWith(data.url);
    expect(await shareLink({ writeText, open: vi.fn() }, data)).toBe("copied");
  });

  it("opens a WhatsApp-style link with no share capability", async () => {
    const open = vi.fn();
    expect(await shareLink({ open }, data)).toBe("whatsapp");
    expect(open).toHaveBeenCalledWith(
      `https://wa.me/?text=${encodeURIComponent("An answer https://metamind.test/answer/abc")}`,
    );
    expect(whatsappLink("a b", "u")).toBe("https://wa.me/?text=a%20b%20u");
  });
});
