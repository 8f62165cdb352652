package control

// #cgo CFLAGS: -I${SRCDIR}/../../include
// #include "pg_strom_control.h"
import "C"

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// ErrMalformed is wrapped by every decoding error: bad magic, length or tag.
var ErrMalformed = errors.New("malformed control message")

// splitMessage validates the header of one received message and returns its
// tag and payload.
func splitMessage(msg []byte) (uint32, []byte, error) {
	if len(msg) < headerSize {
		return 0, nil, fmt.Errorf("%w: %d bytes, shorter than the %d-byte header", ErrMalformed, len(msg), headerSize)
	}
	var h C.PgStromCtlHeader
	copy(structBytes(&h), msg)
	if uint32(h.magic) != Magic {
		return 0, nil, fmt.Errorf("%w: magic %#x, want %#x", ErrMalformed, uint32(h.magic), Magic)
	}
	if int(h.length) != len(msg) {
		return 0, nil, fmt.Errorf("%w: header says %d bytes, received %d", ErrMalformed, uint32(h.length), len(msg))
	}
	return uint32(h.tag), msg[headerSize:], nil
}

func wantPayload(tag uint32, payload []byte, size int) error {
	if len(payload) != size {
		return fmt.Errorf("%w: tag %d carries %d payload bytes, want %d", ErrMalformed, tag, len(payload), size)
	}
	return nil
}

// DecodeSupervisorMessage decodes a message sent by the supervisor.
func DecodeSupervisorMessage(msg []byte) (Message, error) {
	tag, payload, err := splitMessage(msg)
	if err != nil {
		return nil, err
	}
	switch tag {
	case tagConfig:
		if err := wantPayload(tag, payload, configSize); err != nil {
			return nil, err
		}
		var c C.PgStromCtlConfig
		copy(structBytes(&c), payload)
		return ConfigMessage{Config: configFromC(&c)}, nil
	case tagStop:
		if err := wantPayload(tag, payload, 0); err != nil {
			return nil, err
		}
		return StopMessage{}, nil
	default:
		return nil, fmt.Errorf("%w: unexpected tag %d from the supervisor", ErrMalformed, tag)
	}
}

func configFromC(c *C.PgStromCtlConfig) Config {
	return Config{
		SegmentSize:        uint64(max(int64(c.mempool_segment_sz), 0)),
		MaxRatio:           float64(c.mempool_max_ratio),
		MinRatio:           float64(c.mempool_min_ratio),
		ReleaseDelay:       time.Duration(c.mempool_release_delay_ms) * time.Millisecond,
		MaxAsyncTasks:      int(c.max_async_tasks),
		CudaStackLimit:     int(c.cuda_stack_limit),
		Debug:              c.debug_output != 0,
		PostmasterPID:      int(c.postmaster_pid),
		DataDir:            cString(charArray(&c.data_directory)),
		CudaToolkitBaseDir: cString(charArray(&c.cuda_toolkit_basedir)),
		KernelSourceDir:    cString(charArray(&c.kernel_source_dir)),
		PrebuiltFatbin:     cString(charArray(&c.prebuilt_fatbin)),
		SharedBase:         uint64(c.shared_base),
		SharedNBuffers:     uint32(c.shared_nbuffers),
		SharedBlockSize:    uint32(c.shared_block_size),
		PageCacheSize:      pageCacheSize(int64(c.page_cache_size)),
		MaxConnsPerBackend: int(c.max_conns_per_backend),
		SessionIdleTimeout: time.Duration(max(int64(c.session_idle_timeout_ms), 0)) * time.Millisecond,
	}
}

// EncodeConfig builds a PGSTROM_CTL_CONFIG message, as the supervisor sends it.
func EncodeConfig(cfg Config) []byte {
	var c C.PgStromCtlConfig
	c.mempool_segment_sz = C.int64_t(min(cfg.SegmentSize, math.MaxInt64))
	c.mempool_max_ratio = C.double(cfg.MaxRatio)
	c.mempool_min_ratio = C.double(cfg.MinRatio)
	c.mempool_release_delay_ms = C.int32_t(cfg.ReleaseDelay / time.Millisecond)
	c.max_async_tasks = C.int32_t(cfg.MaxAsyncTasks)
	c.cuda_stack_limit = C.int32_t(cfg.CudaStackLimit)
	if cfg.Debug {
		c.debug_output = 1
	}
	c.postmaster_pid = C.int32_t(cfg.PostmasterPID)
	putCString(charArray(&c.data_directory), cfg.DataDir)
	putCString(charArray(&c.cuda_toolkit_basedir), cfg.CudaToolkitBaseDir)
	putCString(charArray(&c.kernel_source_dir), cfg.KernelSourceDir)
	putCString(charArray(&c.prebuilt_fatbin), cfg.PrebuiltFatbin)
	c.shared_base = C.uint64_t(cfg.SharedBase)
	c.shared_nbuffers = C.uint32_t(cfg.SharedNBuffers)
	c.shared_block_size = C.uint32_t(cfg.SharedBlockSize)
	c.page_cache_size = C.int64_t(min(cfg.PageCacheSize, math.MaxInt64))
	if cfg.PageCacheSize == PageCacheAuto {
		c.page_cache_size = -1
	}
	c.max_conns_per_backend = C.int32_t(cfg.MaxConnsPerBackend)
	c.session_idle_timeout_ms = C.int32_t(min(cfg.SessionIdleTimeout/time.Millisecond, math.MaxInt32))
	return message(tagConfig, structBytes(&c))
}

