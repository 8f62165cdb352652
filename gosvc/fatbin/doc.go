// Package fatbin finds, builds and caches the fatbin of the CUDA kernels.
//
// A fatbin is known by three hashes: of its kernel sources (SourceHash), of
// its build flags (FlagsHash: the nvcc options of the nvcc_flags file,
// which the Makefile reads too, and the architectures it has code for) and
// of its own bytes (its .sha256).  The cache under PGDATA/.pgstrom_fatbin
// names each file by the first two and the CUDA driver version.  Ensure
// returns the cached build for the devices' architectures, else the
// prebuilt one from `make` when its manifest (<fatbin>.manifest) records
// the installed sources and the service's options and its bytes match its
// .sha256 (copied into the cache under its own flags), else builds one
// with nvcc for the devices' architectures.  When the caller cannot load
// a fatbin on some device, Rebuild builds it again for exactly those.
//
// Every fatbin written into the cache is followed by "<fatbin>.sha256"
// (written to a temporary file and renamed once the fatbin is complete).
// A cached fatbin whose checksum is missing, unreadable or different is not
// trusted: Ensure replaces it and reports why in Result.Rejected, as it
// reports why a prebuilt fatbin was not used.  ReadVerified reads a fatbin
// and checks the bytes read, for loading.
package fatbin
