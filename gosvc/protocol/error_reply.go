package protocol

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"unicode/utf8"
)

// ErrorReply is PgStromMsgError: what the backend reports with ereport.
type ErrorReply struct {
	Code    int32
	Line    int32
	File    string
	Func    string
	Message string
}

// EncodeError builds an Error reply. Strings longer than their C field are
// truncated, always leaving room for the NUL terminator.
func EncodeError(requestID uint32, e ErrorReply) []byte {
	msg := newMessage(TagError, requestID, ErrorPayloadSize)
	p := msg[HeaderSize:]
	binary.LittleEndian.PutUint32(p[offErrCode:], uint32(e.Code))
	binary.LittleEndian.PutUint32(p[offErrLine:], uint32(e.Line))
	putCString(p[offErrFile:offErrFile+ErrorFileSize], e.File)
	putCString(p[offErrFunc:offErrFunc+ErrorFuncSize], e.Func)
	putCString(p[offErrMessage:offErrMessage+ErrorMessageSize], e.Message)
	return msg
}

// DecodeError decodes an Error reply.
func DecodeError(msg []byte) (ErrorReply, error) {
	p, err := replyPayload(msg, TagError, ErrorPayloadSize)
	if err != nil {
		return ErrorReply{}, fmt.Errorf("decode error reply: %w", err)
	}
	return ErrorReply{
		Code:    int32(binary.LittleEndian.Uint32(p[offErrCode:])),
		Line:    int32(binary.LittleEndian.Uint32(p[offErrLine:])),
		File:    cString(p[offErrFile : offErrFile+ErrorFileSize]),
		Func:    cString(p[offErrFunc : offErrFunc+ErrorFuncSize]),
		Message: cString(p[offErrMessage : offErrMessage+ErrorMessageSize]),
	}, nil
}

// putCString copies s into the zeroed field dst, cut on a UTF-8 boundary so
// that the backend never receives a broken character.
func putCString(dst []byte, s string) {
	limit := len(dst) - 1
	if len(s) > limit {
		cut := limit
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut]
	}
	copy(dst, s)
}

// cString reads a NUL-terminated field; a field without NUL is taken whole
// rather than rejected, since the text is only ever shown to a person.
func cString(field []byte) string {
	if i := bytes.IndexByte(field, 0); i >= 0 {
		field = field[:i]
	}
	return string(field)
}