// EncodeStop builds a PGSTROM_CTL_STOP message.
func EncodeStop() []byte { return message(tagStop, nil) }

// encodeReady builds PGSTROM_CTL_READY; more than MaxDevices is an error
// because the C struct has no room for them.
func encodeReady(devs []DeviceInfo, fatbinPath string) ([]byte, error) {
	if len(devs) > MaxDevices {
		return nil, fmt.Errorf("%d devices, the control channel carries at most %d", len(devs), MaxDevices)
	}
	if len(fatbinPath) >= maxPathLen {
		return nil, fmt.Errorf("fatbin path is %d bytes, the control channel carries at most %d", len(fatbinPath), maxPathLen-1)
	}
	var c C.PgStromCtlDevices
	c.ndevices = C.uint32_t(len(devs))
	putCString(charArray(&c.fatbin_path), fatbinPath)
	for i, d := range devs {
		cd := &c.devices[i]
		cd.index = C.int32_t(d.Index)
		cd.cc_major = C.int32_t(d.CCMajor)
		cd.cc_minor = C.int32_t(d.CCMinor)
		cd.multiprocessors = C.int32_t(d.Multiprocessors)
		cd.total_memory = C.uint64_t(d.TotalMemory)
		putCString(charArray(&cd.name), d.Name)
		putCString(charArray(&cd.pci_bus_id), d.PCIBusID)
		putCString(charArray(&cd.pcie_link), d.PCIeLink)
		cd.shared_registered = C.uint64_t(d.SharedRegistered)
		cd.shared_register_us = C.uint64_t(d.SharedRegisterUs)
		putCString(charArray(&cd.shared_reason), d.SharedReason)
		cd.page_cache_bytes = C.uint64_t(d.PageCacheBytes)
	}
	return message(tagReady, structBytes(&c)), nil
}

func encodeStatus(s Stats) []byte {
	var c C.PgStromCtlStats
	c.dropped_log_lines = C.uint64_t(s.DroppedLogLines)
	n := min(len(s.Devices), MaxDevices)
	c.ndevices = C.uint32_t(n)
	for i, d := range s.Devices[:n] {
		cd := &c.devices[i]
		cd.index = C.int32_t(d.Index)
		cd.workers = C.uint32_t(d.Workers)
		cd.connections = C.uint32_t(d.Connections)
		cd.queued = C.uint32_t(d.Queued)
		cd.pool_used = C.uint64_t(d.PoolUsed)
		cd.pool_total = C.uint64_t(d.PoolTotal)
		cd.pool_limit = C.uint64_t(d.PoolLimit)
		cd.host_pinned = C.uint64_t(d.HostPinned)
		cd.busy = C.uint32_t(d.Busy)
		cd.suspended = C.uint32_t(d.Suspended)
		cd.clients = C.uint32_t(d.Clients)
		cd.max_client_conns = C.uint32_t(d.MaxClient)
		k := min(len(d.TopClients), MaxStatusClients)
		cd.nclient_stats = C.uint32_t(k)
		for j, cl := range d.TopClients[:k] {
			cc := &cd.client_stats[j]
			cc.pid = C.int32_t(cl.PID)
			cc.connections = C.uint32_t(cl.Connections)
			cc.commands = C.uint32_t(cl.Commands)
			cc.reply_bytes = C.uint64_t(cl.ReplyBytes)
		}
	}
	return message(tagStatus, structBytes(&c))
}

func encodeReason(tag uint32, reason string) []byte {
	var c C.PgStromCtlReason
	putCString(charArray(&c.reason), reason)
	return message(tag, structBytes(&c))
}

// EncodeNoGPU builds PGSTROM_CTL_NO_GPU, as the launcher sends it.
func EncodeNoGPU(reason string) []byte { return encodeReason(tagNoGPU, reason) }

