/**
 * Sharing a link from the browser (SPEC §8): the Web Share API, else the clipboard, else a
 * WhatsApp-style link. Loaded with the Share buttons only (issue 17 page budgets); the shared
 * items' types and limits, which the server uses too, are in ~/lib/sharing.
 */

/** SPEC §8. */
export const SHARE_COPIED_MESSAGE = "Share link copied";

/** What {@link shareLink} did. */
export type ShareOutcome = "shared" | "cancelled" | "copied" | "whatsapp" | "failed";

/** The browser capabilities {@link shareLink} uses (the real `navigator`/`window` in the app). */
export interface ShareEnvironment {
  share?: (data: { title?: string; text?: string; url?: string }) => Promise<void>;
  writeText?: (text: string) => Promise<void>;
  open: (url: string) => void;
}

/** The WhatsApp-style link SPEC §8 opens when the browser can neither share nor copy. */
export function whatsappLink(text: string, url: string): string {
  return `https://wa.me/?text=${encodeURIComponent(`${text} ${url}`)}`;
}

/**
 * Shares a link (SPEC §8): the Web Share API when there is one (a user's cancel, an AbortError,
 * ends there); when sharing fails for another reason, or there is no Web Share API, the link is
 * copied ('Share link copied'); with neither, a WhatsApp-style link opens.
 */
export async function shareLink(
  envr: ShareEnvironment,
  data: { title: string; text: string; url: string },
): Promise<ShareOutcome> {
  if (envr.share) {
    try {
      await envr.share(data);
      return "shared";
    } catch (error) {
      if (error instanceof DOMException && error.name === "AbortError") return "cancelled";
      if ((error as { name?: string } | null)?.name === "AbortError") return "cancelled";
    }
  }
  if (envr.writeText) {
    try {
      await envr.writeText(data.url);
      return "copied";
    } catch (error) {
      console.warn("Could not copy the share link", error);
    }
  }
  try {
    envr.open(whatsappLink(data.text, data.url));
    return "whatsapp";
  } catch (error) {
    console.warn("Could not open the share link", error);
    return "failed";
  }
}

/** The real browser's share environment. */
export function browserShareEnvironment(): ShareEnvironment {
  const nav = typeof navigator === "undefined" ? undefined : navigator;
  return {
    share: nav && typeof nav.share === "function" ? (d) => nav.share(d) : undefined,
    writeText: nav?.clipboard?.writeText ? (t) => nav.clipboard.writeText(t) : undefined,
    open: (url) => window.open(url, "_blank", "noopener,noreferrer"),
  };
}
