/** The parts of a report table that a quote view shows (ReportTable and review QuotedTable both fit). */
export interface QuotedTableData {
  label: string;
  caption: string;
  header: string[][];
  rows: string[][];
}

/**
 * A trial report's table with one quoted cell highlighted: `row` indexes `rows` (−1 is a header cell
 * in `column`), the rest of the quoted row is tinted. Used by the /meta-analysis arm table and the
 * review's data-extraction tab.
 */
export function QuotedTable({ table, row, column }: { table: QuotedTableData; row: number; column: number }) {
  return (
    <div className="max-h-72 overflow-auto">
      <p className="mb-1 text-xs font-medium text-slate-600">
        {table.label}
        {table.caption && table.caption !== table.label ? `: ${table.caption}` : ""}
      </p>
      <table className="text-xs">
        <thead>
          {table.header.map((cells, hi) => (
            <tr key={hi}>
              {cells.map((cell, ci) => (
                <th
                  key={ci}
                  className={`border border-slate-200 px-1 py-0.5 text-left font-medium ${row === -1 && column === ci ? "bg-amber-200" : ""}`}
                >
                  {cell}
                </th>
              ))}
            </tr>
          ))}
        </thead>
        <tbody>
          {table.rows.map((cells, ri) => (
            <tr key={ri}>
              {cells.map((cell, ci) => (
                <td
                  key={ci}
                  data-highlighted={ri === row && ci === column ? "true" : undefined}
                  className={`border border-slate-200 px-1 py-0.5 ${ri === row && ci === column ? "bg-amber-200 font-semibold" : ri === row ? "bg-amber-50" : ""}`}
                >
                  {cell}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
