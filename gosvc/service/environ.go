package service

import (
	"fmt"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"unsafe"
)

// ApplyEnviron makes env ("NAME=value" strings) the process environment and
// applies the Go runtime settings in it.  The service is forked from a
// PostgreSQL process without exec: the process title has overwritten the
// area from which the runtime read its environment at start, so the runtime
// saw none of GOMAXPROCS, GOGC, GOMEMLIMIT and GOTRACEBACK; they are applied
// here programmatically.  It returns one line per value it could not apply.
func ApplyEnviron(env []string) (problems []string) {
	for _, kv := range env {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			problems = append(problems, fmt.Sprintf("environment entry %q is not NAME=value", kv))
			continue
		}
		if err := os.Setenv(name, value); err != nil {
			problems = append(problems, fmt.Sprintf("cannot set %s: %v", name, err))
		}
	}
	for _, s := range runtimeSettings {
		value, ok := os.LookupEnv(s.name)
		if !ok || value == "" {
			continue
		}
		if err := s.apply(value); err != nil {
			problems = append(problems, fmt.Sprintf("%s=%q ignored: %v", s.name, value, err))
		}
	}
	return problems
}

// runtimeSettings are the variables the Go runtime reads only at start.
var runtimeSettings = []struct {
	name  string
	apply func(string) error
}{
	{"GOMAXPROCS", func(v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return fmt.Errorf("not a positive integer")
		}
		runtime.GOMAXPROCS(n)
		return nil
	}},
	{"GOGC", func(v string) error {
		if v == "off" {
			debug.SetGCPercent(-1)
			return nil
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("not an integer or off")
		}
		debug.SetGCPercent(n)
		return nil
	}},
	{"GOMEMLIMIT", func(v string) error {
		n, err := parseMemLimit(v)
		if err != nil {
			return err
		}
		debug.SetMemoryLimit(n)
		return nil
	}},
	{"GOTRACEBACK", func(v string) error {
		switch v {
		case "none", "single", "all", "system", "crash", "wer", "0", "1", "2":
			debug.SetTraceback(v)
			return nil
		}
		return fmt.Errorf("unknown level")
	}},
}

// parseMemLimit parses GOMEMLIMIT as the runtime does: "off", or bytes with
// an optional B, KiB, MiB, GiB or TiB suffix.
func parseMemLimit(v string) (int64, error) {
	if v == "off" {
		return math.MaxInt64, nil
	}
	units := []struct {
		suffix string
		mult   int64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"B", 1}}
	mult := int64(1)
	for _, u := range units {
		if strings.HasSuffix(v, u.suffix) {
			v, mult = strings.TrimSuffix(v, u.suffix), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 || n > math.MaxInt64/mult {
		return 0, fmt.Errorf("not a byte size (e.g. 8GiB) or off")
	}
	return n * mult, nil
}

// CStrings copies a NULL-terminated C array of NUL-terminated strings (a
// char **envp, given as an unsafe.Pointer so that every c-shared entry
// point can use it); nil gives nil.
func CStrings(array unsafe.Pointer) []string {
	var out []string
	if array == nil {
		return nil
	}
	for p := array; *(*unsafe.Pointer)(p) != nil; p = unsafe.Add(p, unsafe.Sizeof(p)) {
		s := (*byte)(*(*unsafe.Pointer)(p))
		n := 0
		for *(*byte)(unsafe.Add(unsafe.Pointer(s), n)) != 0 {
			n++
		}
		out = append(out, strings.Clone(unsafe.String(s, n)))
	}
	return out
}
