// Package envlist edits environments in the form os.Environ returns
// ("NAME=value" strings), for the packages that build a command's
// environment.
package envlist

import (
	"slices"
	"strings"
)

// Set returns env with name set to value, replacing an earlier value.
func Set(env []string, name, value string) []string {
	prefix := name + "="
	for i, kv := range env {
		if strings.HasPrefix(kv, prefix) {
			out := slices.Clone(env)
			out[i] = prefix + value
			return out
		}
	}
	return append(slices.Clip(env), prefix+value)
}
