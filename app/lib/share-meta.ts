/**
 * Meta tags of the public share pages: title, description, Open Graph and Twitter card, so a link
 * previews in chat apps. Remix escapes attribute values when it renders them.
 */
export function shareMeta({ title, description, url }: { title: string; description: string; url: string }) {
  const desc = description.replace(/\s+/g, " ").trim();
  const short = desc.length > 200 ? `${desc.slice(0, 197).trimEnd()}...` : desc;
  return [
    { title: `${title} | MetaMind` },
    { name: "description", content: short },
    { property: "og:type", content: "article" },
    { property: "og:site_name", content: "MetaMind" },
    { property: "og:title", content: title },
    { property: "og:description", content: short },
    { property: "og:url", content: url },
    { name: "twitter:card", content: "summary" },
    { name: "twitter:title", content: title },
    { name: "twitter:description", content: short },
  ];
}

/** The date of a shared item as readers see it ("25 November 2026"). */
export function shareDate(epochMs: number): string {
  return new Date(epochMs).toLocaleDateString("en-GB", { day: "numeric", month: "long", year: "numeric", timeZone: "UTC" });
}
