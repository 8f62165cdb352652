package service

import (
	"fmt"
	"runtime/debug"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/pgstrom-go/pg_strom/gosvc/control"
	"github.com/pgstrom-go/pg_strom/gosvc/fatbin"
	"github.com/pgstrom-go/pg_strom/gosvc/logpipe"
	"github.com/pgstrom-go/pg_strom/gosvc/mempool"
	"github.com/pgstrom-go/pg_strom/gosvc/server"
)

// Timings; tests shorten them.
var (
	configTimeout  = 10 * time.Second // first CONFIG must arrive within this
	statusInterval = time.Second      // STATUS and idle pool release
)

// buildRunner runs nvcc when the fatbin must be built; nil means the real
// command, tests put a fake here.
var buildRunner fatbin.Runner

// Run is the whole life of the service: it returns a PGSTROM_EXIT_* code
// (control.ExitStopped after STOP or when the supervisor goes away,
// control.ExitFailed after a fatal error, which it reports with FATAL and a
// WARNING log line).
func Run(ctlFd, logFd int, backend Backend) int {
	return run(ctlFd, logFd, backend, nil)
}

// RunWithEnviron is Run for a service forked without exec: it first applies
// env with ApplyEnviron and logs, at WARNING, what it could not apply.
func RunWithEnviron(ctlFd, logFd int, env []string, backend Backend) int {
	return run(ctlFd, logFd, backend, ApplyEnviron(env))
}

func run(ctlFd, logFd int, backend Backend, envProblems []string) int {
	w, err := logpipe.NewWriter(logFd)
	if err != nil {
		// Nowhere to log; FATAL is the only way to say why.
		if ch, cerr := control.Open(ctlFd); cerr == nil {
			ch.SendFatal(fmt.Sprintf("GPU service cannot use log fd %d: %v", logFd, err))
			ch.Close()
		}
		return control.ExitFailed
	}
	log := logpipe.NewLogger(w)
	for _, p := range envProblems {
		log.Warn().Msg("GPU service environment: " + p)
	}
	ch, err := control.Open(ctlFd)
	if err != nil {
		log.Warn().Err(err).Msg("GPU service cannot use its control channel")
		return control.ExitFailed
	}
	s := &service{log: log, logw: w, ch: ch, backend: backend, quit: make(chan struct{}), lost: make(chan error, 1)}
	return s.run()
}

// service holds what one Run has set up, so shutdown can undo exactly that.
type service struct {
	log     zerolog.Logger
	logw    *logpipe.Writer
	ch      *control.Channel
	backend Backend

	cfg     control.Config
	devices []control.DeviceInfo
	opened  []int // device indexes opened in the backend
	pools   []*mempool.Pool
	servers []*server.Server
	// gatherLogs are the devices whose zero-copy gather figures are
	// logged (logGather)
	gatherLogs []*gatherLog
	// pageCaches are the devices whose page cache is reported per
	// relation (sendPageCaches)
	pageCaches []devicePageCache

	msgs chan received
	lost chan error // a device's context is unusable: exit (deviceLost)
	// exitTimer ends the process if shutdown after a lost device hangs
	exitTimer *time.Timer
	quit      chan struct{}
	readerWG  sync.WaitGroup
}

func (s *service) run() (code int) {
	defer func() {
		if r := recover(); r != nil {
			code = s.fatal(fmt.Errorf("panic: %v\n%s", r, debug.Stack()))
		}
		s.shutdown()
		if s.exitTimer != nil {
			s.exitTimer.Stop()
		}
	}()
	s.startReader()

	cfg, stop, err := s.waitFirstConfig()
	if err != nil {
		return s.fatal(err)
	}
	if stop {
		return control.ExitStopped
	}
	if err := s.start(cfg); err != nil {
		return s.fatal(err)
	}
	return s.loop()
}

// fatal reports err as FATAL and at WARNING; the exit code makes the
// supervisor restart the service with back-off.
func (s *service) fatal(err error) int {
	s.log.Warn().Msgf("GPU service failed: %v", err)
	if serr := s.ch.SendFatal(err.Error()); serr != nil {
		s.log.Warn().Err(serr).Msg("cannot report the failure to the supervisor")
	}
	return control.ExitFailed
}

// shutdown closes the servers (removing their socket files), then the pools
// (freeing device memory), then the backend, then the control channel.
func (s *service) shutdown() {
	for _, srv := range s.servers {
		if err := srv.Close(); err != nil {
			s.log.Warn().Err(err).Msg("closing a device server")
		}
	}
	s.servers = nil
	s.logGather(time.Now(), true) // every task has ended
	for _, p := range s.pools {
		if err := p.Close(); err != nil {
			s.log.Warn().Err(err).Msg("closing a device memory pool")
		}
	}
	s.pools = nil
	if len(s.opened) > 0 {
		if err := s.backend.Close(); err != nil {
			s.log.Warn().Err(err).Msg("releasing the GPU devices")
		}
		s.opened = nil
	}
	close(s.quit)
	s.ch.Close() // unblocks the reader
	s.readerWG.Wait()
	if n := s.logw.Dropped(); n > 0 {
		s.log.Warn().Msgf("GPU service dropped %d log lines because the log pipe was full", n)
	}
}

// devLog is the logger whose lines carry the source GPU<index>.
func (s *service) devLog(index int) *zerolog.Logger {
	l := logpipe.WithDevice(s.log, index)
	return &l
}
