import { Link } from "@remix-run/react";

const DATABASES = ["PubMed", "Crossref", "Europe PMC", "CORE", "Semantic Scholar", "DOAJ"];
const LINKS = [
  { to: "/faq", label: "FAQ" },
  { to: "/terms", label: "Terms of Service" },
  { to: "/privacy", label: "Privacy Policy" },
  { to: "/contact", label: "Contact Support" },
];

export function Footer() {
  return (
    <footer className="border-t border-slate-200 bg-white">
      <div className="mx-auto flex max-w-6xl flex-col gap-4 px-4 py-8 text-sm text-slate-500 sm:px-6 md:flex-row md:items-start md:justify-between">
        <div className="max-w-md space-y-1">
          <p className="font-semibold text-slate-900">MetaMind</p>
          <p>
            Searches {DATABASES.slice(0, -1).join(", ")} and {DATABASES.at(-1)}, with AI summaries and meta-analysis
            reports.
          </p>
          <nav aria-label="Footer" className="pt-2">
            <ul className="flex flex-wrap gap-x-4 gap-y-1">
              {LINKS.map(({ to, label }) => (
                <li key={to}>
                  <Link to={to} className="text-slate-600 underline-offset-2 hover:text-slate-900 hover:underline">
                    {label}
                  </Link>
                </li>
              ))}
            </ul>
          </nav>
        </div>
        <div className="space-y-1 md:text-right">
          <p>
            <span className="inline-flex items-center rounded-full bg-amber-50 px-2 py-0.5 text-xs font-medium text-amber-800 ring-1 ring-amber-200 ring-inset">
              Early-access beta
            </span>
          </p>
          <p>© {new Date().getFullYear()} MetaMind</p>
        </div>
      </div>
    </footer>
  );
}
