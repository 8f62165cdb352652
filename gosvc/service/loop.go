package service

import (
	"fmt"
	"os"
	"time"

	"github.com/pgstrom-go/pg_strom/gosvc/control"
	"github.com/pgstrom-go/pg_strom/gosvc/logpipe"
	"github.com/pgstrom-go/pg_strom/gosvc/server"
)

// loop serves until STOP or until the supervisor goes away.
func (s *service) loop() int {
	ticker := time.NewTicker(statusInterval)
	defer ticker.Stop()
	for {
		select {
		case r := <-s.msgs:
			msg, gone, err := s.screen(r)
			switch {
			case err != nil:
				return s.fatal(fmt.Errorf("control channel: %w", err))
			case gone:
				s.log.Info().Msg("the supervisor closed the control channel; stopping")
				return control.ExitStopped
			}
			switch m := msg.(type) {
			case control.ConfigMessage:
				s.reconfigure(m.Config)
			case control.StopMessage:
				s.log.Info().Msg("stop requested; shutting down")
				return control.ExitStopped
			}
		case err := <-s.lost:
			return s.exitForLostDevice(err)
		case now := <-ticker.C:
			for _, p := range s.pools {
				p.ReleaseIdle(now)
			}
			for _, srv := range s.servers {
				srv.ReleaseIdle(now, s.cfg.ReleaseDelay)
			}
			s.sendStatus()
			s.sendPageCaches()
			s.logGather(now, false)
		}
	}
}

// Timings of the exit after a lost device; tests shorten them.
var (
	// lostFlush is how long the Error replies of requests that met the
	// lost device may take to reach their clients before the servers
	// close.
	lostFlush = time.Second
	// lostExitGrace bounds the whole shutdown after a lost device: a
	// kernel that never returns must not keep the service (and its
	// unusable device) alive, so past it the process exits at once.
	lostExitGrace = 15 * time.Second
)

// deviceLost is the servers' OnDeviceLost: the loop exits.
func (s *service) deviceLost(err error) {
	select {
	case s.lost <- err:
	default: // one is enough
	}
}

// exitForLostDevice ends the service after a sticky device error: a CUDA
// context that met one fails every later call, and only a new process
// gets a new context.  The clients' Error replies go out first (their
// backends continue on the CPU), then the service reports FATAL and exits
// with PGSTROM_EXIT_FAILED, and the supervisor starts a fresh service.
func (s *service) exitForLostDevice(err error) int {
	s.log.Warn().Msgf("GPU service exits to get a usable device context: %v", err)
	for _, srv := range s.servers {
		srv.FlushReplies(lostFlush)
	}
	// stopped by run once shutdown has finished
	s.exitTimer = time.AfterFunc(lostExitGrace, func() {
		s.log.Warn().Msgf("GPU service did not shut down within %v after losing its device; exiting now", lostExitGrace)
		os.Exit(control.ExitFailed)
	})
	return s.fatal(fmt.Errorf("device lost: %w", err))
}

func (s *service) sendStatus() {
	st := control.Stats{DroppedLogLines: s.logw.Dropped()}
	for i, d := range s.devices {
		if i >= len(s.servers) {
			break
		}
		srv, pool := s.servers[i].Stats(), s.pools[i].Stats()
		st.Devices = append(st.Devices, control.DeviceStats{
			Index:       d.Index,
			Workers:     srv.Workers,
			Connections: srv.Connections,
			Queued:      srv.Queued,
			PoolUsed:    pool.Used,
			PoolTotal:   pool.Total,
			PoolLimit:   pool.Limit,
			HostPinned:  s.servers[i].HostBytes(),
			Busy:        srv.Busy,
			Suspended:   srv.Suspended,
			Clients:     srv.Clients,
			MaxClient:   srv.MaxClientConns,
			TopClients:  topClients(s.servers[i].ClientUsage()),
		})
	}
	if err := s.ch.SendStatus(st); err != nil {
		s.log.Debug().Err(err).Msg("sending STATUS")
	}
}

