import { withUserHtmlCsp } from "~/lib/user-html";

/**
 * Opens the HTML in a new tab from a blob: URL under `USER_HTML_CSP` (~/lib/user-html). Returns the tab (null
 * when a pop-up blocker refused it) and a function that releases the URL.
 */
export function openUserHtml(html: string, head = ""): { tab: Window | null; release: () => void } {
  const url = URL.createObjectURL(new Blob([withUserHtmlCsp(html, head)], { type: "text/html;charset=utf-8" }));
  const tab = window.open(url, "_blank");
  return { tab, release: () => URL.revokeObjectURL(url) };
}
