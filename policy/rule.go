package policy

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/stockade/stockade/parse"
)

// compiled is the prepared form of a Matcher: a test for each key it sets,
// in the order of matchKeys.
type compiled struct {
	tests []keyTest
	buf   [3]keyTest // where tests starts: most rules set three keys or fewer
}

// matchKey is how one key of Matcher (schema.go) is checked, prepared and
// tried on an invocation.
type matchKey struct {
	key string
	// prepare returns the test of m's value of the key, reporting bad values
	// with k.problem; set is false when m does not set the key.
	prepare func(m *Matcher, k keyCompiler) (t keyTest, set bool)
	// holds reports whether the key, prepared in t, holds for invocation i
	// of the script, whose arguments are a.
	holds func(ctx *scriptCtx, i int, a *argv, t *keyTest) bool
}

// keyTest is one key of a compiled matcher: its matchKey and its value in the
// prepared form that kind of key takes.
type keyTest struct {
	of        *matchKey
	want      bool            // a true-or-false key
	globs     []glob          // a key of glob patterns
	list      *globList       // a key of path patterns (pathKey)
	re        *lazyRegexps    // a key of regular expressions
	sub       *Matcher        // a key that holds a matcher
	names     []namePattern   // command: its patterns, and names when not in nameSet
	nameSet   map[string]bool // command: the plain names of a long list
	scripts   []string        // script
	flags     [][]flagAlt     // flags, not_flags
	longNames map[string]bool // not_flags: the long names of flags, which an abbreviation counts for; nil if none
}

// keyCompiler reports the problems of one key and says whether the policy is
// trusted (the built-in one, whose regular expressions are compiled on first
// use rather than checked at load).
type keyCompiler struct {
	key     string
	rep     reporter
	trusted bool
}

func (k keyCompiler) problem(key, msg string) { k.rep.problem(key, msg) }

// reporter reports the problems of the matcher of rule number index to v,
// at its key under "rule.INDEX" and path ("upstream" for the matcher of that
// key). It is a value, not a closure, so that compiling a policy allocates
// nothing per rule for it.
type reporter struct {
	v     *validator
	index int
	path  string
	rule  string // the rule's name
}

func (r reporter) problem(key, msg string) {
	if r.v == nil {
		// A built-in rule compiled on first use (prepareDefault), which
		// TestDefaultPolicy checks at load like any policy file.
		panic("policy: a built-in rule does not compile (a bug: the tests check them all): " + msg)
	}
	at := joinKey(joinKey("rule."+strconv.Itoa(r.index), r.path), key)
	r.v.add(at, fmt.Sprintf("rule %q: %s", r.rule, msg), "")
}

// matchKeys are the keys of a matcher, in the order they are tried (cheap
// ones first): a rule matches an invocation when every key it sets holds.
// Adding a matcher key is its field in schema.go and its entry here;
// TestMatchKeysAreTheSchema fails when one is missing. (Set in init: the
// keys that hold a matcher compile it, which reads this table.)
var matchKeys []matchKey

