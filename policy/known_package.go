package policy

import (
	"strings"

	"github.com/stockade/stockade/parse"
)

// A package runner (npx, pnpm dlx, bunx, yarn dlx, npm exec, uvx) fetches a
// package and runs it; told --yes or @latest it does so without showing
// which. The danger is a name one letter off a real tool's
// (runs-package-unasked, runs-package-latest). knownPackageRun tells apart
// the runs whose every package is a widely used developer tool, by its
// exact name or by a scope only its owner can publish under (@biomejs/biome,
// @angular/cli): a typo of one of them is not in the list.

// knownPackages are packages developers commonly run this way
// (scaffolders, formatters, linters, test runners, ORMs' CLIs).
var knownPackages = map[string]bool{
	"create-vite": true, "create-next-app": true, "create-react-app": true, "create-remix": true, "create-astro": true, "create-svelte": true,
	"create-vue": true, "create-t3-app": true, "create-expo-app": true, "sv": true, "nuxi": true, "shadcn": true, "shadcn-ui": true,
	"prettier": true, "eslint": true, "typescript": true, "vitest": true, "jest": true, "prisma": true, "turbo": true, "nx": true,
	"degit": true, "serve": true, "http-server": true, "npm-check-updates": true, "storybook": true, "playwright": true, "tailwindcss": true,
	"vite": true, "tsx": true, "ts-node": true, "rimraf": true, "concurrently": true, "cross-env": true, "husky": true, "lint-staged": true,
	"knip": true, "depcheck": true, "madge": true, "sort-package-json": true, "expo": true, "wrangler": true, "vercel": true,
	"netlify-cli": true, "firebase-tools": true, "lerna": true, "npm-run-all": true, "pyright": true, "markdownlint-cli": true,
	"stylelint": true, "svgo": true, "openapi-typescript": true, "drizzle-kit": true, "typeorm": true, "sequelize-cli": true, "knex": true,
	"license-checker": true, "wait-on": true, "kill-port": true,
	// Round 14: project configuration validators and linters (renovate,
	// commitlint, cspell). Not renovate-config-validator: that name on npm is
	// a placeholder package, the tool ships inside renovate.
	"renovate": true, "markdownlint-cli2": true, "cspell": true,
	// Round 21: the other linters, formatters, bundlers and test runners
	// as widely run as those above
	"oxlint": true, "dprint": true, "publint": true, "syncpack": true, "jscpd": true, "c8": true, "nyc": true, "mocha": true,
	"esbuild": true, "rollup": true, "webpack-cli": true, "tsup": true, "vite-node": true, "size-limit": true, "lighthouse": true,
	// uvx, pipx run
	"flake8": true, "pylint": true, "bandit": true, "pip-audit": true, "pyupgrade": true, "codespell": true, "yamllint": true,
	"sqlfluff": true, "vulture": true,
	"ruff": true, "black": true, "mypy": true, "pytest": true, "pre-commit": true, "cookiecutter": true, "tox": true, "nox": true,
	"pip-tools": true, "isort": true, "httpie": true,
}

// knownScopes are npm scopes whose packages only their owners publish.
var knownScopes = map[string]bool{
	"@angular": true, "@biomejs": true, "@nestjs": true, "@vue": true, "@sveltejs": true, "@storybook": true, "@playwright": true,
	"@prisma": true, "@tailwindcss": true, "@vitejs": true, "@redocly": true, "@openapitools": true, "@graphql-codegen": true,
	"@changesets": true, "@expo": true, "@react-native-community": true, "@mermaid-js": true, "@astrojs": true, "@remix-run": true,
	"@nrwl": true, "@nx": true, "@typescript-eslint": true, "@eslint": true, "@commitlint": true, "@cspell": true, "@stoplight": true,
}

// knownPackage: a package spec (name, name@version, @scope/name@version)
// that names a known package.
func knownPackage(spec string) bool {
	name := spec
	if strings.HasPrefix(name, "@") {
		scope, rest, ok := strings.Cut(name, "/")
		if !ok || !knownScopes[scope] {
			return false
		}
		pkg, _, _ := strings.Cut(rest, "@")
		return pkg != "" && strings.Trim(pkg, "abcdefghijklmnopqrstuvwxyz0123456789-._") == ""
	}
	name, _, _ = strings.Cut(name, "@")
	return knownPackages[name]
}

// knownPackageRun reports whether every package the runner invocation
// would fetch is a known one: the command it runs (npx PKG ARGS) and any
// --package it is given, all words known.
func knownPackageRun(inv *parse.Invocation) bool {
	if inv.Dynamic || inv.DynamicArgs != nil && anyTrue(inv.DynamicArgs) {
		return false
	}
	if spec, ok := npmInitializer(inv); ok {
		return knownPackage(spec) // Round 21: npm init X runs create-X (npm_init.go)
	}
	code, direct := launchedCode(inv)
	if direct != nil || len(code) == 0 {
		return false
	}
	specAt := 0 // the last package word: a runner's options come before it
	for _, c := range code {
		// the command is the package's program (@biomejs/biome runs
		// biome): the package is the first word that names it
		f := strings.Fields(c)
		if len(f) == 0 {
			return false
		}
		spec := ""
		for k, a := range inv.Args {
			if !strings.HasPrefix(a, "-") && packageCommand(a) == strings.Trim(f[0], `'"`) {
				spec = a
				specAt = max(specAt, k)
				break
			}
		}
		if !knownPackage(spec) {
			return false
		}
	}
	for k, a := range inv.Args {
		v, ok := "", false
		switch {
		case a == "-p" || a == "--package" || k < specAt && (a == "--from" || a == "--spec" || a == "--with"):
			// Round 19: uvx --from and --with, pipx run --spec, before
			// the package, name what is fetched as well (uvx --from
			// git+https://... black)
			if k+1 < len(inv.Args) {
				v, ok = inv.Args[k+1], true
			}
		case strings.HasPrefix(a, "--package=") || k < specAt && (strings.HasPrefix(a, "--from=") || strings.HasPrefix(a, "--spec=") || strings.HasPrefix(a, "--with=")):
			_, v, _ = strings.Cut(a, "=")
			ok = true
		case a == "-c" || a == "--call" || strings.HasPrefix(a, "--call="):
			return false // a shell command line, judged as such
		}
		if ok && !knownPackage(v) {
			return false
		}
	}
	return true
}
