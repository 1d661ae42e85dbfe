// Package report presents replays side by side: a text table for the
// terminal, JSON and CSV for machines, and a self-contained HTML page with
// charts for people.
//
// A Comparison is one workload replayed under several policies or option
// sets. Every writer reads only the Comparison; none re-runs anything.
//
// Invariants:
//   - The HTML page fetches nothing: its charts are inline SVG drawn here,
//     its style is inline CSS, and it has no scripts or external links.
//     Every name from the workload is escaped.
//   - Output is deterministic: the same Comparison gives the same bytes.
//   - Every writer labels a run alike (Comparison.Labels), and no two
//     runs' labels are the same.
//   - The JSON and CSV carry the numbers at full precision, in seconds;
//     the table and the page round them for reading.
package report
