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
//	Fair tree ranks 3 users, 1 the best: 1: nlp/xx, nlp/yy; 3: vision/ana.
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
		// Grouped by rank, so that a tie reads as one: "1: nlp/xx,
		// nlp/yy; 3: vision/ana".
		var groups []string
		for i, s := range ranked[:min(len(ranked), maxRanked)] {
			if i > 0 && ranked[i-1].Rank == s.Rank {
				groups[len(groups)-1] += ", " + s.Account
				continue
			}
			groups = append(groups, strconv.Itoa(s.Rank)+": "+s.Account)
		}
		if more := len(ranked) - maxRanked; more > 0 {
			groups = append(groups, fmt.Sprintf("and %d more (-o json has each rank)", more))
		}
		notes = append(notes, fmt.Sprintf("Fair tree ranks %s, 1 the best: %s.", plural.Count(users, "user"), strings.Join(groups, "; ")))
	}
	if len(notes) == 0 {
		return nil
	}
	for i := range notes {
		notes[i] = wrap(notes[i], 76)
	}
	_, err := fmt.Fprintf(w, "\n%s\n", strings.Join(notes, "\n"))
	return err
}

// upperFirst is s with its first letter upper case.
func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
