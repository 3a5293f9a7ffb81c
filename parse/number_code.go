package parse

import "strings"

// Round 19: a shell's -c string built with the output of a command that
// prints only a number (sh -c "make -j$(nproc)", bash -c "chown
// $(id -u):$(id -g) out") is known code up to that number: digits cannot
// add a command. The string is read with a number in each such place;
// the substituted command is reported where it stands, as always.

// numberCommands print a number and nothing else.
var numberCommands = map[string]bool{
	"nproc": true, "getconf _NPROCESSORS_ONLN": true, "getconf NPROCESSORS_ONLN": true, "id -u": true, "id -g": true,
	"id -ru": true, "id -rg": true, "date +%s": true, "sysctl -n hw.ncpu": true, "nproc --all": true,
}

// NumberCommand reports whether name begins one of the commands whose
// number NumberCode reads as known: a function of that name defined in the
// script prints what it likes, so the caller must not trust it then.
func NumberCommand(name string) bool {
	for c := range numberCommands {
		if first, _, _ := strings.Cut(c, " "); first == name {
			return true
		}
	}
	return false
}

// NumberCode returns the text of a double-quoted word whose only
// expansions are $(...) of numberCommands, each replaced by 1, and true;
// or false when the word holds anything else that runs at run time.
func NumberCode(src string) (string, bool) {
	body, ok := strings.CutPrefix(src, `"`)
	if !ok {
		return "", false
	}
	if body, ok = strings.CutSuffix(body, `"`); !ok || !strings.Contains(body, "$(") {
		return "", false
	}
	var out strings.Builder
	for body != "" {
		i := strings.IndexAny(body, "$`\\\"")
		if i < 0 {
			out.WriteString(body)
			break
		}
		out.WriteString(body[:i])
		rest, ok := strings.CutPrefix(body[i:], "$(")
		if !ok {
			return "", false
		}
		j := strings.IndexByte(rest, ')')
		if j < 0 || !numberCommands[strings.Join(strings.Fields(rest[:j]), " ")] {
			return "", false
		}
		out.WriteString("1")
		body = rest[j+1:]
	}
	return out.String(), true
}
