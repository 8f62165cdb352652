package protocol

import "fmt"

// Request is a parsed, validated request message.
type Request interface {
	Tag() Tag
}

// StatusRequest asks for the device's status; it has no payload.
type StatusRequest struct{}

// Tag implements Request.
func (StatusRequest) Tag() Tag { return TagStatus }

// ParseRequest validates a whole request message (as ReadMessage returns it)
// and decodes its payload.
func ParseRequest(msg []byte) (Request, error) {
	h, err := DecodeHeader(msg)
	if err != nil {
		return nil, err
	}
	if uint64(len(msg)) != uint64(h.Length) {
		return nil, fmt.Errorf("%w: header length %d but message has %d bytes", ErrProtocol, h.Length, len(msg))
	}
	switch h.Tag {
	case TagStatus:
		if int(h.Length) != HeaderSize {
			return nil, fmt.Errorf("%w: Status carries no payload, got %d bytes", ErrProtocol, int(h.Length)-HeaderSize)
		}
		return StatusRequest{}, nil
	case TagOpenSession, TagTaskExec, TagTaskFinal:
		return nil, fmt.Errorf("%w: %s", ErrUnsupported, h.Tag)
	}
	return nil, fmt.Errorf("%w: reply tag %s sent as a request", ErrProtocol, h.Tag)
}
