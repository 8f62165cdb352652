package protocol

import (
	"fmt"
)

// Request is a parsed, validated request message.
type Request interface {
	Tag() Tag
}

// StatusRequest asks for the device's status; it has no payload.
type StatusRequest struct{}

// Tag implements Request.
func (StatusRequest) Tag() Tag { return TagStatus }

// OpenSessionRequest opens a session; Msg is the whole message, whose
// payload (an xPU program) package xpu validates.
type OpenSessionRequest struct{ Msg []byte }

// Tag implements Request.
func (OpenSessionRequest) Tag() Tag { return TagOpenSession }

// TaskExecRequest runs one chunk in the open session; Msg is the whole
// message, whose payload package xpu validates.
type TaskExecRequest struct{ Msg []byte }

// Tag implements Request.
func (TaskExecRequest) Tag() Tag { return TagTaskExec }

// TaskFinalRequest closes the open session; it has no payload.
type TaskFinalRequest struct{}

// Tag implements Request.
func (TaskFinalRequest) Tag() Tag { return TagTaskFinal }

// ParseRequest validates a whole request message (as ReadMessage returns it)
// and decodes its payload.  The payloads of OpenSession and TaskExec are
// passed on whole, for package xpu to validate.
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
	case TagTaskFinal:
		if int(h.Length) != HeaderSize {
			return nil, fmt.Errorf("%w: TaskFinal carries no payload, got %d bytes", ErrProtocol, int(h.Length)-HeaderSize)
		}
		return TaskFinalRequest{}, nil
	case TagLinkProbe:
		return parseLinkProbe(msg, h)
	case TagOpenSession:
		return OpenSessionRequest{Msg: msg}, nil
	case TagTaskExec:
		return TaskExecRequest{Msg: msg}, nil
	case TagJoinInner:
		return parseJoinInner(msg, h)
	}
	return nil, fmt.Errorf("%w: reply tag %s sent as a request", ErrProtocol, h.Tag)
}
