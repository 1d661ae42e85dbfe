package cli

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/allot-sched/allot/config"
)

// TestDevDocMatchesCluster keeps docs/dev.md's table of the dev cluster in
// step with what allot dev creates: every pool of dev.yaml has a row
// (and no other pool does), every dev node's row names its GPU count,
// type and pool, and the projects row names dev.yaml's projects with
// their quotas.
func TestDevDocMatchesCluster(t *testing.T) {
	doc, err := os.ReadFile("../docs/dev.md")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Parse("dev.yaml", devConfigYAML)
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{} // first cell → second cell
	for _, line := range strings.Split(string(doc), "\n") {
		cells := strings.Split(line, "|")
		if len(cells) == 4 {
			rows[strings.TrimSpace(cells[1])] = strings.TrimSpace(cells[2])
		}
	}
	var docPools []string
	for k := range rows {
		if name, ok := strings.CutPrefix(k, "pool `"); ok {
			docPools = append(docPools, strings.TrimSuffix(name, "`"))
		}
	}
	slices.Sort(docPools)
	pools := cfg.PoolNames()
	slices.Sort(pools)
	t.Run("pools", func(t *testing.T) {
		if !slices.Equal(docPools, pools) {
			t.Errorf("docs/dev.md describes pools %v; allot dev creates %v", docPools, pools)
		}
		for _, p := range cfg.Pools {
			if row := rows["pool `"+p.Name+"`"]; !strings.Contains(strings.ToLower(row), string(p.Policy)) {
				t.Errorf("docs/dev.md's row of pool %s, %q, does not name its policy %s", p.Name, row, p.Policy)
			}
		}
	})
	for _, d := range devNodes {
		t.Run("node "+d.name, func(t *testing.T) {
			row, ok := rows["`"+d.name+"`"]
			want := fmt.Sprintf("%d fake %s, pool `%s`", d.gpus, strings.ToUpper(d.gpuType), d.pool)
			if !ok || row != want {
				t.Errorf("docs/dev.md's row of %s is %q, want %q", d.name, row, want)
			}
		})
	}
	t.Run("nodes row count", func(t *testing.T) {
		n := 0
		for k := range rows {
			if regexp.MustCompile("^`dev-[0-9]+`$").MatchString(k) {
				n++
			}
		}
		if n != len(devNodes) {
			t.Errorf("docs/dev.md lists %d dev nodes; allot dev starts %d", n, len(devNodes))
		}
	})
	t.Run("projects", func(t *testing.T) {
		row := rows["projects"]
		for _, p := range cfg.Projects {
			want := "`" + p.Name + "`"
			if p.Quota > 0 {
				want += fmt.Sprintf(" (quota %d)", p.Quota)
			}
			if !strings.Contains(row, want) {
				t.Errorf("docs/dev.md's projects row %q lacks %s", row, want)
			}
		}
		if got := strings.Count(row, "`"); got != 2*len(cfg.Projects) {
			t.Errorf("docs/dev.md's projects row %q names %d projects; dev.yaml has %d", row, got/2, len(cfg.Projects))
		}
	})
	t.Run("banner example", func(t *testing.T) {
		var nodes []string
		for _, d := range devNodes {
			nodes = append(nodes, fmt.Sprintf("%s (%d× %s, pool %s)", d.name, d.gpus, d.gpuType, d.pool))
		}
		if want := "nodes      " + strings.Join(nodes, ", "); !strings.Contains(string(doc), want) {
			t.Errorf("docs/dev.md's banner lacks %q", want)
		}
	})
}
