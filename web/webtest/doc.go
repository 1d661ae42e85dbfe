// Package webtest holds what the dashboard's browser tests share, in web/
// and in the end-to-end tests: finding the Chromium binary they drive.
// A missing browser is an error, never a reason to skip: CI installs
// Chromium (.ci/run).
package webtest
