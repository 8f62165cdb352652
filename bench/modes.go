package main

import (
	"fmt"
	"regexp"
	"strings"
)

// Mode is one way of running a query: the settings applied before it.
type Mode struct {
	Key   string // JSON key and plan-file label
	Label string // column heading
	GPU   bool   // pg_strom.enabled = on
	JIT   bool
}

// Modes in run order. The first is the reference the others are checked
// against; speedup is Modes[0] time / GPU time.
var Modes = []Mode{
	{Key: "pg_jit", Label: "PG jit=on s", GPU: false, JIT: true},
	{Key: "pg_nojit", Label: "PG jit=off s", GPU: false, JIT: false},
	{Key: "gpu", Label: "GPU s", GPU: true, JIT: true},
}

// parallelSettings apply to every mode; everything else is the server's.
var parallelSettings = [][2]string{
	{"max_parallel_workers_per_gather", "16"},
	{"max_parallel_workers", "16"},
	{"parallel_setup_cost", "0"},
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// Settings lists the SET statements of the mode, in order.
func (m Mode) Settings() [][2]string {
	s := append([][2]string{}, parallelSettings...)
	return append(s, [2]string{"jit", onOff(m.JIT)}, [2]string{"pg_strom.enabled", onOff(m.GPU)})
}

// settingsFor is m's settings plus, for the GPU mode, the -gpu-set ones.
func settingsFor(m Mode, cfg *Config) [][2]string {
	s := m.Settings()
	if m.GPU {
		s = append(s, cfg.GPUSettings...)
	}
	return s
}

// parseGPUSettings reads -gpu-set: comma-separated pg_strom.NAME=VALUE, or
// enable_NAME=VALUE (PostgreSQL's planner method switches, e.g.
// enable_hashjoin=off to see the GpuJoin plan where the costs keep
// PostgreSQL's hash joins)
// pairs.  Names and values are limited to plain words, since they are
// spliced into SET statements.
func parseGPUSettings(list string) ([][2]string, error) {
	var out [][2]string
	for _, item := range splitList(list) {
		name, value, ok := strings.Cut(item, "=")
		if !ok || !settingName.MatchString(name) || !settingValue.MatchString(value) {
			return nil, fmt.Errorf("-gpu-set: %q is not pg_strom.NAME=VALUE or enable_NAME=VALUE (VALUE a number or a word)", item)
		}
		out = append(out, [2]string{name, value})
	}
	return out, nil
}

var (
	settingName  = regexp.MustCompile(`^(pg_strom\.[a-z_]+|enable_[a-z_]+)$`)
	settingValue = regexp.MustCompile(`^[A-Za-z0-9_.+-]+$`)
)

// gpuMode returns the index of the GPU mode in Modes.
func gpuMode() int {
	for i, m := range Modes {
		if m.GPU {
			return i
		}
	}
	return -1
}
