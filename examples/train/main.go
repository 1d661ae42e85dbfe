package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"
)

type state struct {
	Step int       `json:"step"`
	W    []float64 `json:"w,omitempty"` // the model's weights
	V    []float64 `json:"v,omitempty"` // the momentum's velocity
}

func main() {
	steps := flag.Int("steps", 100, "train until this step")
	stepTime := flag.Duration("step-time", 50*time.Millisecond, "how long one step takes")
	every := flag.Int("checkpoint-every", 0, "also checkpoint every N steps (0: only when asked and at the end)")
	validate := flag.Int("validate-every", 1, "report the validation loss every N steps (0: never)")
	flag.Parse()
	if v := os.Getenv("ALLOT_TRIAL_MAX_STEPS"); v != "" {
		if _, err := fmt.Sscan(v, steps); err != nil {
			fmt.Fprintln(os.Stderr, "train: ALLOT_TRIAL_MAX_STEPS:", err)
			os.Exit(1)
		}
	}
	if err := run(*steps, *stepTime, *every, *validate); err != nil {
		fmt.Fprintln(os.Stderr, "train:", err)
		os.Exit(1)
	}
}

func run(steps int, stepTime time.Duration, every, validate int) error {
	// Catch the signal first, so that a request that arrives while
	// starting up is not lost.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)

	dir := os.Getenv("ALLOT_CHECKPOINT_DIR")
	if dir == "" {
		dir = "checkpoint"
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	path := filepath.Join(dir, "train-state.json")
	preemptFile := os.Getenv("ALLOT_PREEMPT_FILE")

	st, err := load(path)
	if err != nil {
		return err
	}
	hp, err := readHparams()
	if err != nil {
		return err
	}
	prob := newProblem()
	if len(st.W) != dims {
		st.W, st.V = make([]float64, dims), make([]float64, dims)
	}
	fmt.Printf("start step=%d restart=%s hparams=%s\n", st.Step, envOr("ALLOT_RESTART_COUNT", "0"), envOr("ALLOT_HPARAMS", "{}"))

	for st.Step < steps {
		if reason := requested(sig, preemptFile); reason != "" {
			return checkpoint(path, st, "checkpoint", reason)
		}
		select {
		case s := <-sig:
			// Interrupted mid-step: the step is not done, so it is not
			// counted; the checkpoint holds the last finished step.
			return checkpoint(path, st, "checkpoint", s.String())
		case <-time.After(stepTime):
		}
		prob.step(st.W, st.V, hp.LR, hp.Momentum)
		st.Step++
		fmt.Printf("step %d\n", st.Step)
		if validate > 0 && (st.Step%validate == 0 || st.Step == steps) {
			err := reportMetrics(st.Step, map[string]float64{"loss": loss(st.W, prob.xv, prob.yv),
				"train_loss": loss(st.W, prob.xt, prob.yt)})
			if err != nil {
				return err
			}
		}
		if every > 0 && st.Step%every == 0 {
			if err := save(path, st); err != nil {
				return err
			}
		}
	}
	return checkpoint(path, st, "done", "")
}

// requested returns why a checkpoint is asked for, or "".
func requested(sig <-chan os.Signal, preemptFile string) string {
	select {
	case s := <-sig:
		return s.String()
	default:
	}
	if preemptFile != "" {
		if _, err := os.Stat(preemptFile); err == nil {
			return "file"
		}
	}
	return ""
}

func checkpoint(path string, st state, what, reason string) error {
	if err := save(path, st); err != nil {
		return err
	}
	if reason != "" {
		fmt.Printf("%s step=%d reason=%s\n", what, st.Step, reason)
	} else {
		fmt.Printf("%s step=%d\n", what, st.Step)
	}
	return nil
}

func load(path string) (state, error) {
	var st state
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return st, err
	}
	if err := json.Unmarshal(data, &st); err != nil {
		return st, fmt.Errorf("checkpoint %s: %w", path, err)
	}
	return st, nil
}

func save(path string, st state) error {
	data, _ := json.Marshal(st)
	tmp, err := os.CreateTemp(filepath.Dir(path), ".train-state-*")
	if err != nil {
		return err
	}
	if _, err = tmp.Write(data); err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

func envOr(name, def string) string {
	if v, ok := os.LookupEnv(name); ok {
		return v
	}
	return def
}
