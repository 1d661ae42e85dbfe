package cli

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/plural"
)

// maxRanked bounds the users printShareNotes names by rank.
const maxRanked = 8

// printShareNotes says, after the fair-share standing, how usage decays
// and where the users shown rank under fair tree, best first: members
// cannot read the configuration, and a low factor's "until when" hangs
// on both (trial 2026-11-29i I14).
//
//	Usage halves every 1h, applied at each 24h period's end, next in 3h 52m.
//	Fair-tree ranks (1 is best, of 3 users): 1 nlp/xx, nlp/yy (tied); 3 vision/ana.
func printShareNotes(w io.Writer, u api.Usage) error {
	var notes []string
	if u.Decay != "" {
		notes = append(notes, upperFirst(u.Decay)+".")
	}
	var ranked []api.Share
	users := 0
	for _, s := range u.Shares {
		if s.Rank > 0 {
			ranked = append(ranked, s)
			users = s.Users
		}
	}
	if len(ranked) > 0 {
		slices.SortStableFunc(ranked, func(a, b api.Share) int { return cmp.Compare(a.Rank, b.Rank) })
		notes = append(notes, fmt.Sprintf("Fair-tree ranks (1 is best, of %s): %s.", plural.Count(users, "user"), rankGroups(ranked)))
	}
	if len(notes) == 0 {
		return nil
	}
	for i := range notes {
		notes[i] = strings.ReplaceAll(wrap(notes[i], 76), keepTogether, " ")
	}
	_, err := fmt.Fprintf(w, "\n%s\n", strings.Join(notes, "\n"))
	return err
}

// keepTogether joins a rank to its first name so that wrap, which
// breaks at spaces, never leaves the number at a line's end; printed as
// a space.
const keepTogether = "\x1f"

// rankGroups lists ranked (by rank) as rank then accounts, a tie as one
// group marked so: "1 nlp/xx, nlp/yy (tied); 3 vision/ana". The rank
// before the name, with no colon between, reads as a place, where "1 the
// best: 3: nlp/bo" did not (trial 2026-11-29j J5).
func rankGroups(ranked []api.Share) string {
	var groups []string
	tied := false
	for i, s := range ranked[:min(len(ranked), maxRanked)] {
		if i > 0 && ranked[i-1].Rank == s.Rank {
			groups[len(groups)-1] += ", " + s.Account
			tied = true
			continue
		}
		if tied {
			groups[len(groups)-1] += " (tied)"
		}
		tied = false
		groups = append(groups, strconv.Itoa(s.Rank)+keepTogether+s.Account)
	}
	if tied {
		groups[len(groups)-1] += " (tied)"
	}
	if more := len(ranked) - maxRanked; more > 0 {
		groups = append(groups, fmt.Sprintf("and %d more (-o json has each rank)", more))
	}
	return strings.Join(groups, "; ")
}

// upperFirst is s with its first letter upper case.
func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