func init() {
	matchKeys = []matchKey{
		{key: "command",
			prepare: func(m *Matcher, k keyCompiler) (t keyTest, set bool) {
				for _, n := range m.Command {
					if n == "" {
						k.problem(k.key, "empty command name")
					} else if _, err := path.Match(n, ""); err != nil {
						k.problem(k.key, fmt.Sprintf("bad glob %q", n))
					}
				}
				t.names = compileNames(m.Command)
				t.names, t.nameSet = literalNames(t.names)
				return t, len(m.Command) > 0
			},
			holds: func(ctx *scriptCtx, i int, a *argv, t *keyTest) bool {
				return t.nameSet[a.name] || matchName(t.names, a.name, ctx.invs[i].Name)
			}},
		{key: "script",
			prepare: func(m *Matcher, k keyCompiler) (t keyTest, set bool) {
				t.scripts = m.Script
				return t, len(m.Script) > 0
			},
			holds: func(ctx *scriptCtx, i int, a *argv, t *keyTest) bool {
				return ctx.text != nil && contains(t.scripts, strings.TrimSpace(*ctx.text))
			}},
		boolKey("dynamic", func(m *Matcher) *bool { return m.Dynamic },
			func(ctx *scriptCtx, i int, a *argv) bool { return ctx.invs[i].Dynamic }),
		boolKey("piped_into", func(m *Matcher) *bool { return m.PipedInto },
			func(ctx *scriptCtx, i int, a *argv) bool { return ctx.invs[i].PipedInto }),
		// upstream and inside come early: most invocations are in no pipe
		// and no substitution, which they see at once, before the effects.
		matcherKey("upstream", func(m *Matcher) *Matcher { return m.Upstream },
			func(ctx *scriptCtx, i int, a *argv, m *Matcher) bool { return ctx.upstreamMatches(i, m) }),
		matcherKey("inside", func(m *Matcher) *Matcher { return m.Inside },
			func(ctx *scriptCtx, i int, a *argv, m *Matcher) bool { return ctx.insideMatches(i, m) }),
		boolKey("dynamic_args", func(m *Matcher) *bool { return m.DynamicArgs },
			func(ctx *scriptCtx, i int, a *argv) bool { return a.dynamicArg }),
		boolKey("dynamic_args_outside", func(m *Matcher) *bool { return m.DynamicArgsOutside },
			func(ctx *scriptCtx, i int, a *argv) bool { return a.dynamicOutside }),
		boolKey("background", func(m *Matcher) *bool { return m.Background },
			func(ctx *scriptCtx, i int, a *argv) bool { return ctx.invs[i].Background }),
		boolKey("endless_loop", func(m *Matcher) *bool { return m.EndlessLoop },
			func(ctx *scriptCtx, i int, a *argv) bool { return ctx.invs[i].EndlessLoop }),
		boolKey("recursive", func(m *Matcher) *bool { return m.Recursive },
			func(ctx *scriptCtx, i int, a *argv) bool { return ctx.recursive(&ctx.invs[i], a.name) }),
		regexpKey("env", func(m *Matcher) []string { return m.Env },
			func(ctx *scriptCtx, i int, a *argv, re *lazyRegexps) bool { return anyString(ctx.invs[i].Env, re.any) }),
		regexpKey("not_env", func(m *Matcher) []string { return m.NotEnv },
			func(ctx *scriptCtx, i int, a *argv, re *lazyRegexps) bool { return !anyString(ctx.invs[i].Env, re.any) }),
		globKey("subcommand", func(m *Matcher) []string { return m.Subcommand },
			func(ctx *scriptCtx, i int, a *argv, g []glob) bool {
				return a.subcommand != "" && anyGlob(g, a.subcommand, places{})
			}),
		{key: "flags",
			prepare: func(m *Matcher, k keyCompiler) (t keyTest, set bool) {
				t.flags = compileFlags(m.Flags, k.key, k.problem)
				return t, len(m.Flags) > 0
			},
			holds: func(ctx *scriptCtx, i int, a *argv, t *keyTest) bool {
				for _, alts := range t.flags {
					if !a.hasFlag(alts, nil) {
						return false
					}
				}
				return true
			}},
		{key: "not_flags",
			prepare: func(m *Matcher, k keyCompiler) (t keyTest, set bool) {
				if len(m.NotFlags) == 0 {
					return t, false
				}
				t.flags = compileFlags(m.NotFlags, k.key, k.problem)
				for _, alts := range compileFlags(m.Flags, "flags", func(string, string) {}) {
					for _, a := range alts {
						if a.long != "" {
							if t.longNames == nil {
								t.longNames = map[string]bool{}
							}
							t.longNames[a.long] = true
						}
					}
				}
				return t, true
			},
			holds: func(ctx *scriptCtx, i int, a *argv, t *keyTest) bool {
				for _, alts := range t.flags {
					if a.hasFlag(alts, t.longNames) {
						return false
					}
				}
				return true
			}},
		pathKey("args", func(m *Matcher) []string { return m.Args },
			func(ctx *scriptCtx, i int, a *argv, l *globList) bool { return a.anyArgGlob(l, ctx.at) }),
		globKey("last_arg", func(m *Matcher) []string { return m.LastArg },
			func(ctx *scriptCtx, i int, a *argv, g []glob) bool {
				return len(a.positionals) > 0 && anyGlob(g, a.positionals[len(a.positionals)-1], ctx.at)
			}),
		pathKey("not_args", func(m *Matcher) []string { return m.NotArgs },
			func(ctx *scriptCtx, i int, a *argv, l *globList) bool { return !a.anyArgGlob(l, ctx.at) }),
		regexpKey("args_regex", func(m *Matcher) []string { return m.ArgsRegex },
			func(ctx *scriptCtx, i int, a *argv, re *lazyRegexps) bool {
				return re.mayMatchIn(a.joined(), ctx.joinedPairs(i, a)) && a.anyArg(re.any)
			}),
		pathKey("writes", func(m *Matcher) []string { return m.Writes },
			func(ctx *scriptCtx, i int, a *argv, l *globList) bool {
				return anyRedirect(ctx, i, a, true, l) || ctx.anyEffect(i, effWrite, l)
			}),
		pathKey("reads", func(m *Matcher) []string { return m.Reads },
			func(ctx *scriptCtx, i int, a *argv, l *globList) bool {
				return anyRedirect(ctx, i, a, false, l) || ctx.anyEffect(i, effRead, l) || ctx.anyTreeRead(i, l)
			}),
		pathKey("deletes", func(m *Matcher) []string { return m.Deletes },
			func(ctx *scriptCtx, i int, a *argv, l *globList) bool { return ctx.anyEffect(i, effDelete, l) }),
		pathKey("executes", func(m *Matcher) []string { return m.Executes },
			func(ctx *scriptCtx, i int, a *argv, l *globList) bool { return ctx.anyEffect(i, effExec, l) }),
		boolKey("reads_denied", func(m *Matcher) *bool { return m.ReadsDenied },
			func(ctx *scriptCtx, i int, a *argv) bool { return ctx.readsDenied(i) }),
		boolKey("executes_created", func(m *Matcher) *bool { return m.ExecutesCreated },
			func(ctx *scriptCtx, i int, a *argv) bool { return ctx.executesCreated(i) }),
		boolKey("executes_made_here", func(m *Matcher) *bool { return m.ExecutesMadeHere },
			func(ctx *scriptCtx, i int, a *argv) bool { return ctx.executesMadeHere(i) }),
		boolKey("program_unseen", func(m *Matcher) *bool { return m.ProgramUnseen },
			func(ctx *scriptCtx, i int, a *argv) bool { return ctx.programUnseen(i) }),
		boolKey("credential_own_service", func(m *Matcher) *bool { return m.CredentialOwnService },
			func(ctx *scriptCtx, i int, a *argv) bool { return credentialOwnService(&ctx.invs[i], a) }),
		boolKey("secret_indirect", func(m *Matcher) *bool { return m.SecretIndirect },
			func(ctx *scriptCtx, i int, a *argv) bool { return ctx.secretIndirect(i) }),
		boolKey("secret_variable", func(m *Matcher) *bool { return m.SecretVariable },
			func(ctx *scriptCtx, i int, a *argv) bool { return ctx.sendsSecretVar(i, a) }),
		boolKey("into_credential_store", func(m *Matcher) *bool { return m.IntoCredentialStore },
			func(ctx *scriptCtx, i int, a *argv) bool { return ctx.pipedIntoStore(i) }),
		boolKey("secret_name", func(m *Matcher) *bool { return m.SecretName },
			func(ctx *scriptCtx, i int, a *argv) bool { return slices.ContainsFunc(a.positionals, secretVarNamed) }),
		boolKey("prints_secret_env", func(m *Matcher) *bool { return m.PrintsSecretEnv },
			func(ctx *scriptCtx, i int, a *argv) bool {
				return ctx.invs[i].InlineCode != nil && codePrintsSecretEnv(ctx.invs[i].InlineCode.Code)
			}),
		boolKey("unset_var_root", func(m *Matcher) *bool { return m.UnsetVarRoot },
			func(ctx *scriptCtx, i int, a *argv) bool { return ctx.unsetVarRoot(i) }),
		boolKey("secret_terms", func(m *Matcher) *bool { return m.SecretTerms },
			func(ctx *scriptCtx, i int, a *argv) bool {
				if invertsMatch(&ctx.invs[i]) {
					return false // the named secrets are dropped (grep_invert.go)
				}
				for _, w := range a.positionals {
					if namesSecretTerm(w, true) {
						return true
					}
				}
				return false
			}),
		boolKey("target_local", func(m *Matcher) *bool { return m.TargetLocal },
			func(ctx *scriptCtx, i int, a *argv) bool { return ctx.targetLocal(i, a) }),
		boolKey("dry_run", func(m *Matcher) *bool { return m.DryRun },
			func(ctx *scriptCtx, i int, a *argv) bool { return dryRun(a) }),
		boolKey("known_package", func(m *Matcher) *bool { return m.KnownPackage },
			func(ctx *scriptCtx, i int, a *argv) bool {
				return knownPackageRun(&ctx.invs[i]) || knownSourceInstall(&ctx.invs[i], a)
			}),
		boolKey("dev_database", func(m *Matcher) *bool { return m.DevDatabase },
			func(ctx *scriptCtx, i int, a *argv) bool { return ctx.devDatabase(i, a) }),
		boolKey("names_listed_in_workdir", func(m *Matcher) *bool { return m.NamesListedInWorkdir },
			func(ctx *scriptCtx, i int, a *argv) bool { return ctx.namesListedInWorkdir(i, a) }),
		boolKey("writes_style_settings", func(m *Matcher) *bool { return m.WritesStyleSettings },
			func(ctx *scriptCtx, i int, a *argv) bool { return writesStyleSettings(&ctx.invs[i]) }),
		boolKey("pid_from_port", func(m *Matcher) *bool { return m.PidFromPort },
			func(ctx *scriptCtx, i int, a *argv) bool { return pidFromPort(&ctx.invs[i]) }),
		boolKey("pid_from_command_line", func(m *Matcher) *bool { return m.PidFromCommandLine },
			func(ctx *scriptCtx, i int, a *argv) bool { return pidFromCommandLine(&ctx.invs[i]) }),
		boolKey("work_stashed", func(m *Matcher) *bool { return m.WorkStashed },
			func(ctx *scriptCtx, i int, a *argv) bool { return ctx.workStashed(i) }),
		boolKey("environment_shown", func(m *Matcher) *bool { return m.EnvironmentShown },
			func(ctx *scriptCtx, i int, a *argv) bool { return ctx.environmentShown(i, a) }),
		boolKey("searches_text", func(m *Matcher) *bool { return m.SearchesText },
			func(ctx *scriptCtx, i int, a *argv) bool { return ctx.searchesText(i, a) }),
		boolKey("command_assembled", func(m *Matcher) *bool { return m.CommandAssembled },
			func(ctx *scriptCtx, i int, a *argv) bool {
				return ctx.invs[i].Dynamic && commandAssembled(ctx.invs[i].Name)
			}),
		boolKey("grows_itself", func(m *Matcher) *bool { return m.GrowsItself },
			func(ctx *scriptCtx, i int, a *argv) bool { return ctx.growsItself(i, a) }),
		boolKey("fills_disk", func(m *Matcher) *bool { return m.FillsDisk },
			func(ctx *scriptCtx, i int, a *argv) bool { return ctx.fillsDisk(i, a) }),
		boolKey("spins_only", func(m *Matcher) *bool { return m.SpinsOnly },
			func(ctx *scriptCtx, i int, a *argv) bool { return ctx.spinsOnly(i) }),
		boolKey("clean_paths_in_workdir", func(m *Matcher) *bool { return m.CleanPathsInWorkdir },
			func(ctx *scriptCtx, i int, a *argv) bool { return gitCleanPathsInWorkdir(&ctx.invs[i]) }),
		boolKey("address_for_program", func(m *Matcher) *bool { return m.AddressForProgram },
			func(ctx *scriptCtx, i int, a *argv) bool { return addressForProgram(&ctx.invs[i]) }),
		boolKey("copies_workdir_file", func(m *Matcher) *bool { return m.CopiesWorkdirFile },
			func(ctx *scriptCtx, i int, a *argv) bool { return ctx.copiesWorkdirFile(i, a) }),
		boolKey("in_clone_made_here", func(m *Matcher) *bool { return m.InCloneMadeHere },
			func(ctx *scriptCtx, i int, a *argv) bool { return ctx.inCloneMadeHere(i, a) }),
		boolKey("foreign_package_source", func(m *Matcher) *bool { return m.ForeignPackageSource },
			func(ctx *scriptCtx, i int, a *argv) bool { return ctx.foreignPackageSource(i, a) }),
		boolKey("typo_package", func(m *Matcher) *bool { return m.TypoPackage },
			func(ctx *scriptCtx, i int, a *argv) bool { return typoPackageInstall(a) }),
		globKey("acts", func(m *Matcher) []string { return m.Acts },
			func(ctx *scriptCtx, i int, a *argv, g []glob) bool { return ctx.actsMatch(i, a, g) }),
		regexpKey("code", func(m *Matcher) []string { return m.Code },
			func(ctx *scriptCtx, i int, a *argv, re *lazyRegexps) bool {
				return ctx.invs[i].InlineCode != nil && re.anyIn(ctx.invs[i].InlineCode.Code, ctx.codePairs(i))
			}),
		regexpKey("stdin", func(m *Matcher) []string { return m.Stdin },
			func(ctx *scriptCtx, i int, a *argv, re *lazyRegexps) bool {
				for _, r := range ctx.invs[i].Redirects {
					if (r.Op == "<<" || r.Op == "<<-" || r.Op == "<<<") && r.FD == "" && re.any(r.Target) {
						return true
					}
				}
				return false
			}),
		globKey("via", func(m *Matcher) []string { return m.Via },
			func(ctx *scriptCtx, i int, a *argv, g []glob) bool { return anyVia(g, ctx.invs[i].Via) }),
		matcherKey("after", func(m *Matcher) *Matcher { return m.After },
			func(ctx *scriptCtx, i int, a *argv, m *Matcher) bool { return ctx.afterMatches(i, m) }),
	}
}

