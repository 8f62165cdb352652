package protocol

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

func TestReadMessageSequence(t *testing.T) {
	a := EncodeRequest(TagStatus, 1, nil)
	b := EncodeRequest(TagTaskExec, 2, []byte("abc"))
	r := bytes.NewReader(append(append([]byte(nil), a...), b...))

	msg, h, err := ReadMessage(r, 0)
	if err != nil || !bytes.Equal(msg, a) || h.RequestID != 1 {
		t.Fatalf("first: %x %+v %v", msg, h, err)
	}
	msg, h, err = ReadMessage(r, 0)
	if err != nil || !bytes.Equal(msg, b) || h.Tag != TagTaskExec {
		t.Fatalf("second: %x %+v %v", msg, h, err)
	}
	if _, _, err = ReadMessage(r, 0); err != io.EOF {
		t.Fatalf("at end: err = %v, want io.EOF", err)
	}
}

func TestReadMessageTruncated(t *testing.T) {
	full := EncodeRequest(TagTaskExec, 9, []byte("0123456789"))
	for _, n := range []int{1, HeaderSize - 1, HeaderSize, len(full) - 1} {
		_, _, err := ReadMessage(bytes.NewReader(full[:n]), 0)
		if !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("cut at %d: err = %v, want io.ErrUnexpectedEOF", n, err)
		}
	}
}

func TestReadMessageRejectsBeforeAllocating(t *testing.T) {
	// A header claiming 1 GB followed by nothing must fail on the limit, not
	// wait for or allocate the body.
	huge := withU32(EncodeRequest(TagTaskExec, 1, nil), offHdrLength, MaxLength)
	_, _, err := ReadMessage(bytes.NewReader(huge), 1<<20)
	if !errors.Is(err, ErrProtocol) {
		t.Fatalf("err = %v, want ErrProtocol", err)
	}
	bad := withU32(EncodeRequest(TagStatus, 1, nil), offHdrMagic, 0)
	if _, _, err := ReadMessage(bytes.NewReader(bad), 0); !errors.Is(err, ErrProtocol) {
		t.Fatalf("bad magic: err = %v, want ErrProtocol", err)
	}
}

type failingReader struct{ err error }

func (f failingReader) Read([]byte) (int, error) { return 0, f.err }

func TestReadMessagePassesReaderErrors(t *testing.T) {
	boom := errors.New("boom")
	_, _, err := ReadMessage(failingReader{boom}, 0)
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want wrapping boom", err)
	}
}
