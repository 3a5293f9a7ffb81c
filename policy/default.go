package policy

import _ "embed"

// default_gen.go is default.toml decoded ahead of time into a Go literal
// (defaultGo), because decoding the TOML at every start-up costs more than
// the literal: compare BenchmarkDefaultTOML with BenchmarkDefault, and the
// first load in a fresh process, where go-toml's reflection is cold, even
// more. It is generated, kept out of review (.gitattributes) and checked
// against default.toml by TestDefaultGenerated.
//
//go:generate go run ./internal/gendefault -in default.toml -out default_gen.go

// DefaultTOML is the text of the built-in policy, as `stockade policy default`
// prints it.
//
//go:embed default.toml
var DefaultTOML []byte
