package main

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

// gpuMode returns the index of the GPU mode in Modes.
func gpuMode() int {
	for i, m := range Modes {
		if m.GPU {
			return i
		}
	}
	return -1
}
