package control

import (
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// socketpair returns the service's Channel and the supervisor's raw fd.
func socketpair(t *testing.T) (*Channel, int) {
	t.Helper()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatalf("socketpair: %v", err)
	}
	ch, err := Open(fds[0])
	unix.Close(fds[0]) // Open works on a duplicate
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { ch.Close(); unix.Close(fds[1]) })
	return ch, fds[1]
}

func supervisorSend(t *testing.T, fd int, msg []byte) {
	t.Helper()
	if _, err := unix.Write(fd, msg); err != nil {
		t.Fatalf("supervisor write: %v", err)
	}
}

func supervisorRecv(t *testing.T, fd int) any {
	t.Helper()
	buf := make([]byte, MaxMessage)
	n, err := unix.Read(fd, buf)
	if err != nil {
		t.Fatalf("supervisor read: %v", err)
	}
	m, err := DecodeServiceMessage(buf[:n])
	if err != nil {
		t.Fatalf("decode service message: %v", err)
	}
	return m
}

func sampleConfig() Config {
	return Config{
		SegmentSize:        1 << 30,
		MaxRatio:           0.5,
		MinRatio:           0.05,
		ReleaseDelay:       5 * time.Second,
		MaxAsyncTasks:      12,
		CudaStackLimit:     32 << 10,
		Debug:              true,
		PostmasterPID:      4242,
		DataDir:            "/var/lib/postgresql/15/main",
		CudaToolkitBaseDir: "/usr/local/cuda",
		KernelSourceDir:    "/usr/share/postgresql/15/extension/pg_strom/kernels",
		PrebuiltFatbin:     "",
		SharedBase:         0x7f0000000000,
		SharedNBuffers:     2 << 20,
		SharedBlockSize:    8192,
	}
}

func TestReceiveConfigAndStop(t *testing.T) {
	ch, sup := socketpair(t)
	want := sampleConfig()
	supervisorSend(t, sup, EncodeConfig(want))
	supervisorSend(t, sup, EncodeStop())

	m, err := ch.Receive()
	if err != nil {
		t.Fatalf("Receive config: %v", err)
	}
	cm, ok := m.(ConfigMessage)
	if !ok {
		t.Fatalf("got %T, want ConfigMessage", m)
	}
	if !reflect.DeepEqual(cm.Config, want) {
		t.Fatalf("config round trip:\n got %+v\nwant %+v", cm.Config, want)
	}
	m, err = ch.Receive()
	if err != nil {
		t.Fatalf("Receive stop: %v", err)
	}
	if _, ok := m.(StopMessage); !ok {
		t.Fatalf("got %T, want StopMessage", m)
	}
}

func TestReceiveEOFWhenSupervisorCloses(t *testing.T) {
	ch, sup := socketpair(t)
	unix.Close(sup)
	if _, err := ch.Receive(); !errors.Is(err, io.EOF) {
		t.Fatalf("Receive after close = %v, want io.EOF", err)
	}
}

func TestReceiveRejectsMalformed(t *testing.T) {
	good := EncodeConfig(sampleConfig())
	badMagic := append([]byte(nil), good...)
	badMagic[0] ^= 0xff
	badLength := append([]byte(nil), good[:len(good)-1]...) // header still says full length
	unknownTag := EncodeNoGPU("wrong direction")
	stopWithPayload := append(EncodeStop(), 0)

	cases := map[string][]byte{
		"short":        {1, 2, 3},
		"bad magic":    badMagic,
		"bad length":   badLength,
		"unknown tag":  unknownTag,
		"stop payload": stopWithPayload,
	}
	for name, msg := range cases {
		t.Run(name, func(t *testing.T) {
			ch, sup := socketpair(t)
			supervisorSend(t, sup, msg)
			supervisorSend(t, sup, EncodeStop())
			if _, err := ch.Receive(); !errors.Is(err, ErrMalformed) {
				t.Fatalf("Receive = %v, want ErrMalformed", err)
			}
			// The channel stays usable after a bad message.
			m, err := ch.Receive()
			if _, ok := m.(StopMessage); !ok || err != nil {
				t.Fatalf("after malformed: got %T, %v; want StopMessage", m, err)
			}
		})
	}
}

