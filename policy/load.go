package policy

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"math/bits"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
	"github.com/stockade/stockade/netproxy"
)

// Error is one mistake in a policy file, with its position when known.
type Error struct {
	File string
	Line int // 1-based; 0 when unknown
	Col  int
	Msg  string
	Hint string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// Hints returns the hint, if any (the CLI prints it on a hint: line).
func (e *Error) Hints() []string {
	if e.Hint == "" {
		return nil
	}
	return []string{e.Hint}
}

// Errors is every mistake found in one policy file, in file order.
type Errors []*Error

func (es Errors) Error() string {
	switch len(es) {
	case 0:
		return "no error"
	case 1:
		return es[0].Error()
	}
	return fmt.Sprintf("%s (and %d more)", es[0].Error(), len(es)-1)
}

// Hints returns the hint of the first error and, for more than one, how to see them all.
func (es Errors) Hints() []string {
	if len(es) == 0 {
		return nil
	}
	h := es[0].Hints()
	if len(es) > 1 {
		h = append(h, "run 'stockade policy lint "+es[0].File+"' to see every problem")
	}
	return h
}

// Load reads and parses the policy file at path; see Parse.
func Load(path string) (*Policy, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading policy: %w", err)
	}
	return Parse(data, path)
}

// Parse decodes a policy file strictly and checks it: unknown keys, values
// of the wrong type or outside their set, a missing `version = 1`, bad
// patterns, and rules whose examples do not hold are all errors (of type
// Errors), each with the file name and, where known, line and column. Keys
// the file leaves out of [sandbox] take the built-in defaults.
func Parse(data []byte, name string) (*Policy, error) {
	return parsePolicy(data, name, true)
}

func parsePolicy(data []byte, name string, verifyExamples bool) (*Policy, error) {
	return mergeLayers([]layerFile{{kind: LayerCommandLine, path: name, data: data}}, verifyExamples)
}

// decodeLayer decodes one file and checks it on its own: everything but the
// examples, which are tried on the merged policy.
func decodeLayer(data []byte, name string) (*Policy, *validator, error) {
	p := &Policy{Source: name}
	dec := toml.NewDecoder(bytes.NewReader(data)).DisallowUnknownFields()
	if err := dec.Decode(p); err != nil {
		return nil, nil, decodeErrors(err, name)
	}
	trusted := name == "default" && bytes.Equal(data, DefaultTOML)
	v := &validator{file: name, data: data, collect: true}
	p, err := p.prepare(v, trusted, false)
	return p, v, err
}

// prepare checks a decoded policy and compiles its rules; v.data is the text
// it was decoded from, for the positions of errors. With trusted set (the
// built-in policy, checked by the tests) regular expressions are compiled on
// first use rather than checked here.
func (p *Policy) prepare(v *validator, trusted, verifyExamples bool) (*Policy, error) {
	if p.Version != 1 {
		if p.Version == 0 && v.pos("version") == nil {
			v.add("", "missing required key: version = 1", "")
		} else {
			v.add("version", fmt.Sprintf("unsupported version %d: this stockade reads version 1", p.Version), "")
		}
	}
	if p.Default != "" && !p.Default.valid() {
		v.add("default", fmt.Sprintf("default is %q: want allow, ask or deny", p.Default), "")
	}
	for _, c := range SandboxChoices {
		val := *c.field(&p.Sandbox)
		if val != "" && !c.Allows(val) {
			v.add("sandbox."+c.Key, c.problem(val), suggest(val, c.Values))
		}
	}
	if p.Sandbox.MaxProcesses < 0 {
		v.add("sandbox.max_processes", maxProcessesProblem, "")
	}
	for _, k := range []struct {
		key   string
		paths []string
	}{{"writable_roots", p.Sandbox.WritableRoots}, {"readable_roots", p.Sandbox.ReadableRoots}, {"deny_read", p.Sandbox.DenyRead}} {
		for _, r := range k.paths {
			if r == "" || !(r[0] == '/' || r[0] == '~' || strings.HasPrefix(r, "$HOME")) {
				v.add("sandbox."+k.key, fmt.Sprintf("%s entry %q: want an absolute path or one under ~", k.key, r), "")
			}
		}
	}
	for _, r := range p.Sandbox.Protected {
		if r == "" || slices.Contains(strings.Split(r, "/"), "..") {
			v.add("sandbox.protected", fmt.Sprintf("protected entry %q: want a path in the workdir, an absolute path or one under ~, without ..", r), "")
		}
	}
	for i, r := range p.Sandbox.WritableRoots {
		if normPath(r, places{}) == "/" {
			v.add("sandbox.writable_roots", fmt.Sprintf("writable_roots[%d] is /: use filesystem = \"off\" to turn file-system confinement off", i), "")
		}
	}
	for _, k := range []struct {
		key   string
		globs []string
	}{{"keep", p.Env.Keep}, {"scrub", p.Env.Scrub}} {
		for _, g := range k.globs {
			if g == "" || checkGlob(g) != nil {
				v.add("env."+k.key, fmt.Sprintf("bad name pattern %q", g), "")
			}
		}
	}
	if _, err := netproxy.ParseAllowlist(p.Network.Allow); err != nil {
		v.add("network.allow", err.Error(), "")
	}
	for k := range p.Env.Set {
		if !validEnvName(k) {
			v.add("env.set", fmt.Sprintf("bad variable name %q", k), "")
		}
	}
	before := len(v.errs)
	seen := map[string]int{}
	for i, r := range p.Rules {
		key := "rule." + strconv.Itoa(i)
		if r == nil {
			continue
		}
		switch {
		case r.Name == "":
			v.add(key, fmt.Sprintf("rule %d has no name", i+1), "")
		case seen[r.Name] > 0:
			v.add(key+".name", fmt.Sprintf("rule name %q is used twice", r.Name), "")
		case r.Name == RuleDefault || r.Name == RuleParseError:
			v.add(key+".name", fmt.Sprintf("rule name %q is reserved", r.Name), "")
		}
		seen[r.Name]++
		if !r.Decision.valid() {
			v.add(key+".decision", fmt.Sprintf("rule %q: decision is %q: want allow, ask or deny", r.Name, r.Decision), suggest(string(r.Decision), []string{"allow", "ask", "deny"}))
		}
		if r.Reason == "" && r.Decision != Allow {
			v.add(key, fmt.Sprintf("rule %q has no reason: say why, for the person who reads the decision", r.Name), "")
		}
		checkGrant(v, key, r)
		r.Matcher.compile(reporter{v: v, index: i, rule: r.Name}, trusted)
	}
	if len(v.errs) > before || (len(v.errs) > 0 && !verifyExamples && !v.collect) {
		return nil, v.errs // rules that do not compile cannot be tried on their examples
	}
	p.homeDir, _ = os.UserHomeDir()
	p.index()
	if verifyExamples {
		p.verifyExamples(v, p)
		if len(v.errs) > 0 {
			v.sort()
			return nil, v.errs
		}
		p.examples = true
	}
	return p, nil
}

