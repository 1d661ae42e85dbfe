// Package config is the master's configuration: pools and their policies,
// node pinning, projects and users.
//
// TEMPORARY: this file holds only the type declarations and defaults that
// package master codes against. The real package, with its parser, comes
// from branch wip-cli and replaces this file when that branch is merged.
package config

import (
	"errors"
	"time"

	"github.com/allot-sched/allot/sched"
)

// Config is the master's whole configuration.
type Config struct {
	DefaultPool, DefaultProject string
	AgentTimeout                time.Duration
	Pools                       []Pool
	Nodes                       []NodeRule
	Projects                    []Project
	Users                       []User
}

// Pool is one resource pool and its policy.
type Pool struct {
	Name          string
	Policy        sched.Policy
	Preemption    bool
	Backfill      bool
	Reservations  sched.Reservations
	Placement     sched.Placement
	Grace         time.Duration
	ZeroSlotLimit int
}

// NodeRule pins a node by name to a pool and adds labels.
type NodeRule struct {
	Name   string
	Pool   string
	Labels map[string]string
}

// Project is a quota entity.
type Project struct {
	Name, Parent    string
	Quota           int
	OverQuotaWeight float64
	Limit           int
}

// User maps a user to projects.
type User struct {
	Name           string
	Projects       []string
	DefaultProject string
}

// Default is the configuration without a file: one pool "default" with
// the priority policy, preemption and backfill on.
func Default() *Config {
	return &Config{
		DefaultPool:    "default",
		DefaultProject: "default",
		AgentTimeout:   30 * time.Second,
		Pools: []Pool{{
			Name: "default", Policy: sched.PolicyPriority, Preemption: true, Backfill: true,
			Placement: sched.PlaceBinpack, Grace: 30 * time.Second, ZeroSlotLimit: 100,
		}},
	}
}

// errNoParser is returned until the real package is merged.
var errNoParser = errors.New("config files are not supported by this build (temporary config package)")

// Load reads and validates a configuration file.
func Load(path string) (*Config, error) { return nil, errNoParser }

// Parse parses and validates a configuration.
func Parse(name string, data []byte) (*Config, error) { return nil, errNoParser }