// boolKey is a key set to true or false: it holds when the invocation's
// property, got, has that value.
func boolKey(key string, field func(*Matcher) *bool, got func(ctx *scriptCtx, i int, a *argv) bool) matchKey {
	return matchKey{key: key,
		prepare: func(m *Matcher, k keyCompiler) (t keyTest, set bool) {
			if b := field(m); b != nil {
				t.want = *b
				return t, true
			}
			return t, false
		},
		holds: func(ctx *scriptCtx, i int, a *argv, t *keyTest) bool { return got(ctx, i, a) == t.want }}
}

// globKey is a key that lists glob patterns, compiled at load.
func globKey(key string, field func(*Matcher) []string, holds func(ctx *scriptCtx, i int, a *argv, g []glob) bool) matchKey {
	return matchKey{key: key,
		prepare: func(m *Matcher, k keyCompiler) (t keyTest, set bool) {
			t.globs = compileGlobs(field(m), k.key, k.problem)
			return t, len(field(m)) > 0
		},
		holds: func(ctx *scriptCtx, i int, a *argv, t *keyTest) bool { return holds(ctx, i, a, t.globs) }}
}

// pathKey is a key of glob patterns for the arguments of an invocation or
// the paths it writes, reads, deletes or runs: rules for every command try
// them on most invocations, so its patterns are a globList.
func pathKey(key string, field func(*Matcher) []string, holds func(ctx *scriptCtx, i int, a *argv, l *globList) bool) matchKey {
	return matchKey{key: key,
		prepare: func(m *Matcher, k keyCompiler) (t keyTest, set bool) {
			t.list = newGlobList(compileGlobs(field(m), k.key, k.problem))
			return t, len(field(m)) > 0
		},
		holds: func(ctx *scriptCtx, i int, a *argv, t *keyTest) bool { return holds(ctx, i, a, t.list) }}
}

