// Package server is the per-device socket server of the GPU service.
//
// Each device listens on PGDATA/.pg_strom.<postmaster pid>.gpu<N>.sock.  An
// epoll loop accepts clients (up to Config.MaxConnections); one receiver
// goroutine per client reads and parses requests and puts them on the
// device's command queue, which serves connections round robin; at most
// pg_strom.max_async_tasks commands run at once (worker slots, resizable
// live), and hand their replies to the client's own writer goroutine.  A
// command whose client does not read its replies is suspended and gives
// its slot back until the client drains, so no worker waits for a client.  Each connection has a
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
