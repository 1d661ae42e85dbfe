package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/allot-sched/allot/store/pgtest"
)

// bins are the binaries TestMain builds for every test.
var bins struct {
	allot string // the allot binary
	train string // examples/train
	repo  string // the repository's root
}

// buildTimeout bounds building the binaries; a cold build with -race on
// a loaded machine takes minutes.
const buildTimeout = 15 * time.Minute

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "allot-e2e-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	if err := build(dir); err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	return pgtest.Main(m)
}

// build compiles allot and examples/train into dir, with -race when the
// tests run with it.
func build(dir string) error {
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	bins.repo = filepath.Dir(wd)
	bins.allot = filepath.Join(dir, "allot")
	bins.train = filepath.Join(dir, "train")
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	ctx, cancel := context.WithTimeout(context.Background(), buildTimeout)
	defer cancel()
	for out, pkg := range map[string]string{bins.allot: "./cmd/allot", bins.train: "./examples/train"} {
		args := []string{"build", "-o", out}
		if raceBuild {
			args = append(args, "-race")
		}
		cmd := exec.CommandContext(ctx, goBin, append(args, pkg)...)
		cmd.Dir = bins.repo
		if b, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go %v: %w\n%s", cmd.Args[1:], err, b)
		}
	}
	return nil
}
