package policy

import (
	"strings"
)

// One definition of a secret-named variable. The scrubber removes such
// variables from every command's environment (looksSecret), and the analysis
// treats a script's reading of one as reading a secret: printed, sent to a
// network tool, read through ${!n}, or read by interpreter code. Both ask
// secretVarName, so that what the sandbox hides and what the analysis
// guards are the same names.

// secretVarName tells whether a variable's name says it carries a credential:
// a credential family's prefix (AWS_, STRIPE_, ...), a word that names a
// secret (TOKEN, SECRET, PASSWORD, ...), a qualified key (API_KEY,
// ACCESS_KEY). The tools' own variables (PATH, HOME, ...) never are.
func secretVarName(name string) bool {
	// The kept names are patterns (path.Match), slower than the words: they
	// are asked only of a name the words call secret.
	upper := strings.ToUpper(name)
	return namesSecret(upper) && !matchAny(alwaysKept, upper)
}

// namesSecret is secretVarName's test of the words of upper, a name in
// upper case, before the tools' own variables are set apart.
func namesSecret(upper string) bool {
	for _, p := range secretPrefixes {
		if strings.HasPrefix(upper, p) {
			return true
		}
	}
	words := strings.FieldsFunc(upper, func(r rune) bool { return r == '_' || r == '-' || r == '.' })
	for i, w := range words {
		if secretWords[w] {
			return true
		}
		// API_KEY, KEY_ID after ACCESS, and a key named for its service
		// as the last word (LINEAR_KEY, SENDGRID_KEY).
		if (w == "KEY" || w == "KEYS") && (i == 0 || i == len(words)-1 || keyQualifiers[words[i-1]]) {
			return true
		}
		if k, ok := strings.CutSuffix(w, "KEY"); ok && keyQualifiers[k] {
			return true // ACCESSKEY, SECRETKEY, PRIVATEKEY
		}
		if strings.HasSuffix(w, "APIKEY") || strings.HasSuffix(w, "TOKEN") || passwordWord(w) {
			return true
		}
	}
	// DB_PWD, MYSQL_PWD, ADMIN_PW: a short spelling of password as the
	// last word (PWD and OLDPWD alone are directories and kept above).
	if n := len(words); n > 1 && (words[n-1] == "PWD" || words[n-1] == "PW") {
		return true
	}
	return false
}

// secretVarRefs returns the names of the secret-named variables that word w
// expands ($GITHUB_TOKEN, ${OPENAI_API_KEY}, ${DB_PASSWORD:-x}), in order.
// ${!n} is not one: what it reads is named at run time (secret_indirect.go).
func secretVarRefs(w string) []string {
	var names []string
	for i := strings.IndexByte(w, '$'); i >= 0 && i < len(w)-1; {
		j := i + 1
		if w[j] == '{' {
			j++
		}
		k := j
		for k < len(w) && isNameByte(w[k], k == j) {
			k++
		}
		if k > j && secretVarName(w[j:k]) {
			names = append(names, w[j:k])
		}
		n := strings.IndexByte(w[k:], '$')
		if n < 0 {
			break
		}
		i = k + n
	}
	return names
}

// isNameByte tells whether c can be part of a shell variable's name (its
// first byte when first).
func isNameByte(c byte, first bool) bool {
	return isWordByte(c) && !(first && '0' <= c && c <= '9')
}

// secretVarNamed tells whether w, quotes aside, is itself the name of a
// secret-named variable (printenv GITHUB_TOKEN, n=OPENAI_API_KEY).
func secretVarNamed(w string) bool {
	w = strings.Trim(w, `"'`)
	if w == "" {
		return false
	}
	for k := 0; k < len(w); k++ {
		if !isNameByte(w[k], k == 0) {
			return false
		}
	}
	return secretVarName(w)
}

// sendsSecretVar tells whether one of inv's arguments expands a
// secret-named variable, other than as the whole address an HTTP client
// sends to ("$SLACK_WEBHOOK_URL": the request goes where the secret points)
// or as the credential of a request that writes through an API (that is
// using the key, and asks as a write: acts_api.go), nor by a command that
// stores credentials (gh secret set, aws ssm put-parameter: that asks).
func (ctx *scriptCtx) sendsSecretVar(i int, a *argv) bool {
	inv := &ctx.invs[i]
	if ctx.actsAt(i, a)&actStoreCredentials != 0 {
		return false // stored in a credential store: that asks (store-credentials)
	}
	var operands []string
	apiWrite := false
	if httpClients[a.name] {
		operands = httpOperands(inv, a)
		apiWrite = httpAPIWrites(inv, a) != 0
	}
	for k, w := range inv.Args {
		if strings.IndexByte(w, '$') < 0 {
			continue
		}
		refs := secretVarRefs(w)
		switch {
		case len(refs) == 0:
		case len(refs) == 1 && contains(operands, w) && addressIs(w, refs[0]):
		case apiWrite && credentialArg(inv.Args, k):
		default:
			return true
		}
	}
	return false
}

// addressIs tells whether word w, quotes aside, starts with variable name's
// value: the variable is the address itself.
func addressIs(w, name string) bool {
	w = strings.Trim(w, `"'`)
	return strings.HasPrefix(w, "$"+name) && (len(w) == len(name)+1 || !isNameByte(w[len(name)+1], false)) ||
		strings.HasPrefix(w, "${"+name+"}")
}

// credentialArg tells whether args[k] is an HTTP client's credential: an
// authenticating header, or the value of a user, password or token option.
func credentialArg(args []string, k int) bool {
	w := strings.Trim(args[k], `"'`)
	if v, ok := strings.CutPrefix(w, "--header="); ok {
		w = strings.Trim(v, `"'`)
	}
	if credentialHeader.MatchString(w) && !strings.Contains(w, "://") {
		return true
	}
	for _, o := range []string{"--user=", "--auth=", "--bearer=", "--oauth2-bearer=", "--password=", "--http-password=", "-u"} {
		if len(w) > len(o) && strings.HasPrefix(w, o) {
			return true
		}
	}
	if k == 0 {
		return false
	}
	switch args[k-1] {
	case "-u", "--user", "-a", "--auth", "--bearer", "--oauth2-bearer", "--password", "--http-password":
		return true
	}
	return false
}

// pipedIntoStore reports whether invocation i's output is piped into a
// command that keeps it as a credential: logs in with it (docker login
// --password-stdin, gh auth login --with-token), stores it (git credential
// approve) or sets it as a secret of a service (gh secret set, wrangler
// secret put, vercel env add). Printing a secret into that pipe hands it
// over; it does not show it.
func (ctx *scriptCtx) pipedIntoStore(i int) bool {
	if i+1 >= len(ctx.invs) || !ctx.invs[i+1].PipedInto {
		return false
	}
	a := ctx.arg(i + 1)
	if ctx.actsAt(i+1, a)&actStoreCredentials != 0 {
		return true
	}
	for k, w := range a.words {
		switch w {
		case "--password-stdin", "--with-token", "--token-stdin", "--password-from-stdin":
			return true
		case "secret", "secrets", "env":
			if k+1 < len(a.words) {
				switch a.words[k+1] {
				case "set", "put", "add", "create", "versions":
					return true
				}
			}
		}
	}
	return false
}
