package cli

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/allot-sched/allot/yamlfield"
)

// unknownLongFlag is pflag's error for a long flag the command lacks.
var unknownLongFlag = regexp.MustCompile(`^unknown flag: --([^=\s]+)$`)

// flagTypo adds the flag the user likely meant to pflag's "unknown flag:
// --projct", as the config file's and the job file's fields and the
// commands have one: the only flag the word begins (--prio for
// --priority), else one a typo away. Other errors are returned as they are.
func flagTypo(c *cobra.Command, err error) error {
	m := unknownLongFlag.FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	var names []string
	add := func(f *pflag.Flag) {
		if !f.Hidden && !slices.Contains(names, f.Name) {
			names = append(names, f.Name)
		}
	}
	c.Flags().VisitAll(add)
	c.InheritedFlags().VisitAll(add)
	var prefixed []string
	for _, n := range names {
		if len(m[1]) >= 2 && strings.HasPrefix(n, m[1]) {
			prefixed = append(prefixed, n)
		}
	}
	if len(prefixed) == 1 {
		return fmt.Errorf("%w; did you mean --%s?", err, prefixed[0])
	}
	if s := yamlfield.Suggest(m[1], names); s != "" {
		best := strings.Trim(strings.TrimSuffix(strings.TrimPrefix(s, "; did you mean "), "?"), `"`)
		return fmt.Errorf("%w; did you mean --%s?", err, best)
	}
	return err
}