// DecodeServiceMessage decodes a message sent by the service or the launcher,
// as the supervisor would: ReadyMessage, StatusMessage, PageCacheMessage,
// FatalMessage or NoGPUMessage.
func DecodeServiceMessage(msg []byte) (any, error) {
	tag, payload, err := splitMessage(msg)
	if err != nil {
		return nil, err
	}
	switch tag {
	case tagReady:
		if err := wantPayload(tag, payload, devicesSize); err != nil {
			return nil, err
		}
		return decodeReady(payload)
	case tagStatus:
		if err := wantPayload(tag, payload, statsSize); err != nil {
			return nil, err
		}
		return decodeStatus(payload)
	case tagPageCache:
		return decodePageCache(payload)
	case tagFatal, tagNoGPU:
		if err := wantPayload(tag, payload, reasonSize); err != nil {
			return nil, err
		}
		var c C.PgStromCtlReason
		copy(structBytes(&c), payload)
		reason := cString(charArray(&c.reason))
		if tag == tagFatal {
			return FatalMessage{Reason: reason}, nil
		}
		return NoGPUMessage{Reason: reason}, nil
	default:
		return nil, fmt.Errorf("%w: unexpected tag %d from the service", ErrMalformed, tag)
	}
}

func decodeReady(payload []byte) (ReadyMessage, error) {
	var c C.PgStromCtlDevices
	copy(structBytes(&c), payload)
	n := int(c.ndevices)
	if n > MaxDevices {
		return ReadyMessage{}, fmt.Errorf("%w: %d devices, at most %d", ErrMalformed, n, MaxDevices)
	}
	r := ReadyMessage{FatbinPath: cString(charArray(&c.fatbin_path))}
	for i := 0; i < n; i++ {
		cd := &c.devices[i]
		r.Devices = append(r.Devices, DeviceInfo{
			Index:            int(cd.index),
			CCMajor:          int(cd.cc_major),
			CCMinor:          int(cd.cc_minor),
			Multiprocessors:  int(cd.multiprocessors),
			TotalMemory:      uint64(cd.total_memory),
			Name:             cString(charArray(&cd.name)),
			PCIBusID:         cString(charArray(&cd.pci_bus_id)),
			PCIeLink:         cString(charArray(&cd.pcie_link)),
			SharedRegistered: uint64(cd.shared_registered),
			SharedRegisterUs: uint64(cd.shared_register_us),
			SharedReason:     cString(charArray(&cd.shared_reason)),
			PageCacheBytes:   uint64(cd.page_cache_bytes),
		})
	}
	return r, nil
}

func decodeStatus(payload []byte) (StatusMessage, error) {
	var c C.PgStromCtlStats
	copy(structBytes(&c), payload)
	n := int(c.ndevices)
	if n > MaxDevices {
		return StatusMessage{}, fmt.Errorf("%w: %d devices, at most %d", ErrMalformed, n, MaxDevices)
	}
	s := Stats{DroppedLogLines: uint64(c.dropped_log_lines)}
	for i := 0; i < n; i++ {
		cd := &c.devices[i]
		k := int(cd.nclient_stats)
		if k > MaxStatusClients {
			return StatusMessage{}, fmt.Errorf("%w: device %d names %d clients, at most %d", ErrMalformed, int(cd.index), k, MaxStatusClients)
		}
		var top []ClientStats
		for j := 0; j < k; j++ {
			cc := &cd.client_stats[j]
			top = append(top, ClientStats{PID: int32(cc.pid), Connections: uint32(cc.connections),
				Commands: uint32(cc.commands), ReplyBytes: uint64(cc.reply_bytes)})
		}
		s.Devices = append(s.Devices, DeviceStats{
			TopClients:  top,
			Index:       int(cd.index),
			Workers:     uint32(cd.workers),
			Connections: uint32(cd.connections),
			Queued:      uint32(cd.queued),
			PoolUsed:    uint64(cd.pool_used),
			PoolTotal:   uint64(cd.pool_total),
			PoolLimit:   uint64(cd.pool_limit),
			HostPinned:  uint64(cd.host_pinned),
			Busy:        uint32(cd.busy),
			Suspended:   uint32(cd.suspended),
			Clients:     uint32(cd.clients),
			MaxClient:   uint32(cd.max_client_conns),
		})
	}
	return StatusMessage{Stats: s}, nil
}

// pageCacheSize is the configuration's PageCacheSize for
// pg_strom.gpu_page_cache_size in bytes: -1 (any negative) is automatic.
func pageCacheSize(bytes int64) uint64 {
	if bytes < 0 {
		return PageCacheAuto
	}
	return uint64(bytes)
}
