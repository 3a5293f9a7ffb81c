package policy

import (
	"net/url"
	"regexp"
	"strings"
)

// A package manager takes its packages from wherever its project files
// say: a registry line in .npmrc, an index in requirements.txt or pip.conf,
// a source in a Gemfile, a [patch] or [source] in Cargo files, a replace in
// go.mod. Written by a script, such a line makes every later install (the
// user's too, outside the sandbox) fetch code from there, install scripts
// and all. foreignPackageSource finds, in the text a command writes (its
// arguments and here-documents), a setting that names a source other than
// the ecosystem's default registry (rules package-source-redirect*).

// sourceSettingRe: a key that names a package source, then its address
// (Round 20: Maven's, given as a property: -Dmaven.repo.remote=URL).
var sourceSettingRe = regexp.MustCompile(`(?i)(?:^|[\s'"{,;(\[#/|])(?:-D(?:maven\.repo\.remote|remoteRepositories|maven\.repo\.url)|(?:@[\w.-]+:)?(?:registry|index-url|extra-index-url|find-links|npmRegistryServer|source|replace-with|url|mirror|index|registry-index|default-index|--index-url|--extra-index-url|--find-links|--registry|--source|--index|--default-index|-i|-f))['"]?\s*[=: ]\s*['"]?((?:git\+|sparse\+)?(?:https?|ftp|ssh)://[^\s'"<>,)\]}\\]+)`)

// patchGitRe: in a Cargo [patch] or [replace] table, a crate taken from a
// repository or another registry.
var patchGitRe = regexp.MustCompile(`(?i)\b(?:git|registry|registry-index)\s*=\s*['"]((?:git\+|sparse\+)?(?:https?|ssh|git)://[^\s'"]+|git@[^\s'"]+)`)

// goReplaceRe: a go.mod replace directive whose new module is another
// module path (fetched), not a directory (../fork, ./vendor/x, /abs).
var goReplaceRe = regexp.MustCompile(`(?m)(?:^|\(|\\n)\s*(?:replace\s+)?[\w.~/-]+(?:\s+v[\w.+-]+)?\s+=>\s+([a-z0-9-]+\.)+[a-z]{2,}/`)

// defaultSources are the ecosystems' own registries (and PyTorch's wheel
// index, which its install instructions name): a setting that names one
// of them changes nothing.
var defaultSources = map[string]bool{
	"registry.npmjs.org": true, "registry.npmjs.com": true, "registry.yarnpkg.com": true,
	"pypi.org": true, "pypi.python.org": true, "files.pythonhosted.org": true, "download.pytorch.org": true,
	"rubygems.org": true, "index.rubygems.org": true, "crates.io": true, "index.crates.io": true, "static.crates.io": true,
	"proxy.golang.org": true, "repo.maven.apache.org": true, "repo1.maven.org": true, "plugins.gradle.org": true,
	"api.nuget.org": true, "packagist.org": true, "repo.packagist.org": true, "conda.anaconda.org": true, "repo.anaconda.com": true,
	"localhost": true, "127.0.0.1": true, "[::1]": true,
}

// foreignSource: an address that is not one of the default registries.
func foreignSource(addr string) bool {
	if strings.HasPrefix(addr, "git@") {
		return true
	}
	addr = strings.TrimPrefix(strings.TrimPrefix(addr, "git+"), "sparse+")
	u, err := url.Parse(addr)
	if err != nil || u.Host == "" {
		return true
	}
	if u.Host == "github.com" && strings.HasPrefix(u.Path, "/rust-lang/crates.io-index") {
		return false
	}
	return !defaultSources[strings.ToLower(u.Hostname())] && !defaultSources[strings.ToLower(u.Host)]
}

// foreignPackageSource reports whether the text invocation i writes sets a
// package source to an address other than a default registry.
func (ctx *scriptCtx) foreignPackageSource(i int, a *argv) bool {
	inv := &ctx.invs[i]
	// a stream editor's substitution names the new address alone
	// (s#https://rubygems.org#https://gems.example#): any address counts
	editor := streamEditors[inv.Name]
	// an installer told where to fetch from: --index-url URL, --registry URL
	if packageInstallVerbs[a.name][a.subcommand] && len(inv.Env) > 0 && indexFromEnv(inv.Env) {
		return true // Round 14: PIP_INDEX_URL=URL pip install x
	}
	if packageInstallVerbs[a.name][a.subcommand] && len(inv.Args) > 1 {
		return textSetsForeignSource(strings.Join(inv.Args, " "))
	}
	for _, a := range inv.Args {
		if textSetsForeignSource(a) || editor && textHasForeignURL(a) {
			return true
		}
	}
	for _, r := range inv.Redirects {
		if (r.Op == "<<" || r.Op == "<<-" || r.Op == "<<<") && r.FD == "" && textSetsForeignSource(r.Target) {
			return true
		}
	}
	return false
}

// streamEditors edit a file in place by a program in their arguments.
var streamEditors = map[string]bool{"sed": true, "gsed": true, "perl": true, "ruby": true}

// anyURLRe: an address, up to a quote, a space or a substitution's delimiter.
var anyURLRe = regexp.MustCompile(`(?:git\+|sparse\+)?(?:https?|ftp|ssh)://[^\s'"<>|#,;)\]}\\]+`)

func textHasForeignURL(text string) bool {
	if !strings.Contains(text, "://") && !strings.Contains(text, `:\/\/`) {
		return false
	}
	text = strings.ReplaceAll(text, `\/`, "/")
	for _, u := range anyURLRe.FindAllString(text, -1) {
		if foreignSource(u) {
			return true
		}
	}
	return false
}

func textSetsForeignSource(text string) bool {
	hasURL := strings.Contains(text, "://") || strings.Contains(text, `:\/\/`) || strings.Contains(text, "git@")
	if !hasURL && !strings.Contains(text, "=>") {
		return false
	}
	text = strings.NewReplacer(`\/`, "/", `\n`, "\n", `\t`, "\t").Replace(text)
	if strings.Contains(text, "=>") && goReplaceRe.MatchString(text) {
		return true
	}
	if !hasURL {
		return false
	}
	for _, m := range sourceSettingRe.FindAllStringSubmatch(text, -1) {
		if foreignSource(m[1]) {
			return true
		}
	}
	if strings.Contains(text, "[patch") || strings.Contains(text, "[replace") {
		for _, m := range patchGitRe.FindAllStringSubmatch(text, -1) {
			if foreignSource(m[1]) {
				return true
			}
		}
	}
	return false
}
