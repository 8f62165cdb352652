// Package control speaks the control channel between the supervisor (the
// PostgreSQL background worker) and the GPU service process.
//
// The channel is an AF_UNIX SOCK_SEQPACKET socketpair: one message per
// send/recv.  Every byte layout comes from include/pg_strom_control.h through
// cgo, so the C supervisor and this package cannot drift apart.
//
// Besides the service's side (Open, Receive, SendReady, SendStatus,
// SendPageCache, SendFatal) the package exports the supervisor's encoders and decoders
// (EncodeConfig, EncodeStop, DecodeServiceMessage) so tests can play the
// supervisor over a real socketpair.
package control