// regexpKey is a key that lists regular expressions (RE2), checked at load
// unless trusted, and compiled on first use.
func regexpKey(key string, field func(*Matcher) []string, holds func(ctx *scriptCtx, i int, a *argv, re *lazyRegexps) bool) matchKey {
	return matchKey{key: key,
		prepare: func(m *Matcher, k keyCompiler) (t keyTest, set bool) {
			src := field(m)
			if len(src) == 0 {
				return t, false
			}
			for _, s := range src {
				if k.trusted {
					break
				}
				if _, err := regexp.Compile(s); err != nil {
					k.problem(k.key, fmt.Sprintf("bad regular expression %q: %v", s, err))
				}
			}
			t.re = &lazyRegexps{src: src}
			return t, true
		},
		holds: func(ctx *scriptCtx, i int, a *argv, t *keyTest) bool { return holds(ctx, i, a, t.re) }}
}

// matcherKey is a key that holds a matcher of its own, tried on another
// invocation of the script.
func matcherKey(key string, field func(*Matcher) *Matcher, holds func(ctx *scriptCtx, i int, a *argv, m *Matcher) bool) matchKey {
	return matchKey{key: key,
		prepare: func(m *Matcher, k keyCompiler) (t keyTest, set bool) {
			sub := field(m)
			if sub == nil {
				return t, false
			}
			// The prepared form keeps a copy of its own: the matcher may be
			// shared (defaultRules, whose rules are compiled concurrently).
			own := *sub
			own.compile(reporter{k.rep.v, k.rep.index, joinKey(k.rep.path, k.key), k.rep.rule}, k.trusted)
			t.sub = &own
			return t, true
		},
		holds: func(ctx *scriptCtx, i int, a *argv, t *keyTest) bool { return holds(ctx, i, a, t.sub) }}
}

