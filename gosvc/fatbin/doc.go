// Package fatbin finds, builds and caches the fatbin of the CUDA kernels.
//
// The fatbin is named after a hash of the kernel sources and the CUDA driver
// version, and cached under PGDATA/.pgstrom_fatbin.  Ensure returns the
// cached file, else the prebuilt one from `make` when its recorded source
// hash matches, else builds one with nvcc for the devices' architectures.
// When the caller cannot load a fatbin on some device, Rebuild builds it
// again for exactly the devices' architectures.
//
// Every fatbin written into the cache is followed by "<fatbin>.sha256"
// (written to a temporary file and renamed once the fatbin is complete).
// A cached fatbin whose checksum is missing, unreadable or different is not
// trusted: Ensure replaces it and reports why in Result.Rejected.
// ReadVerified reads a fatbin and checks the bytes read, for loading.
package fatbin
