package protocol

import "fmt"

// Payload is the payload of a reply that the service frames: a node kind
// says what its replies carry, the server writes the header around it, so
// the length and request id of a reply are always right.
type Payload interface {
	// Len is the payload's size in bytes.
	Len() int
	// Put writes the payload into dst, which has exactly Len() bytes.
	Put(dst []byte)
}

// Bytes is a payload already encoded.
type Bytes []byte

func (b Bytes) Len() int       { return len(b) }
func (b Bytes) Put(dst []byte) { copy(dst, b) }

// Frame builds a message of tag for requestID around p.  A payload that
// cannot be framed (negative length, or past MaxLength) is an error
// wrapping ErrBadReply, not a panic: payloads come from node kinds.
func Frame(tag Tag, requestID uint32, p Payload) ([]byte, error) {
	n := p.Len()
	if n < 0 || uint64(n) > uint64(MaxLength)-uint64(HeaderSize) {
		return nil, fmt.Errorf("%w: %s payload of %d bytes, at most %d fit a message", ErrBadReply, tag, n, uint64(MaxLength)-uint64(HeaderSize))
	}
	msg := newMessage(tag, requestID, n)
	p.Put(msg[HeaderSize:])
	return msg, nil
}