type flagAlt struct {
	short byte   // -r
	long  string // --recursive
	word  string // -delete
}

type lazyRegexps struct {
	src  []string
	once sync.Once
	re   []filteredRegexp
}

// filteredRegexp is an expression with what any text it matches contains
// (requiredText), nil when nothing is known. It is compiled when a text
// first holds that: most never do.
type filteredRegexp struct {
	src  string
	need requirement
	once sync.Once
	re   *regexp.Regexp
}

func (l *lazyRegexps) get() []filteredRegexp {
	l.once.Do(func() {
		l.re = make([]filteredRegexp, len(l.src))
		for i, s := range l.src {
			l.re[i].src, l.re[i].need = s, requiredText(s)
		}
	})
	return l.re
}

// mayMatchIn reports whether some expression may match a part of text: its
// requirement holds on text as a whole. Given the arguments of a command
// joined, one search turns away a command none of whose words can match,
// instead of one per word.
func (l *lazyRegexps) mayMatchIn(text string, pairs *pairSet) bool {
	res := l.get()
	for i := range res {
		if res[i].need.holds(text, pairs) {
			return true
		}
	}
	return false
}

func (l *lazyRegexps) any(s string) bool { return l.anyIn(s, nil) }

// anyIn reports whether some expression matches s; pairs, when not nil,
// are the pairs of s, which turn most expressions away without a search.
func (l *lazyRegexps) anyIn(s string, pairs *pairSet) bool {
	res := l.get()
	for i := range res {
		f := &res[i]
		if !f.need.holds(s, pairs) {
			continue
		}
		f.once.Do(func() { f.re = regexp.MustCompile(f.src) }) // validated at load
		if f.re.MatchString(s) {
			return true
		}
	}
	return false
}

// compile checks and prepares m: a test for each key it sets. Problems go to rep.
//
// With trusted set (the built-in policy, checked by the tests), regular
// expressions are not compiled here but on first use, which keeps start-up cheap.
func (m *Matcher) compile(rep reporter, trusted bool) {
	m.c = &compiledCell{}
	m.c.p.Store(m.build(rep, trusted))
}

// compiledCell holds the prepared form of a matcher once it is made.
type compiledCell struct{ p atomic.Pointer[compiled] }

// compiled returns the prepared form of m. A rule of the built-in policy
// is compiled here, on first use (prepareDefault gives it an empty cell);
// goroutines that race to do it build equal forms and keep the first stored.
func (m *Matcher) compiled() *compiled {
	if c := m.c.p.Load(); c != nil {
		return c
	}
	m.c.p.CompareAndSwap(nil, m.build(reporter{}, true))
	return m.c.p.Load()
}

func (m *Matcher) build(rep reporter, trusted bool) *compiled {
	c := &compiled{}
	c.tests = c.buf[:0]
	for k := range matchKeys {
		mk := &matchKeys[k]
		if t, set := mk.prepare(m, keyCompiler{key: mk.key, rep: rep, trusted: trusted}); set {
			t.of = mk
			c.tests = append(c.tests, t)
		}
	}
	if len(c.tests) == 0 {
		rep.problem("", "the rule matches nothing: set command, args, writes, code or another match key")
	}
	return c
}

func joinKey(a, b string) string {
	if b == "" {
		return a
	}
	if a == "" {
		return b
	}
	return a + "." + b
}

