package policy

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Layers. A policy is the built-in policy with files merged over it, in
// this order, each later one over the earlier ones:
//
//  1. the built-in policy (default.toml), unless a file says extends = "none";
//  2. the user's file, UserFile (~/.config/stockade/policy.toml);
//  3. the project's file, ProjectFile (WORKDIR/.stockade/policy.toml);
//  4. the files given on the command line (--policy), in order.
//
// A key a file sets replaces the value of the layers before it ([env] set
// adds its names); its rules are added to theirs, and a rule name may be
// used once over all layers. A rule replaces an earlier layer's rule only by
// naming it in override. A file inside the workdir or a writable root – one
// the commands it judges could have written – may only add restrictions.

// Layer kinds, in merge order.
const (
	LayerBuiltin     = "built-in"
	LayerUser        = "user"
	LayerProject     = "project"
	LayerCommandLine = "command line"
)

// LayerInfo is one layer of a merged policy.
type LayerInfo struct {
	Kind string `json:"kind"`
	File string `json:"file,omitempty"`
	// Restricted: the file is where commands can write, so it may only add
	// restrictions.
	Restricted bool `json:"restricted,omitempty"`
}

func (l LayerInfo) String() string {
	s := l.Kind
	if l.File != "" {
		s += " " + l.File
	}
	if l.Restricted {
		s += " (inside the workdir: restrictions only)"
	}
	return s
}

// Sources says where the layers of a policy come from.
type Sources struct {
	// Workdir is where commands run: its ProjectFile is read, and a file
	// inside it may only add restrictions. "": no project layer.
	Workdir string
	// User is the user's policy file, read when it exists; see UserFile.
	User string
	// Files are the files given on the command line, in order; each must exist.
	Files []string
}

// UserFile is the user's policy file: $XDG_CONFIG_HOME/stockade/policy.toml,
// or ~/.config/stockade/policy.toml; "" when neither is known.
func UserFile() string {
	dir := os.Getenv("XDG_CONFIG_HOME")
	if dir == "" || !filepath.IsAbs(dir) {
		home, err := os.UserHomeDir()
		if err != nil || home == "" {
			return ""
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "stockade", "policy.toml")
}

// ProjectFile is the project's policy file in workdir.
func ProjectFile(workdir string) string {
	return filepath.Join(workdir, ".stockade", "policy.toml")
}

// LoadLayers reads the layers s names and merges them over the built-in
// policy. With no file to read it returns Default().
func LoadLayers(s Sources) (*Policy, error) {
	var files []layerFile
	var trustedRoots []string // where commands can write: the workdir, then writable roots
	if s.Workdir != "" {
		trustedRoots = append(trustedRoots, s.Workdir)
	}
	read := func(kind, path string, mustExist bool) error {
		data, err := os.ReadFile(path)
		if err != nil {
			if !mustExist && errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return fmt.Errorf("reading policy: %w", err)
		}
		for _, f := range files {
			if sameFile(f.path, path) {
				return nil // the project file also given with --policy: read once
			}
		}
		files = append(files, layerFile{kind: kind, path: path, data: data})
		return nil
	}
	if s.User != "" {
		if err := read(LayerUser, s.User, false); err != nil {
			return nil, err
		}
	}
	if s.Workdir != "" {
		if err := read(LayerProject, ProjectFile(s.Workdir), false); err != nil {
			return nil, err
		}
	}
	for _, f := range s.Files {
		if err := read(LayerCommandLine, f, true); err != nil {
			return nil, err
		}
	}
	if len(files) == 0 {
		return Default(), nil
	}
	for i := range files {
		files[i].restricted = insideAny(files[i].path, trustedRoots)
	}
	return mergeLayers(files, true)
}

// LoadIn reads the file at path and merges it over the built-in policy, as
// a layer of a policy for commands run in workdir: if the file is inside
// workdir, it may only add restrictions. `stockade policy lint` uses it.
func LoadIn(path, workdir string) (*Policy, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading policy: %w", err)
	}
	f := layerFile{kind: LayerCommandLine, path: path, data: data}
	f.restricted = workdir != "" && insideAny(path, []string{workdir})
	return mergeLayers([]layerFile{f}, true)
}

// insideAny reports whether path is in (or is) one of dirs, after symbolic
// links are resolved.
func insideAny(path string, dirs []string) bool {
	p := resolved(path)
	for _, d := range dirs {
		d = resolved(d)
		if d == "" {
			continue
		}
		if rel, err := filepath.Rel(d, p); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			return true
		}
	}
	return false
}

