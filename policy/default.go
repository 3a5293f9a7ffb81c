package policy

import _ "embed"

//go:generate go run ./internal/gendefault -in default.toml -out default_gen.go

// DefaultTOML is the text of the built-in policy, as `stockade policy default`
// prints it.
//
//go:embed default.toml
var DefaultTOML []byte