func compileFlags(entries []string, key string, problem func(key, msg string)) [][]flagAlt {
	if len(entries) == 0 {
		return nil
	}
	out := make([][]flagAlt, 0, len(entries))
	for _, e := range entries {
		alts := make([]flagAlt, 0, strings.Count(e, "|")+1)
		for s := range strings.SplitSeq(e, "|") {
			switch {
			case s == "" || s == "-" || strings.HasPrefix(s, "--") || strings.ContainsAny(s, " =\t"):
				problem(key, fmt.Sprintf("bad flag %q in %q: write r for -r, recursive for --recursive, -delete for the word -delete", s, e))
			case s[0] == '-':
				alts = append(alts, flagAlt{word: s})
			case len(s) == 1:
				alts = append(alts, flagAlt{short: s[0]})
			default:
				alts = append(alts, flagAlt{long: s})
			}
		}
		out = append(out, alts)
	}
	return out
}

// nameGlobs is a rule whose command key holds for a name that one of globs
// matches, or that the index lists the rule under.
type nameGlobs struct {
	rule  int
	globs []namePattern
}

// isNamePath reports whether a pattern of command has a /: it matches the
// command word as written (matchName), and only a word with a / (the index
// tries its rule for those alone: Policy.candidates).
func isNamePath(n string) bool { return strings.Contains(n, "/") }

func isNameGlob(n string) bool {
	for i := range len(n) {
		if c := n[i]; c == '*' || c == '?' || c == '[' || c == '\\' {
			return true
		}
	}
	return false
}

// match reports whether every key of m holds for invocation i of the script.
func (m *Matcher) match(ctx *scriptCtx, i int, a *argv) bool {
	return m.matchFrom(ctx, i, a, false)
}

// matchFrom is match, skipping the command key when commandHolds says the
// index has found it to hold.
func (m *Matcher) matchFrom(ctx *scriptCtx, i int, a *argv, commandHolds bool) bool {
	tests := m.compiled().tests
	if commandHolds && len(tests) > 0 && tests[0].of == &matchKeys[0] {
		tests = tests[1:]
	}
	for k := range tests {
		t := &tests[k]
		if !t.of.holds(ctx, i, a, t) {
			return false
		}
	}
	return true
}

// recursive reports whether invocation inv, which runs name, calls a shell
// function it is inside of: directly (f(){ f|f& }) or through other functions
// (f(){ g|g& }; g(){ f|f& }), that is, name and that function call each other.
func (ctx *scriptCtx) recursive(inv *parse.Invocation, name string) bool {
	for _, v := range inv.Via {
		f, ok := strings.CutPrefix(v, "function ")
		if !ok {
			continue
		}
		if f == name {
			return true
		}
		if inv.Function {
			if ctx.cycles == nil {
				ctx.cycles = callCycles(ctx.invs)
			}
			if c, ok := ctx.cycles[f]; ok && c == ctx.cycles[name] {
				return true
			}
		}
	}
	return false
}

// callCycles returns, for each shell function of the script that is part of a
// cycle of calls, a number shared by the functions of the same cycle (the
// strongly connected components of the call graph, by Tarjan's algorithm, in
// time linear in the calls). A call inside nested function bodies counts as a
// call from each of them.
func callCycles(invs []parse.Invocation) map[string]int {
	calls := map[string][]string{}
	for i := range invs {
		inv := &invs[i]
		if !inv.Function {
			continue
		}
		for _, v := range inv.Via {
			if f, ok := strings.CutPrefix(v, "function "); ok {
				calls[f] = append(calls[f], inv.Name)
			}
		}
	}
	index := map[string]int{}
	low := map[string]int{}
	onStack := map[string]bool{}
	var stack []string
	cycles := map[string]int{}
	var visit func(f string)
	visit = func(f string) {
		index[f], low[f] = len(index), len(index)
		stack = append(stack, f)
		onStack[f] = true
		for _, g := range calls[f] {
			if _, seen := index[g]; !seen {
				visit(g)
				low[f] = min(low[f], low[g])
			} else if onStack[g] {
				low[f] = min(low[f], index[g])
			}
		}
		if low[f] != index[f] {
			return
		}
		n := len(stack) - 1
		for stack[n] != f {
			n--
		}
		if component := stack[n:]; len(component) > 1 {
			for _, g := range component {
				cycles[g] = index[f] + 1
			}
		}
		for _, g := range stack[n:] {
			onStack[g] = false
		}
		stack = stack[:n]
	}
	for f := range calls {
		if _, seen := index[f]; !seen {
			visit(f)
		}
	}
	return cycles
}

func anyString(list []string, f func(string) bool) bool {
	for _, s := range list {
		if f(s) {
			return true
		}
	}
	return false
}

// namePattern is one glob of command, with the literal text it starts with.
type namePattern struct {
	pat    string
	prefix string // pat up to its first *, ?, [ or \; a name that matches starts with it
	meta   bool   // prefix is not all of pat
	path   bool   // pat has a /: it matches the command word as written
}

func compileNames(pats []string) []namePattern {
	if len(pats) == 0 {
		return nil
	}
	out := make([]namePattern, len(pats))
	for i, p := range pats {
		out[i] = namePattern{pat: p, prefix: p, path: strings.Contains(p, "/")}
		if j := strings.IndexAny(p, "*?[\\"); j >= 0 {
			out[i].prefix, out[i].meta = p[:j], true
		}
	}
	return out
}