func resolved(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return ""
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r
	}
	// A file that does not exist yet: resolve its directory.
	if r, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		return filepath.Join(r, filepath.Base(abs))
	}
	return abs
}

func sameFile(a, b string) bool {
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

// layerFile is one file to merge.
type layerFile struct {
	kind       string
	path       string
	data       []byte
	restricted bool
}

const restrictedHint = "this file is inside the workdir, which the commands it judges can write, so it may only add restrictions; put the rest in " +
	"~/.config/stockade/policy.toml or in a --policy file outside the workdir"

// mergeLayers decodes files and merges them, in order, over the built-in
// policy; with verifyExamples, the examples of every file's rules are tried
// on the merged policy.
func mergeLayers(files []layerFile, verifyExamples bool) (*Policy, error) {
	type decoded struct {
		p *Policy
		v *validator
	}
	ds := make([]decoded, len(files))
	var errs Errors
	for i, f := range files {
		p, v, err := decodeLayer(f.data, f.path)
		if err != nil {
			var es Errors
			if !errors.As(err, &es) {
				return nil, err
			}
			errs = append(errs, es...)
			continue
		}
		ds[i] = decoded{p, v}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	base := Default()
	extends := true
	for i, d := range ds {
		if d.p.Extends == "none" && !files[i].restricted {
			extends = false
		}
	}
	out := &Policy{Version: 1, Default: base.Default, Sandbox: base.Sandbox, Source: files[len(files)-1].path}
	out.Sandbox.WritableRoots = slices.Clone(base.Sandbox.WritableRoots)
	out.Sandbox.ReadableRoots = slices.Clone(base.Sandbox.ReadableRoots)
	out.Sandbox.DenyRead = slices.Clone(base.Sandbox.DenyRead)
	out.Sandbox.Protected = slices.Clone(base.Sandbox.Protected)
	out.Env = Env{Keep: slices.Clone(base.Env.Keep), Scrub: slices.Clone(base.Env.Scrub)}
	out.Network.Allow = slices.Clone(base.Network.Allow)
	if !extends {
		out.Extends = "none"
	}
	names := map[string]bool{}
	if extends {
		out.Rules = slices.Clone(base.Rules)
		out.Layers = append(out.Layers, LayerInfo{Kind: LayerBuiltin})
		for _, r := range base.Rules {
			names[r.Name] = true
		}
	}
	for i, d := range ds {
		f := files[i]
		out.Layers = append(out.Layers, LayerInfo{Kind: f.kind, File: f.path, Restricted: f.restricted})
		out.mergeLayer(d.p, d.v, f, names)
	}
	for _, r := range out.Rules {
		if r.Override != "" {
			out.overrides = true
		}
	}
	out.homeDir, _ = os.UserHomeDir()
	out.index()
	for _, d := range ds {
		if verifyExamples {
			out.verifyExamples(d.v, d.p)
		}
		d.v.sort()
		errs = append(errs, d.v.errs...)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	out.examples = verifyExamples
	return out, nil
}

// mergeLayer merges file p (checked by v) into out. names holds the rule
// names of the layers merged so far.
func (out *Policy) mergeLayer(p *Policy, v *validator, f layerFile, names map[string]bool) {
	origin := f.kind + " " + f.path
	restricted := func(key, what string) {
		v.add(key, fmt.Sprintf("%s: a policy file inside the workdir may only add restrictions", what), restrictedHint)
	}
	// loosening is a list that can only open things up: a workdir file may
	// not set it; any other layer that sets it replaces the one below.
	loosening := func(dst *[]string, src []string, key, what string) {
		switch {
		case f.restricted && len(src) > 0:
			restricted(key, what)
		case src != nil:
			*dst = src
		}
	}
	switch p.Extends {
	case "", LayerBuiltin:
	case "none":
		if f.restricted {
			restricted("extends", `extends = "none" drops the built-in rules`)
			return // its rules would only repeat the built-in names
		}
	default:
		v.add("extends", fmt.Sprintf("extends is %q: want \"built-in\" (the default) or \"none\"", p.Extends), "")
	}
	if p.Default.valid() {
		if f.restricted && out.defaultVerdict().Stricter(p.Default) {
			restricted("default", fmt.Sprintf("default = %q is less strict than %q", p.Default, out.defaultVerdict()))
		} else {
			out.Default = p.Default
		}
	}
	for _, c := range SandboxChoices {
		val := *c.field(&p.Sandbox)
		if !c.Allows(val) {
			continue // unset, or reported by prepare
		}
		cur := cmp.Or(*c.field(&out.Sandbox), c.Default)
		if f.restricted && c.Looser(val, cur) {
			restricted("sandbox."+c.Key, fmt.Sprintf("%s = %q is less strict than %q", c.Key, val, cur))
			continue
		}
		*c.field(&out.Sandbox) = val
	}
	if n := p.Sandbox.MaxProcesses; n > 0 {
		if f.restricted && out.Sandbox.MaxProcesses > 0 && n > out.Sandbox.MaxProcesses {
			restricted("sandbox.max_processes", fmt.Sprintf("max_processes = %d is more than %d", n, out.Sandbox.MaxProcesses))
		} else {
			out.Sandbox.MaxProcesses = n
		}
	}
	loosening(&out.Sandbox.WritableRoots, p.Sandbox.WritableRoots, "sandbox.writable_roots", "writable_roots makes more writable")
	loosening(&out.Sandbox.ReadableRoots, p.Sandbox.ReadableRoots, "sandbox.readable_roots", "readable_roots may make more readable")
	switch {
	case f.restricted:
		out.Sandbox.DenyRead = append(out.Sandbox.DenyRead, p.Sandbox.DenyRead...)
	case p.Sandbox.DenyRead != nil:
		out.Sandbox.DenyRead = p.Sandbox.DenyRead
	}
	// Protected paths only restrict: every layer adds its own.
	out.Sandbox.Protected = append(out.Sandbox.Protected, p.Sandbox.Protected...)
	loosening(&out.Network.Allow, p.Network.Allow, "network.allow", "network.allow makes more hosts reachable")
	loosening(&out.Env.Keep, p.Env.Keep, "env.keep", "env.keep lets secrets through")
	switch {
	case f.restricted:
		out.Env.Scrub = append(out.Env.Scrub, p.Env.Scrub...)
	case p.Env.Scrub != nil:
		out.Env.Scrub = p.Env.Scrub
	}
	if len(p.Env.Set) > 0 {
		if f.restricted {
			restricted("env.set", "env.set can change what commands run")
		} else {
			if out.Env.Set == nil {
				out.Env.Set = map[string]string{}
			}
			for k, val := range p.Env.Set {
				out.Env.Set[k] = val
			}
		}
	}
	own := map[string]bool{}
	for _, r := range p.Rules {
		own[r.Name] = true
	}
	for i, r := range p.Rules {
		key := fmt.Sprintf("rule.%d", i)
		if names[r.Name] {
			v.add(key+".name", fmt.Sprintf("rule name %q is already used by an earlier layer (%s)", r.Name, out.originOf(r.Name)),
				fmt.Sprintf("to replace that rule, give yours another name and set override = %q", r.Name))
			continue
		}
		if f.restricted && r.Decision == Allow {
			restricted(key+".decision", fmt.Sprintf("rule %q allows", r.Name))
			continue
		}
		if f.restricted && len(r.AllowHosts) > 0 {
			restricted(key+".allow_hosts", fmt.Sprintf("rule %q grants hosts", r.Name))
			continue
		}
		if r.Override != "" {
			switch {
			case f.restricted:
				restricted(key+".override", fmt.Sprintf("rule %q overrides %q", r.Name, r.Override))
				continue
			case r.Override == r.Name:
				v.add(key+".override", fmt.Sprintf("rule %q overrides itself", r.Name), "")
			case !names[r.Override] && !own[r.Override]:
				v.add(key+".override", fmt.Sprintf("rule %q overrides %q, which no layer defines", r.Name, r.Override), suggest(r.Override, out.ruleNames()))
			}
		}
		r.Origin = origin
		out.Rules = append(out.Rules, r)
	}
	for _, r := range p.Rules {
		names[r.Name] = true
	}
}

func (p *Policy) originOf(name string) string {
	for _, r := range p.Rules {
		if r.Name == name {
			if r.Origin == "" {
				return LayerBuiltin
			}
			return r.Origin
		}
	}
	return ""
}

func (p *Policy) ruleNames() []string {
	out := make([]string, len(p.Rules))
	for i, r := range p.Rules {
		out[i] = r.Name
	}
	return out
}
