// Package fieldtest holds the table test that every parser built on
// yamlfield shares: a bad input must fail with a *yamlfield.Error whose
// first error is on the expected line and says the expected thing, and the
// parser must return no value beside the error (no half-parsed result).
package fieldtest
