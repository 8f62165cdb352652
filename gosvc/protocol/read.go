package protocol

import (
	"errors"
	"fmt"
	"io"
)

// ReadMessage reads one whole message, header included. The header is
// validated before the body is allocated, and maxLen (if non-zero, else
// MaxLength) bounds what a peer can make the service allocate.
//
// It returns io.EOF if the stream ends before the first byte, an error
// wrapping io.ErrUnexpectedEOF if it ends inside a message, and an error
// wrapping ErrProtocol for an invalid header.
func ReadMessage(r io.Reader, maxLen uint32) ([]byte, Header, error) {
	return ReadMessageInto(r, maxLen, nil)
}

// ReadMessageInto is ReadMessage reading into memory that alloc returns
// for the validated header: it must return nil (the body is then
// allocated) or at least h.Length bytes, which the message occupies from
// their start.  The caller owns whatever alloc returned, even on error.
func ReadMessageInto(r io.Reader, maxLen uint32, alloc func(h Header) []byte) ([]byte, Header, error) {
	var hdr [HeaderSize]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		if err == io.EOF {
			return nil, Header{}, io.EOF
		}
		return nil, Header{}, fmt.Errorf("read message header: %w", err)
	}
	h, err := DecodeHeader(hdr[:])
	if err != nil {
		return nil, Header{}, err
	}
	if maxLen != 0 && h.Length > maxLen {
		return nil, Header{}, fmt.Errorf("%w: length %d exceeds this connection's limit %d", ErrProtocol, h.Length, maxLen)
	}
	var msg []byte
	if alloc != nil {
		if b := alloc(h); uint64(len(b)) >= uint64(h.Length) {
			msg = b[:h.Length:h.Length]
		}
	}
	if msg == nil {
		msg = make([]byte, h.Length)
	}
	copy(msg, hdr[:])
	if _, err := io.ReadFull(r, msg[HeaderSize:]); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, Header{}, fmt.Errorf("read %s message body of %d bytes: %w", h.Tag, int(h.Length)-HeaderSize, err)
	}
	return msg, h, nil
}
