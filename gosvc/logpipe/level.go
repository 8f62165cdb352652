package logpipe

// Level is the severity the supervisor passes to ereport. There is no ERROR
// level on purpose: an ERROR in the supervisor would abort the bgworker.
type Level int

const (
	Debug Level = iota
	Log
	Notice
	Warning
)

// String returns the name used on the wire.
func (l Level) String() string {
	switch l {
	case Debug:
		return "DEBUG"
	case Log:
		return "LOG"
	case Notice:
		return "NOTICE"
	case Warning:
		return "WARNING"
	}
	// An unknown level must still produce a line the supervisor accepts.
	return "LOG"
}
