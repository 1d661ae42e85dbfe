// Package client is a Go client for the user side of Allot's REST API
// (package api): submitting and listing jobs, changing and killing them,
// reading and following their logs, and listing nodes, pools and
// projects. The CLI's user commands are built on it.
//
// # Invariants
//
//   - Every method takes a context and returns once it is done; nothing
//     keeps running in the background. The HTTP client has no timeout of
//     its own, because log requests long-poll: callers bound calls with
//     their contexts.
//   - A response outside 2xx is returned as a *Error with the status and
//     the message and field of the body's api.Error (or the body's text,
//     when it is not one), so errors.As tells a refusal by the master from
//     a failure to reach it.
//   - A failure to reach the master is an error naming the address that
//     failed and how to point the client elsewhere (--master or
//     ALLOT_MASTER); a cancelled or expired context is returned as the
//     context's error, wrapped.
//   - Responses are read up to MaxResponseBytes; unknown fields in them
//     are ignored, so an older client can talk to a newer master.
package client