func (v *validator) sort() {
	slices.SortStableFunc(v.errs, func(a, b *Error) int { return cmp.Compare(a.Line, b.Line) })
}

func validEnvName(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for _, c := range s {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

func (p *Policy) index() {
	p.denyRead = make([]string, 0, len(p.Sandbox.DenyRead))
	for _, d := range p.Sandbox.DenyRead {
		p.denyRead = append(p.denyRead, normPath(d, places{home: p.homeDir}))
	}
	// Two passes: count the rules of each name, then place them, so that
	// the lists share one array and loading allocates little.
	n := 0
	for _, r := range p.Rules {
		n += len(r.Command)
	}
	p.byName = make(map[string]int32, n)
	p.anyName, p.nameGlobs, p.pathNamed, p.gated = nil, nil, nil, [gateCount][]int{}
	p.gates = make([]gate, len(p.Rules))
	var count []int32
	for i, r := range p.Rules {
		p.gates[i] = gateOf(&r.Matcher)
		if len(r.Command) == 0 {
			if g := p.gates[i]; g != 0 {
				k := bits.TrailingZeros8(uint8(g))
				p.gated[k] = append(p.gated[k], i)
			} else {
				p.anyName = append(p.anyName, i)
			}
			continue
		}
		var globs []string
		paths := false
		for _, name := range r.Command {
			switch {
			case isNamePath(name):
				paths = true
				continue
			case isNameGlob(name):
				globs = append(globs, name)
				continue
			}
			id, ok := p.byName[name]
			if !ok {
				id = int32(len(count))
				p.byName[name] = id
				count = append(count, 0)
			}
			count[id]++
		}
		g := nameGlobs{i, compileNames(globs)}
		if globs != nil {
			p.nameGlobs = append(p.nameGlobs, g)
		}
		if paths {
			p.pathNamed = append(p.pathNamed, g)
		}
	}
	p.nameStart = make([]int32, len(count)+1)
	for id, c := range count {
		p.nameStart[id+1] = p.nameStart[id] + c
	}
	p.nameRules = make([]int, p.nameStart[len(count)])
	next := count // reused: where the next rule of each name goes
	copy(next, p.nameStart)
	for i, r := range p.Rules {
		for _, name := range r.Command {
			if !isNamePath(name) && !isNameGlob(name) {
				id := p.byName[name]
				p.nameRules[next[id]] = i
				next[id]++
			}
		}
	}
}

// verifyExamples checks that every example of a rule is matched by that rule
// and gets its decision from the policy, and that no not_example is matched.
// The rules tried are those of file, the policy file v reports on, that p
// holds.
func (p *Policy) verifyExamples(v *validator, file *Policy) {
	for j, r := range file.Rules {
		i := slices.Index(p.Rules, r)
		if i < 0 {
			continue
		}
		key := "rule." + strconv.Itoa(j)
		for _, ex := range r.Examples {
			d, matched, err := p.checkWith(ex, i)
			switch {
			case err != nil:
				v.add(key+".examples", fmt.Sprintf("rule %q: example %q does not parse: %v", r.Name, ex, err), "")
			case !matched:
				v.add(key+".examples", fmt.Sprintf("rule %q does not match its example %q", r.Name, ex), "")
			case d.Verdict != r.Decision:
				v.add(key+".examples", fmt.Sprintf("rule %q: example %q gets %s from rule %q, not %s", r.Name, ex, d.Verdict, d.Rule, r.Decision), "")
			}
		}
		for _, ex := range r.NotExamples {
			_, matched, err := p.checkWith(ex, i)
			switch {
			case err != nil:
				v.add(key+".not_examples", fmt.Sprintf("rule %q: not_example %q does not parse: %v", r.Name, ex, err), "")
			case matched:
				v.add(key+".not_examples", fmt.Sprintf("rule %q matches its not_example %q", r.Name, ex), "")
			}
		}
	}
}

// checkWith judges script and reports whether rule ri matches any invocation.
func (p *Policy) checkWith(script string, ri int) (Decision, bool, error) {
	s, err := parseScript(script)
	if err != nil {
		return Decision{}, false, err
	}
	d := p.checkScript(s, &script) // as Check judges it, with the text
	invs := d.Invocations
	ctx := newScriptCtx(p, invs)
	ctx.text = &script
	for i := range invs {
		if p.Rules[ri].judges(ctx, i) && p.Rules[ri].match(ctx, i, ctx.arg(i)) {
			return d, true, nil
		}
	}
	return d, false, nil
}

// validator collects errors and finds positions of keys lazily.
type validator struct {
	// collect: errors other than rules that do not compile are left in errs
	// for the caller, which goes on to merge and try examples.
	collect bool
	file    string
	data    []byte
	locs    map[string]unstable.Position
	errs    Errors
}

func (v *validator) pos(key string) *unstable.Position {
	if v.locs == nil {
		v.locs = locate(v.data)
	}
	if p, ok := v.locs[key]; ok {
		return &p
	}
	return nil
}

// add records an error at key ("sandbox.network", "rule.3.decision"), or at
// the nearest enclosing key that has a position.
func (v *validator) add(key, msg, hint string) {
	e := &Error{File: v.file, Msg: msg, Hint: hint}
	for k := key; k != ""; {
		if p := v.pos(k); p != nil {
			e.Line, e.Col = p.Line, p.Column
			break
		}
		i := strings.LastIndexByte(k, '.')
		if i < 0 {
			break
		}
		k = k[:i]
	}
	v.errs = append(v.errs, e)
}

// locate maps every key of a TOML document to the position where it is
// written: "version", "sandbox", "sandbox.network", "rule.0" (the first
// [[rule]] header), "rule.0.decision".
func locate(data []byte) map[string]unstable.Position {
	locs := map[string]unstable.Position{}
	var p unstable.Parser
	p.Reset(data)
	prefix := ""
	counts := map[string]int{}
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			k, at := keyOf(&p, e.Key())
			if e.Kind == unstable.ArrayTable {
				n := counts[k]
				counts[k]++
				k += "." + strconv.Itoa(n)
			}
			prefix = k
			locs[k] = at
		case unstable.KeyValue:
			k, at := keyOf(&p, e.Key())
			locs[joinKey(prefix, k)] = at
		}
	}
	return locs
}

