package parse

import (
	"encoding/base64"
	"strings"
	"sync"
	"unicode/utf16"
)

// bashLike are shells whose code this package parses as bash. dash, ash, ksh
// and zsh read some text differently from bash (dash has no brace expansion
// and no $'...', zsh runs code in glob qualifiers); their code is parsed as
// bash all the same, so what bash would run is reported, and it is also
// reported as InlineCode so a policy can judge the shell.
func bashLike(base string) bool {
	switch base {
	case "bash", "sh", "dash", "ash", "rbash", "ksh", "ksh93", "mksh", "pdksh", "zsh", "yash", "posh", "lksh":
		return true
	}
	return false
}

// otherShells take code with -c but read it too differently to parse as bash.
func otherShell(base string) bool {
	switch base {
	case "fish", "csh", "tcsh", "nu", "elvish", "xonsh", "rc":
		return true
	}
	return false
}

func shellName(base string) string {
	if bashLike(base) || otherShell(base) {
		return base
	}
	return ""
}

// appendsArgs reports whether the innermost wrapper adds arguments at run time.
func appendsArgs(via []string) bool {
	if len(via) == 0 {
		return false
	}
	v := via[len(via)-1]
	return v == "xargs" || strings.HasPrefix(v, "find -")
}

func shellHandler(c *cmdCtx) {
	argv := c.argv
	cmode, smode := false, false
	nmode, imode := false, false // -n reads commands without running them; -i ignores -n
	i := 1
scan:
	for i < len(argv) {
		w := argv[i]
		if w.dyn {
			if nmode && !imode {
				return // a syntax check (bash -n "$f"): nothing runs
			}
			if cmode {
				break scan // the code string
			}
			c.unknown(i, c.base)
			return
		}
		t := w.text
		switch {
		case t == "--" || t == "-":
			i++
			break scan
		case strings.HasPrefix(t, "--"):
			if t == "--rcfile" || t == "--init-file" {
				i++
			}
		case len(t) > 1 && (t[0] == '-' || t[0] == '+'):
			for j := 1; j < len(t); j++ {
				switch t[j] {
				case 'c':
					cmode = true
				case 's':
					smode = true
				case 'n':
					nmode = true
				case 'i':
					imode = true
				case 'o', 'O':
					i++
				}
			}
		default:
			break scan
		}
		i++
	}
	switch {
	case cmode:
		if i >= len(argv) {
			if appendsArgs(c.via) {
				c.unknown(len(argv)-1, c.base+" -c")
			}
			return
		}
		cw := argv[i]
		c.setInline(c.base, cw)
		if bashLike(c.base) {
			c.code(cw, c.base+" -c")
		}
	case i < len(argv) && !smode:
		// A script file: not analysed here.
	case c.stdin != nil && (c.stdin.dyn || c.stdin.text != ""):
		if c.stdin.dyn {
			c.setInline(c.base, word{text: c.stdin.text, dyn: true, pos: c.stdin.pos})
		} else {
			c.setInline(c.base, word{text: c.stdin.text, pos: c.stdin.pos})
		}
		if bashLike(c.base) && c.stdin.pos != (Pos{}) {
			c.code(word{text: c.stdin.text, dyn: c.stdin.dyn, pos: c.stdin.pos}, c.base+" <<")
		}
	}
}

// interpSpec describes how an interpreter takes a program on its command line.
type interpSpec struct {
	codeShort string   // short options whose argument is code (python -c, perl -e)
	codeLong  []string // long options whose argument is code (node --eval)
	codeWords []string // whole words whose next argument is code (gdb -ex)
	argShort  string   // short options taking a separate or attached argument
	attached  string   // short options whose argument, if any, is the rest of the word (perl -i.bak)
	argLong   []string // long options taking an argument when not written --opt=ARG
	fileShort string   // short options naming a program file (awk -f)
	fileLong  []string
	stopShort string // short options after which the rest are not interpreter options (python -m)
	// operandProgram: the first operand is the program unless a code or file option was given (awk, sed).
	operandProgram bool
	// scriptStops: the first operand is a script; later words are its arguments.
	scriptStops bool
	stdinCode   bool // with no program given, the program is read from standard input
	// dataOperands: operands are files to work on, never the program (ed).
	dataOperands bool
}

