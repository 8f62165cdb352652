package service

import (
	"errors"
	"fmt"
	"time"

	"github.com/pgstrom-go/pg_strom/gosvc/control"
	"github.com/pgstrom-go/pg_strom/gosvc/fatbin"
	"github.com/pgstrom-go/pg_strom/gosvc/kinds"
	"github.com/pgstrom-go/pg_strom/gosvc/logpipe"
	"github.com/pgstrom-go/pg_strom/gosvc/mempool"
	"github.com/pgstrom-go/pg_strom/gosvc/server"
	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

// waitFirstConfig waits for the supervisor's first CONFIG.  stop is true
// when the supervisor asked to stop or went away first.
func (s *service) waitFirstConfig() (cfg control.Config, stop bool, err error) {
	timer := time.NewTimer(configTimeout)
	defer timer.Stop()
	for {
		select {
		case r := <-s.msgs:
			msg, gone, err := s.screen(r)
			switch {
			case err != nil:
				return cfg, false, err
			case gone:
				s.log.Info().Msg("the supervisor closed the control channel before sending the configuration")
				return cfg, true, nil
			}
			switch m := msg.(type) {
			case control.ConfigMessage:
				return m.Config, false, nil
			case control.StopMessage:
				s.log.Info().Msg("stop requested before the configuration arrived")
				return cfg, true, nil
			}
		case <-timer.C:
			return cfg, false, fmt.Errorf("no configuration from the supervisor within %v", configTimeout)
		}
	}
}

// validateConfig checks what the service cannot start without; pool ratios
// are checked by mempool.
func validateConfig(cfg control.Config) error {
	switch {
	case cfg.DataDir == "":
		return errors.New("configuration has no data directory")
	case cfg.PostmasterPID <= 0:
		return fmt.Errorf("configuration has postmaster pid %d", cfg.PostmasterPID)
	case cfg.KernelSourceDir == "":
		return errors.New("configuration has no kernel source directory")
	case cfg.MaxAsyncTasks < server.MinWorkers || cfg.MaxAsyncTasks > server.MaxWorkers:
		return fmt.Errorf("max_async_tasks %d is outside [%d, %d]", cfg.MaxAsyncTasks, server.MinWorkers, server.MaxWorkers)
	}
	return nil
}

func poolConfig(cfg control.Config, dev control.DeviceInfo) mempool.Config {
	return mempool.Config{
		SegmentSize:  cfg.SegmentSize,
		MaxRatio:     cfg.MaxRatio,
		MinRatio:     cfg.MinRatio,
		ReleaseDelay: cfg.ReleaseDelay,
		DeviceMemory: dev.TotalMemory,
	}
}

// start brings every device up and reports READY.
func (s *service) start(cfg control.Config) error {
	if err := validateConfig(cfg); err != nil {
		return err
	}
	s.cfg = cfg
	logpipe.SetDebug(cfg.Debug)
	host := hostExecutor(s.backend)
	if host {
		s.log.Warn().Msg(hostExecutorWarning)
	}

	devs, err := s.backend.Devices()
	if err != nil {
		return fmt.Errorf("list GPU devices: %w", err)
	}
	if len(devs) == 0 {
		return errors.New("no GPU devices found")
	}
	if len(devs) > control.MaxDevices {
		s.log.Warn().Msgf("%d GPU devices found; using the first %d", len(devs), control.MaxDevices)
		devs = devs[:control.MaxDevices]
	}
	s.devices = devs
	driver, err := s.backend.DriverVersion()
	if err != nil {
		return fmt.Errorf("CUDA driver version: %w", err)
	}
	if !host {
		s.log.Info().Msgf("CUDA driver %d.%d, %d GPU device(s)", driver/1000, driver%1000/10, len(devs))
	}
	for _, d := range devs {
		s.devLog(d.Index).Info().Msgf("%s: sm_%d%d, %d SMs, %d MB, PCI %s, %s",
			d.Name, d.CCMajor, d.CCMinor, d.Multiprocessors, d.TotalMemory>>20, d.PCIBusID, d.PCIeLink)
		if err := s.backend.OpenDevice(d.Index, cfg.CudaStackLimit); err != nil {
			return fmt.Errorf("open GPU%d: %w", d.Index, err)
		}
		s.opened = append(s.opened, d.Index)
	}

	var fatbinPath string
	if host {
		fatbinPath, err = s.loadHostKernels()
	} else {
		fatbinPath, err = s.loadKernels(driver)
	}
	if err != nil {
		return err
	}
	if err := s.startDevices(); err != nil {
		return err
	}
	if err := s.ch.SendReady(s.devices, fatbinPath); err != nil {
		return err
	}
	s.log.Info().Msgf("GPU service ready on %d device(s)", len(s.devices))
	s.sendStatus()
	return nil
}

// loadKernels finds or builds the fatbin and loads it on every device; if
// some device cannot load it (no code for its architecture), the fatbin is
// rebuilt for the devices' architectures once.
func (s *service) loadKernels(driver int) (string, error) {
	fcfg := fatbin.Config{
		DataDir:            s.cfg.DataDir,
		KernelSourceDir:    s.cfg.KernelSourceDir,
		CudaToolkitBaseDir: s.cfg.CudaToolkitBaseDir,
		PrebuiltFatbin:     s.cfg.PrebuiltFatbin,
		DriverVersion:      driver,
		Run:                buildRunner,
	}
	for _, d := range s.devices {
		fcfg.Archs = append(fcfg.Archs, fatbin.Arch{Major: d.CCMajor, Minor: d.CCMinor})
	}
	res, err := fatbin.Ensure(fcfg)
	if err != nil {
		return "", fmt.Errorf("kernels fatbin: %w", err)
	}
	s.logRejected(res)
	s.log.Info().Msgf("kernels fatbin %s (%s)", res.Path, res.Origin)
	loadErr := s.loadOnAll(res.Path)
	if loadErr == nil {
		return res.Path, nil
	}
	if res.Origin == fatbin.Built {
		return "", loadErr // a fresh build for these devices: rebuilding cannot help
	}
	s.log.Warn().Msgf("%v; rebuilding the fatbin for the devices' architectures", loadErr)
	res, err = fatbin.Rebuild(fcfg)
	if err != nil {
		return "", fmt.Errorf("rebuild kernels fatbin after a load failure (%v): %w", loadErr, err)
	}
	s.logRejected(res)
	s.log.Info().Msgf("kernels fatbin %s (%s)", res.Path, res.Origin)
	if err := s.loadOnAll(res.Path); err != nil {
		return "", err
	}
	return res.Path, nil
}

// logRejected tells the DBA which cached or prebuilt fatbin was not
// trusted (its recorded checksum did not match) and so was not loaded.
func (s *service) logRejected(res fatbin.Result) {
	for _, why := range res.Rejected {
		s.log.Warn().Msg(why)
	}
}

// hostExecutorWarning is logged at start by a service with a HostBackend.
const hostExecutorWarning = "GPU service runs the TEST-ONLY host executor: no GPU is used"

// hostFatbinPath stands for the fatbin in READY when there is none.
const hostFatbinPath = "(none: TEST-ONLY host executor)"

// loadHostKernels "loads" the kernels of a HostBackend, which has them
// compiled in: no fatbin is looked up or built, so no nvcc or CUDA toolkit
// is needed.
func (s *service) loadHostKernels() (string, error) {
	for _, d := range s.devices {
		catalog, err := s.backend.LoadModule(d.Index, nil)
		if err != nil {
			return "", fmt.Errorf("host executor kernels on device %d: %w", d.Index, err)
		}
		s.devLog(d.Index).Info().Msgf("kernels (host code): %s", catalog)
	}
	return hostFatbinPath, nil
}

func (s *service) loadOnAll(path string) error {
	// the bytes loaded are the bytes checked against the recorded checksum
	image, err := fatbin.ReadVerified(path)
	if err != nil {
		return fmt.Errorf("read kernels fatbin: %w", err)
	}
	for _, d := range s.devices {
		catalog, err := s.backend.LoadModule(d.Index, image)
		if err != nil {
			return fmt.Errorf("load %s on GPU%d: %w", path, d.Index, err)
		}
		s.devLog(d.Index).Info().Msgf("kernels loaded: %s", catalog)
	}
	return nil
}

// startDevices creates each device's memory pool, executor and socket
// server.
func (s *service) startDevices() error {
	for i := range s.devices {
		d := &s.devices[i]
		alloc, err := s.backend.Allocator(d.Index)
		if err != nil {
			return fmt.Errorf("GPU%d allocator: %w", d.Index, err)
		}
		pool, err := mempool.New(alloc, poolConfig(s.cfg, *d))
		if err != nil {
			return fmt.Errorf("GPU%d memory pool: %w", d.Index, err)
		}
		s.pools = append(s.pools, pool)
		shared := s.registerShared(d)
		exec, err := s.backend.Executor(d.Index, pool)
		if err != nil {
			return fmt.Errorf("GPU%d executor: %w", d.Index, err)
		}
		devLog := logpipe.WithDevice(s.log, d.Index)
		ps := pool.Stats()
		cacheBytes, how, err := s.pageCacheBytes(d.Index, d.TotalMemory, ps.Limit, ps.Total)
		if err != nil {
			devLog.Warn().Msgf("no device page cache: %v", err)
		}
		cache := openPageCache(exec, cacheBytes, how, devLog)
		if cache != nil {
			d.PageCacheBytes = uint64(cache.Slots()) * uint64(xpu.BlockSize)
		}
		srv, err := server.New(server.Config{
			SocketPath:    server.SocketPath(s.cfg.DataDir, s.cfg.PostmasterPID, d.Index),
			DeviceIndex:   d.Index,
			Workers:       s.cfg.MaxAsyncTasks,
			Pool:          pool,
			Executor:      exec,
			Kinds:         kinds.All(),
			SharedBuffers: shared,
			DataDir:       s.cfg.DataDir,
			PageCache:     cache,
			Logger:        devLog,
			OnDeviceLost:  s.deviceLost,

			MaxConnsPerClient:  s.cfg.MaxConnsPerBackend,
			SessionIdleTimeout: sessionIdleTimeout(s.cfg),
		})
		if err != nil {
			return fmt.Errorf("GPU%d server: %w", d.Index, err)
		}
		s.servers = append(s.servers, srv)
		s.watchGather(d.Index, exec, shared != 0)
		if cache != nil {
			s.gatherLogs = append(s.gatherLogs, &gatherLog{device: d.Index, r: pageCacheSummary{cache}})
			s.pageCaches = append(s.pageCaches, devicePageCache{index: d.Index, cache: cache})
		}
		devLog.Info().Msgf("listening on %s with %d workers", srv.SocketPath(), s.cfg.MaxAsyncTasks)
	}
	return nil
}

// sessionIdleTimeout is the server's SessionIdleTimeout for the
// configuration: pg_strom.gpu_session_idle_timeout 0 means never.
func sessionIdleTimeout(cfg control.Config) time.Duration {
	if cfg.SessionIdleTimeout <= 0 {
		return -1
	}
	return cfg.SessionIdleTimeout
}
