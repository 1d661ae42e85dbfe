// Package auth decides who a bearer of a credential is and what they may
// do. It is pure: it makes and hashes secrets, validates names and answers
// authorization questions about a Principal; reading and writing the
// records is the store's job and enforcing the answers is the master's.
//
// Invariants:
//   - a secret is never kept: only its SHA-256 (Hash) is stored, and a
//     secret is shown once, when it is made;
//   - every decision is a function of the Principal and the object alone,
//     so the same question always gets the same answer;
//   - a refusal is an *Error that says what was refused and why, in words
//     fit for the user who asked.
package auth
