// Package atomicfile replaces a file all at once: readers see the old
// contents or the new, never a half-written file, and a failed write leaves
// the old file and no temporary behind. Generated code, fixtures, bundles,
// gate's specs and the approvals memory are written through it.
//
// The package imports only the standard library.
package atomicfile
