package service

import (
	"time"

	"github.com/pgstrom-go/pg_strom/gosvc/nodekind"
)

// gatherReporter is implemented by an executor that counts how the pages
// of zero-copy chunks reached its device (the gpu package's: by DMA or by
// the gather kernel).  The figures go to the log, not to a status column:
// they are for measuring the gather path on a device, not for operators.
type gatherReporter interface {
	GatherSummary() string
}

// gatherLogInterval is the least time between two summary lines of a
// device while queries run; tests shorten it.
var gatherLogInterval = 10 * time.Second

// gatherLog is one device's summary line as last logged.
type gatherLog struct {
	device int
	r      gatherReporter
	last   string
	at     time.Time
}

// watchGather adds device's executor to the summaries logged, when it
// reports one and its device reads the shared buffers (zero-copy chunks
// can only go there).
func (s *service) watchGather(device int, exec nodekind.Executor, sharedRegistered bool) {
	if r, ok := exec.(gatherReporter); ok && sharedRegistered {
		s.gatherLogs = append(s.gatherLogs, &gatherLog{device: device, r: r})
	}
}

// logGather logs each device's summary line that changed since it was
// last logged: at a status tick at most every gatherLogInterval (the first
// tick logs the threshold in force), and at exit (final) whatever changed.
func (s *service) logGather(now time.Time, final bool) {
	for _, g := range s.gatherLogs {
		line := g.r.GatherSummary()
		if line == g.last || (!final && now.Sub(g.at) < gatherLogInterval) {
			continue
		}
		s.devLog(g.device).Info().Msg(line)
		g.last, g.at = line, now
	}
}
