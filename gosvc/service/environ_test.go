package service

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"testing"
	"unsafe"
)

func TestApplyEnviron(t *testing.T) {
	procs := runtime.GOMAXPROCS(0)
	gc := debug.SetGCPercent(100)
	limit := debug.SetMemoryLimit(-1)
	t.Cleanup(func() {
		runtime.GOMAXPROCS(procs)
		debug.SetGCPercent(gc)
		debug.SetMemoryLimit(limit)
		debug.SetTraceback("single")
		for _, n := range []string{"PGSTROM_ENV_TEST", "GOMAXPROCS", "GOGC", "GOMEMLIMIT", "GOTRACEBACK"} {
			os.Unsetenv(n)
		}
	})
	problems := ApplyEnviron([]string{
		"PGSTROM_ENV_TEST=a=b", "GOMAXPROCS=3", "GOGC=off", "GOMEMLIMIT=2GiB",
		"GOTRACEBACK=all", "junk",
	})
	if len(problems) != 1 {
		t.Fatalf("problems %q, want one for junk", problems)
	}
	if v := os.Getenv("PGSTROM_ENV_TEST"); v != "a=b" {
		t.Errorf("PGSTROM_ENV_TEST=%q", v)
	}
	if n := runtime.GOMAXPROCS(0); n != 3 {
		t.Errorf("GOMAXPROCS %d", n)
	}
	if p := debug.SetGCPercent(100); p != -1 {
		t.Errorf("GC percent %d", p)
	}
	if l := debug.SetMemoryLimit(-1); l != 2<<30 {
		t.Errorf("memory limit %d", l)
	}
	if problems := ApplyEnviron([]string{"GOMAXPROCS=0", "GOGC=x", "GOMEMLIMIT=1XB", "GOTRACEBACK=loud"}); len(problems) != 4 {
		t.Errorf("bad values: problems %q, want 4", problems)
	}
}

func TestParseMemLimit(t *testing.T) {
	for in, want := range map[string]int64{"off": math.MaxInt64, "123": 123, "5B": 5, "1KiB": 1024, "3MiB": 3 << 20, "1TiB": 1 << 40} {
		if got, err := parseMemLimit(in); err != nil || got != want {
			t.Errorf("%q: %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "-1", "1GB", "9999999999TiB"} {
		if _, err := parseMemLimit(in); err == nil {
			t.Errorf("%q accepted", in)
		}
	}
}

func TestCStrings(t *testing.T) {
	a, b := []byte("A=1\x00"), []byte("B=\x00")
	array := []*byte{&a[0], &b[0], nil}
	got := CStrings(unsafe.Pointer(&array[0]))
	if len(got) != 2 || got[0] != "A=1" || got[1] != "B=" {
		t.Fatalf("CStrings = %q", got)
	}
	if CStrings(nil) != nil {
		t.Fatal("CStrings(nil) is not nil")
	}
}
