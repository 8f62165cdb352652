package protocol

import "errors"

var (
	// ErrProtocol marks a malformed message: the service answers with an
	// Error reply and closes the connection.
	ErrProtocol = errors.New("protocol error")
	// ErrUnsupported marks a well-formed request this service cannot
	// handle yet.
	ErrUnsupported = errors.New("unsupported request")
)