func keyOf(p *unstable.Parser, it unstable.Iterator) (string, unstable.Position) {
	var parts []string
	var at unstable.Position
	for it.Next() {
		n := it.Node()
		if len(parts) == 0 {
			at = p.Shape(n.Raw).Start
		}
		parts = append(parts, string(n.Data))
	}
	return strings.Join(parts, "."), at
}

// decodeErrors turns go-toml's errors into Errors with positions.
func decodeErrors(err error, file string) error {
	var sm *toml.StrictMissingError
	if errors.As(err, &sm) {
		var es Errors
		for i := range sm.Errors {
			de := &sm.Errors[i]
			line, col := de.Position()
			key := strings.Join(de.Key(), ".")
			last := de.Key()
			e := &Error{File: file, Line: line, Col: col, Msg: fmt.Sprintf("unknown key %q", key)}
			if len(last) > 0 {
				e.Hint = suggest(last[len(last)-1], knownKeys(last[:len(last)-1]))
			}
			es = append(es, e)
		}
		return es
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		line, col := de.Position()
		if k := de.Key(); len(k) == 1 && k[0] == "network" {
			return Errors{{File: file, Line: line, Col: col, Msg: "network is a table here ([network] allow = [...])",
				Hint: `the network mode is a key of [sandbox]: [sandbox] network = "` + strings.Join(SandboxChoice("network").Values, `" | "`) + `"`}}
		}
		return Errors{{File: file, Line: line, Col: col, Msg: typeMessage(strings.TrimPrefix(de.Error(), "toml: "), de.Key())}}
	}
	return Errors{{File: file, Msg: err.Error()}}
}

