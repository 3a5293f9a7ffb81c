package policy

import (
	"strings"

	"github.com/stockade/stockade/parse"
)

// Round 19: an installer told to fetch a package from a git repository
// (pip install git+https://github.com/psf/black@24.4.2, npm install
// github:sindresorhus/slugify) runs that repository's build and install
// scripts. From the repository of the people who publish a widely used
// package to its registry, that is the code the registry would have given,
// at a branch or tag of theirs: knownSourceInstall tells those installs
// apart. Only github.com over an authenticated transport counts (https,
// ssh, the github: and owner/repo shorthands of the npm family), and only
// the owners below, matched whole: a look-alike owner (psf-dev, sindresorhus0)
// or another host is not among them.

// knownOwners are GitHub owners (organisations and maintainers) whose
// repositories are the sources of widely used packages: language and
// framework projects, their tool makers, and prolific package authors.
var knownOwners = map[string]bool{
	// Python
	"psf": true, "pypa": true, "python": true, "pallets": true, "django": true, "encode": true, "pydantic": true, "tiangolo": true,
	"fastapi": true, "astral-sh": true, "pytest-dev": true, "tox-dev": true, "numpy": true, "pandas-dev": true, "scikit-learn": true,
	"scipy": true, "matplotlib": true, "huggingface": true, "pytorch": true, "tensorflow": true, "sqlalchemy": true, "celery": true,
	"python-poetry": true, "jazzband": true, "aio-libs": true, "boto": true, "pre-commit": true, "pycqa": true, "PyCQA": true,
	// JavaScript and TypeScript
	"sindresorhus": true, "npm": true, "nodejs": true, "microsoft": true, "facebook": true, "vercel": true, "expressjs": true,
	"lodash": true, "axios": true, "chalk": true, "vuejs": true, "sveltejs": true, "angular": true, "prettier": true, "eslint": true,
	"jestjs": true, "vitejs": true, "vitest-dev": true, "withastro": true, "remix-run": true, "prisma": true, "tailwindlabs": true,
	"mui": true, "reduxjs": true, "TanStack": true, "tanstack": true, "denoland": true, "oven-sh": true, "webpack": true, "babel": true,
	"rollup": true, "evanw": true, "typescript-eslint": true, "tj": true, "isaacs": true, "ljharb": true, "yargs": true,
	"colinhacks": true, "date-fns": true, "moment": true, "mochajs": true, "cypress-io": true, "puppeteer": true,
	// other ecosystems' own and the big vendors' SDKs
	"golang": true, "rust-lang": true, "tokio-rs": true, "serde-rs": true, "google": true, "googleapis": true, "aws": true,
	"Azure": true, "kubernetes": true, "docker": true, "hashicorp": true, "openai": true, "anthropics": true, "rails": true,
	"github": true, "actions": true, "dotnet": true, "spf13": true, "stretchr": true,
}

// knownSourceInstall reports whether every package address installer
// invocation inv is given is a repository of a knownOwners owner on
// github.com, and it is given at least one; an index or registry option
// (--index-url, --registry) is another source.
func knownSourceInstall(inv *parse.Invocation, a *argv) bool {
	if inv.Dynamic || inv.DynamicArgs != nil && anyTrue(inv.DynamicArgs) {
		return false
	}
	npmFamily := false
	switch a.name {
	case "npx", "pnpx", "bunx", "uvx":
		return false // a runner: its other words name the package it runs (known_package.go)
	case "npm", "pnpm", "yarn", "bun":
		npmFamily = true
	}
	switch a.subcommand {
	case "dlx", "exec", "x", "run", "tool":
		return false
	}
	n := 0
	for _, w := range inv.Args {
		if strings.HasPrefix(w, "-") {
			name, _, _ := strings.Cut(strings.TrimLeft(w, "-"), "=")
			switch name {
			case "index-url", "extra-index-url", "i", "find-links", "f", "registry", "git", "source", "repository":
				return false
			}
			continue
		}
		owner, address := repositoryOwner(w, npmFamily)
		if !address {
			continue
		}
		if !knownOwners[owner] || !ownersOwnRef(w) {
			return false
		}
		n++
	}
	return n > 0
}

// githubPrefixes are the spellings of a github.com repository's address
// before its owner.
var githubPrefixes = []string{"github:", "git+https://github.com/", "https://github.com/", "git+ssh://git@github.com/", "ssh://git@github.com/", "git@github.com:"}

// repositoryOwner returns the GitHub owner a package address names, and
// whether the word is an address at all (a URL, git@, or, for the npm
// family, a github:, gitlab:... or owner/repo shorthand); owner is ""
// for an address elsewhere.
func repositoryOwner(w string, npmFamily bool) (owner string, address bool) {
	rest, found := "", false
	for _, prefix := range githubPrefixes {
		if rest, found = strings.CutPrefix(w, prefix); found {
			break
		}
	}
	switch {
	case found:
	case strings.Contains(w, "://") || strings.HasPrefix(w, "git@") || strings.HasPrefix(w, "git+"):
		return "", true
	case npmFamily && strings.Contains(w, ":") && !strings.HasPrefix(w, "@"):
		return "", true // gitlab:, bitbucket:, gist:, file:
	case npmFamily && !strings.HasPrefix(w, "@") && !strings.HasPrefix(w, ".") && !strings.HasPrefix(w, "/") && strings.Count(strings.SplitN(w, "#", 2)[0], "/") == 1:
		rest = w
	default:
		return "", false
	}
	owner, repo, ok := strings.Cut(rest, "/")
	if !ok || repo == "" || strings.HasPrefix(repo, ".") {
		return "", true
	}
	return owner, true
}

// ownersOwnRef reports whether the address w names only its owner's own
// code: the default branch, or a branch or tag by name (@v2.32.3,
// #v4.19.2, #semver:^4). A commit id may be a commit of any fork: GitHub
// serves the objects of a fork network from each of its repositories, so
// psf/requests@<commit> installs whatever commit someone pushed to a fork
// of it; so may a pull request's ref (refs/pull/N/head).
func ownersOwnRef(w string) bool {
	for _, sep := range []string{"@", "#"} {
		i := strings.LastIndex(w, sep)
		if i < 0 || sep == "@" && strings.HasPrefix(w[i:], "@github.com") {
			continue
		}
		ref, _, _ := strings.Cut(w[i+len(sep):], "#") // pip's #egg=NAME after @ref
		if strings.Contains(ref, "pull/") || strings.HasPrefix(ref, "refs/") && !strings.HasPrefix(ref, "refs/tags/") && !strings.HasPrefix(ref, "refs/heads/") || commitID(ref) {
			return false
		}
	}
	return true
}

// commitID reports whether ref is written as a commit id: 7 to 40
// hexadecimal digits.
func commitID(ref string) bool {
	if len(ref) < 7 || len(ref) > 40 {
		return false
	}
	for i := 0; i < len(ref); i++ {
		if c := ref[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}
