package protocol

import (
	"encoding/binary"
	"fmt"
)

// Header is PgStromMsgHeader. Length covers the whole message.
type Header struct {
	Magic     uint32
	Tag       Tag
	Flags     uint16
	Length    uint32
	RequestID uint32
}

// DecodeHeader decodes and validates the header at the start of b. It checks
// only what the header alone can tell; the payload is ParseRequest's job.
func DecodeHeader(b []byte) (Header, error) {
	if len(b) < HeaderSize {
		return Header{}, fmt.Errorf("%w: header needs %d bytes, got %d", ErrProtocol, HeaderSize, len(b))
	}
	h := Header{
		Magic:     binary.LittleEndian.Uint32(b[offHdrMagic:]),
		Tag:       Tag(binary.LittleEndian.Uint16(b[offHdrTag:])),
		Flags:     binary.LittleEndian.Uint16(b[offHdrFlags:]),
		Length:    binary.LittleEndian.Uint32(b[offHdrLength:]),
		RequestID: binary.LittleEndian.Uint32(b[offHdrRequestID:]),
	}
	switch {
	case h.Magic != Magic:
		return Header{}, fmt.Errorf("%w: bad magic %#08x", ErrProtocol, h.Magic)
	case h.Flags != 0 && !(h.Tag == TagTaskFinal && h.Flags == FinalCollect):
		return Header{}, fmt.Errorf("%w: flags %#04x, must be 0 (TaskFinal: 0 or %#04x)", ErrProtocol, h.Flags, FinalCollect)
	case h.Tag == TagRetiredAttachBuffer:
		return Header{}, fmt.Errorf("%w: AttachBuffer (tag %d) is no longer supported: shared chunk buffers were removed; send chunks zero-copy (XPU_BUFFER_SHARED) or with their pages inline (buffer_id 0)", ErrProtocol, uint16(h.Tag))
	case !h.Tag.IsRequest() && !h.Tag.IsReply():
		return Header{}, fmt.Errorf("%w: unknown tag %d", ErrProtocol, uint16(h.Tag))
	case h.Length < uint32(HeaderSize):
		return Header{}, fmt.Errorf("%w: length %d shorter than the header", ErrProtocol, h.Length)
	case h.Length > MaxLength:
		return Header{}, fmt.Errorf("%w: length %d exceeds the maximum %d", ErrProtocol, h.Length, MaxLength)
	}
	return h, nil
}

// putHeader writes h at the start of b, which must hold HeaderSize bytes.
func putHeader(b []byte, h Header) {
	binary.LittleEndian.PutUint32(b[offHdrMagic:], h.Magic)
	binary.LittleEndian.PutUint16(b[offHdrTag:], uint16(h.Tag))
	binary.LittleEndian.PutUint16(b[offHdrFlags:], h.Flags)
	binary.LittleEndian.PutUint32(b[offHdrLength:], h.Length)
	binary.LittleEndian.PutUint32(b[offHdrRequestID:], h.RequestID)
}

// NewMessage allocates a message of HeaderSize+payloadLen bytes with its
// header filled in; the caller writes the payload after HeaderSize.  It
// panics if the message would exceed MaxLength: only the service's own
// encoders call it.
func NewMessage(tag Tag, requestID uint32, payloadLen int) []byte {
	return newMessage(tag, requestID, payloadLen)
}

// EncodeSuccess builds a Success reply without payload.
func EncodeSuccess(requestID uint32) []byte {
	return newMessage(TagSuccess, requestID, 0)
}

// newMessage is NewMessage.
func newMessage(tag Tag, requestID uint32, payloadLen int) []byte {
	total := HeaderSize + payloadLen
	if payloadLen < 0 || uint64(total) > uint64(MaxLength) {
		// Only our own encoders call this; an oversized message is a bug in
		// the caller, not input to survive.
		panic(fmt.Sprintf("protocol: message of %d bytes exceeds the maximum %d", total, MaxLength))
	}
	msg := make([]byte, total)
	putHeader(msg, Header{Magic: Magic, Tag: tag, Length: uint32(total), RequestID: requestID})
	return msg
}

// EncodeRequest builds a request message; clients and tests use it.
func EncodeRequest(tag Tag, requestID uint32, payload []byte) []byte {
	msg := newMessage(tag, requestID, len(payload))
	copy(msg[HeaderSize:], payload)
	return msg
}
