//go:build gpu

package gpu

import (
	"bytes"
	"testing"
	"unsafe"

	"gorgonia.org/cu"

	"github.com/pgstrom-go/pg_strom/gosvc/xpu"
)

// A kernel on a lane may run the moment upload returns: the program must
// be in device memory by then, not only staged for the legacy stream's
// DMA.  Each round reuses the pool chunk the last one freed, so a copy
// that had not landed shows the last round's bytes.
func TestUploadLandsBeforeReturn(t *testing.T) {
	nex, _ := executorOnDevice0(t)
	ex := nex.(*Executor)
	var stream cu.Stream
	if err := ex.dev.Do(func() (err error) { stream, err = cu.MakeStream(cu.NonBlocking); return }); err != nil {
		t.Fatal(err)
	}
	defer ex.dev.Do(func() error { return stream.Destroy() })
	const size = 8 << 20
	msg := make([]byte, size)
	got := make([]byte, size)
	for round := 0; round < 32; round++ {
		for i := range msg {
			msg[i] = byte(round*31 + i%251)
		}
		s, err := ex.upload(msg, &xpu.Program{PlanID: uint64(round + 1)})
		if err != nil {
			t.Fatal(err)
		}
		err = ex.dev.Do(func() error {
			if err := cu.MemcpyDtoHAsync(unsafe.Pointer(&got[0]), cu.DevicePtr(s.mem.Ptr), size, stream); err != nil {
				return err
			}
			return stream.Synchronize()
		})
		if cerr := s.Close(); cerr != nil {
			t.Fatal(cerr)
		}
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, msg) {
			i := 0
			for got[i] == msg[i] {
				i++
			}
			t.Fatalf("round %d: a read on a non-blocking stream right after upload differs from byte %d of %d", round, i, size)
		}
	}
}