// literalNames splits a long list of name patterns into a set of its plain
// names, looked up at once, and the rest; a short list stays as it is.
func literalNames(names []namePattern) ([]namePattern, map[string]bool) {
	if len(names) < 8 {
		return names, nil
	}
	set := map[string]bool{}
	var rest []namePattern
	for _, n := range names {
		if n.meta || n.path {
			rest = append(rest, n)
		} else {
			set[n.pat] = true
		}
	}
	return rest, set
}

// matchName matches the base name, or for a pattern with a /, the command word
// as written (without the backslashes that only stop alias expansion).
func matchName(names []namePattern, name, word string) bool {
	for i := range names {
		n := &names[i]
		if n.path {
			if w := strings.TrimLeft(word, "\\"); strings.Contains(w, "/") && globMatch(n.pat, w) {
				return true
			}
			continue
		}
		if n.pat == name {
			return true
		}
		if !n.meta || !strings.HasPrefix(name, n.prefix) {
			continue // path.Match would not match either
		}
		if ok, _ := path.Match(n.pat, name); ok {
			return true
		}
	}
	return false
}

func anyVia(globs []glob, via []string) bool {
	for _, v := range via {
		if anyGlob(globs, v, places{}) {
			return true
		}
	}
	return false
}

// anyRedirect reports whether a file that invocation i's redirections write
// (or read) matches one of the patterns of l.
func anyRedirect(ctx *scriptCtx, i int, a *argv, write bool, l *globList) bool {
	for _, t := range a.redirectTargets(&ctx.invs[i], ctx.at) {
		if t.write == write && l.matches(t.target, t.norm) {
			return true
		}
	}
	return false
}

// redirectTarget is a file an invocation's redirection reads or writes:
// target as written (quotes of a dynamic one removed), norm its normPath.
type redirectTarget struct {
	target, norm string
	write        bool
}

// redirectTargets returns the files inv's redirections read (<, <>) or write,
// computed once per invocation.
func (a *argv) redirectTargets(inv *parse.Invocation, at places) []redirectTarget {
	if a.redirectsKnown {
		return a.redirects
	}
	a.redirectsKnown = true
	for _, r := range inv.Redirects {
		write, read := isWriteOp(r.Op), r.Op == "<" || r.Op == "<>"
		if !write && !read {
			continue
		}
		t := r.Target
		if r.Dynamic {
			t = strings.ReplaceAll(t, `"`, "")
		}
		norm := normPath(t, at)
		if write {
			a.redirects = append(a.redirects, redirectTarget{t, norm, true})
		}
		if read {
			a.redirects = append(a.redirects, redirectTarget{t, norm, false})
		}
	}
	return a.redirects
}

func isWriteOp(op string) bool {
	switch op {
	case ">", ">>", "&>", "&>>", ">|", "<>", ">&":
		return true
	}
	return false
}

// scriptCtx holds what matching needs across the invocations of one script.
type scriptCtx struct {
	p        *Policy
	invs     []parse.Invocation
	args     []argv // args[i] is valid when analyzed[i] is set
	analyzed []bool
	matched  []bool
	at       places
	// argPairs and codePairSet are the pairs of one invocation's joined
	// arguments (joinedPairs) and inline code (codePairs).
	argPairs, codePairSet invPairs
	text                  *string    // the script's text, when known
	textCopy              string     // where checkScript keeps text
	effects               [][]effect // see effectsOf; nil until first used
	// firstMatch caches, per after matcher, the first invocation it matches
	// (a few per script: a list, not a map), in firstMatchBuf while they fit.
	firstMatch    []firstMatch
	firstMatchBuf [4]firstMatch
	// cycles is callCycles of the script, built on first use.
	cycles map[string]int
	// secretRefs is secretRefsOf the script, built on first use.
	secretRefs *secretRefs
	// serverEnvSet caches scriptSetsServerEnv: 0 unknown, 1 no, 2 yes.
	serverEnvSet int8
	// exports is exportsOf the script, built on first use (scriptEnv).
	exports *[]scriptExport
}

// firstMatch is the first invocation of a script an after matcher matches.
type firstMatch struct {
	m     *Matcher
	first int
}

func newScriptCtx(p *Policy, invs []parse.Invocation) *scriptCtx {
	ctx := &scriptCtx{}
	ctx.start(p, invs)
	return ctx
}

// ctxPool holds the scriptCtx of finished checks for the next (checkScript
// takes one with takeScriptCtx, gives it back with release): an everyday
// check then allocates no context and no argv array, a seventh of the bytes
// a check allocates. Nothing of one script reaches the next: a context in
// the pool is all zero, its args and flags arrays too, of which it keeps
// only the capacity.
var ctxPool = sync.Pool{New: func() any { return &scriptCtx{} }}

// maxPooledInvs bounds the args array a pooled context keeps: a long
// script's would hold memory for the short ones that follow.
const maxPooledInvs = 64

// takeScriptCtx is newScriptCtx on a context from ctxPool.
func takeScriptCtx(p *Policy, invs []parse.Invocation) *scriptCtx {
	ctx := ctxPool.Get().(*scriptCtx)
	ctx.start(p, invs)
	return ctx
}

