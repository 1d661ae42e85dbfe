// Package web is Allot's dashboard: a single page of HTML, CSS and plain
// JavaScript embedded in the binary and served by Handler, which the master
// mounts at / beside /api/v1 and /metrics.
//
// The page needs nothing but the master: no build step, no framework and no
// request to any other host, so it works on an air-gapped cluster. It reads
// the REST API (package api) with relative URLs, so it also works behind a
// reverse proxy that mounts the master under a path prefix. The views are
// hash routes (#/, #/jobs, #/jobs/{id}, #/nodes, #/projects, #/pools); the
// page refreshes the current view every two seconds (?refresh=SECONDS
// changes that) and says when the master stopped answering.
//
// # Invariants
//
//   - Every asset URL carries the hash of the embedded files
//     (assets/<version>/name), so assets are cached for good and a new
//     binary is picked up at the next page load; index.html itself is
//     always revalidated. An asset path of another version is a 404.
//   - Only GET and HEAD are served; any path that is not the page or a
//     current asset is a 404, so that the master's mux reports unknown
//     paths honestly.
//   - Every response forbids framing and content sniffing, and its Content
//     Security Policy allows scripts, styles and connections to this
//     origin only. The page never builds HTML from data (no innerHTML), so
//     job names and log lines cannot inject markup.
//   - Every time and span is written by dom.js (stamp, relative,
//     humanDur, duration) as the CLI writes it, never in the browser's
//     locale, so that screenshots and the CLI's output read alike
//     (docs/dashboard.md#times).
package web
