package protocol

import "strconv"

// Tag is PgStromMsgTag: what a message is.
type Tag uint16

// TagRetiredAttachBuffer is the tag PGSTROM_MSG_ATTACH_BUFFER had: a
// client attached a memfd (SCM_RIGHTS) as a shared chunk buffer.  Zero-copy
// chunks (XPU_BUFFER_SHARED) replaced it and the service no longer accepts
// it; DecodeHeader rejects it with a message saying so.  The value is kept
// here, not taken from the C header, so that message outlives the header's
// definition; never reuse it for another message.
const TagRetiredAttachBuffer Tag = 5

// IsRequest reports whether a backend may send this tag.
func (t Tag) IsRequest() bool {
	switch t {
	case TagOpenSession, TagTaskExec, TagTaskFinal, TagStatus, TagLinkProbe, TagJoinInner:
		return true
	}
	return false
}

// IsReply reports whether the service may send this tag.
func (t Tag) IsReply() bool {
	switch t {
	case TagSuccess, TagSuccessHalfway, TagError:
		return true
	}
	return false
}

// String names the tag for logs and errors.
func (t Tag) String() string {
	switch t {
	case TagOpenSession:
		return "OpenSession"
	case TagTaskExec:
		return "TaskExec"
	case TagTaskFinal:
		return "TaskFinal"
	case TagStatus:
		return "Status"
	case TagRetiredAttachBuffer:
		return "AttachBuffer (retired)"
	case TagLinkProbe:
		return "LinkProbe"
	case TagJoinInner:
		return "JoinInner"
	case TagSuccess:
		return "Success"
	case TagSuccessHalfway:
		return "SuccessHalfway"
	case TagError:
		return "Error"
	}
	return "Tag(" + strconv.Itoa(int(t)) + ")"
}
