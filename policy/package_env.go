package policy

import "strings"

// indexVariables name the index or registry an installer fetches from.
var indexVariables = map[string]bool{"PIP_INDEX_URL": true, "PIP_EXTRA_INDEX_URL": true, "UV_INDEX_URL": true, "UV_EXTRA_INDEX_URL": true, "UV_INDEX": true,
	"UV_DEFAULT_INDEX": true, "PIP_FIND_LINKS": true, "NPM_CONFIG_REGISTRY": true, "npm_config_registry": true, "YARN_NPM_REGISTRY_SERVER": true,
	"YARN_REGISTRY": true, "BUN_CONFIG_REGISTRY": true, "POETRY_REPOSITORIES": true, "GEM_SOURCE": true, "CARGO_REGISTRIES_CRATES_IO_INDEX": true}

// indexFromEnv reports whether an installer's environment points it at an
// index or registry other than the default (PIP_INDEX_URL=URL pip install).
func indexFromEnv(env []string) bool {
	for _, e := range env {
		name, v, _ := strings.Cut(e, "=")
		if indexVariables[name] || strings.HasPrefix(name, "POETRY_REPOSITORIES_") || strings.HasPrefix(name, "UV_INDEX_") {
			for _, u := range strings.Fields(strings.Trim(v, `"'`)) {
				if strings.Contains(u, "://") && foreignSource(u) {
					return true
				}
			}
		}
	}
	return false
}
