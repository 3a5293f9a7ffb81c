// Package escape is stockade's end-to-end escape suite. It has no code of its
// own: its tests build the stockade binary and run each attack in
// testdata/escape twice, once with plain bash, where the attack must work,
// and once through `stockade run` under a policy that allows every command
// (testdata/escape/allow-all.toml), where only the kernel sandbox stands in
// the way and the attack must fail.
//
// Whether an attack worked is decided from outside the command: a file
// outside the writable roots changed, a secret turned up in the workdir, a
// listener of the test received bytes, the test process was signalled or
// traced, a process of the command outlived it, a victim process died.
//
// An attack can run as root and as a plain user made for the test (its field
// as; see identity_linux_test.go); system calls a shell cannot make come from
// escape-tool, a copy of the test binary (tool_linux_test.go).
//
// The suite needs Linux and root; run it with `go test ./escape/`.
package escape
