package logpipe

import (
	"strconv"
	"unicode/utf8"
)

// maxFieldLen bounds file and func so that the message always keeps most of
// the line, whatever the caller passes.
const maxFieldLen = 256

// formatLine appends one complete log line to dst and returns it. The result
// is at most MaxLine bytes and ends with exactly one newline.
func formatLine(dst []byte, source string, level Level, file string, line int, fn string, msg string) []byte {
	dst = appendField(dst, source, maxFieldLen)
	dst = append(dst, '|')
	dst = append(dst, level.String()...)
	dst = append(dst, '|')
	dst = appendField(dst, file, maxFieldLen)
	dst = append(dst, '|')
	dst = strconv.AppendInt(dst, int64(line), 10)
	dst = append(dst, '|')
	dst = appendField(dst, fn, maxFieldLen)
	dst = append(dst, '|')
	dst = appendMessage(dst, msg, MaxLine-1-len(dst))
	return append(dst, '\n')
}

// appendField copies a delimited field. '|' would shift the supervisor's
// split and newlines would end the line, so both become '_'.
func appendField(dst []byte, s string, limit int) []byte {
	s = truncateUTF8(s, limit)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '|' || c == '\n' || c == '\r' || c == 0 {
			c = '_'
		}
		dst = append(dst, c)
	}
	return dst
}

// appendMessage copies the last field. '|' is allowed there (the supervisor
// splits only the first five), but a newline would end the line and a NUL
// would cut the C string short.
func appendMessage(dst []byte, s string, limit int) []byte {
	s = truncateUTF8(s, limit)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\n' || c == '\r' || c == 0 {
			c = ' '
		}
		dst = append(dst, c)
	}
	return dst
}

// truncateUTF8 cuts s to at most limit bytes without splitting a UTF-8
// sequence, because PostgreSQL may reject invalid encodings when it converts
// the message for a client.
func truncateUTF8(s string, limit int) string {
	if limit <= 0 {
		return ""
	}
	if len(s) <= limit {
		return s
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}