func TestReceiveRejectsOversized(t *testing.T) {
	ch, sup := socketpair(t)
	big := make([]byte, MaxMessage+10)
	copy(big, EncodeStop())
	supervisorSend(t, sup, big)
	if _, err := ch.Receive(); !errors.Is(err, ErrMalformed) {
		t.Fatalf("Receive oversized = %v, want ErrMalformed", err)
	}
}

func TestSendReadyStatusFatal(t *testing.T) {
	ch, sup := socketpair(t)
	devs := []DeviceInfo{
		{Index: 0, CCMajor: 9, CCMinor: 0, Multiprocessors: 132, TotalMemory: 150 << 30,
			Name: "NVIDIA H200", PCIBusID: "0000:3b:00.0", PCIeLink: "PCIe 32.0 GT/s x16",
			SharedRegistered: 16 << 30, SharedRegisterUs: 690000, PageCacheBytes: 62 << 30},
		{Index: 1, CCMajor: 8, CCMinor: 6, Multiprocessors: 84, TotalMemory: 24 << 30,
			Name: "NVIDIA RTX A5000", PCIBusID: "0000:af:00.0", PCIeLink: "unknown",
			SharedReason: "cuMemHostRegister: CUDA_ERROR_NOT_SUPPORTED (801)"},
	}
	if err := ch.SendReady(devs, "/data/.pgstrom_fatbin/x.fatbin"); err != nil {
		t.Fatalf("SendReady: %v", err)
	}
	ready, ok := supervisorRecv(t, sup).(ReadyMessage)
	if !ok {
		t.Fatal("first message is not READY")
	}
	if !reflect.DeepEqual(ready.Devices, devs) || ready.FatbinPath != "/data/.pgstrom_fatbin/x.fatbin" {
		t.Fatalf("READY round trip: got %+v", ready)
	}

	stats := Stats{DroppedLogLines: 7, Devices: []DeviceStats{
		{Index: 0, Workers: 12, Connections: 3, Queued: 1, PoolUsed: 10, PoolTotal: 20, PoolLimit: 30, HostPinned: 40,
			Busy: 4, Suspended: 2, Clients: 2, MaxClient: 3, TopClients: []ClientStats{
				{PID: 4711, Connections: 3, Commands: 2, ReplyBytes: 96 << 20},
				{PID: 4712, Connections: 1, Commands: 0, ReplyBytes: 0},
			}},
	}}
	if err := ch.SendStatus(stats); err != nil {
		t.Fatalf("SendStatus: %v", err)
	}
	st, ok := supervisorRecv(t, sup).(StatusMessage)
	if !ok || !reflect.DeepEqual(st.Stats, stats) {
		t.Fatalf("STATUS round trip: got %+v, want %+v", st, stats)
	}

	long := strings.Repeat("x", 2*maxReasonLen)
	if err := ch.SendFatal(long); err != nil {
		t.Fatalf("SendFatal: %v", err)
	}
	fatal, ok := supervisorRecv(t, sup).(FatalMessage)
	if !ok || fatal.Reason != long[:maxReasonLen-1] {
		t.Fatalf("FATAL: got %T with %d-byte reason, want %d bytes", fatal, len(fatal.Reason), maxReasonLen-1)
	}
}

func TestSendReadyTooManyDevices(t *testing.T) {
	ch, _ := socketpair(t)
	if err := ch.SendReady(make([]DeviceInfo, MaxDevices+1), ""); err == nil {
		t.Fatal("SendReady with too many devices succeeded")
	}
}

func TestOpenRejectsNonSeqpacket(t *testing.T) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fds[0])
	defer unix.Close(fds[1])
	if _, err := Open(fds[0]); err == nil || !strings.Contains(err.Error(), "SOCK_SEQPACKET") {
		t.Fatalf("Open on a stream socket = %v, want an error naming SOCK_SEQPACKET", err)
	}
}

func TestCloseUnblocksReceive(t *testing.T) {
	ch, _ := socketpair(t)
	done := make(chan error, 1)
	go func() { _, err := ch.Receive(); done <- err }()
	time.Sleep(20 * time.Millisecond)
	ch.Close()
	select {
	case err := <-done:
		if !errors.Is(err, io.EOF) {
			t.Fatalf("Receive after Close = %v, want io.EOF", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("Receive still blocked after Close")
	}
}
