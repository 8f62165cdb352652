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

// ErrBadReply marks a reply the service's own code built wrongly (a node
// kind's payload that cannot be framed, a reply emitted after its request
// was answered): the request gets an Error reply (PGSTROM_ERR_INTERNAL)
// and the connection stays open.
var ErrBadReply = errors.New("malformed reply")
