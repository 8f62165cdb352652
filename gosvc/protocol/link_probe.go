package protocol

// #include "pg_strom_proto.h"
import "C"

import (
	"encoding/binary"
	"fmt"
)

// Limits of a LINK_PROBE request (pg_strom_proto.h, PgStromMsgLinkProbe):
// the bytes per copy are a multiple of 1MB from 1MB to 1GB, the timed
// copies per direction 1..64.
const (
	LinkProbeUnit      = C.PGSTROM_LINK_PROBE_UNIT
	LinkProbeMinBytes  = LinkProbeUnit
	LinkProbeMaxBytes  = C.PGSTROM_LINK_PROBE_MAX_BYTES
	LinkProbeMinCopies = 1
	LinkProbeMaxCopies = C.PGSTROM_LINK_PROBE_MAX_COPIES
)

// LinkProbeRequest asks the service to time pinned host-to-device and
// device-to-host copies of Bytes bytes, Copies times each way.  ParseRequest
// returns it only with values inside the limits above.
type LinkProbeRequest struct {
	Bytes  uint64
	Copies uint32
}

// Tag implements Request.
func (LinkProbeRequest) Tag() Tag { return TagLinkProbe }

// EncodeLinkProbe builds a LINK_PROBE request; clients and tests use it.
// The values are not checked, so tests can send bad ones.
func EncodeLinkProbe(requestID uint32, bytes uint64, copies uint32) []byte {
	msg := newMessage(TagLinkProbe, requestID, LinkProbeSize)
	binary.LittleEndian.PutUint64(msg[offProbeBytes:], bytes)
	binary.LittleEndian.PutUint32(msg[offProbeCopies:], copies)
	return msg
}

// parseLinkProbe validates a LINK_PROBE message whose header h is valid.
func parseLinkProbe(msg []byte, h Header) (Request, error) {
	if int(h.Length) != HeaderSize+LinkProbeSize {
		return nil, fmt.Errorf("%w: LinkProbe payload is %d bytes, want %d", ErrProtocol, int(h.Length)-HeaderSize, LinkProbeSize)
	}
	r := LinkProbeRequest{
		Bytes:  binary.LittleEndian.Uint64(msg[offProbeBytes:]),
		Copies: binary.LittleEndian.Uint32(msg[offProbeCopies:]),
	}
	reserved := binary.LittleEndian.Uint32(msg[offProbeReserved:])
	switch {
	case r.Bytes < LinkProbeMinBytes || r.Bytes > LinkProbeMaxBytes || r.Bytes%LinkProbeUnit != 0:
		return nil, fmt.Errorf("%w: LinkProbe of %d bytes per copy; want a multiple of 1MB from 1MB to 1GB", ErrProtocol, r.Bytes)
	case r.Copies < LinkProbeMinCopies || r.Copies > LinkProbeMaxCopies:
		return nil, fmt.Errorf("%w: LinkProbe of %d copies; want %d to %d", ErrProtocol, r.Copies, LinkProbeMinCopies, LinkProbeMaxCopies)
	case reserved != 0:
		return nil, fmt.Errorf("%w: LinkProbe reserved field is %#x, must be 0", ErrProtocol, reserved)
	}
	return r, nil
}

// LinkProbeReply is PgStromMsgLinkProbeReply, the payload of the Success
// reply to a LINK_PROBE request: the wall time of all timed copies of
// Bytes bytes, Copies per direction.
type LinkProbeReply struct {
	DeviceIndex int32
	Copies      uint32
	Bytes       uint64
	H2DNs       uint64
	D2HNs       uint64
}

// EncodeLinkProbeReply builds the Success reply to a LINK_PROBE request.
func EncodeLinkProbeReply(requestID uint32, r LinkProbeReply) []byte {
	msg := newMessage(TagSuccess, requestID, LinkProbeReplySize)
	p := msg[HeaderSize:]
	le := binary.LittleEndian
	le.PutUint32(p[offLpDeviceIndex:], uint32(r.DeviceIndex))
	le.PutUint32(p[offLpCopies:], r.Copies)
	le.PutUint64(p[offLpBytes:], r.Bytes)
	le.PutUint64(p[offLpH2DNs:], r.H2DNs)
	le.PutUint64(p[offLpD2HNs:], r.D2HNs)
	return msg
}

// DecodeLinkProbeReply decodes a Success reply to a LINK_PROBE request.
func DecodeLinkProbeReply(msg []byte) (LinkProbeReply, error) {
	p, err := replyPayload(msg, TagSuccess, LinkProbeReplySize)
	if err != nil {
		return LinkProbeReply{}, fmt.Errorf("decode link probe reply: %w", err)
	}
	le := binary.LittleEndian
	return LinkProbeReply{
		DeviceIndex: int32(le.Uint32(p[offLpDeviceIndex:])),
		Copies:      le.Uint32(p[offLpCopies:]),
		Bytes:       le.Uint64(p[offLpBytes:]),
		H2DNs:       le.Uint64(p[offLpH2DNs:]),
		D2HNs:       le.Uint64(p[offLpD2HNs:]),
	}, nil
}