// reconfigure applies a reload without restarting: debug output, pool
// settings and the worker count change live; settings that need a restart
// (postmaster context) are reported and kept as they were.
func (s *service) reconfigure(nc control.Config) {
	old := s.cfg
	if nc.Debug != old.Debug {
		logpipe.SetDebug(nc.Debug)
		s.log.Info().Msgf("gpuserv_debug_output changed: %v -> %v", old.Debug, nc.Debug)
		s.cfg.Debug = nc.Debug
	}

	if nc.SegmentSize != old.SegmentSize || nc.MaxRatio != old.MaxRatio ||
		nc.MinRatio != old.MinRatio || nc.ReleaseDelay != old.ReleaseDelay {
		applied := true
		for i, p := range s.pools {
			if err := p.Reconfigure(poolConfig(nc, s.devices[i])); err != nil {
				applied = false
				s.devLog(s.devices[i].Index).Warn().Err(err).Msg("new memory pool settings rejected; keeping the old ones")
			}
		}
		if applied {
			s.log.Info().Msgf("memory pool settings changed: segment %d -> %d bytes, max_ratio %g -> %g, min_ratio %g -> %g, release_delay %v -> %v",
				old.SegmentSize, nc.SegmentSize, old.MaxRatio, nc.MaxRatio, old.MinRatio, nc.MinRatio, old.ReleaseDelay, nc.ReleaseDelay)
			s.cfg.SegmentSize, s.cfg.MaxRatio, s.cfg.MinRatio, s.cfg.ReleaseDelay =
				nc.SegmentSize, nc.MaxRatio, nc.MinRatio, nc.ReleaseDelay
		}
	}

	if nc.MaxAsyncTasks != old.MaxAsyncTasks {
		for _, srv := range s.servers {
			srv.SetWorkers(nc.MaxAsyncTasks)
		}
		s.log.Info().Msgf("max_async_tasks changed: %d -> %d workers per device", old.MaxAsyncTasks, nc.MaxAsyncTasks)
		s.cfg.MaxAsyncTasks = nc.MaxAsyncTasks
	}

	if nc.MaxConnsPerBackend != old.MaxConnsPerBackend || nc.SessionIdleTimeout != old.SessionIdleTimeout {
		for _, srv := range s.servers {
			srv.SetClientLimits(nc.MaxConnsPerBackend, sessionIdleTimeout(nc))
		}
		s.log.Info().Msgf("client bounds changed: max_connections_per_backend %d -> %d, gpu_session_idle_timeout %v -> %v",
			old.MaxConnsPerBackend, nc.MaxConnsPerBackend, old.SessionIdleTimeout, nc.SessionIdleTimeout)
		s.cfg.MaxConnsPerBackend, s.cfg.SessionIdleTimeout = nc.MaxConnsPerBackend, nc.SessionIdleTimeout
	}

	restartOnly := []struct {
		name     string
		old, new any
	}{
		{"data_directory", old.DataDir, nc.DataDir},
		{"postmaster pid", old.PostmasterPID, nc.PostmasterPID},
		{"cuda_stack_limit", old.CudaStackLimit, nc.CudaStackLimit},
		{"cuda_toolkit_basedir", old.CudaToolkitBaseDir, nc.CudaToolkitBaseDir},
		{"kernel source directory", old.KernelSourceDir, nc.KernelSourceDir},
		{"prebuilt fatbin", old.PrebuiltFatbin, nc.PrebuiltFatbin},
	}
	for _, r := range restartOnly {
		if r.old != r.new {
			s.log.Warn().Msgf("%s changed (%v -> %v); it takes effect when the GPU service restarts", r.name, r.old, r.new)
		}
	}
}

// topClients is the STATUS line's clients: those using the service most,
// as many as the message carries.
func topClients(usage []server.ClientUsage) []control.ClientStats {
	usage = usage[:min(len(usage), control.MaxStatusClients)]
	out := make([]control.ClientStats, len(usage))
	for i, u := range usage {
		out[i] = control.ClientStats{PID: u.PID, Connections: uint32(u.Connections),
			Commands: uint32(u.Commands), ReplyBytes: uint64(max(u.ReplyBytes, 0))}
	}
	return out
}
