// Package server is the per-device socket server of the GPU service.
//
// Each device listens on PGDATA/.pg_strom.<postmaster pid>.gpu<N>.sock.  An
// epoll loop accepts clients; one receiver goroutine per client reads and
// parses requests and puts them on the device's command queue; a pool of
// worker goroutines, resizable live (pg_strom.max_async_tasks), executes
// them and writes the replies.  A bad request gets an Error reply and its
// connection is closed; no input can crash the service.
package server
