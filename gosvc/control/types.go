package control

import (
	"math"
	"time"
)

// Config is the supervisor's configuration (PgStromCtlConfig) in Go units.
type Config struct {
	SegmentSize        uint64        // pg_strom.gpu_mempool_segment_sz, bytes
	MaxRatio           float64       // pg_strom.gpu_mempool_max_ratio
	MinRatio           float64       // pg_strom.gpu_mempool_min_ratio
	ReleaseDelay       time.Duration // pg_strom.gpu_mempool_release_delay
	MaxAsyncTasks      int           // pg_strom.max_async_tasks: workers per device
	CudaStackLimit     int           // pg_strom.cuda_stack_limit, bytes
	Debug              bool          // pg_strom.gpuserv_debug_output
	PostmasterPID      int
	DataDir            string
	CudaToolkitBaseDir string
	KernelSourceDir    string
	PrebuiltFatbin     string // "" when make had no nvcc
	// PostgreSQL's shared buffers in the service's address space (mapped
	// read-only): buffer i is at SharedBase + i*SharedBlockSize.
	// SharedNBuffers 0: not available, chunks carry their pages.
	SharedBase      uint64
	SharedNBuffers  uint32
	SharedBlockSize uint32
	// PageCacheSize is pg_strom.gpu_page_cache_size, bytes: each device's
	// cache of all-visible heap pages read directly; 0, none;
	// PageCacheAuto, sized by the service from the device's memory.
	PageCacheSize uint64
	// MaxConnsPerBackend is pg_strom.max_connections_per_backend: open
	// connections of one client process per device.
	MaxConnsPerBackend int
	// SessionIdleTimeout is pg_strom.gpu_session_idle_timeout; 0, never.
	SessionIdleTimeout time.Duration
}

// PageCacheAuto is PageCacheSize when pg_strom.gpu_page_cache_size is -1:
// each device's cache takes what the memory pool leaves of its memory.
const PageCacheAuto = math.MaxUint64

// Message is what Receive returns: ConfigMessage or StopMessage.
type Message interface{ isMessage() }

// ConfigMessage carries the configuration sent at start and after each reload.
type ConfigMessage struct{ Config Config }

// StopMessage asks the service to shut down cleanly.
type StopMessage struct{}

func (ConfigMessage) isMessage() {}
func (StopMessage) isMessage()   {}

// DeviceInfo describes one GPU in the READY message (PgStromDeviceInfo).
type DeviceInfo struct {
	Index           int // CUDA ordinal; the N of gpu<N>.sock
	CCMajor         int
	CCMinor         int
	Multiprocessors int
	TotalMemory     uint64 // bytes
	Name            string
	PCIBusID        string // e.g. "0000:3b:00.0"
	PCIeLink        string // e.g. "PCIe 32.0 GT/s x16", or "unknown"
	// Zero-copy: bytes of shared buffers registered with the device (0:
	// none, SharedReason says why), and how long registering took.
	SharedRegistered uint64
	SharedRegisterUs uint64
	SharedReason     string // "" when registered
	// PageCacheBytes is the device page cache's size, 0 when there is none.
	PageCacheBytes uint64
}

// DeviceStats is one device's line of the STATUS message (PgStromDeviceStats).
type DeviceStats struct {
	Index       int
	Workers     uint32 // running worker goroutines
	Connections uint32 // open client sockets
	Queued      uint32 // commands waiting for a worker
	PoolUsed    uint64 // bytes handed out as chunks
	PoolTotal   uint64 // bytes held in segments
	PoolLimit   uint64 // max_ratio x device memory
	HostPinned  uint64 // pinned host bytes the executor keeps for chunks
	Busy        uint32 // worker slots running a command
	Suspended   uint32 // commands waiting for their client, without a worker
	Clients     uint32 // client processes with a connection open
	MaxClient   uint32 // most connections one client process holds
	// TopClients are the client processes holding the most reply bytes
	// (then commands, then connections); the message carries at most
	// MaxStatusClients of them.
	TopClients []ClientStats
}

// ClientStats is one client process's use of a device's service
// (PgStromClientStats).
type ClientStats struct {
	PID         int32
	Connections uint32
	Commands    uint32
	ReplyBytes  uint64
}

// Stats is the periodic STATUS message (PgStromCtlStats).
type Stats struct {
	DroppedLogLines uint64
	Devices         []DeviceStats
}

// The messages the service sends, as the supervisor (or a test) decodes them.
type (
	// ReadyMessage is PGSTROM_CTL_READY.
	ReadyMessage struct {
		FatbinPath string
		Devices    []DeviceInfo
	}
	// StatusMessage is PGSTROM_CTL_STATUS.
	StatusMessage struct{ Stats Stats }
	// FatalMessage is PGSTROM_CTL_FATAL.
	FatalMessage struct{ Reason string }
	// NoGPUMessage is PGSTROM_CTL_NO_GPU (sent by the launcher).
	NoGPUMessage struct{ Reason string }
)
