package service

import (
	"strings"
	"testing"

	"github.com/pgstrom-go/pg_strom/gosvc/control"
)

// fakeHostBackend is a fake backend that says it is the host executor.
type fakeHostBackend struct{ *fakeBackend }

func (fakeHostBackend) HostExecutor() bool { return true }

// A host backend needs no fatbin (no prebuilt one, no nvcc: a fatbin
// lookup would fail as in TestRunFatalWhenNvccMissing), gets a nil image,
// and the service says at WARNING level that no GPU is used.
func TestRunHostBackendSkipsFatbinAndWarns(t *testing.T) {
	backend := fakeHostBackend{newFakeBackend(1)}
	backend.rejectImage = "not the nil image" // the fake rejects "" by default
	h := startRun(t, backend)
	cfg := testConfig(t, "PREBUILT")
	cfg.PrebuiltFatbin = ""
	h.send(control.EncodeConfig(cfg))

	msg := h.recv()
	ready, ok := msg.(control.ReadyMessage)
	if !ok {
		t.Fatalf("first message is %+v, not READY; log:\n%s", msg, h.logText())
	}
	if ready.FatbinPath != hostFatbinPath {
		t.Errorf("READY fatbin %q, want %q", ready.FatbinPath, hostFatbinPath)
	}
	if loads, _, _ := backend.snapshot(); len(loads) != 1 || loads[0] != "" {
		t.Errorf("loads %q, want one nil image", loads)
	}
	// log lines arrive through a pipe: all of them are in once Run returned
	h.send(control.EncodeStop())
	if code := h.wait(); code != control.ExitStopped {
		t.Fatalf("Run returned %d, want %d", code, control.ExitStopped)
	}
	h.expectLog(hostExecutorWarning)
	for _, l := range strings.Split(h.logText(), "\n") {
		if strings.Contains(l, hostExecutorWarning) && !strings.Contains(l, "|WARNING|") {
			t.Errorf("host executor line not at WARNING: %s", l)
		}
	}
}