// release clears ctx and gives it back to ctxPool; ctx and every argv it
// returned must not be used after.
func (ctx *scriptCtx) release() {
	if cap(ctx.args) > maxPooledInvs {
		return
	}
	args, flags := ctx.args, ctx.analyzed[:2*len(ctx.analyzed)]
	clear(args)
	clear(flags)
	*ctx = scriptCtx{args: args[:0], analyzed: flags[:0]}
	ctxPool.Put(ctx)
}

// start makes ctx, new or released, the context for invs: every field is
// zero but those set here. The args and flags arrays are reused when large
// enough (release leaves them zero).
func (ctx *scriptCtx) start(p *Policy, invs []parse.Invocation) {
	n := len(invs)
	args, flags := ctx.args[:0], ctx.analyzed[:0]
	if cap(args) < n {
		args = make([]argv, n)
	}
	if cap(flags) < 2*n {
		flags = make([]bool, 2*n)
	}
	*ctx = scriptCtx{p: p, invs: invs, args: args[:n], analyzed: flags[:n], matched: flags[n : 2*n : 2*n],
		at: places{home: p.homeDir, work: p.workDir}}
	ctx.firstMatch = ctx.firstMatchBuf[:0]
}

func (ctx *scriptCtx) arg(i int) *argv {
	if !ctx.analyzed[i] {
		ctx.args[i].init(&ctx.invs[i])
		ctx.analyzed[i] = true
		if a := &ctx.args[i]; a.dynamicArg && ctx.regenerableFindExec(i) {
			a.dynamicArg, a.dynamicOutside = false, false // {}: a regenerable path (regenerable.go)
		}
	}
	return &ctx.args[i]
}

// upstreamMatches reports whether an earlier stage of the pipeline that ends
// at invocation i matches m. Stages of one pipeline are consecutive
// invocations at the same level (Via without trailing wrappers such as sudo);
// all but the first are PipedInto. Commands a stage wraps count as the stage.
// afterMatches reports whether a command before invocation i in the script
// matches m. The first match is looked for once per script, so a long script
// costs one pass per after key, not one per invocation.
func (ctx *scriptCtx) afterMatches(i int, m *Matcher) bool {
	for _, f := range ctx.firstMatch {
		if f.m == m {
			return f.first < i
		}
	}
	first := len(ctx.invs)
	for j := range ctx.invs {
		if m.match(ctx, j, ctx.arg(j)) {
			first = j
			break
		}
	}
	ctx.firstMatch = append(ctx.firstMatch, firstMatch{m, first})
	return first < i
}

func (ctx *scriptCtx) upstreamMatches(i int, m *Matcher) bool {
	if !ctx.invs[i].PipedInto {
		return false
	}
	level := pipelineLevel(ctx.invs[i].Via)
	for j := i - 1; j >= 0; j-- {
		inv := &ctx.invs[j]
		if len(inv.Via) < len(level) || !sameVia(inv.Via[:len(level)], level) {
			return false
		}
		if len(pipelineLevel(inv.Via)) > len(level) {
			continue // inside a substitution or code string of a stage
		}
		if m.match(ctx, j, ctx.arg(j)) || ctx.remoteStageMatches(j, m) {
			return true
		}
		if len(inv.Via) == len(level) && !inv.PipedInto {
			return false // the first stage
		}
	}
	return false
}

// pipelineLevel strips from via the wrappers (sudo, env, nice, xargs ...)
// the invocation sits in, which do not start a pipeline of their own.
func pipelineLevel(via []string) []string {
	n := len(via)
	for n > 0 && !strings.ContainsAny(via[n-1], " ()`") && via[n-1] != "eval" {
		n--
	}
	return via[:n]
}

// insideMatches reports whether invocation i, found in a $(...) or <(...)
// substitution, is in the arguments of a command matching m. That command is
// taken to be the nearest invocation one level out that starts before i on
// the same line.
func (ctx *scriptCtx) insideMatches(i int, m *Matcher) bool {
	inv := &ctx.invs[i]
	n := len(inv.Via)
	if n == 0 || (inv.Via[n-1] != "$(...)" && inv.Via[n-1] != "<(...)" && inv.Via[n-1] != "`...`") {
		return false
	}
	outer := inv.Via[:n-1]
	best := -1
	for j := range ctx.invs {
		o := &ctx.invs[j]
		if j == i || !sameVia(o.Via, outer) || o.Pos.Line != inv.Pos.Line || o.Pos.Col >= inv.Pos.Col {
			continue
		}
		if best < 0 || o.Pos.Col > ctx.invs[best].Pos.Col {
			best = j
		}
	}
	if best < 0 {
		return false
	}
	if m.match(ctx, best, ctx.arg(best)) {
		return true
	}
	// builtin eval "$(...)", sudo sh -c "$(...)": the command the
	// substitution is an argument of is the one that command wraps.
	w := ctx.invs[best].Name
	for j := range ctx.invs {
		o := &ctx.invs[j]
		if j != i && len(o.Via) == len(outer)+1 && o.Via[len(outer)] == w && sameVia(o.Via[:len(outer)], outer) &&
			o.Pos.Line == inv.Pos.Line && o.Pos.Col < inv.Pos.Col && !o.Dynamic && m.match(ctx, j, ctx.arg(j)) {
			return true
		}
	}
	return false
}

func sameVia(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
