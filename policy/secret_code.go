package policy

import (
	"regexp"
	"strings"
)

// Interpreter code that prints a secret from the environment: it reads a
// secret-named variable (os.environ["X"], getenv("X"), ENV["X"],
// process.env.X, System.getenv("X"), $ENV{X}) and prints it, directly or
// through a variable it assigned, or it walks the whole environment and
// picks the secrets out by name (ENV.each ... if k =~ /TOKEN/). Which names
// are secret is the scrubber's test (secretname.go).

var (
	// envReadCall: the name given to an environment lookup.
	envReadCall = regexp.MustCompile(`(?:environ(?:\.get)?|process\.env|Bun\.env|ENVIRON|getenv|Getenv|get_env|ENV(?:\.fetch)?|\$_ENV|\$_SERVER|env\.get|env::var|env\.var)\s*[\[({]\s*["']?([A-Za-z_][A-Za-z0-9_]*)`)
	// envReadField: process.env.X, Bun.env.X, import.meta.env.X.
	envReadField = regexp.MustCompile(`\benv\.([A-Za-z_][A-Za-z0-9_]*)`)
	// envWalk: code that goes through every variable of the environment.
	envWalk = regexp.MustCompile(`\bENV\.(each|each_pair|select|filter|find_all|keys|to_h|map|grep)\b|environ\.(items|keys)\(|\bfor\s+\w+\s+in\s+(os\.)?environ\b|(entries|keys)\(\s*process\.env\s*\)|\bfor\s*\(\s*(const|let|var)?\s*\w+\s+in\s+process\.env\b|%ENV\b|\bin\s+ENVIRON\b|getenv\(\s*\)|\$_ENV\b|System\.getenv\(\s*\)|Deno\.env\.toObject\(\)`)
	// printCall: a call that writes to the output or to a file.
	printCall = regexp.MustCompile(`\b(print|println|printf|pprint|puts|p|pp|say|echo|print_r|var_dump|console\.(log|error|info|dir|table)|System\.out\.\w+|fmt\.\w*Print\w*|sys\.stdout\.write|process\.stdout\.write|\$stdout\.\w+|STDOUT\.\w+|warn|write|writeFileSync|writeFile|File\.write|IO\.write|file_put_contents|fwrite|fputs)(\s*\(|\s+["'$\w])`)
	// bareEnvRead: a program that is one environment read, whose value
	// node -p, ruby -p or a REPL prints.
	bareEnvRead = regexp.MustCompile(`^\s*(process\.env|Bun\.env|ENV|os\.environ)(\.[A-Za-z_][A-Za-z0-9_]*|\[\s*["']?[A-Za-z_][A-Za-z0-9_]*["']?\s*\])\s*;?\s*$`)
	assignFrom  = regexp.MustCompile(`(?:\b(?:const|let|var|my|local)\s+)?\$?([A-Za-z_][A-Za-z0-9_]*)\s*=[^=]`)
	codeTokens  = regexp.MustCompile(`[A-Za-z][A-Za-z0-9_]*`)
)

// codePrintsSecretEnv reports whether inline code prints (or writes to a
// file) a secret-named environment variable, or walks the environment and
// prints what it picks by secret names.
func codePrintsSecretEnv(code string) bool {
	if !strings.Contains(code, "env") && !strings.Contains(code, "ENV") && !strings.Contains(code, "nviron") && !strings.Contains(code, "_env") {
		return false
	}
	if bareEnvRead.MatchString(code) {
		return secretEnvRead(code)
	}
	if !printCall.MatchString(code) {
		return false
	}
	if envWalk.MatchString(code) && namesSecretTerm(code, false) {
		return true
	}
	held := map[string]bool{} // variables assigned a secret's value
	for _, st := range strings.FieldsFunc(code, func(r rune) bool { return r == ';' || r == '\n' }) {
		reads := secretEnvRead(st)
		if m := assignFrom.FindStringSubmatchIndex(st); m != nil && m[0] == strings.IndexFunc(st, func(r rune) bool { return r != ' ' && r != '\t' }) {
			if reads {
				held[st[m[2]:m[3]]] = true
			}
		}
		loc := printCall.FindStringIndex(st)
		if loc == nil {
			continue
		}
		printed := st[loc[0]:] // what the print call is given, and more
		if reads && secretEnvRead(printed) {
			return true
		}
		for v := range held {
			if printsName(printed, v) {
				return true
			}
		}
	}
	return false
}

// secretEnvRead reports whether code text reads a secret-named variable
// from the environment.
func secretEnvRead(s string) bool {
	for _, re := range []*regexp.Regexp{envReadCall, envReadField} {
		for _, m := range re.FindAllStringSubmatch(s, -1) {
			if secretVarName(m[1]) {
				return true
			}
		}
	}
	return false
}

// printsName reports whether a statement that prints names variable v.
func printsName(st, v string) bool {
	return wholeWord(st, v, func(int) bool { return true })
}

// namesSecretTerm reports whether text names secrets by a word: a name part
// the scrubber takes for a secret, or a family of credentials (STRIPE,
// AWS). Words in lower case count only if anyCase (a grep pattern, unlike
// code whose own words are lower case: pass, session, private); so do
// searchSecretWords.
func namesSecretTerm(text string, anyCase bool) bool {
	for _, tok := range codeTokens.FindAllString(text, -1) {
		up := strings.ToUpper(tok)
		if up != tok && !anyCase && !strongSecretWord(up) {
			continue
		}
		if secretVarName(up) || secretFamily(up) || anyCase && searchSecretWords[up] {
			return true
		}
	}
	return false
}

// searchSecretWords: words that alone name no secret but, searched for,
// find them: API finds every API_KEY and X_API_TOKEN, CRED the CREDS, JWT
// and BEARER the tokens. A whole name such as API_URL is a name, not a
// search.
var searchSecretWords = map[string]bool{"API": true, "CRED": true, "CREDS": true, "JWT": true, "BEARER": true}

// strongSecretWord: a word that names a secret in any case and any text.
func strongSecretWord(w string) bool {
	switch w {
	case "SECRET", "SECRETS", "CREDENTIAL", "CREDENTIALS", "APIKEY", "PASSPHRASE":
		return true
	}
	return strings.HasSuffix(w, "TOKEN") || strings.HasSuffix(w, "TOKENS") || strings.Contains(w, "PASSWORD") || strings.HasSuffix(w, "PASSWD")
}

// secretFamily reports whether w is the first word of a credential family
// the scrubber removes whole (STRIPE for STRIPE_*, OPENAI for OPENAI_*).
func secretFamily(w string) bool {
	for _, p := range secretPrefixes {
		if f, ok := strings.CutSuffix(p, "_"); ok && f == w {
			return true
		}
	}
	return false
}