// interps is built on first use, not when the program starts.
var interps = sync.OnceValue(func() map[string]*interpSpec {
	return map[string]*interpSpec{
		"python": {codeShort: "c", argShort: "WX", stopShort: "m", scriptStops: true, stdinCode: true},
		"node": {codeShort: "ep", codeLong: []string{"eval", "print"}, argShort: "rC",
			argLong:     []string{"require", "import", "loader", "experimental-loader", "conditions", "input-type", "env-file", "title"},
			scriptStops: true, stdinCode: true},
		"perl":      {codeShort: "eE", attached: "ilo0FCdDMmIxV", stdinCode: true},
		"ruby":      {codeShort: "e", argShort: "rICE", attached: "0FilTWxK", stdinCode: true},
		"php":       {codeShort: "rBRE", argShort: "dcz", fileShort: "f", stdinCode: true},
		"lua":       {codeShort: "e", argShort: "l", scriptStops: true, stdinCode: true},
		"osascript": {codeShort: "e", argShort: "ls", scriptStops: true, stdinCode: true},
		"Rscript":   {codeShort: "e", scriptStops: true},
		"R":         {codeShort: "e"},
		"julia":     {codeShort: "eE", codeLong: []string{"eval", "print"}, scriptStops: true},
		"expect":    {codeShort: "c", stdinCode: false},
		// Compiled languages' evaluators and the other VMs' one-liners.
		"ghc":     {codeShort: "e", scriptStops: true},
		"runghc":  {codeWords: []string{"-e"}},
		"elixir":  {codeShort: "e", codeLong: []string{"eval"}, argShort: "r", scriptStops: true},
		"erl":     {codeWords: []string{"-eval"}},
		"groovy":  {codeShort: "e", scriptStops: true},
		"racket":  {codeShort: "e", scriptStops: true},
		"guile":   {codeShort: "ce", scriptStops: true},
		"gnuplot": {codeShort: "e", codeLong: []string{"eval"}, scriptStops: true},
		"bb":      {codeShort: "e", codeLong: []string{"eval"}, scriptStops: true},
		"sbcl":    {codeLong: []string{"eval"}},
		"kotlinc": {codeWords: []string{"-e", "-expression"}},
		"swift":   {codeShort: "e", scriptStops: true, stdinCode: true},
		"gdb":     {codeWords: []string{"-ex", "--ex", "-eval-command", "--eval-command", "-iex", "--iex"}},
		"vim":     {codeShort: "c", codeLong: []string{"cmd"}},
		// ed's operand is the file to edit; its commands (! runs a shell) come on stdin.
		"ed": {argShort: "p", argLong: []string{"prompt"}, stdinCode: true, dataOperands: true},
		"awk": {codeShort: "e", codeLong: []string{"source"}, argShort: "Fvil", fileShort: "fE",
			argLong: []string{"field-separator", "assign", "include", "load"}, fileLong: []string{"file", "exec"}, operandProgram: true},
		"sed": {codeShort: "e", codeLong: []string{"expression"}, argShort: "l", attached: "i", fileShort: "f",
			argLong: []string{"line-length"}, fileLong: []string{"file"}, operandProgram: true},
	}
})

// interpName maps a command's base name to its entry in interps.
func interpName(base string) string {
	trim := strings.TrimRight(base, "0123456789.")
	switch {
	case trim == "python" || trim == "pypy":
		return "python"
	case trim == "perl" || trim == "ruby" || trim == "php" || trim == "lua" || trim == "luajit":
		if trim == "luajit" {
			return "lua"
		}
		return trim
	case base == "node" || base == "nodejs" || base == "bun":
		return "node"
	case base == "awk" || base == "gawk" || base == "mawk" || base == "nawk":
		return "awk"
	case base == "sed" || base == "gsed":
		return "sed"
	case base == "vi" || base == "nvim" || base == "ex" || base == "view":
		return "vim"
	case base == "red":
		return "ed"
	case base == "pwsh" || base == "powershell" || base == "deno":
		return base
	}
	if _, ok := interps()[base]; ok {
		return base
	}
	return ""
}

