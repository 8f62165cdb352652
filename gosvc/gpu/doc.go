// Package gpu is the only package of the service that talks to CUDA (through
// gorgonia.org/cu and a little cgo).  Everything else sees plain Go types
// and the index-keyed Backend, so it can be tested without a GPU.
//
// Importing this package runs gorgonia.org/cu's init(), which calls cuInit
// and exits the process when there is no usable driver.  Therefore no
// package that tests import may depend on gpu, and gpu's own tests carry the
// build tag "gpu".
package gpu
