// Package server is the per-device socket server of the GPU service.
//
// Each device listens on PGDATA/.pg_strom.<postmaster pid>.gpu<N>.sock.  An
// epoll loop accepts clients (up to Config.MaxConnections); one receiver
// goroutine per client reads and parses requests and puts them on the
// device's command queue, which serves connections round robin; a pool of
// worker goroutines, resizable live (pg_strom.max_async_tasks), executes
// them and hands the replies to the client's own writer goroutine, so no
// worker waits for a client that does not read.  Each connection has a
// bound on its commands in flight; bodies are allocated as their bytes
// arrive, under a budget shared by all connections; a partial message has
// a deadline (limits.go says which and why).  The queued commands of a
// closed connection are dropped.  A bad request gets an Error reply and
// its connection is closed; no input can crash the service.
//
// The server knows no node kind by name: an OpenSession is validated by
// the Config's nodekind.Registry and prepared by the kind on the
// executor.  A session's replies go out through sinks that frame them
// here: SuccessHalfway parts as the session emits them, then the Success
// (or Error) that ends the request, after which the sink refuses more.
package server
