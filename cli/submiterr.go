package cli

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/client"
	"github.com/allot-sched/allot/jobfile"
)

// fileFieldError is what the master found wrong with a field of a job file
// that the CLI checked and sent (an unknown pool, a job no node could ever
// run): it reads as the CLI's own checks of the file read, FILE:LINE: PATH:
// MESSAGE, with the master's status after it, so that the line to fix is
// named whoever found the mistake.
type fileFieldError struct {
	at     jobfile.Error // the file, line, field and message
	master *client.Error // what the master answered
	quiet  bool          // leave the status out: a fieldErrors says it once
}

func (e *fileFieldError) Error() string {
	if e.quiet {
		return e.at.Error()
	}
	return e.at.Error() + masterStatus(e.master)
}

// masterStatus is the master's status as the errors of a refused job
// file end: " (master: 400 Bad Request)".
func masterStatus(ce *client.Error) string {
	return fmt.Sprintf(" (master: %d %s)", ce.Status, http.StatusText(ce.Status))
}

// Unwrap keeps the master's answer findable: its status decides the exit
// code's hint as for any other refusal.
func (e *fileFieldError) Unwrap() error { return e.master }

// flagFieldError is what the master found wrong with a field that a
// flag set over the job file's (allot submit --pool): it names the flag.
type flagFieldError struct {
	flag, msg string
	master    *client.Error
	quiet     bool // as fileFieldError's
}

func (e *flagFieldError) Error() string {
	if e.quiet {
		return e.flag + ": " + e.msg
	}
	return e.flag + ": " + e.msg + masterStatus(e.master)
}

// fieldErrors is the errors of one refusal, one a line, with the
// master's status said once after them rather than on every line (trial
// 2026-11-29f F9).
type fieldErrors struct {
	errs   []error
	master *client.Error
}

func (e *fieldErrors) Error() string {
	lines := make([]string, len(e.errs))
	for i, err := range e.errs {
		lines[i] = err.Error()
	}
	return strings.Join(lines, "\n") + "\n" + fmt.Sprintf("(master: %d %s, all %d errors)",
		e.master.Status, http.StatusText(e.master.Status), len(e.errs))
}

// Unwrap gives each error, then the master's answer, which decides the
// exit code's hint.
func (e *fieldErrors) Unwrap() []error { return append(slices.Clip(e.errs), e.master) }

func (e *flagFieldError) Unwrap() error { return e.master }

// submitError is err, the master's answer to the job file at path (named
// name in errors, with contents data), at the line of the field the master
// names, or naming the flag that set it (flags: the fields set by flags,
// to the flag); an error without a field, or that is no refusal of the
// request (a 5xx, the master unreachable), is wrapped with what was being
// done ("submit job.yaml").
func submitError(doing, path, name string, data []byte, flags map[string]string, err error) error {
	var ce *client.Error
	if !errors.As(err, &ce) || ce.Field == "" || ce.Status < 400 || ce.Status >= 500 {
		return fmt.Errorf("%s %s: %w", doing, path, err)
	}
	if len(ce.Errors) > 1 {
		return eachFieldError(name, data, flags, ce)
	}
	return fieldError(name, data, flags, ce)
}

// eachFieldError is a refusal ce that lists several errors (trial 29e
// E9: the master reports every error of the file's names at once), each
// as fieldError words it, one a line in line order as the local checks
// list theirs (the flags' first), the master's status once after them.
// An error without a field is said as the master said it.
func eachFieldError(name string, data []byte, flags map[string]string, ce *client.Error) error {
	type lined struct {
		line int
		err  error
	}
	var all []lined
	for _, fe := range ce.Errors {
		one := &client.Error{Status: ce.Status, Message: fe.Error, Field: fe.Field}
		if fe.Field == "" {
			all = append(all, lined{0, errors.New(fe.Error)})
			continue
		}
		e := fieldError(name, data, flags, one)
		line := 0
		switch e := e.(type) {
		case *fileFieldError:
			line, e.quiet = e.at.Line, true
		case *flagFieldError:
			e.quiet = true
		}
		all = append(all, lined{line, e})
	}
	slices.SortStableFunc(all, func(a, b lined) int { return cmp.Compare(a.line, b.line) })
	errs := make([]error, len(all))
	for i, l := range all {
		errs[i] = l.err
	}
	return &fieldErrors{errs: errs, master: ce}
}

// fieldError is the master's refusal ce of one field, at the file's line
// of it or naming the flag that set it.
func fieldError(name string, data []byte, flags map[string]string, ce *client.Error) error {
	if flag, ok := flags[ce.Field]; ok {
		return &flagFieldError{flag: flag, msg: strings.TrimPrefix(ce.Message, ce.Field+": "), master: ce}
	}
	field, msg := asWritten(data, ce.Field, strings.TrimPrefix(ce.Message, ce.Field+": "))
	return &fileFieldError{
		at:     jobfile.Error{File: name, Line: jobfile.FieldLine(data, field), Path: field, Msg: msg},
		master: ce,
	}
}

// asWritten is the master's refusal of field, msg after the field's name,
// as the job file data gave the field. The CLI sends the parsed job,
// which carries a file's priority_class resolved as priority too
// (jobfile.Resources), so the master names resources.priority with its
// number ("10: project vision caps ..."): for a file that gave
// priority_class, that is its line and its class as written, HIGH
// (trial 2026-11-29c C1; the master's own renaming only sees a body
// without priority).
func asWritten(data []byte, field, msg string) (string, string) {
	const prio, class = "resources.priority", "resources.priority_class"
	if field != prio || jobfile.HasField(data, prio) || !jobfile.HasField(data, class) {
		return field, msg
	}
	value, why, ok := strings.Cut(msg, ": ")
	n, err := strconv.Atoi(value)
	if !ok || err != nil {
		return class, msg
	}
	return class, string(jobfile.ClassOf(n)) + ": " + why
}

// readJobFile reads the job file at path, or stdin for "-", and returns
// the name its errors give it with its contents.
func readJobFile(cmd *cobra.Command, path string) (string, []byte, error) {
	if path == "-" {
		data, err := io.ReadAll(io.LimitReader(cmd.InOrStdin(), api.MaxBodyBytes+1))
		if err != nil {
			return "", nil, fmt.Errorf("read stdin: %w", err)
		}
		return "stdin", data, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", nil, fmt.Errorf("load job file: %w", err)
	}
	return path, data, nil
}
