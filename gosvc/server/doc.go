// Package server is the per-device socket server of the GPU service.
//
// Each device listens on PGDATA/.pg_strom.<postmaster pid>.gpu<N>.sock.  An
// epoll loop accepts clients; one receiver goroutine per client reads and
// parses requests and puts them on the device's command queue; a pool of
// worker goroutines, resizable live (pg_strom.max_async_tasks), executes
// them and writes the replies.  A bad request gets an Error reply and its
// connection is closed; no input can crash the service.
//
// The server knows no node kind by name: an OpenSession is validated by
// the Config's nodekind.Registry and prepared by the kind on the
// executor.  A session's replies go out through sinks that frame them
// here: SuccessHalfway parts as the session emits them, then the Success
// (or Error) that ends the request, after which the sink refuses more.
package server