func interpHandler(c *cmdCtx) {
	name := interpName(c.base)
	switch name {
	case "pwsh", "powershell":
		pwshHandler(c)
		return
	case "deno":
		if len(c.argv) > 2 && c.argv[1].text == "eval" {
			for _, w := range c.argv[2:] {
				if !strings.HasPrefix(w.text, "-") || w.dyn {
					c.setInline(c.base, w)
					return
				}
			}
		}
		return
	}
	spec := interps()[name]
	var codes []word
	haveFile, haveScript := false, false
	argv := c.argv
	operand := func(w word) bool { // reports whether scanning stops
		if spec.dataOperands {
			return false
		}
		if spec.operandProgram && len(codes) == 0 && !haveFile {
			codes = append(codes, w)
			return true
		}
		haveScript = true
		return spec.scriptStops || spec.operandProgram
	}
scan:
	for i := 1; i < len(argv); i++ {
		w := argv[i]
		t := w.text
		next := func() (word, bool) {
			if i+1 < len(argv) {
				i++
				return argv[i], true
			}
			return word{}, false
		}
		switch {
		case w.dyn:
			if spec.scriptStops || spec.operandProgram {
				// An option or operand we cannot read: the program may be anything.
				if len(codes) == 0 && !haveFile {
					codes = append(codes, w)
				}
				break scan
			}
		case contains(spec.codeWords, t) || (name == "vim" && strings.HasPrefix(t, "+") && len(t) > 1):
			if strings.HasPrefix(t, "+") {
				codes = append(codes, word{text: t[1:], pos: w.pos})
			} else if cw, ok := next(); ok {
				codes = append(codes, cw)
			}
		case t == "--":
			if i+1 < len(argv) && spec.operandProgram && len(codes) == 0 && !haveFile {
				codes = append(codes, argv[i+1])
			} else if i+1 < len(argv) {
				haveScript = true
			}
			break scan
		case t == "-":
			haveScript = false
			break scan
		case strings.HasPrefix(t, "--"):
			lname, val, hasVal := strings.Cut(t[2:], "=")
			switch {
			case contains(spec.codeLong, lname):
				if hasVal {
					codes = append(codes, word{text: val, pos: w.pos})
				} else if cw, ok := next(); ok {
					codes = append(codes, cw)
				}
			case contains(spec.fileLong, lname):
				haveFile = true
				if !hasVal {
					next()
				}
			case contains(spec.argLong, lname) && !hasVal:
				next()
			}
		case len(t) > 1 && t[0] == '-':
		letters:
			for j := 1; j < len(t); j++ {
				ch := t[j]
				rest := t[j+1:]
				switch {
				case strings.IndexByte(spec.codeShort, ch) >= 0:
					if rest != "" {
						codes = append(codes, word{text: rest, pos: w.pos})
					} else if cw, ok := next(); ok {
						codes = append(codes, cw)
					}
					break letters
				case strings.IndexByte(spec.stopShort, ch) >= 0:
					haveScript = true
					break scan
				case strings.IndexByte(spec.fileShort, ch) >= 0:
					haveFile = true
					if rest == "" {
						next()
					}
					break letters
				case strings.IndexByte(spec.attached, ch) >= 0:
					break letters
				case strings.IndexByte(spec.argShort, ch) >= 0:
					if rest == "" {
						next()
					}
					break letters
				}
			}
		default:
			if operand(w) {
				break scan
			}
		}
	}
	switch {
	case len(codes) > 0:
		texts := make([]string, len(codes))
		dyn := false
		for i, w := range codes {
			texts[i] = w.text
			dyn = dyn || w.dyn
		}
		c.inv().InlineCode = &InlineCode{Interpreter: c.base, Code: strings.Join(texts, "\n"), Dynamic: dyn}
	case spec.stdinCode && !haveScript && !haveFile && c.stdin != nil && (c.stdin.dyn || c.stdin.text != ""):
		c.inv().InlineCode = &InlineCode{Interpreter: c.base, Code: c.stdin.text, Dynamic: c.stdin.dyn}
	}
}

// pwshHandler finds the code of pwsh -Command and -EncodedCommand. Parameter
// names are case-insensitive, may be abbreviated, and may start with / too.
func pwshHandler(c *cmdCtx) {
	withArg := []string{"executionpolicy", "windowstyle", "inputformat", "outputformat", "workingdirectory",
		"configurationname", "version", "custompipename", "settingsfile", "configurationfile"}
	for i := 1; i < len(c.argv); i++ {
		w := c.argv[i]
		if w.dyn {
			c.setInline(c.base, w)
			return
		}
		if !strings.HasPrefix(w.text, "-") && !strings.HasPrefix(w.text, "/") {
			return // a script file
		}
		p := strings.ToLower(strings.TrimLeft(w.text, "-/"))
		switch {
		case p == "c" || (len(p) >= 2 && strings.HasPrefix("command", p)):
			rest := c.argv[i+1:]
			texts := make([]string, len(rest))
			dyn := false
			for j, r := range rest {
				texts[j], dyn = r.text, dyn || r.dyn
			}
			c.inv().InlineCode = &InlineCode{Interpreter: c.base, Code: strings.Join(texts, " "), Dynamic: dyn}
			return
		case p == "e" || p == "ec" || (len(p) >= 2 && strings.HasPrefix("encodedcommand", p)):
			if i+1 < len(c.argv) {
				cw := c.argv[i+1]
				code, ok := decodePwsh(cw.text)
				if cw.dyn || !ok {
					c.inv().InlineCode = &InlineCode{Interpreter: c.base, Code: cw.text, Dynamic: true}
				} else {
					c.inv().InlineCode = &InlineCode{Interpreter: c.base, Code: code}
				}
			}
			return
		case p == "f" || (len(p) >= 2 && strings.HasPrefix("file", p)):
			return
		default:
			for _, a := range withArg {
				if len(p) >= 2 && strings.HasPrefix(a, p) {
					i++
					break
				}
			}
		}
	}
}

// decodePwsh decodes the base64 UTF-16LE text of pwsh -EncodedCommand.
func decodePwsh(s string) (string, bool) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil || len(b)%2 != 0 {
		return "", false
	}
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = uint16(b[2*i]) | uint16(b[2*i+1])<<8
	}
	return string(utf16.Decode(u)), true
}
