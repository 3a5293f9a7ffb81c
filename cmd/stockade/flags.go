package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Help rules for every command, stated once: `-h`, `--help` and
// `stockade help CMD` print the same help to stdout and exit 0; flags are
// shown GNU style (--name VALUE); a flag mistake is a CLI error on stderr,
// exit 2, with a hint naming the help.

// flags is the flag set of one command, with its help text.
type flags struct {
	*flag.FlagSet
	usage string // printed before the flags
}

// newFlags returns the flag set of command name ("serve", "policy lint"),
// whose help is usage followed by the flags.
func newFlags(name, usage string) *flags {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return &flags{FlagSet: fs, usage: usage}
}

// parse parses args; when it returns false, the command is over with the
// status it returns: 0 after help was printed, 2 after a flag mistake.
func (fs *flags) parse(args []string, io stdio) (int, bool) {
	err := fs.Parse(args)
	if err == nil {
		return 0, true
	}
	if errors.Is(err, flag.ErrHelp) {
		fs.printHelp(io.out)
		return 0, false
	}
	return fail(io.err, errors.New(gnuFlagText(err.Error())), fs.helpHint()), false
}

// helpHint is the hint line that points at the command's help.
func (fs *flags) helpHint() string {
	return fmt.Sprintf("run 'stockade %s --help' for the flags", fs.Name())
}

// singleDash is how the flag package names a flag in its errors (compiled
// on first use: only a flag mistake needs it).
var singleDash = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(flag(?: provided but not defined:)?) -([a-z][a-z-]+)`)
})

// gnuFlagText rewrites the flag package's "-name" as the "--name" this CLI shows.
func gnuFlagText(msg string) string {
	msg = singleDash().ReplaceAllString(msg, "$1 --$2")
	msg = strings.Replace(msg, "flag provided but not defined:", "unknown flag", 1)
	return msg
}

// printHelp prints the usage text and then the flags, one per line.
func (fs *flags) printHelp(w io.Writer) {
	fmt.Fprint(w, fs.usage)
	var rows [][2]string
	fs.VisitAll(func(f *flag.Flag) {
		value, usage := flag.UnquoteUsage(f)
		dash := "--"
		if len(f.Name) == 1 {
			dash = "-"
		}
		left := dash + f.Name
		if _, isBool := f.Value.(interface{ IsBoolFlag() bool }); !isBool {
			if value == "" || value == "value" {
				value = "VALUE"
			}
			left += " " + strings.ToUpper(value)
		}
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" && f.DefValue != "0s" && !strings.Contains(usage, "(default") {
			usage += " (default " + f.DefValue + ")"
		}
		rows = append(rows, [2]string{left, usage})
	})
	if len(rows) == 0 {
		return
	}
	width := 0
	for _, r := range rows {
		width = max(width, len(r[0]))
	}
	fmt.Fprintln(w, "\nflags:")
	for _, r := range rows {
		fmt.Fprintf(w, "  %-*s  %s\n", width, r[0], r[1])
	}
	fmt.Fprintln(w, "  -h, --help", strings.Repeat(" ", max(0, width-10)), "this help")
}

// timeoutFlag is a timeout given as seconds ("120") or as a Go duration
// ("2m", "90s"): the one unit every command accepts.
type timeoutFlag struct {
	d    time.Duration
	text string // as given, for error messages
}

func (t *timeoutFlag) String() string {
	switch {
	case t == nil || t.d == 0:
		return "0"
	case t.text != "":
		return t.text
	}
	return shortDuration(t.d)
}

// shortDuration writes d without zero units: 30m, not 30m0s.
func shortDuration(d time.Duration) string {
	switch {
	case d%time.Hour == 0:
		return fmt.Sprintf("%dh", d/time.Hour)
	case d%time.Minute == 0:
		return fmt.Sprintf("%dm", d/time.Minute)
	case d%time.Second == 0:
		return fmt.Sprintf("%ds", d/time.Second)
	}
	return d.String()
}

func (t *timeoutFlag) Set(s string) error {
	d, err := parseTimeout(s)
	if err != nil {
		return err
	}
	t.d, t.text = d, s
	return nil
}

// parseTimeout reads seconds ("120", "1.5") or a duration ("2m").
func parseTimeout(s string) (time.Duration, error) {
	if secs, err := strconv.ParseFloat(s, 64); err == nil {
		if secs < 0 || secs > (1<<31) {
			return 0, errors.New("out of range")
		}
		return time.Duration(secs * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, errors.New("want seconds (120) or a duration (2m, 90s)")
	}
	if d < 0 {
		return 0, errors.New("out of range")
	}
	return d, nil
}
