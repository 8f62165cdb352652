package protocol

import "strconv"

// Tag is PgStromMsgTag: what a message is.
type Tag uint16

// IsRequest reports whether a backend may send this tag.
func (t Tag) IsRequest() bool {
	switch t {
	case TagOpenSession, TagTaskExec, TagTaskFinal, TagStatus, TagAttachBuffer, TagLinkProbe:
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
	case TagAttachBuffer:
		return "AttachBuffer"
	case TagLinkProbe:
		return "LinkProbe"
	case TagSuccess:
		return "Success"
	case TagSuccessHalfway:
		return "SuccessHalfway"
	case TagError:
		return "Error"
	}
	return "Tag(" + strconv.Itoa(int(t)) + ")"
}
