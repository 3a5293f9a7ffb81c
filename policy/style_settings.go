package policy

import (
	"encoding/json"
	"strings"

	"github.com/stockade/stockade/parse"
)

// Round 14: an editor's project settings that only set style (format on
// save, tab size, rulers, excluded files) run nothing; the settings that
// name a program, a path, a terminal's environment or a task do. A
// settings file whose whole text the script shows, every key a style
// setting, is told apart from one written by copying, appending or with
// keys that run code.

// styleSettingPrefixes: the groups of VS Code's (and its forks') settings
// that set how text looks or which files are shown.
var styleSettingPrefixes = []string{"editor.", "files.", "search.", "workbench.", "explorer.", "diffEditor.", "breadcrumbs.", "scm.", "emmet.", "html.format.", "css.lint.", "scss.lint.", "less.lint."}

// writesStyleSettings reports whether inv writes, through > or tee (not
// appending), a JSON object whose text the script shows and whose every
// key is a style setting.
func writesStyleSettings(inv *parse.Invocation) bool {
	n := commandName(inv.Name)
	if n != "echo" && n != "printf" && n != "cat" && n != "tee" || n == "tee" && (hasShortWord(inv.Args, 'a') || contains(inv.Args, "--append")) {
		return false
	}
	for _, r := range inv.Redirects {
		if r.Op == ">>" || r.Op == "&>>" {
			return false
		}
	}
	text, ok := writtenText(inv)
	if !ok {
		return false
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal([]byte(text), &obj) != nil {
		return false
	}
	return styleKeys(obj, true)
}

func styleKeys(obj map[string]json.RawMessage, top bool) bool {
	for k, v := range obj {
		if top && strings.HasPrefix(k, "[") && strings.HasSuffix(k, "]") {
			var inner map[string]json.RawMessage
			if json.Unmarshal(v, &inner) != nil || !styleKeys(inner, false) {
				return false
			}
			continue
		}
		if !styleKey(k) {
			return false
		}
	}
	return true
}

func styleKey(k string) bool {
	l := strings.ToLower(k)
	for _, w := range []string{"path", "command", "executable", "args", "program", "shell", "env", "terminal", "task", "runtime", "server"} {
		if strings.Contains(l, w) {
			return false
		}
	}
	for _, p := range styleSettingPrefixes {
		if strings.HasPrefix(k, p) {
			return true
		}
	}
	return false
}

// hasShortWord reports whether some word is a short-option cluster with c
// (-a, -ai).
func hasShortWord(words []string, c byte) bool {
	for _, w := range words {
		if len(w) > 1 && w[0] == '-' && w[1] != '-' && strings.IndexByte(w, c) > 0 {
			return true
		}
	}
	return false
}
