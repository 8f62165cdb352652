// Package service runs the GPU service: it reads the supervisor's
// configuration from the control channel, prepares every device (context,
// kernels fatbin, memory pool, socket server), reports READY and periodic
// STATUS, applies reloads live, and shuts down on STOP.
//
// The GPU side comes in as the Backend interface; only package main passes
// the real one (gpu.NewBackend), so this package is tested without a GPU.
package service
