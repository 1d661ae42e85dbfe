package main

// A real, tiny objective, so that an adaptive searcher has something to
// judge: full-batch gradient descent on a fixed least-squares problem. The
// data come from a fixed seed, so every trial (and every resumed attempt)
// sees the same problem, and trials differ only by their hyperparameters:
// lr (the learning rate) and momentum. Too small a learning rate learns
// slowly, too large a one diverges: ASHA should stop both early.

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
)

const (
	dims     = 8
	trainN   = 256
	validN   = 64
	noise    = 0.1
	maxValue = 1e12 // a diverged loss is reported as this (JSON has no infinity)
)

// problem is the data set: inputs and targets for training and validation.
type problem struct {
	xt, xv [][]float64
	yt, yv []float64
}

func newProblem() *problem {
	r := rand.New(rand.NewPCG(17, 42))
	truth := make([]float64, dims)
	for i := range truth {
		truth[i] = r.NormFloat64()
	}
	sample := func(n int) ([][]float64, []float64) {
		xs, ys := make([][]float64, n), make([]float64, n)
		for k := range n {
			x := make([]float64, dims)
			for i := range x {
				x[i] = r.NormFloat64() * float64(i+1) / dims // badly conditioned on purpose
			}
			xs[k], ys[k] = x, dot(truth, x)+noise*r.NormFloat64()
		}
		return xs, ys
	}
	p := &problem{}
	p.xt, p.yt = sample(trainN)
	p.xv, p.yv = sample(validN)
	return p
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// loss is the mean squared error of w on (xs, ys), capped at maxValue.
func loss(w []float64, xs [][]float64, ys []float64) float64 {
	s := 0.0
	for k, x := range xs {
		d := dot(w, x) - ys[k]
		s += d * d
	}
	s /= float64(len(xs))
	if math.IsNaN(s) || s > maxValue {
		return maxValue
	}
	return s
}

// step takes one gradient step with momentum; v is the velocity.
func (p *problem) step(w, v []float64, lr, momentum float64) {
	g := make([]float64, dims)
	for k, x := range p.xt {
		d := dot(w, x) - p.yt[k]
		for i := range g {
			g[i] += 2 * d * x[i] / trainN
		}
	}
	for i := range w {
		v[i] = momentum*v[i] - lr*g[i]
		w[i] += v[i]
	}
}

// hparams are the trial's hyperparameters, from ALLOT_HPARAMS.
type hparams struct {
	LR       float64 `json:"lr"`
	Momentum float64 `json:"momentum"`
}

func readHparams() (hparams, error) {
	h := hparams{LR: 0.05}
	raw := os.Getenv("ALLOT_HPARAMS")
	if raw == "" {
		return h, nil
	}
	if err := json.Unmarshal([]byte(raw), &h); err != nil {
		return h, fmt.Errorf("ALLOT_HPARAMS: %w", err)
	}
	return h, nil
}

// reportMetrics appends one line to ALLOT_METRICS_FILE, when set.
func reportMetrics(step int, values map[string]float64) error {
	path := os.Getenv("ALLOT_METRICS_FILE")
	if path == "" {
		return nil
	}
	line, err := json.Marshal(map[string]any{"step": step, "metrics": values})
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(append(line, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
