package cli

import (
	"errors"
	"reflect"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// expectAnnotation is the annotation of a flag that says, in words, what
// values it takes where its type alone says too little ("a whole number
// >= 0" for --gpus, whose int type admits negatives that the command
// refuses later): flagValueError's words for a value pflag cannot parse.
const expectAnnotation = "allot-expect"

// expectFlag sets the words flagValueError gives for flag name of cmd.
func expectFlag(cmd *cobra.Command, name, expect string) {
	if err := cmd.Flags().SetAnnotation(name, expectAnnotation, []string{expect}); err != nil {
		panic(err) // a flag the command lacks: a programming error
	}
}

// flagValueError rewrites pflag's error for a value its flag's type
// cannot parse (`invalid argument "abc" for "-G, --gpus" flag:
// strconv.ParseInt: parsing "abc": invalid syntax`) in the words of the
// CLI's own flag checks: `--gpus: expected a whole number >= 0, got
// "abc"` (trial 2026-11-29d D6), a usage error that Main prints after
// "allot:", as it does theirs: the flag names what was wrong. Other
// errors are returned as they are.
func flagValueError(err error) error {
	var ive *pflag.InvalidValueError
	if !errors.As(err, &ive) || ive.GetFlag() == nil {
		return err
	}
	f := ive.GetFlag()
	if expect := flagExpect(f); expect != "" {
		return usageErrorf("--%s: expected %s, got %q", f.Name, expect, ive.GetValue())
	}
	if cause := errors.Unwrap(err); cause != nil && !parserError(cause) {
		// A value of the CLI's own (countFlag, ...) says its own words.
		return usageErrorf("--%s: %w", f.Name, cause)
	}
	return err
}

// parserError says whether err is the strconv or time package's, which a
// user should not read (they name Go functions).
func parserError(err error) bool {
	var ne *strconv.NumError
	return errors.As(err, &ne) || strings.HasPrefix(err.Error(), "time: ")
}

// flagExpect says what flag f takes: its annotation, else, for pflag's
// own value types, its type's words; "" for another value (its own
// error says what it takes) or a type without words here.
func flagExpect(f *pflag.Flag) string {
	if e := f.Annotations[expectAnnotation]; len(e) > 0 {
		return e[0]
	}
	if vt := reflect.TypeOf(f.Value); vt.Kind() != reflect.Pointer || vt.Elem().PkgPath() != reflect.TypeOf(pflag.Flag{}).PkgPath() {
		return ""
	}
	t := f.Value.Type()
	switch {
	case strings.HasSuffix(t, "Slice"):
		return ""
	case t == "duration":
		return "a duration such as 90s, 15m or 2h"
	case t == "bool":
		return "true or false"
	case strings.HasPrefix(t, "uint"):
		return "a whole number >= 0"
	case strings.HasPrefix(t, "int"):
		return "a whole number"
	case strings.HasPrefix(t, "float"):
		return "a number"
	}
	return ""
}
