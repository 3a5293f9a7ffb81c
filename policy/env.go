package policy

import (
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/stockade/stockade/internal/envlist"
)

// The secret scrub: which variables of stockade's own environment never reach
// a command. The [env] table (Env) adjusts it: names matching Keep stay even
// if they look secret; names matching Scrub go even if they do not. Patterns
// are path.Match globs on the variable name. Set is applied last.

// alwaysKept are the variables a shell and its tools need; they are never
// treated as secrets by name (their values are still checked).
var alwaysKept = []string{
	"PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "LANG", "LANGUAGE", "LC_*",
	"TZ", "TMPDIR", "EDITOR", "VISUAL", "PAGER", "COLORTERM", "NO_COLOR",
	"GOPATH", "GOROOT", "GOCACHE", "GOMODCACHE", "GOFLAGS", "GOPROXY", "GOTOOLCHAIN",
	"CARGO_HOME", "RUSTUP_HOME", "NVM_DIR", "VIRTUAL_ENV", "PYTHONPATH", "JAVA_HOME",
	"HOSTNAME", "SHLVL", "XDG_*", "PWD", "OLDPWD",
	// paths to CA bundles, not credentials
	"*_CA_BUNDLE", "*_CA_CERTS*", "*_CAINFO", "*_CERT_FILE", "*_CERT_DIR", "*_CA_CERTS_FILE",
}

// secretWords are name parts (split at "_", "-" and ".") that mark a credential.
var secretWords = map[string]bool{
	"TOKEN": true, "TOKENS": true, "SECRET": true, "SECRETS": true, "PASSWORD": true,
	"PASSWD": true, "PASS": true, "PASSPHRASE": true, "APIKEY": true, "CREDENTIAL": true,
	"CREDENTIALS": true, "CREDS": true, "AUTH": true, "COOKIE": true, "PRIVATE": true,
	"DSN": true, "SESSION": true, "SIGNATURE": true, "PAT": true,
}

// notPasswords are words that end in PASS without meaning a password.
var notPasswords = map[string]bool{
	"BYPASS": true, "COMPASS": true, "ENCOMPASS": true, "SURPASS": true,
	"TRESPASS": true, "OVERPASS": true, "UNDERPASS": true,
}

// passwordWord tells whether one word of a name spells a password, alone or
// run together with what it belongs to: SSHPASS, PGPASSWORD, MYSQLPASSWD,
// KEYSTOREPASS, DBPASSPHRASE.
func passwordWord(w string) bool {
	switch {
	case strings.Contains(w, "PASSWORD"), strings.HasSuffix(w, "PASSWD"),
		strings.HasSuffix(w, "PASSPHRASE"), strings.HasSuffix(w, "PASSCODE"),
		strings.HasSuffix(w, "PASSWRD"), strings.HasSuffix(w, "PSWD"), strings.HasSuffix(w, "PWORD"):
		return true
	case strings.HasSuffix(w, "PASS"):
		return !notPasswords[w]
	}
	return false
}

// keyQualifiers make a following KEY a secret (API_KEY, ACCESS_KEY, ...).
var keyQualifiers = map[string]bool{
	"API": true, "ACCESS": true, "SECRET": true, "PRIVATE": true, "SIGNING": true,
	"ENCRYPTION": true, "MASTER": true, "LICENSE": true, "CLIENT": true, "DEPLOY": true,
	"SSH": true, "GPG": true, "ACCOUNT": true, "SERVICE": true, "APP": true,
}

// secretPrefixes are whole families of cloud and CI credentials.
var secretPrefixes = []string{
	"AWS_", "AZURE_", "ARM_CLIENT", "GOOGLE_APPLICATION_CREDENTIALS", "GCP_", "GCLOUD_",
	"CLOUDSDK_AUTH", "DIGITALOCEAN_", "HEROKU_API", "VAULT_", "CI_JOB_", "CI_REGISTRY_",
	"ACTIONS_RUNTIME_", "ACTIONS_ID_TOKEN", "ACTIONS_CACHE_URL", "GITHUB_TOKEN", "GH_TOKEN",
	"GITLAB_", "BUILDKITE_AGENT_", "CIRCLE_TOKEN", "TRAVIS_", "NPM_CONFIG__AUTH",
	"SSH_AUTH_SOCK", "SSH_AGENT_PID", "GPG_AGENT_INFO", "KUBECONFIG", "DOCKER_AUTH",
	"OPENAI_", "ANTHROPIC_", "HF_TOKEN", "HUGGING_FACE", "STRIPE_", "TWILIO_", "SENDGRID_",
	"SLACK_", "DATABASE_URL", "REDIS_URL", "MONGODB_URI",
}

var (
	secretValuesOnce sync.Once
	secretValues     *regexp.Regexp
)

// secretValueMarkers are the literal parts without which no alternative of
// secretValuePattern can match (one per alternative, or its variants). A value
// holding none of them is not matched against the pattern, which most
// processes then never compile (compiling it is a visible part of the start
// of `stockade run`).
var secretValueMarkers = []string{
	"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "xox", "sk-", "AKIA", "ASIA",
	"AIza", "npm_", "pypi-", "-----BEGIN ", "eyJ", "://",
}

// secretValue tells whether value is in one of the formats secretValuePattern knows.
func secretValue(value string) bool {
	for _, m := range secretValueMarkers {
		if strings.Contains(value, m) {
			return secretValuePattern().MatchString(value)
		}
	}
	return false
}

// secretValuePattern matches values in the common provider key formats, private
// keys, JWTs and URLs that carry a password. Compiled on first use, not at start.
func secretValuePattern() *regexp.Regexp {
	secretValuesOnce.Do(func() {
		secretValues = regexp.MustCompile(strings.Join([]string{
			`gh[pousr]_[A-Za-z0-9]{20,}`, `github_pat_[A-Za-z0-9_]{20,}`, `glpat-[A-Za-z0-9_-]{20,}`,
			`xox[abposr]-[A-Za-z0-9-]{10,}`, `sk-[A-Za-z0-9_-]{20,}`, `(?:AKIA|ASIA)[0-9A-Z]{16}`,
			`AIza[0-9A-Za-z_-]{35}`, `npm_[A-Za-z0-9]{36}`, `pypi-[A-Za-z0-9_-]{40,}`,
			`-----BEGIN [A-Z ]*PRIVATE KEY-----`, `eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.`,
			`[a-zA-Z][a-zA-Z0-9+.-]*://[^/\s:@]+:[^/\s@]+@`,
		}, "|"))
	})
	return secretValues
}

func matchAny(patterns []string, name string) bool {
	for _, p := range patterns {
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}

// looksSecret tells whether a variable carries a credential, by name or by value.
func looksSecret(name, value string) bool {
	return secretVarName(name) || secretValue(value)
}

// ScrubEnv returns environ without the variables that look like credentials, and
// the names it removed (never the values), sorted. rules adjust the built-in list.
func ScrubEnv(environ []string, rules Env) (kept, removed []string) {
	seen := map[string]int{}
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			continue
		}
		secret := looksSecret(name, value)
		switch {
		case matchAny(rules.Scrub, name):
			secret = true
		case matchAny(rules.Keep, name):
			secret = false
		}
		if secret {
			removed = append(removed, name)
			continue
		}
		if i, dup := seen[name]; dup {
			kept[i] = kv
			continue
		}
		seen[name] = len(kept)
		kept = append(kept, kv)
	}
	for _, name := range slices.Sorted(maps.Keys(rules.Set)) {
		kept = envlist.Set(kept, name, rules.Set[name])
	}
	slices.Sort(removed)
	return kept, slices.Compact(removed)
}
