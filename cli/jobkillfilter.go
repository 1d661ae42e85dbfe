package cli

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/allot-sched/allot/api"
	"github.com/allot-sched/allot/client"
	"github.com/allot-sched/allot/plural"
)

// killFilter is allot job kill's scancel filters (-u, -t, -n, -A,
// -p): the live jobs they match are killed in one request, as
// scancel -u bo -t PD kills them (trial r R11).
type killFilter struct {
	user, state, name, project, pool string
}

func (k *killFilter) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVarP(&k.user, "user", "u", "", "kill the live jobs of this user (scancel -u)")
	fl.StringVarP(&k.state, "state", "t", "", "kill the live jobs in this state (scancel -t): queued (pending, PD) or running (R)")
	fl.StringVarP(&k.name, "name", "n", "", "kill the live jobs of this name (scancel -n)")
	fl.StringVarP(&k.project, "project", "A", "", "kill the live jobs of this project (scancel -A)")
	fl.StringVarP(&k.pool, "pool", "p", "", "kill the live jobs of this pool (scancel -p)")
}

// empty reports whether no filter is given.
func (k killFilter) empty() bool { return k == killFilter{} }

// String is the filters as given, for messages: "-u bo -t queued".
func (k killFilter) String() string {
	var s []string
	for _, f := range [][2]string{{"-u", k.user}, {"-t", k.state}, {"-n", k.name}, {"-A", k.project}, {"-p", k.pool}} {
		if f[1] != "" {
			s = append(s, f[0]+" "+f[1])
		}
	}
	return strings.Join(s, " ")
}

// check resolves -t to a state allot jobs lists: queued or running (a
// job being killed already is left to end); an ended state names no job
// to kill.
func (k *killFilter) check() error {
	if k.state == "" {
		return nil
	}
	s, ok := listState(k.state)
	switch {
	case ok && slices.Contains(terminalStates, s):
		return usageErrorf("--state: a %s job has ended and has nothing to kill; expected queued (pending, PD), held or running (R)", s)
	case !ok && !slices.Contains(shownOnly, s), ok && s == api.JobStateKilling:
		return usageErrorf("--state: expected queued (pending, PD), held or running (R), got %q", k.state)
	case !ok:
		return usageErrorf("--state: a job shown %s is stored running, and --state running kills it", s)
	}
	k.state = s
	return nil
}

// matching lists the live jobs that the filters match, as allot jobs
// lists them (the master filters by user, state, project and pool; the
// name here), in the listing's order; among ids, where ids are given
// (scancel kills the IDs that match its filters), with the IDs that did
// not match apart.
func (k killFilter) matching(ctx context.Context, c *client.Client, ids []int64) (match []int64, skipped []int64, err error) {
	f := client.JobFilter{User: k.user, State: k.state, Project: k.project, Pool: k.pool}
	if f.State == "" {
		f.State = "queued,running"
	}
	jobs, err := liveJobs(ctx, c, f) // held asked as such, or as queued of an older master
	if err != nil {
		return nil, nil, err
	}
	for _, j := range jobs {
		if !k.matches(j) || (len(ids) > 0 && !slices.Contains(ids, j.ID)) {
			continue
		}
		match = append(match, j.ID)
	}
	for _, id := range ids {
		if !slices.Contains(match, id) {
			skipped = append(skipped, id)
		}
	}
	return match, skipped, nil
}

// matches reports whether live job j is one the filters kill.
func (k killFilter) matches(j api.Job) bool {
	return (k.user == "" || j.User == k.user) && (k.name == "" || j.Name == k.name) && (k.project == "" || j.Project == k.project) &&
		(k.pool == "" || j.Pool == k.pool) && (k.state == "" || inState(j, k.state)) && !j.Ending &&
		(j.State == "queued" || j.State == "running")
}

// whySkipped says why an ID given with filters was not among the jobs
// they matched, reading the job: the master's refusal to show it (not
// the caller's, no such job), which is refused (the command then exits
// 1, as scancel does for an ID it could not cancel); that it has ended,
// or how it does not match, which is not; or, for a job that matches by
// its fields but was not listed (a list the master cut), kill: the
// master decides. Before trial 2026-11-29b B4 each read "not a live job
// that -t running matches", exit 0, also for a job the caller may not
// see.
func (k killFilter) whySkipped(ctx context.Context, c *client.Client, id int64) (why string, refused, kill bool) {
	j, err := c.Job(ctx, id)
	switch {
	case err != nil:
		return err.Error(), true, false
	case slices.Contains(terminalStates, j.State):
		return "it has ended (" + j.State + ")", false, false
	case j.Ending:
		return "it is already being killed", false, false
	case k.matches(j):
		return "", false, true
	}
	return fmt.Sprintf("not a live job that %s matches (it is %s)", k, j.State), false, false
}

// resolveKills is the jobs a filtered kill kills: it says on stderr
// which IDs the filters left out and why, and when nothing matches; ok
// is false then. refused are the IDs given that were not killed for a
// reason other than the filters (whySkipped), for the exit status.
func resolveKills(cmd *cobra.Command, c *client.Client, k killFilter, ids []int64) (kill []int64, refused []error, ok bool, err error) {
	ctx, cancel := requestContext(cmd)
	defer cancel()
	match, skipped, err := k.matching(ctx, c, ids)
	if err != nil {
		return nil, nil, false, err
	}
	w := cmd.ErrOrStderr()
	for _, id := range skipped {
		why, bad, also := k.whySkipped(ctx, c, id)
		if also {
			match = append(match, id)
			continue
		}
		err := fmt.Errorf("job %d not killed: %s", id, why)
		fmt.Fprintln(w, "allot:", err)
		if bad {
			refused = append(refused, err)
		}
	}
	if len(match) == 0 {
		if len(refused) == 0 {
			fmt.Fprintf(w, "allot: no live job you may see matches %s: nothing killed\n", k)
		}
		return nil, refused, false, nil
	}
	return match, refused, true, nil
}

// idList is "job 5", "jobs 5, 6".
func idList(ids []int64) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.FormatInt(id, 10)
	}
	if len(ids) == 1 {
		return "job " + s[0]
	}
	return "jobs " + strings.Join(s, ", ")
}

// printKillCount ends a filtered kill's list with how many jobs it
// killed, as the filters chose them: "2 jobs killed (-u bo -t queued)";
// jobs that had ended meanwhile are not counted.
func printKillCount(w io.Writer, replies []api.KillReply, k killFilter) error {
	n := 0
	for _, r := range replies {
		if !r.AlreadyEnded {
			n++
		}
	}
	_, err := fmt.Fprintf(w, "%s killed (%s)\n", plural.Count(n, "job"), k)
	return err
}
