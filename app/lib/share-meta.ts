/** One tag of a page's head: its <title>, or a <meta name|property content>. */
export type MetaDescriptor =
  { title: string } | { name: string; content: string } | { property: string; content: string };

/**
 * Meta tags of the public share pages: title, description, Open Graph and Twitter card, so a link
 * previews in chat apps. Remix and React escape attribute values when they render them.
 */
export function shareMeta({
  title,
  description,
  url,
}: {
  title: string;
  description: string;
  url: string;
}): MetaDescriptor[] {
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
  return new Date(epochMs).toLocaleDateString("en-GB", {
    day: "numeric",
    month: "long",
    year: "numeric",
    timeZone: "UTC",
  });
}
