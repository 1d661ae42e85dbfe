package cli

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// TestLongHelpStyle: every command's long help starts as a sentence (a
// capital, as the short ones do) and wraps to fit a terminal, so that
// --help reads alike across commands (allot login's once began
// "login checks ..." on one 120-column line).
func TestLongHelpStyle(t *testing.T) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if long := c.Long; long != "" {
			t.Run(c.CommandPath(), func(t *testing.T) {
				if r, _ := utf8.DecodeRuneInString(long); unicode.IsLower(r) {
					t.Errorf("long help starts in lower case: %q", firstLine(long))
				}
				for _, l := range strings.Split(long, "\n") {
					if utf8.RuneCountInString(l) > 100 {
						t.Errorf("long help line of %d characters: %q", utf8.RuneCountInString(l), l)
					}
				}
			})
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(New())
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// TestNoSentinelDefaults: no flag's --help shows "(default -1)", a
// sentinel for "not given" that reads as a value (allot submit --gpus
// once did); such flags default to their zero value and are read where
// given (Changed).
func TestNoSentinelDefaults(t *testing.T) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		t.Run(c.CommandPath(), func(t *testing.T) {
			c.LocalFlags().VisitAll(func(f *pflag.Flag) {
				if f.DefValue == "-1" && !f.Hidden {
					t.Errorf("--%s shows (default -1) in --help", f.Name)
				}
			})
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(New())
}
