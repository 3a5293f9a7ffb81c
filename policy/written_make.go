package policy

import (
	"encoding/json"
	"strings"

	"github.com/stockade/stockade/parse"
)

// writtenRecipes returns, as shell code, the recipe lines of the makefile
// make reads when the script wrote (or appended) its text: printf
// 'setup:\n\tcp x .git/hooks/post-merge\n' >> Makefile && make setup runs
// that cp. It returns "" when make reads no such file.
func writtenRecipes(inv *parse.Invocation, files map[string]string, key func(string) string) string {
	names := []string{"GNUmakefile", "makefile", "Makefile"}
	for k, a := range inv.Args {
		if inv.DynamicArgs != nil && inv.DynamicArgs[k] {
			return ""
		}
		switch {
		case (a == "-f" || a == "--file" || a == "--makefile") && k+1 < len(inv.Args):
			names = []string{inv.Args[k+1]}
		case strings.HasPrefix(a, "--file=") || strings.HasPrefix(a, "--makefile="):
			_, v, _ := strings.Cut(a, "=")
			names = []string{v}
		case strings.HasPrefix(a, "-f") && len(a) > 2:
			names = []string{a[2:]}
		case a == "-C" || strings.HasPrefix(a, "--directory"):
			return "" // another directory's makefile
		}
	}
	var code strings.Builder
	for _, n := range names {
		text, ok := files[key(n)]
		if !ok {
			continue
		}
		for _, l := range strings.Split(text, "\n") {
			if r, ok := strings.CutPrefix(l, "\t"); ok {
				code.WriteString(strings.TrimLeft(r, "@-+ "))
				code.WriteByte('\n')
			}
		}
	}
	return code.String()
}

// packageScriptRunners run the scripts of package.json.
var packageScriptRunners = map[string]bool{"npm": true, "pnpm": true, "yarn": true, "bun": true}

// writtenPackageScripts returns, as shell code, the scripts of a
// package.json the script wrote that the package manager runs: the
// install hooks for an install, the named script (with its pre and post)
// for run, test or start. It returns "" when there are none.
func writtenPackageScripts(inv *parse.Invocation, files map[string]string, key func(string) string) string {
	text, ok := files[key("package.json")]
	if !ok {
		return ""
	}
	var pkg struct {
		Scripts map[string]string `json:"scripts"`
	}
	if json.Unmarshal([]byte(text), &pkg) != nil || len(pkg.Scripts) == 0 {
		return ""
	}
	var names []string
	sub, rest := "", []string(nil)
	for k, a := range inv.Args {
		if !strings.HasPrefix(a, "-") {
			sub, rest = a, inv.Args[k+1:]
			break
		}
	}
	switch sub {
	case "", "install", "i", "ci", "add", "isntall", "in":
		names = []string{"preinstall", "install", "postinstall", "prepare"}
	case "run", "run-script", "rum", "urn":
		if len(rest) > 0 {
			names = []string{"pre" + rest[0], rest[0], "post" + rest[0]}
		}
	case "test", "t", "start", "restart", "stop":
		names = []string{"pre" + sub, sub, "post" + sub}
	default:
		if inv.Name == "yarn" || inv.Name == "bun" || inv.Name == "pnpm" {
			names = []string{"pre" + sub, sub, "post" + sub} // yarn build runs the build script
		}
	}
	var code strings.Builder
	for _, n := range names {
		if c := pkg.Scripts[n]; c != "" {
			code.WriteString(c)
			code.WriteByte('\n')
		}
	}
	return code.String()
}

// Round 16: a script set with the package manager (npm pkg set
// scripts.dbg='...', npm set-script dbg '...') is written as surely as
// one written into package.json with echo: run later in the script, its
// text is judged as the script's own commands.

// setPackageScripts returns the scripts inv sets in package.json, name
// to text, when it is npm pkg set (pnpm, yarn, bun pm pkg set) or npm
// set-script with static words.
func setPackageScripts(inv *parse.Invocation) map[string]string {
	if !packageScriptRunners[commandName(inv.Name)] || inv.Dynamic {
		return nil
	}
	var set map[string]string
	put := func(name, text string) {
		if set == nil {
			set = map[string]string{}
		}
		set[name] = text
	}
	for k := 0; k+1 < len(inv.Args); k++ {
		switch {
		case inv.Args[k] == "set-script" && k+2 < len(inv.Args) && !dynArg(inv, k+1) && !dynArg(inv, k+2):
			put(inv.Args[k+1], inv.Args[k+2])
			return set
		case inv.Args[k] == "pkg" && inv.Args[k+1] == "set":
			for j := k + 2; j < len(inv.Args); j++ {
				name, text, ok := strings.Cut(strings.TrimPrefix(inv.Args[j], "scripts."), "=")
				if ok && !dynArg(inv, j) && strings.HasPrefix(inv.Args[j], "scripts.") {
					put(name, text)
				}
			}
			return set
		}
	}
	return nil
}

// withPackageScripts returns the text of package.json (as the script
// wrote it, or an empty one) with the scripts set added.
func withPackageScripts(text string, set map[string]string) string {
	var pkg map[string]any
	if json.Unmarshal([]byte(text), &pkg) != nil || pkg == nil {
		pkg = map[string]any{}
	}
	scripts, _ := pkg["scripts"].(map[string]any)
	if scripts == nil {
		scripts = map[string]any{}
	}
	for n, c := range set {
		scripts[n] = c
	}
	pkg["scripts"] = scripts
	out, _ := json.Marshal(pkg)
	return string(out)
}

// writtenNinjaCommands returns, as shell code, the commands of the rules
// of a ninja file the script wrote that ninja reads (-f FILE, else
// build.ninja), with ninja's $$ written as $.
func writtenNinjaCommands(inv *parse.Invocation, files map[string]string, key func(string) string) string {
	name := "build.ninja"
	for k, a := range inv.Args {
		if a == "-f" && k+1 < len(inv.Args) && !dynArg(inv, k+1) {
			name = inv.Args[k+1]
		} else if a == "-C" {
			return "" // another directory's build file
		}
	}
	text, ok := files[key(name)]
	if !ok {
		return ""
	}
	var code strings.Builder
	for _, l := range strings.Split(text, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), "command"); ok {
			if v, ok = strings.CutPrefix(strings.TrimSpace(v), "="); ok {
				code.WriteString(strings.ReplaceAll(strings.TrimSpace(v), "$$", "$"))
				code.WriteByte('\n')
			}
		}
	}
	return code.String()
}
