// Package xputest builds OpenSession and TaskExec messages and PostgreSQL
// heap pages for tests of the xpu, server and gpu packages.  It uses only
// package xpu's exported layout (which comes from include/ through cgo), so
// nothing here mirrors the C structs by hand.
package xputest
