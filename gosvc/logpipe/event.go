package logpipe

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Field names that NewLogger's events carry and Write understands.
const (
	FieldGPU  = "gpu"
	FieldFile = "file"
	FieldLine = "line"
	FieldFunc = "func"
)

const (
	fieldLevel   = "level"
	fieldMessage = "message"
)

// SourceService is the source of lines that belong to no single device.
const SourceService = "SVC"

// DeviceSource returns the source name of device n.
func DeviceSource(n int) string {
	return "GPU" + strconv.Itoa(n)
}

// Write receives one zerolog JSON event and writes it as one log line. It
// always reports success: zerolog would otherwise print the failure to
// stderr, which nobody reads, and a dropped line is already counted.
func (w *Writer) Write(p []byte) (int, error) {
	bp := linePool.Get().(*[]byte)
	buf := eventToLine((*bp)[:0], p)
	w.writeRaw(buf)
	*bp = buf
	linePool.Put(bp)
	return len(p), nil
}

// eventToLine converts a zerolog JSON event into a log line.
func eventToLine(dst []byte, p []byte) []byte {
	fields := map[string]any{}
	dec := json.NewDecoder(bytes.NewReader(p))
	dec.UseNumber()
	if err := dec.Decode(&fields); err != nil {
		// Keep the text rather than lose a message that may explain a
		// failure; it is not JSON, so show it raw.
		msg := "unparsable log event: " + strings.TrimSpace(string(p))
		return formatLine(dst, SourceService, Warning, "", 0, "", msg)
	}

	source := SourceService
	if n, ok := intField(fields, FieldGPU); ok {
		source = DeviceSource(n)
	}
	level := zerologLevel(stringField(fields, fieldLevel))
	file := stringField(fields, FieldFile)
	line, _ := intField(fields, FieldLine)
	fn := stringField(fields, FieldFunc)
	msg := stringField(fields, fieldMessage)
	for _, k := range []string{FieldGPU, fieldLevel, FieldFile, FieldLine, FieldFunc, fieldMessage} {
		delete(fields, k)
	}
	msg = appendExtraFields(msg, fields)
	return formatLine(dst, source, level, file, line, fn, msg)
}

// zerologLevel maps zerolog level names to supervisor levels. error, fatal
// and panic become WARNING because the supervisor must never ereport ERROR.
func zerologLevel(name string) Level {
	switch name {
	case "trace", "debug":
		return Debug
	case "warn", "error", "fatal", "panic":
		return Warning
	}
	return Log
}

// appendExtraFields keeps context such as Err(err) that has no column of its
// own, as key=value pairs in a stable order.
func appendExtraFields(msg string, fields map[string]any) string {
	if len(fields) == 0 {
		return msg
	}
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var sb strings.Builder
	sb.WriteString(msg)
	for _, k := range keys {
		if sb.Len() > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(k)
		sb.WriteByte('=')
		switch v := fields[k].(type) {
		case string:
			sb.WriteString(v)
		case json.Number:
			sb.WriteString(v.String())
		default:
			b, err := json.Marshal(v)
			if err != nil {
				fmt.Fprint(&sb, v)
			} else {
				sb.Write(b)
			}
		}
	}
	return sb.String()
}

func stringField(fields map[string]any, key string) string {
	switch v := fields[key].(type) {
	case string:
		return v
	case json.Number:
		return v.String()
	}
	return ""
}

func intField(fields map[string]any, key string) (int, bool) {
	num, ok := fields[key].(json.Number)
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(num.String())
	if err != nil {
		return 0, false
	}
	return n, true
}
