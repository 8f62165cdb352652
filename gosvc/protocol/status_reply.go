package protocol

import (
	"encoding/binary"
	"fmt"
)

// StatusReply is PgStromMsgStatusReply, the payload of the Success reply to
// a Status request.
type StatusReply struct {
	DeviceIndex    int32
	Workers        uint32
	Connections    uint32
	Queued         uint32
	PoolUsed       uint64
	PoolTotal      uint64
	PoolLimit      uint64
	RequestsServed uint64
}

// EncodeStatusReply builds the Success reply to a Status request.
func EncodeStatusReply(requestID uint32, s StatusReply) []byte {
	msg := newMessage(TagSuccess, requestID, StatusReplySize)
	p := msg[HeaderSize:]
	le := binary.LittleEndian
	le.PutUint32(p[offStDeviceIndex:], uint32(s.DeviceIndex))
	le.PutUint32(p[offStWorkers:], s.Workers)
	le.PutUint32(p[offStConnections:], s.Connections)
	le.PutUint32(p[offStQueued:], s.Queued)
	le.PutUint64(p[offStPoolUsed:], s.PoolUsed)
	le.PutUint64(p[offStPoolTotal:], s.PoolTotal)
	le.PutUint64(p[offStPoolLimit:], s.PoolLimit)
	le.PutUint64(p[offStRequestsServed:], s.RequestsServed)
	return msg
}

// DecodeStatusReply decodes a Success reply to a Status request.
func DecodeStatusReply(msg []byte) (StatusReply, error) {
	p, err := replyPayload(msg, TagSuccess, StatusReplySize)
	if err != nil {
		return StatusReply{}, fmt.Errorf("decode status reply: %w", err)
	}
	le := binary.LittleEndian
	return StatusReply{
		DeviceIndex:    int32(le.Uint32(p[offStDeviceIndex:])),
		Workers:        le.Uint32(p[offStWorkers:]),
		Connections:    le.Uint32(p[offStConnections:]),
		Queued:         le.Uint32(p[offStQueued:]),
		PoolUsed:       le.Uint64(p[offStPoolUsed:]),
		PoolTotal:      le.Uint64(p[offStPoolTotal:]),
		PoolLimit:      le.Uint64(p[offStPoolLimit:]),
		RequestsServed: le.Uint64(p[offStRequestsServed:]),
	}, nil
}

// replyPayload validates a reply of a fixed-size payload and returns it.
func replyPayload(msg []byte, want Tag, size int) ([]byte, error) {
	h, err := DecodeHeader(msg)
	if err != nil {
		return nil, err
	}
	if h.Tag != want {
		return nil, fmt.Errorf("%w: tag %s, want %s", ErrProtocol, h.Tag, want)
	}
	if uint64(len(msg)) != uint64(h.Length) || int(h.Length) != HeaderSize+size {
		return nil, fmt.Errorf("%w: %s message of %d bytes (header says %d), want %d",
			ErrProtocol, want, len(msg), h.Length, HeaderSize+size)
	}
	return msg[HeaderSize:], nil
}
