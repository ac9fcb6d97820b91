/** SPEC §2: the first three authors, then 'et al.' when there are more. */
export function formatAuthors(authors: string[]): string {
  if (authors.length === 0) return "Unknown authors";
  if (authors.length <= 3) return authors.join(", ");
  return `${authors.slice(0, 3).join(", ")} et al.`;
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** "2024-03-05" → "5 Mar 2024", "2024-03" → "Mar 2024", "2024" → "2024"; null → "". */
export function formatPublicationDate(date: string | null): string {
  if (!date) return "";
  const [y, m, d] = date.split("-");
  const month = m ? MONTHS[Number(m) - 1] : undefined;
  if (!month) return y ?? "";
  return d ? `${Number(d)} ${month} ${y}` : `${month} ${y}`;
}

/** Display names of the six databases. */
export const PROVIDER_LABELS: Record<string, string> = {
  pubmed: "PubMed",
  crossref: "Crossref",
  europepmc: "Europe PMC",
  core: "CORE",
  semanticscholar: "Semantic Scholar",
  doaj: "DOAJ",
};