// goTypeMismatch matches go-toml's type errors, which name Go types and fields
// (compiled on first use: most runs meet no type error).
var goTypeMismatch = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^cannot decode TOML (.+?) into (?:struct field (\S+) of type )?(\S+)$`)
})

// policyTypes are the structs a policy file decodes into, by their Go names
// ("policy.Sandbox"), found from Policy by its toml-tagged fields (on first
// use: only a type error in a policy file needs them).
var policyTypes = sync.OnceValue(func() map[string]reflect.Type {
	types := map[string]reflect.Type{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		if _, seen := types[t.String()]; seen {
			return
		}
		types[t.String()] = t
		for _, f := range tomlFields(t) {
			if ft := structOf(f.Type); ft != nil {
				walk(ft)
			}
		}
	}
	walk(reflect.TypeFor[Policy]())
	return types
})

// typeMessage says a type error in the policy file's own words: the key, what
// it must hold, and what the file gave, without Go's type names.
func typeMessage(msg string, key []string) string {
	m := goTypeMismatch().FindStringSubmatch(msg)
	if m == nil {
		return msg
	}
	got, field, goType := m[1], m[2], m[3]
	name := strings.Join(key, ".")
	if name == "" && field != "" {
		name = tomlKey(field)
	}
	want := map[string]string{
		"string": "a string", "policy.Verdict": "allow, ask or deny (a string)", "int": "an integer",
		"bool": "true or false", "[]string": "an array of strings", "map[string]string": "a table of strings",
		"policy.Matcher": "a table of matcher keys", "[]*policy.Rule": "[[rule]] tables",
		"policy.Sandbox": "a table", "policy.Env": "a table",
	}[goType]
	if want == "" {
		want = "another type"
	}
	article := "a "
	if strings.IndexAny(got[:1], "aeiou") == 0 {
		article = "an "
	}
	if name == "" {
		return fmt.Sprintf("expected %s, got %s%s", want, article, got)
	}
	return fmt.Sprintf("%s: expected %s, got %s%s", name, want, article, got)
}

// tomlKey turns a Go field such as policy.Rule.Recursive into its key, recursive.
func tomlKey(field string) string {
	i := strings.LastIndexByte(field, '.')
	if i < 0 {
		return ""
	}
	t, ok := policyTypes()[field[:i]]
	if !ok {
		return ""
	}
	f, ok := t.FieldByName(field[i+1:])
	if !ok {
		return ""
	}
	return tomlName(f)
}

// knownKeys lists the keys allowed in the table at path, for suggestions:
// the toml tags of the schema's types (schema.go), so a new key is known as
// soon as its field is.
func knownKeys(path []string) []string {
	t := reflect.TypeFor[Policy]()
	for _, k := range path {
		f, ok := tomlField(t, k)
		if !ok {
			return nil
		}
		if t = structOf(f.Type); t == nil {
			return nil
		}
	}
	var keys []string
	for _, f := range tomlFields(t) {
		keys = append(keys, tomlName(f))
	}
	return keys
}

// tomlFields are the fields of struct t a policy file may set, in order;
// an embedded struct without a tag (Rule's Matcher) gives its own.
func tomlFields(t reflect.Type) []reflect.StructField {
	var out []reflect.StructField
	for i := range t.NumField() {
		f := t.Field(i)
		switch {
		case !f.IsExported() || tomlName(f) == "-":
		case f.Anonymous && f.Tag.Get("toml") == "":
			out = append(out, tomlFields(f.Type)...)
		default:
			out = append(out, f)
		}
	}
	return out
}

// tomlField is the field of struct t for key.
func tomlField(t reflect.Type, key string) (reflect.StructField, bool) {
	for _, f := range tomlFields(t) {
		if tomlName(f) == key {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

func tomlName(f reflect.StructField) string {
	return strings.Split(f.Tag.Get("toml"), ",")[0]
}

// structOf is the struct a value of type t holds ([]*Rule: Rule), or nil.
func structOf(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	return t
}

// suggest returns a "did you mean" hint for the closest of known to s.
func suggest(s string, known []string) string {
	best, bestD := "", 3
	for _, k := range known {
		if d := editDistance(s, k); d < bestD {
			best, bestD = k, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf("did you mean %q?", best)
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
