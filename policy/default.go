package policy

import _ "embed"

// DefaultTOML is the text of the built-in policy, as `stockade policy default`
// prints it.
//
//go:embed default.toml
var DefaultTOML []byte
